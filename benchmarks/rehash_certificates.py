"""Name the committed kernels' current hashes in the committed certificates (after ``slr-verify derive --arb`` rewrote
a premise's module): only the ``premises`` field changes; the checker then replays each certificate and decides, so a
certificate whose leaves no longer pass under the new kernels is rejected (and this script says so, exit 1).

    python benchmarks/rehash_certificates.py
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from slr_verify.checker import replay
from slr_verify.checker.premises import premise_hash
from slr_verify.checker.registry import required_premises

FOLDER = Path(__file__).resolve().parent.parent / "slr_verify" / "certificates"


def main() -> int:
    bad = 0
    for path in sorted(FOLDER.glob("*.json.gz")):
        doc = json.loads(gzip.decompress(path.read_bytes()))
        doc["premises"] = [{"name": n, "hash": premise_hash(n)} for n in required_premises(doc["kind"], doc)]
        r = replay(doc)
        print(f"{path.name}: {'accepted' if r.accepted else r.reason}", flush=True)
        bad += not r.accepted
        if r.accepted:
            path.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
