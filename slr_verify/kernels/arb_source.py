r"""The ball kernels as committed source: SymPy expressions -> Python modules of the checker (`docs/certificates.md`).

:func:`function_source` prints one kernel, a function of arb balls (or ``arb_series``, or the checker's Taylor models
where only rational operations occur) whose every operation is a call of :mod:`slr_verify.checker.runtime`, so that
its result encloses the expressions' values over the argument balls. :func:`module_source` prints a premise's module:
its name, the SymPy statements proved about its expressions, and its kernels. The files are written into
``slr_verify/checker/generated/`` by ``slr-verify derive --arb`` and compared by ``slr-verify derive --check``
(:mod:`slr_verify.kernels.premises`); the checker loads them without SymPy.

The printer refuses what ball arithmetic cannot evaluate soundly as printed (:func:`refuse_unsound`): Piecewise, Max,
Min, sign, Abs, Heaviside, floor, relations, float constants and any function it does not know. Only the operations of
:data:`ALLOWED` reach the source.
"""
from __future__ import annotations

import keyword
import re

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from ..symbolic.zeta import zeta, zetac

#: the expression heads the printer admits (each has a sound ball or series evaluation in the runtime)
ALLOWED = (sp.Add, sp.Mul, sp.Pow, sp.Symbol, sp.Integer, sp.Rational, sp.erf, sp.erfc, sp.exp, sp.asin, sp.log, sp.cos,
           sp.sin, zeta, zetac)
_CONSTANTS = (sp.core.numbers.Pi, sp.core.numbers.Half, sp.core.numbers.One, sp.core.numbers.Zero,
              sp.core.numbers.NegativeOne)

#: SymPy's names of the paper's symbols that are not Python identifiers, and what the source calls them
_RENAME = {"lambda": "lam", "epsilon": "eps"}


def refuse_unsound(expr) -> None:
    """``ValueError`` naming the first subexpression whose head is not in :data:`ALLOWED`."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Float):
            raise ValueError(f"a float constant {node} has no exact ball: derive the expression with exact numbers")
        if isinstance(node, _CONSTANTS + ALLOWED):
            continue
        raise ValueError(f"the ball code generator refuses {type(node).__name__} (in {str(node)[:80]}): it has no sound "
                         "ball evaluation as printed")


def arg_name(sym) -> str:
    """The source's name of the argument symbol ``sym``."""
    name = _RENAME.get(sym.name, sym.name)
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(f"argument {sym} has no usable name in the generated source")
    return name


class _Printer(PythonCodePrinter):
    """Calls of the runtime (``_erf``, ``_ipow``, ...); exact rationals as ball quotients."""

    def _print_Symbol(self, e):
        return _RENAME.get(e.name, e.name)

    _print_Dummy = _print_Symbol

    def _print_Integer(self, e):
        return str(int(e))

    def _print_Rational(self, e):
        return "(arb(%d)/%d)" % (e.p, e.q)

    def _print_Half(self, e):
        return "(arb(1)/2)"

    def _print_Pi(self, e):
        return "arb.pi()"

    def _print_Pow(self, e, rational=False):
        b, x = e.args
        if x == sp.S.Half:
            return "ball_sqrt(%s)" % self._print(b)
        if x == -sp.S.Half:
            return "(1/ball_sqrt(%s))" % self._print(b)
        if x.is_Integer:
            return "ball_ipow(%s, %d)" % (self._print(b), int(x))
        return "ball_pow(%s, %s)" % (self._print(b), self._print(x))

    def _call(self, name, e):
        return "%s(%s)" % (name, ", ".join(self._print(a) for a in e.args))

    _print_erf = lambda self, e: self._call("ball_erf", e)
    _print_erfc = lambda self, e: self._call("ball_erfc", e)
    _print_exp = lambda self, e: self._call("ball_exp", e)
    _print_asin = lambda self, e: self._call("ball_asin", e)
    _print_log = lambda self, e: self._call("ball_log", e)
    _print_cos = lambda self, e: self._call("ball_cos", e)
    _print_sin = lambda self, e: self._call("ball_sin", e)
    _print_zeta = lambda self, e: self._call("ball_zeta", e)
    _print_zetac = lambda self, e: self._call("ball_zetac", e)


def _printer():
    return _Printer({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": False,
                     "user_functions": {}})


