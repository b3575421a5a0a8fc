"""Name the committed kernels' current hashes in the committed certificates (after ``slr-verify derive --arb`` rewrote
a premise's module), and their statements as the checker now derives them (after a kind's statement changed): only
the ``premises`` and ``statement`` fields change, the embedded certificates' too; the checker then replays each
certificate and decides, so a certificate whose leaves no longer pass under the new kernels is rejected (and this
script says so, exit 1).

    python benchmarks/rehash_certificates.py
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from slr_verify.checker import replay, statement
from slr_verify.checker.premises import premise_hash
from slr_verify.checker.registry import KINDS, required_premises

FOLDER = Path(__file__).resolve().parent.parent / "slr_verify" / "certificates"


def main() -> int:
    bad = 0
    for path in sorted(FOLDER.glob("*.json.gz")):
        doc = json.loads(gzip.decompress(path.read_bytes()))
        for d in [doc[k] for k in KINDS[doc["kind"]].embedded if isinstance(doc.get(k), dict)] + [doc]:
            d["premises"] = [{"name": n, "hash": premise_hash(n)} for n in required_premises(d["kind"], d)]
            d["statement"] = statement(d)
        r = replay(doc)
        print(f"{path.name}: {'accepted' if r.accepted else r.reason}", flush=True)
        bad += not r.accepted
        if r.accepted:
            path.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
