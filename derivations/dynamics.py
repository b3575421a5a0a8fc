"""Regenerate derivations/generated/dynamics.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/dynamics.py`
(or `slr-verify derive dynamics --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["dynamics"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["dynamics"], out=Path(__file__).resolve().parent / "generated"))
