"""The suite's one parallel engine (slr_verify/model/engine.py): its schedulers, its tasks in this process and on
Dask, its cancellation, and the oracle proof's lam pieces on it (one entry per piece, in piece order, None after the
first failure)."""
from __future__ import annotations

import time

import pytest

from slr_verify.certify import oracle_proof
from slr_verify.certify.bisection import Progress
from slr_verify.model import engine as E


def test_the_scheduler_is_resolved_as_the_sweep_always_did():
    assert E.resolve(None, 1) == "sync" and E.resolve(None, 2) == "local"
    assert E.resolve("sync", 4) == "sync" and E.resolve("tcp://10.0.0.1:8786", 1) == "tcp://10.0.0.1:8786"
    for bad in (3, "", "  ", ["local"]):
        with pytest.raises(ValueError, match="scheduler"):
            E.resolve(bad, 1)


def test_in_this_process_tasks_run_in_order_one_at_a_time():
    calls, seen = [], []
    with E.Engine("sync") as eng:
        assert eng.client is None and eng.threads == 1

        def task(x):
            calls.append(x)
            seen.append(dict(eng.running))  # the task in flight, with its start time
            return x * x

        assert list(eng.run(task, [(i,) for i in range(4)])) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    assert calls == [0, 1, 2, 3] and [list(s) for s in seen] == [[0], [1], [2], [3]]
    assert eng.running == {}


def test_closing_the_results_starts_no_other_task():
    calls = []
    eng = E.Engine(None, 1)
    results = eng.run(lambda x: calls.append(x) or x, [(i,) for i in range(10)])
    for i, _ in results:
        if i == 2:
            break
    results.close()
    assert calls == [0, 1, 2]


def test_a_tasks_error_is_raised_to_the_caller():
    def task(x):
        if x == 1:
            raise ArithmeticError("piece 1")
        return x

    with pytest.raises(ArithmeticError, match="piece 1"):
        list(E.Engine("sync").run(task, [(0,), (1,), (2,)]))


def test_an_unreachable_scheduler_is_a_value_error_naming_it(monkeypatch):
    monkeypatch.setattr(E, "CONNECT_TIMEOUT", 0.5)
    t = time.time()
    with pytest.raises(ValueError, match=r"scheduler 'tcp://127\.0\.0\.1:9' is not 'sync', 'local' or the address"):
        E.Engine("tcp://127.0.0.1:9")
    assert time.time() - t < 5


def _pieces_with(monkeypatch, fail_at, n=6):
    """_run_pieces with a stand-in for one piece's proof (it fails at piece ``fail_at``); the calls it got."""
    calls = []

    def fake(setting, a, b, kappa0, max_boxes, min_width, seconds, prec):
        calls.append(a)
        assert seconds >= 1.0 and setting == (0.5, 0.0, 400, 10)
        return {"ok": a != fail_at, "boxes": 3, "reason": "" if a != fail_at else f"failed at {a}"}

    monkeypatch.setattr(oracle_proof, "_prove_piece", fake)
    ev = type("Ev", (), {"gamma": 0.5, "eps": 0.0, "d": 400, "L": 10})()
    pieces = [(float(i), float(i) + 1) for i in range(n)]
    bar = Progress(None, "")
    return oracle_proof._run_pieces(ev, pieces, None, 10, 1e-9, time.time() + 60, bar, None), calls


def test_the_proofs_pieces_one_entry_each_in_order(monkeypatch):
    out, calls = _pieces_with(monkeypatch, fail_at=None)
    assert [r["ok"] for r in out] == [True] * 6 and calls == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_after_the_first_failed_piece_none_is_started(monkeypatch):
    out, calls = _pieces_with(monkeypatch, fail_at=2.0)
    assert [None if r is None else r["ok"] for r in out] == [True, True, False, None, None, None]
    assert calls == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------------------------------------------- on Dask
def _square_after(x, seconds):
    time.sleep(seconds)
    return x * x


def _touch_then(folder, i, fail_at):
    """A task that leaves a file named i (it started), then fails at ``fail_at`` at once or succeeds after 0.3 s."""
    (folder / str(i)).touch()
    if i == fail_at:
        return {"ok": False}
    time.sleep(0.3)
    return {"ok": True}


@pytest.mark.slow  # a Dask local cluster of two processes
def test_a_local_cluster_runs_every_task_and_cancels_the_rest(tmp_path):
    with E.Engine("local", 2, name="test") as eng:
        assert eng.threads == 2 and eng.cluster is not None
        got = dict(eng.run(_square_after, [(i, 0.05) for i in range(6)]))
        assert got == {i: i * i for i in range(6)}
        results = eng.run(_square_after, [(i, 0.3) for i in range(8)])
        first = next(results)
        results.close()
        assert first[0] in (0, 1)
        # at most two were in flight: nothing else is left on the cluster once they are cancelled
        time.sleep(0.5)
        assert not eng.client.processing() or all(not v for v in eng.client.processing().values())
        # the proofs' rule: after the first failure no new task starts (those in flight, two at most, are cancelled)
        results = eng.run(_touch_then, [(tmp_path, i, 2) for i in range(10)])
        for i, r in results:
            if not r["ok"]:
                break
        results.close()
        time.sleep(1.0)
        started = sorted(int(p.name) for p in tmp_path.iterdir())
        assert i == 2 and started[:3] == [0, 1, 2] and set(started) <= {0, 1, 2, 3}, started
    assert eng.client is None