def _shared(args, exprs) -> tuple:
    """(the source's argument names, the first argument as it appears in the expressions, the cse replacements, the
    reduced outputs) of ``exprs`` in ``args``, every expression refused or admitted by :func:`refuse_unsound`."""
    names = [arg_name(a) for a in args]
    # an argument SymPy names by a Python keyword (lambda) becomes a Dummy of the source's name, as sympy.lambdify does:
    # SymPy then orders the factors of a product as in the kernels the searches use, so both round alike
    dummies = {a: sp.Dummy(n) for a, n in zip(args, names) if n != a.name}
    exprs = [sp.sympify(e).xreplace(dummies) for e in exprs]
    for e in exprs:
        refuse_unsound(e)
    taken = set(names)
    symbols = (sp.Symbol(f"x{i}") for i in range(10**7) if f"x{i}" not in taken)
    reps, reduced = sp.cse(exprs, symbols=symbols)
    return names, dummies.get(args[0], args[0]), reps, reduced


def _returns(p, reduced) -> str:
    """The return statement of the outputs (a constant output an exact ball)."""
    outs = [f"as_ball({p.doprint(e)})" if e.is_Number else p.doprint(e) for e in reduced]
    return "    return [" + ",\n            ".join(outs) + "]"


def function_source(name, args, exprs, doc) -> str:
    """The source of ``def name(args): ... return [exprs]`` with shared subexpressions (``sympy.cse``); a constant
    output is an exact ball."""
    names, _, reps, reduced = _shared(args, exprs)
    p = _printer()
    lines = [f"def {name}({', '.join(names)}):", f'    """{doc}"""']
    lines += [f"    {s} = {p.doprint(e)}" for s, e in reps]
    return "\n".join(lines + [_returns(p, reduced)]) + "\n"


def split_function_source(name, args, exprs, doc) -> str:
    """Two kernels for ``exprs`` in ``args`` = (x, *rest): ``name_pre(*rest)``, the list of the shared subexpressions
    free of x (``sympy.cse``), and ``name(x, pre)``, the rest from them. A caller evaluating many x at the same rest
    evaluates ``name_pre`` once (the coefficients at one lam ball and many kappa boxes); the two compose to exactly the
    statements :func:`function_source` prints, in the same order."""
    names, x, reps, reduced = _shared(args, exprs)
    free, dependent = [], {x}
    for s, e in reps:
        (dependent.add(s) if e.free_symbols & dependent else free.append((s, e)))
    shared = names[1:] + [str(s) for s, _ in free]  # the other arguments, then the subexpressions free of x
    p = _printer()
    pre = [f"def {name}_pre({', '.join(names[1:])}):", f'    """{name}\'s other arguments and its subexpressions free of '
           f'{names[0]}"""']
    pre += [f"    {s} = {p.doprint(e)}" for s, e in free] + ["    return [" + ", ".join(shared) + "]"]
    main = [f"def {name}({names[0]}, pre):", f'    """{doc} (``pre``: {name}_pre at the other arguments)"""']
    main.append(f"    {', '.join(shared)} = pre")
    main += [f"    {s} = {p.doprint(e)}" for s, e in reps if s in dependent]
    return "\n".join(pre) + "\n\n\n" + "\n".join(main + [_returns(p, reduced)]) + "\n"


def module_source(premise, summary, statements, functions, constants=None) -> str:
    """A premise's module: ``PREMISE`` (its name), ``STATEMENTS`` (the SymPy proofs it states, proved by
    ``slr-verify derive --check``), ``constants`` ({NAME: (comment, value)}, values printed by repr) and the kernels
    ``functions`` ((name, args, exprs, doc) each)."""
    head = (f'"""Premise ``{premise}``: {summary}\n\nGenerated by ``slr-verify derive --arb`` from slr_verify.symbolic; do '
            'not edit (``slr-verify derive --check`` regenerates and compares).\n"""\n')
    fns = "\n\n".join((split_function_source(*f[1:]) if f[0] == "split" else function_source(*f)) for f in functions)
    used = lambda names: sorted(n for n in names if re.search(rf"\b{n}\(", fns))
    elementary = used(["as_ball", "ball_asin", "ball_cos", "ball_erf", "ball_erfc", "ball_exp", "ball_ipow", "ball_log",
                       "ball_pow", "ball_sin", "ball_sqrt"])
    zetas = used(["ball_zeta", "ball_zetac"])
    imports = ("from flint import arb  # noqa: F401  (exact rationals: arb(p)/q)\n\n" if "arb(" in fns else "") \
        + (f"from ..runtime import {', '.join(elementary)}\n" if elementary else "") \
        + (f"from ..zeta_runtime import {', '.join(zetas)}\n" if zetas else "")
    body = f"PREMISE = {premise!r}\n\n#: the SymPy statements proved about the expressions below\nSTATEMENTS = (\n"
    body += "".join(f"    {s!r},\n" for s in statements) + ")\n"
    for name, (comment, value) in (constants or {}).items():
        body += f"\n#: {comment}\n{name} = {value!r}\n"
    return head + (imports + "\n" if functions else "") + body + ("\n\n" + fns if functions else "")
