"""The work cap of a replay (``slr_verify.checker.work``, `docs/certificates.md`, "Reading"): a document whose predicted
work is over the cap is refused before anything is evaluated (the command line exits 2, naming the cap and the
document's predicted work); the committed certificates are far below it; the run-time meter (kernel calls, CPU
seconds) stops an evaluation the prediction let through, in this process and in forked workers alike."""
import glob
import gzip
import importlib
import json
import os

import pytest

from slr_verify.checker import parallel, work
from slr_verify.checker.reader import Unreadable, load
from slr_verify.checker.replay import replay

replay_module = importlib.import_module("slr_verify.checker.replay")  # the package's ``replay`` is the function
CERTS = os.path.join(os.path.dirname(work.__file__), "..", "certificates")


def _cert(name):
    return os.path.join(CERTS, f"{name}.json.gz")


def _cli(path, capsys):
    from slr_verify.cli import main

    try:
        code = main(["certify", "replay", str(path)])
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr()


def _no_evaluation(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("evaluated a document the work cap refuses")

    monkeypatch.setattr(replay_module, "_check", boom)


def test_the_cap_is_the_documented_one():
    """docs/certificates.md states these figures (and the time measured at them)."""
    assert (work.CAP, work.SECONDS) == (6_000_000, 360.0)
    assert max(work.WEIGHT.values()) * 500_000 == work.CAP  # MAX_LEAVES leaves of the dearest test: the cap
    # the weights the docs state ("12 for a value leaf, 10 for a valley leaf, ..., each circle piece 11, each lam piece
    # 3, each edge breakpoint 3, ... 1e-3 a pair"): a change to the prediction is a change to the documented bound
    assert (work.WEIGHT["value"], work.WEIGHT["valley"], work.WEIGHT["det-positive"]) == (12, 10, 1)
    assert (work.ITEM["circle"], work.ITEM["pieces"], work.ITEM["1"], work.ITEM["-1"], work.PAIR) == (11, 3, 3, 3, 1e-3)
    n, p = 1000, 7  # a theorem-5 scan: n leaves against p pieces, 1e-3 a pair, on top of the leaves' and pieces' calls
    doc = {"leaves": [{"test": "bounds"}] * n, "pieces": [{}] * p}
    assert work.predict(doc) == 100 + 1e-3 * n * p + work.WEIGHT["bounds"] * n + 3 * p
    rate = {"lam": [0.1, 0.2], "leaves": [{"test": "ratio"}] * n}  # a rate's area cells: 2 n^2 pairs at most
    assert work.predict(rate) == 100 + 1e-3 * n * 2 * n + 12 * n


def test_a_free_field_over_the_cap_is_refused_before_evaluation(tmp_path, capsys, monkeypatch):
    """At the real cap: 545,455 circle pieces (11 calls each), or edge breakpoints (3 each) with circle pieces, are
    predicted over it; the reader refuses the document, the command line exits 2 naming CAP and the predicted work,
    nothing is evaluated."""
    _no_evaluation(monkeypatch)
    doc = {"format": "slr-verify-certificate/1", "kind": "global-minimum-enclosure", "leaves": [], "circle": [0] * 545_455}
    p = tmp_path / "free.json.gz"
    with gzip.open(p, "wt", compresslevel=1) as f:
        f.write(json.dumps(doc))  # one write (json.dump's streamed chunks cost 6x the time)
    code, out = _cli(p, capsys)
    assert code == 2, out
    assert "CAP = 6000000" in out.err and "predicted work, 6e+06 kernel calls" in out.err, out.err
    with pytest.raises(Unreadable, match="CAP = 6000000"):
        replay(str(p))
    r = replay({**doc, "pieces": [{"edges": {"1": [0.0] * 600_000}}], "circle": [0] * 400_000})
    assert not r.accepted and "unreadable document" in r.reason and "CAP" in r.reason, r.reason


def test_many_leaves_over_the_cap_are_refused(tmp_path, capsys, monkeypatch):
    """A committed certificate, the cap lowered below its predicted work: refused before evaluation, exit 2."""
    _no_evaluation(monkeypatch)
    monkeypatch.setattr(work, "CAP", 1000)
    code, out = _cli(_cert("window_fig5"), capsys)
    monkeypatch.setattr(work, "CAP", 10**9)
    predicted = f"predicted work, {work.predict(load(_cert('window_fig5'))):.4g} kernel calls"
    assert code == 2 and "more than CAP = 1000" in out.err and predicted in out.err, out.err


def _worst_prediction(paths):
    return max(work.predict(load(p)) for p in paths)


@pytest.mark.slow  # reads all 57 committed certificates (2.5 s: the README run's budget; the main job replays them all)
def test_the_committed_certificates_are_far_below_the_cap():
    """Each committed certificate's predicted work is below a twentieth of the cap (the largest, window_fig4b's, 2.4e5
    kernel calls)."""
    paths = sorted(glob.glob(os.path.join(CERTS, "*.json.gz")))
    assert len(paths) > 50
    assert 2e5 < _worst_prediction(paths) < work.CAP / 20


@pytest.mark.parametrize("name", ["proposition10_fig4b", "hessian_signs_fig4b", "oracle_fig4b_lam0.3",
                                  "minimum_fig4b_lam0.9"])
def test_the_prediction_bounds_the_metered_calls(name):
    r = replay(_cert(name))
    assert r.accepted, r.reason
    assert 0 < work.CAP - work._M["calls"] <= work._M["predicted"]


def test_the_meter_stops_a_replay_the_prediction_let_through(capsys, monkeypatch):
    """A wrong prediction (0) with the cap at 100 kernel calls: the meter stops the replay (4364 calls); from a file the
    replay raises Unreadable (the command line: exit 2), from a dict it is rejected as unreadable."""
    monkeypatch.setattr(work, "predict", lambda doc: 0.0)
    monkeypatch.setattr(work, "CAP", 100)
    with pytest.raises(Unreadable, match="more than CAP = 100 kernel calls"):
        replay(_cert("proposition10_fig4b"))
    code, out = _cli(_cert("proposition10_fig4b"), capsys)
    assert code == 2 and "more than CAP = 100 kernel calls" in out.err, out.err
    r = replay(load(_cert("proposition10_fig4b")))
    assert not r.accepted and r.reason.startswith("rejected: unreadable document") and "CAP = 100" in r.reason
    monkeypatch.setattr(work, "CAP", 10_000)
    assert replay(_cert("proposition10_fig4b")).accepted  # 4364 calls: within


def test_the_meter_stops_on_cpu_seconds(monkeypatch):
    monkeypatch.setattr(work, "SECONDS", 0.0)
    with pytest.raises(Unreadable, match="SECONDS = 0.0 s of CPU"):
        replay(_cert("hessian_signs_fig4b"))


def test_the_meter_holds_in_forked_workers(monkeypatch):
    """Leaves tested in two forked workers: each meters what was left at the fork; the replay is stopped."""
    monkeypatch.setenv("SLR_VERIFY_CHECKER_WORKERS", "2")
    monkeypatch.setattr(parallel, "MIN_LEAVES", 10)
    if parallel.workers(1000) != 2:
        pytest.skip("no fork here (not POSIX, a daemon, or JAX loaded)")
    monkeypatch.setattr(work, "predict", lambda doc: 0.0)
    monkeypatch.setattr(work, "CAP", 300)
    with pytest.raises(Unreadable, match="more than CAP = 300"):
        replay(_cert("minimum_fig4b_lam0.9"))
    monkeypatch.setattr(work, "CAP", 3000)  # each worker may spend it: 1974 calls in all
    assert replay(_cert("minimum_fig4b_lam0.9")).accepted
