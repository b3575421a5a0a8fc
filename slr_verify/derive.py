"""The derived formulas (``slr-verify derive``): each derivation written as LaTeX and JSON.

Each derivation is a named group of SymPy expressions with the paper's numbering (:data:`DERIVATIONS`). It is
written as LaTeX (``NAME.tex``, for reading) and as JSON holding ``sympy.srepr`` of every
expression (``NAME.json``, machine-readable: :func:`load` rebuilds the expressions, and the
tests compare them with the live ones).

Where: ``--out DIR``, checked before any work (:func:`check_out`). Without ``--out`` the files go to
``slr-verify-derivations/`` under the working directory (:data:`DEFAULT_DIR`), never into the
checkout, and the command prints where; the committed files are regenerated with
``--out derivations/generated``. ``--check`` regenerates in memory and exits non-zero when a
committed file differs (it writes nothing; without ``--out`` it reads the checkout's
``derivations/generated``).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import sympy as sp

from .model.outputs import write_atomic
from .model.params import keywords_checked
from .symbolic import asymptotics as sasym
from .symbolic import dynamics as sdyn
from .symbolic import linear as slin
from .symbolic import multihead as smh
from .symbolic import profile_trs as ptrs
from .symbolic import risk as srisk
from .symbolic import setting_dependence as ssd
from .symbolic.zeta import zeta, zetac
from .symbolic.zeta2 import zeta2

__all__ = ["derive", "render", "load", "check_out", "main", "DERIVATIONS", "DEFAULT_DIR"]

S = srisk.S


def _risk():
    names = ("kappa", "nu", "theta", "eta", "rho")
    m = srisk.token_moments()
    out = {"theorem1_risk": ("Theorem 1 (App. C): R(kappa, nu, theta, eta, rho)", srisk.theorem1_risk())}
    for n, g in zip(names, srisk.theorem1_gradient()):
        out[f"partial_{n}"] = (f"dR/d{n}", g)
    for key, label in [("E_eU", "E[e erf(lam a) b], relevant token"), ("E_U", "E[erf(lam a) b], relevant token"),
                       ("E_U2", "E[erf(lam a)^2 b^2], relevant token"), ("E_Un", "E[erf(lam a') b'], null token"),
                       ("E_Un2", "E[erf(lam a')^2 b'^2], null token")]:
        out[f"moment_{key}"] = (label, getattr(m, key))
    return out


def _manifold():
    on_M = srisk.theorem1_risk().subs(srisk.manifold_point())
    return {
        "lemma6_risk": ("Lemma 6: R on M (theta = eta = rho = 0)", on_M),
        "lemma6_partial_kappa": ("dR/dkappa on M", sp.diff(on_M, S.kappa)),
        "lemma6_partial_nu": ("dR/dnu on M", sp.diff(on_M, S.nu)),
        "oracle_risk": ("Oracle risk R(k*, v*) (Theorem 1 at kappa = nu = 1)", srisk.theorem1_risk().subs(srisk.oracle_point())),
        "bayes_gap": ("Bayes gap R(k*, v*) - eps^2, complement form (Corollary 2)", srisk.bayes_gap_expr()),
    }


def _linear():
    uni = slin.linear_risk_uniform()
    return {
        "token_weight": ("Proposition 3: w_l = c(p_l) v*, coefficient c", slin.token_weight()[1]),
        "linear_risk": ("Proposition 3: R_lin for a law p", slin.linear_risk_expr()),
        "linear_risk_nonnegative": ("R_lin with non-negative terms (uses sum p = 1)", slin.linear_risk_nonneg_expr()),
        "linear_risk_uniform": ("R_lin, uniform p", uni),
        "linear_risk_limit": ("R_lin as L -> infinity (null predictor)", sp.limit(uni, S.L, sp.oo)),
    }


def _dynamics():
    names = ("kappa", "nu", "theta", "eta", "rho")
    out = {f"overlap_map_{n}": (f"PGD step, five-overlap map: {n}'", e) for n, e in zip(names, sdyn.overlap_map())}
    for n, e in zip(("kappa", "nu"), sdyn.reduced_map()):
        out[f"reduced_map_{n}"] = (f"PGD step restricted to M: {n}'", e)
    return out


def _multihead():
    x = sp.symbols("t1 t2 s11 s22 s12", real=True)
    out = {f"zeta2_d{n}": (f"d zeta2 / d {n} (bivariate zeta, `docs/MATH.md` §15)", sp.diff(zeta2(*x), v))
           for n, v in zip(("t1", "t2", "s11", "s22", "s12"), x)}
    labels = {"head_mean": "E[erf(lam a) b]", "head_target": "E[e erf(lam a) b]", "head_square": "E[erf(lam a)^2 b^2]",
              "head_pair": "E[erf(lam a) erf(lam a') b b'] (two heads on one token)"}
    for k, e in smh.functionals().items():
        out[k] = (f"token functional {labels[k]}", e)
    return out


def _asymptotics():
    lo = sasym.leading_orders()
    return {
        "zeta0_small_lambda": ("zeta_lam(0) = (2/pi) asin(2 lam^2/(1 + 2 lam^2)), series at lam -> 0", lo["zeta0_series"]),
        "null_part_exponent": ("(L - 1) zeta_lam(0) ~ (4/pi) d^e with lam = d^-a, L = d^b: e", lo["null_exponent"]),
        "relevant_part": ("gamma^2 E erfc(lam sqrt(d/2) + lam gamma Z)^2", sasym.relevant_part()),
        "relevant_part_expanded": ("the same, zetac = 1 - 2 erf(t/alpha) + zeta", lo["relevant_part_expanded"]),
    }


def _profile():
    co = ptrs.coefficients()
    out = {k: (f"R = c - 2 v^T b + v^T A v, coefficient {k}", getattr(co, k))
           for k in ("c", "a0", "a_tt", "a_tr", "a_rr", "p_theta", "p_nu", "p_rho")}
    t = ptrs.trs()
    for i in range(3):
        for j in range(i, 3):
            out[f"H{i + 1}{j + 1}"] = (f"TRS matrix H[{i + 1},{j + 1}] on (k*, v*, e)", t.H[i, j])
    for i in range(3):
        out[f"g{i + 1}"] = (f"TRS vector g[{i + 1}] on (k*, v*, e)", t.g[i])
    return out


def _settings():
    """`docs/MATH.md` §21: on M the noise and the null tokens add constants; raises when a step of the proof fails."""
    proofs = {**ssd.dependence_proofs(), **ssd.off_manifold_proofs()}
    failed = [k for k, ok in proofs.items() if not ok]
    if failed:
        raise RuntimeError(f"the setting-dependence proofs fail: {failed}")
    return {
        "reduced_risk_on_M": ("R on M - eps^2 - (L - 1) zeta_lam(0), in a = lam sqrt(d/2): free of eps and L",
                              ssd.reduced_risk()),
        "constants_on_M": ("what the noise and the null tokens add to R on M", ssd.constants_on_m()),
        "off_M_dL_of_R_rho": ("d/dL of dR/drho at a general point (L matters off M)", ssd.off_manifold_l_dependence()),
    }


#: name -> (paper numbering, function returning {key: (label, expression)})
DERIVATIONS = {
    "risk": ("Theorem 1 and its gradient", _risk),
    "manifold": ("Lemma 6, oracle risk, Bayes gap", _manifold),
    "linear": ("Proposition 3", _linear),
    "dynamics": ("Definition 1, Lemma 4 (PGD maps)", _dynamics),
    "asymptotics": ("Corollary 2", _asymptotics),
    "multihead": ("Multiple-location regression, multi-head risk (`docs/MATH.md` §15)", lambda: _multihead()),
    "profile": ("The risk as a quadratic in v and the profile's TRS (`docs/MATH.md` §17)", _profile),
    "settings": ("What the dynamics on M depend on: (lam, gamma, d), d through a (`docs/MATH.md` §21)", _settings),
}


def _known(name):
    """``name`` if it is a derivation; ``ValueError`` listing the derivations otherwise."""
    if not isinstance(name, str) or name not in DERIVATIONS:
        raise ValueError(f"unknown derivation {name!r}; the derivations: {', '.join(DERIVATIONS)}")
    return name


@keywords_checked
def derive(name):
    """The expressions of one derivation: {key: (label, expression)}."""
    return DERIVATIONS[_known(name)][1]()


@keywords_checked
def render(name):
    """(tex, json) text of one derivation, deterministic."""
    where, _ = DERIVATIONS[_known(name)]
    formulas = derive(name)
    tex = [f"% Generated by `slr-verify derive` ({name}: {where}). Do not edit.", ""]
    data = {"name": name, "paper": where, "sympy": sp.__version__, "formulas": {}}
    for key, (label, expr) in formulas.items():
        tex += [f"% {key}: {label}", r"\begin{dmath*}", sp.latex(expr), r"\end{dmath*}", ""]
        data["formulas"][key] = {"label": label, "srepr": sp.srepr(expr)}
    return "\n".join(tex), json.dumps(data, indent=1, sort_keys=True) + "\n"


def _namespace():
    ns = {name: getattr(sp, name) for name in dir(sp) if not name.startswith("_")}
    ns.update(zeta=zeta, zetac=zetac, zeta2=zeta2, Integer=sp.Integer, Rational=sp.Rational)
    return ns


@keywords_checked
def load(source):
    """Rebuild the expressions of a derivation: {key: expression}. ``source`` is a derivation's name
    (``load('manifold')``: what ``slr-verify derive manifold`` writes, generated in memory, no file
    needed) or the path of a generated JSON file (``NAME.json``, a ``str`` or a ``Path``). A string
    that is neither a derivation nor an existing file is a ``ValueError`` listing the derivations."""
    if isinstance(source, str) and source in DERIVATIONS:
        text = render(source)[1]
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and Path(source).is_file()):
        text = Path(source).read_text()
    else:
        raise ValueError(f"load: {source!r} is neither a derivation nor an existing file; "
                         f"the derivations: {', '.join(DERIVATIONS)}")
    data = json.loads(text)
    ns = _namespace()
    return {k: eval(v["srepr"], ns) for k, v in data["formulas"].items()}  # srepr is SymPy's own repr


#: the project's derivations folder next to the package (an editable install or a source tree)
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "derivations" / "generated"

#: where ``slr-verify derive`` writes without ``--out``: this folder under the working directory
DEFAULT_DIR = "slr-verify-derivations"

_GENERATED = Path("derivations") / "generated"


def _is_checkout(folder: Path) -> bool:
    """A source checkout of slr-verify: pyproject.toml naming the project and the derivations folder."""
    try:
        return (folder / _GENERATED).is_dir() and 'name = "slr-verify"' in (folder / "pyproject.toml").read_text()
    except OSError:
        return False


def default_out(start=None) -> Path:
    """The checkout's ``derivations/generated`` (what ``--check`` compares with by default): found from
    the working directory (or ``start``) upwards, else next to the package (editable install);
    ``ValueError`` saying what to pass when neither is a checkout (``pip install .`` puts the package
    in site-packages, without it)."""
    here = Path.cwd() if start is None else Path(start)
    for folder in (here, *here.resolve().parents):
        if _is_checkout(folder):
            return folder / _GENERATED
    if DEFAULT_OUT.is_dir():
        return DEFAULT_OUT
    raise ValueError(f"--out: no source checkout found from {str(here)!r} upwards or next to the installed package; "
                     "run from the slr-verify checkout, or pass --out PATH/derivations/generated")


@keywords_checked
def check_out(out) -> Path:
    """``out`` as a folder the derivations can be written to: an existing writable directory, or one
    that can be created (its nearest existing ancestor a writable directory). ``ValueError`` naming
    ``--out`` otherwise. Creates nothing."""
    path = Path(out).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"--out {out}: exists and is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"--out {out}: the directory is not writable")
        return path
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"--out {out}: cannot be created ({parent} is not a directory)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot be created ({parent} is not writable)")
    return path


def arb_kernels(check, stream) -> int:
    """The checker's committed ball kernels (:mod:`slr_verify.kernels.premises`): written into the package's
    ``slr_verify/checker/generated`` or, with ``check``, regenerated in memory and compared, each premise's SymPy
    statements proved (the rewritings for ball evaluation included); exit 1 when a module differs or a statement is
    not proved."""
    from .kernels.premises import check_generated, write_generated

    if not check:
        for path in write_generated():
            print(f"wrote {path}", file=stream)
        print("the certificates name the premises by these files' hashes: re-hash and replay the committed ones with "
              "`python benchmarks/rehash_certificates.py`", file=stream)
        return 0
    problems = {k: v for k, v in check_generated().items() if v is not None}
    for name, why in problems.items():
        print(f"premise {name}: {why}", file=stream)
    print("the checker's kernels are up to date and their premises proved" if not problems
          else f"{len(problems)} premise(s) stale or not proved: `slr-verify derive --arb` regenerates", file=stream)
    return 1 if problems else 0


@keywords_checked
def main(names=None, out=None, check=False, stream=None, arb=False) -> int:
    """Write (or, with ``check``, compare with) the generated files; return an exit code (2, with one
    line on ``stream``, for an unknown name or a bad ``out``, both checked before any work). ``arb``: the checker's
    ball kernels instead (:func:`arb_kernels`); ``check`` without names also checks them.

    Writing: into ``out``, by default :data:`DEFAULT_DIR` under the working directory (never the
    checkout: regenerate the committed files with ``out='derivations/generated'``); the folder is
    printed. ``check``: compares with ``out``, by default the checkout's ``derivations/generated``
    (:func:`default_out`), and writes nothing."""
    stream = sys.stderr if stream is None else stream
    if arb:
        return arb_kernels(check, stream)
    check_arb = check and not names and out is None
    names = list(names or DERIVATIONS)
    unknown = [n for n in names if n not in DERIVATIONS]
    if unknown:
        print(f"slr-verify derive: error: unknown derivation(s) {unknown}; choose among {list(DERIVATIONS)}", file=stream)
        return 2
    given = out is not None
    try:
        if check:
            out = Path(out) if given else default_out()
        else:
            out = check_out(out if given else DEFAULT_DIR)
    except ValueError as exc:
        print(f"slr-verify derive: error: {exc}", file=stream)
        return 2
    if check and not out.is_dir():
        print(f"slr-verify derive: error: --out {out} does not exist (run from a source checkout, or give --out)", file=stream)
        return 2
    stale, written = [], 0
    for name in names:
        tex, js = render(name)
        for path, text in ((out / f"{name}.tex", tex), (out / f"{name}.json", js)):
            if check:
                if not path.exists() or path.read_text() != text:
                    stale.append(str(path))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, lambda fh, text=text: fh.write(text.encode()))
                written += 1
                print(f"wrote {path}", file=stream)
    if check:
        for p in stale:
            print(f"differs from a fresh regeneration: {p}", file=stream)
        print("derivations up to date" if not stale
              else f"{len(stale)} file(s) stale: regenerate them with `slr-verify derive --out {out}`", file=stream)
        kernels_stale = arb_kernels(True, stream) if check_arb else 0
        return 1 if stale or kernels_stale else 0
    where = "" if given else f" (no --out given: {DEFAULT_DIR}/ under the working directory)"
    print(f"{written} files in {out.resolve()}{where}", file=stream)
    return 0


@keywords_checked
def add_derive_parser(subparsers):
    p = subparsers.add_parser("derive", help="write the derived formulas (LaTeX and JSON) into --out DIR")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"derivations among {', '.join(DERIVATIONS)} (default: all)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if the files in --out (default: the checkout's derivations/generated) differ "
                        "from a fresh regeneration")
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"the folder to write (created if needed; default: ./{DEFAULT_DIR}; the committed files: "
                        "--out derivations/generated)")
    p.add_argument("--arb", action="store_true",
                   help="the checker's ball kernels (slr_verify/checker/generated), one module per premise; with --check, "
                        "compare them with a regeneration and prove their premises (--check alone does this too)")
    p.set_defaults(func=lambda a: main(a.names, a.out, a.check, arb=a.arb))
