"""``python -m slr_verify``: the command line (:mod:`slr_verify.cli`)."""
from slr_verify.cli import main

if __name__ == "__main__":  # the guard keeps worker processes (spawned by ``check``) from rerunning the CLI
    raise SystemExit(main())
