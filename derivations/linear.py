"""Regenerate derivations/generated/linear.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/linear.py`
(or `slr-verify derive linear --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["linear"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["linear"], out=Path(__file__).resolve().parent / "generated"))
