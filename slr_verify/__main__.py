"""``python -m slr_verify``: the command line (:mod:`slr_verify.cli`)."""
import sys

try:
    from slr_verify.cli import main
except KeyboardInterrupt:  # Ctrl-C while the package is imported: one line, like everywhere else
    print("\nslr-verify: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(1)

if __name__ == "__main__":  # the guard keeps worker processes (spawned by ``check``) from rerunning the CLI
    raise SystemExit(main())
