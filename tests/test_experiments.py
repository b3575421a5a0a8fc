"""The trained Transformer layer (`docs/MATH.md` §15; Figures 8 and 10), in JAX.

References: the law of multiple-location regression (Y has mean 0 and variance
K gamma^2 + eps^2; Monte Carlo with 4.5 standard errors); a structural identity (with W_q = 0 at
start and a fixed register token, every SGD update of W_q is an outer product with the same left
vector, so W_k^T W_q stays exactly rank one: the ratio is 1 up to rounding); the paper's
reported outcome for the full run (slow marker).
"""
import json
import math

import jax  # noqa: F401  (a core dependency)
import numpy as np
import pytest

from slr_verify.experiments import quick_settings, transformer_layer  # noqa: E402
from slr_verify.experiments.transformer import _build, _check_settings, paper_settings  # noqa: E402


@pytest.fixture(scope="module")
def quick_run():
    s = quick_settings(1)
    runs, steps = s.pop("runs"), s.pop("steps")
    return transformer_layer(heads=1, runs=runs, steps=steps, seed=0, **s)


@pytest.mark.slow  # a JAX compile and 600 steps: ~12 s of CPU (tox -e experiments)
def test_quick_run_shapes_and_learning(quick_run):
    r = quick_run
    n = len(r.step)
    assert r.step[0] == 0 and r.step[-1] == 300 and n == 7
    for x in (r.excess_risk, r.rank_one_ratio, r.align_k, r.align_v):
        assert x.shape == (n, 2)
    assert r.null_excess_risk == 0.5
    assert np.all(r.excess_risk[-1] < r.excess_risk[0])  # training lowers the held-out risk
    assert np.all(r.align_k[-1] > r.align_k[1])


@pytest.mark.slow
def test_rank_one_is_structural(quick_run):
    assert np.all(1 - quick_run.rank_one_ratio[1:] <= 1e-5)  # float32


def test_jax_sampler_law():
    s = _check_settings(2, 1, 1, 0, dict(paper_settings(2)))
    _, _, vsample = _build(s)
    rng = np.random.default_rng(0)
    ks = rng.normal(size=(1, 2, 80))
    ks /= np.linalg.norm(ks, axis=2, keepdims=True)
    vs = rng.normal(size=(1, 2, 80))
    vs -= np.sum(vs * ks, 2, keepdims=True) * ks
    vs /= np.linalg.norm(vs, axis=2, keepdims=True)
    fixed = {"k_star": ks.astype(np.float32), "v_star": vs.astype(np.float32), "register": np.zeros((1, 80), np.float32)}
    X, Y = vsample(jax.random.split(jax.random.PRNGKey(1), 1), fixed, 20000)
    Y = np.asarray(Y[0], float)
    var = 2 * 0.5 + 0.01
    assert abs(Y.mean()) <= 4.5 * math.sqrt(var / Y.size)
    assert abs(Y.var() - var) <= 4.5 * math.sqrt(2 * var**2 / Y.size)
    X = np.asarray(X[0], float)
    proj = X @ ks[0].T  # (n, L, K): one token per location has mean sqrt(d/2)
    assert np.all(np.sum(proj > 3.0, axis=1) >= 1)


@pytest.mark.parametrize("kw,match", [(dict(heads=0), "heads"), (dict(runs=0), "runs"), (dict(steps=-1), "steps"),
                                      (dict(lr=-1.0), "lr"), (dict(dtype="float16"), "dtype"), (dict(foo=1), "unknown"),
                                      (dict(K=20), "K")])
def test_bad_settings_raise(kw, match):
    with pytest.raises(ValueError, match=match):
        transformer_layer(**({"runs": 1, "steps": 1} | kw))


@pytest.mark.slow
def test_cli_writes_json_and_checks_the_path_first(tmp_path, quick_run, capsys):
    from slr_verify.cli import main

    out = tmp_path / "t.json"
    args = ["experiment", "transformer", "--quick", "--quiet", "--out"]
    assert main(args + [str(tmp_path / "missing" / "t.json")]) == 2  # refused before any training
    assert "does not exist" in capsys.readouterr().err
    assert main(args + [str(out)]) == 0  # same model as the fixture: compiled code reused
    data = json.loads(out.read_text())
    assert set(data) >= {"step", "excess_risk", "rank_one_ratio", "align_k", "align_v", "settings"}
    assert data["settings"]["steps"] == 300
    np.testing.assert_allclose(data["excess_risk"], quick_run.excess_risk, rtol=1e-6)  # seeded: reproducible




def test_threefry_lowering_is_the_reference_hash():
    """The straight-line Threefry-2x32 lowering registered for the CPU (``_unrolled_threefry_on_cpu``)
    reproduces the Random123 known-answer vectors (Salmon et al., SC'11; the ones JAX's own tests
    use), so every key, split and normal draw is JAX's, bit for bit."""
    from jax.extend.random import threefry_2x32

    from slr_verify.experiments.transformer import _unrolled_threefry_on_cpu

    _unrolled_threefry_on_cpu()
    kat = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
           ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
           ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    hash_ = jax.jit(threefry_2x32)
    for key, count, expected in kat:
        out = hash_(np.array(key, np.uint32), np.array(count, np.uint32))
        assert [int(x) for x in out] == list(expected)


