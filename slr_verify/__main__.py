"""``python -m slr_verify``: the command line (:mod:`slr_verify.cli`)."""
import sys

try:
    from slr_verify.cli import main
except KeyboardInterrupt:  # Ctrl-C while the package is imported: one line, like everywhere else
    import os

    print("\nslr-verify: interrupted (Ctrl-C)", file=sys.stderr, flush=True)
    os._exit(1)  # not SystemExit: a Ctrl-C caught from code run by exec still ends the teardown by SIGINT (exit -2)

if __name__ == "__main__":  # the guard keeps worker processes (spawned by ``check``) from rerunning the CLI
    raise SystemExit(main())
