"""Regenerate derivations/generated/multihead.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/multihead.py`
(or `slr-verify derive multihead --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["multihead"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["multihead"], out=Path(__file__).resolve().parent / "generated"))