def test_first_k_is_the_stable_argsort():
    """``_first_k`` (K passes of argmin) gives ``argsort(u, axis=1)[:, :K]`` with the stable sort's
    order among ties (a float32 uniform has ties: about one row in 10^5 at L = 10)."""
    from slr_verify.experiments.transformer import _first_k

    rng = np.random.default_rng(0)
    u = rng.integers(0, 4, size=(500, 10)).astype(np.float32)  # many ties
    for K in (1, 2, 3):
        got = np.asarray(jax.jit(_first_k, static_argnums=1)(u, K))
        assert np.array_equal(got, np.argsort(u, axis=1, kind="stable")[:, :K])


def test_sampler_is_the_one_hot_construction():
    """The sampler (gather and select) returns the batch of the one-hot construction it replaced:
    the same noise tokens bit for bit, and at the relevant positions gamma X_l + sqrt(d/2) k*_j up
    to the rounding of that multiply-add (XLA may contract it into one fused operation or not)."""
    import jax.numpy as jnp

    s = _check_settings(2, 1, 1, 0, dict(paper_settings(2)))
    _, _, vsample = _build(s)
    rng = np.random.default_rng(3)
    fixed = {"k_star": rng.normal(size=(1, 2, 80)).astype(np.float32),
             "v_star": rng.normal(size=(1, 2, 80)).astype(np.float32), "register": np.zeros((1, 80), np.float32)}
    keys = jax.random.split(jax.random.PRNGKey(4), 1)
    X, Y = vsample(keys, fixed, 300)
    L, K, gamma, shift = s["L"], s["K"], math.sqrt(s["gamma2"]), math.sqrt(s["d"] / 2.0)

    def one_hot_sample(key, fixed, n):  # the construction of the first version, as written there
        k1, k2, k3 = jax.random.split(key, 3)
        X = jax.random.normal(k1, (n, L, 80), dtype=jnp.float32)
        pos = jnp.argsort(jax.random.uniform(k2, (n, L)), axis=1)[:, :K]
        onehot = jax.nn.one_hot(pos, L, dtype=X.dtype)
        rel = jnp.einsum("nkl,nld->nkd", onehot, X) * gamma + shift * fixed["k_star"][None]
        X = X * (1.0 - onehot.sum(1))[..., None] + jnp.einsum("nkl,nkd->nld", onehot, rel)
        Y = jnp.einsum("nkd,kd->n", rel, fixed["v_star"]) + math.sqrt(s["eps2"]) * jax.random.normal(k3, (n,), dtype=X.dtype)
        return X, Y

    X0, Y0 = jax.jit(jax.vmap(one_hot_sample, in_axes=(0, 0, None)), static_argnums=2)(keys, fixed, 300)
    X, X0, Y, Y0 = (np.asarray(a, dtype=np.float64) for a in (X, X0, Y, Y0))
    raw = np.asarray(jax.random.normal(jax.random.split(keys[0], 3)[0], (300, L, 80), dtype=jnp.float32))
    relevant = np.any(X0[0] != raw, axis=-1)[None]  # (1, n, L): the tokens the construction replaced
    assert np.array_equal(relevant.sum(axis=-1), np.full((1, 300), K))
    assert np.array_equal(X[~relevant], X0[~relevant])
    assert np.max(np.abs(X[relevant] - X0[relevant]) / np.abs(X0[relevant]).max()) < 1e-6  # float32: a few ulps
    assert np.max(np.abs(Y - Y0)) < 1e-5 * np.abs(Y0).max()


def test_percentile_bands_are_the_order_statistics():
    """The bands on a planted run set: 21 runs with values 0, 1, ..., 20 (shuffled per step) give,
    by the definition of the linearly interpolated percentile (position (n - 1) p / 100), the median
    10 and the 95% band [0.5, 19.5]; an undefined step (all NaN) stays NaN, and a JSON round trip
    keeps the bands (strict JSON)."""
    from slr_verify.experiments import TransformerRun

    rng = np.random.default_rng(5)
    vals = np.stack([rng.permutation(21).astype(float) for _ in range(3)])
    ratio = vals.copy()
    ratio[0] = np.nan
    run = TransformerRun(step=np.arange(3), excess_risk=vals, rank_one_ratio=ratio, align_k=vals, align_v=vals,
                         null_excess_risk=0.5)
    b = run.bands()
    assert np.array_equal(b["excess_risk"]["median"], [10.0] * 3)
    assert np.allclose(b["excess_risk"]["lower"], 0.5) and np.allclose(b["excess_risk"]["upper"], 19.5)
    assert np.isnan(b["rank_one_ratio"]["median"][0]) and b["rank_one_ratio"]["median"][1] == 10.0
    d = json.loads(json.dumps(run.to_dict(), allow_nan=False))
    assert d["bands"]["level"] == 0.95 and d["bands"]["rank_one_ratio"]["median"][0] is None
    with pytest.raises(ValueError, match="level"):
        run.bands(level=0.0)
