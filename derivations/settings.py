"""Regenerate derivations/generated/settings.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/settings.py`
(or `slr-verify derive settings --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["settings"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["settings"], out=Path(__file__).resolve().parent / "generated"))
