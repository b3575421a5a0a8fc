"""Regenerate derivations/generated/risk.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/risk.py`
(or `slr-verify derive risk --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["risk"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["risk"], out=Path(__file__).resolve().parent / "generated"))
