"""Regenerate derivations/generated/profile.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/profile.py`
(or `slr-verify derive profile --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["profile"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["profile"], out=Path(__file__).resolve().parent / "generated"))
