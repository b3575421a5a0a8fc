"""Regenerate derivations/generated/asymptotics.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/asymptotics.py`
(or `slr-verify derive asymptotics --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["asymptotics"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["asymptotics"], out=Path(__file__).resolve().parent / "generated"))
