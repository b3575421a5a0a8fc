"""Regenerate derivations/generated/manifold.{tex,json} (see derivations/README.md).

Run from the repository root: `python derivations/manifold.py`
(or `slr-verify derive manifold --out derivations/generated`).
The expressions themselves live in the package (`slr_verify.derive.DERIVATIONS["manifold"]`).
"""
import sys
from pathlib import Path

from slr_verify.derive import main

if __name__ == "__main__":
    sys.exit(main(["manifold"], out=Path(__file__).resolve().parent / "generated"))
