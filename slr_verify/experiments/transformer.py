r"""The trained Transformer layer of Appendix E.3 (Figure 8) and its multi-head version
(Figure 10), in JAX (`docs/MATH.md` §15).

**The layer** (paper eq. 29). A register token :math:`z_0` (entries N(0, 1/d), drawn once per run,
not trained) is prepended to the L x d input: :math:`Z \in \mathbb R^{(L+1)\times d}`.
:math:`\mathrm{LN}(x) = (x - \bar x)/(\mathrm{std}(x) + 10^{-5})` per token, no learned scale.
Head h: :math:`A_h = \mathrm{softmax}_{\text{rows}}(\mathrm{LN}(Z) W_k^{(h)\top} W_q^{(h)}\mathrm{LN}(Z)^\top/\sqrt r)`;
:math:`Z_1 = Z + \sum_h A_h\,\mathrm{LN}(Z)\,W_v^{(h)} W_O^{(h)}` (one head: :math:`W_O = I`,
:math:`W_v \in \mathbb R^{d\times d}`); :math:`Z_2 = Z_1 + \mathrm{ReLU}(Z_1 W_1^\top + b_1) W_2^\top + b_2`;
output :math:`\theta^\top Z_2[0]`. Only row 0 reaches the output, so only the register's
attention row is computed (the same function, fewer flops).

**Initialisation and training** (the paper's settings, :func:`paper_settings`): W_k, W_1, W_2
(and W_O) Gaussian with variance 2/(d_in + d_out), W_v variance 1/d, W_q = 0, biases 0,
:math:`\theta \sim N(0, I/d^2)`; single-pass SGD on fresh batches of multiple-location
regression (:mod:`slr_verify.model.multilocation`'s law, drawn in JAX).

**Logged** (Figure 8 / Figure 10), per run and per head h / location j:

* ``excess_risk``: mean squared error on a fixed held-out batch minus :math:`\varepsilon^2`
  (the null predictor's is :math:`K\gamma^2`);
* ``rank_one_ratio``: :math:`s_1^2/\sum_i s_i^2` of :math:`W_k^{(h)\top}W_q^{(h)}`;
* ``align_k``: :math:`|u_h^\top k^*_j|`, :math:`u_h` the top right singular vector of :math:`W_q^{(h)}`;
* ``align_v``: :math:`|\hat x_h^\top v^*_j|`, :math:`x_h = \theta^\top(I + W_2W_1)(W_v^{(h)}W_O^{(h)})^\top`.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..dynamics.trajectory import progress_stream
from ..model import budgets as B
from ..model import validation as V
from ..model.multilocation import random_locations
from ..model.params import gamma_of, keywords_checked

_F32 = "float32 overflows beyond it"


@keywords_checked
def paper_settings(heads: int = 1) -> dict:
    """Appendix E.3 (heads = 1, Figure 8) and Figure 10 (heads = 2), `docs/MATH.md` §15."""
    base = dict(L=10, d=80, m=200, gamma2=0.5, eps2=0.01, batch=128, test_size=1000, log_every=100,
                dtype="float32")
    if heads == 1:
        return dict(base, K=1, lr=1e-2, steps=8000, runs=20)
    return dict(base, K=2, lr=2e-2, steps=10_000, runs=10)


@keywords_checked
def quick_settings(heads: int = 1) -> dict:
    """A few hundred steps of the same model (for tests and notebooks in quick mode).
    Appendix E.3, `docs/MATH.md` §15."""
    return dict(paper_settings(heads), steps=300, runs=2, log_every=50, test_size=500)


@dataclass
class TransformerRun:
    """Logged metrics: ``step`` (records,); ``excess_risk`` (records, runs); ``rank_one_ratio``
    (records, runs[, H]); ``align_k``, ``align_v`` (records, runs[, H, K]); the per-head and
    per-location axes are dropped for one head and one location. Appendix E.3, `docs/MATH.md` §15."""

    step: np.ndarray
    excess_risk: np.ndarray
    rank_one_ratio: np.ndarray
    align_k: np.ndarray
    align_v: np.ndarray
    null_excess_risk: float
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0

    def bands(self, level=0.95) -> dict:
        """The paper's bands (Figures 8 and 10 draw the runs' median and a 95% percentile band): for each
        metric, {"median", "lower", "upper"} per logged step, the 50th and the (1 -+ level)/2
        percentiles over the runs (linear interpolation between order statistics; with 20 runs the
        2.5th percentile lies between the smallest and the second smallest run). Extra axes (heads,
        locations) are kept."""
        level = V.real("level", level, minimum=0.0, maximum=1.0, strict_min=True)
        q = [50.0, 50.0 * (1.0 - level), 50.0 * (1.0 + level)]
        out = {}
        for name in ("excess_risk", "rank_one_ratio", "align_k", "align_v"):
            a = np.asarray(getattr(self, name), dtype=float)
            with warnings.catch_warnings():  # the undefined ratio at step 0 stays undefined (NaN)
                warnings.simplefilter("ignore", RuntimeWarning)
                med, lo, hi = np.nanpercentile(a, q, axis=1)
            out[name] = {"median": med, "lower": lo, "upper": hi}
        return out

    def to_dict(self) -> dict:
        """Plain JSON values; an undefined metric (the rank-one ratio of the zero W_q at step 0) is
        None (JSON null): the output parses with a strict JSON parser (no bare NaN). ``bands``: the
        runs' median and 95% percentile band per metric and logged step (:meth:`bands`)."""
        bands = {m: {k: _json_list(v) for k, v in b.items()} for m, b in self.bands().items()}
        return {"step": self.step.tolist(), "excess_risk": _json_list(self.excess_risk),
                "rank_one_ratio": _json_list(self.rank_one_ratio), "align_k": _json_list(self.align_k),
                "align_v": _json_list(self.align_v), "null_excess_risk": self.null_excess_risk,
                "bands": {"level": 0.95, **bands}, "settings": self.settings, "seconds": self.seconds}


def _json_list(a):
    """``a.tolist()`` with NaN replaced by None."""
    a = np.asarray(a, dtype=float)
    return np.where(np.isfinite(a), a, None).tolist() if a.size else a.tolist()


def _check_settings(heads, runs, steps, seed, s):
    heads = V.integer("heads", heads, 1, 64)
    out = dict(s)
    out["runs"] = V.integer("runs", runs, 1)
    # JAX's keys: the step count is folded in as a 32-bit word, the seed is a 64-bit integer
    out["steps"] = V.integer("steps", steps, 1, 2**32 - 1, why="JAX folds the step into its key as a 32-bit word")
    out["seed"] = V.integer("seed", seed, 0, 2**63 - 1, why="JAX's PRNG key takes a 64-bit seed")
    for name in ("L", "d", "m", "batch", "test_size", "log_every", "K"):  # d >= 2: v*_j orthogonal to k*_j
        out[name] = V.integer(name, out[name], 2 if name == "d" else 1, 100_000)
    # float32 holds 3e38: samples of size sqrt(gamma2), losses of size gamma2^2 and lr-sized steps
    # must stay far inside it (the supported ranges; beyond, the run returns NaN)
    out["gamma2"] = V.real("gamma2", out["gamma2"], minimum=0.0, strict_min=True, maximum=1e6, why=_F32)
    out["eps2"] = V.real("eps2", out["eps2"], minimum=0.0, maximum=1e6, why=_F32)
    out["lr"] = V.real("lr", out["lr"], minimum=0.0, strict_min=True, maximum=10.0,
                       why="SGD on this layer diverges far below it; the paper uses 1e-2 and 2e-2")
    if out["K"] > out["L"]:
        raise ValueError(f"K must be <= L, got K={out['K']}, L={out['L']}")
    V.choice("dtype", out["dtype"], ("float32", "float64"))
    if out.get("r") is None and heads > 1 and out["d"] % heads:
        raise ValueError(f"heads must divide d = {out['d']} when r (the head width) is not given, got heads={heads}; "
                         f"choose heads among {[h for h in range(1, 9) if out['d'] % h == 0]} or set r")
    r = out["d"] // heads if out.get("r") is None else out["r"]  # r = 0 is refused, not replaced by d // heads
    out["r"], out["heads"] = V.integer("r", r, 1, 100_000), heads
    per_run = 4.0 * (out["batch"] + out["test_size"]) * (out["L"] + 1) * out["d"] * 2
    B.memory_budget("runs", per_run * out["runs"], f"{out['runs']} runs of the Transformer layer")
    return out


def _init(rng, s):
    """One run's parameters (numpy, the paper's initialisation) and its fixed quantities."""
    d, r, m, H = s["d"], s["r"], s["m"], s["heads"]
    glorot = lambda shape, din, dout: rng.normal(0.0, math.sqrt(2.0 / (din + dout)), shape)
    dv = d if H == 1 else r
    params = {
        "Wk": glorot((H, r, d), d, r),
        "Wq": np.zeros((H, r, d)),
        "Wv": rng.normal(0.0, math.sqrt(1.0 / d), (H, d, dv)),
        "W1": glorot((m, d), d, m), "b1": np.zeros(m),
        "W2": glorot((d, m), m, d), "b2": np.zeros(d),
        "theta": rng.normal(0.0, 1.0 / d, d),
    }
    if H > 1:
        params["WO"] = glorot((H, r, d), H * r, d)
    ks, vs = random_locations(s["K"], d, rng)
    fixed = {"register": rng.normal(0.0, math.sqrt(1.0 / d), d), "k_star": ks, "v_star": vs}
    return params, fixed


def _threefry2x32_unrolled(key1, key2, x1, x2):
    """Threefry-2x32 with 20 rounds (Salmon et al., SC'11; the hash of JAX's default PRNG), the
    five groups of four rounds written out: the same integer operations in the same order as
    JAX's own lowering, hence the same bits (checked on the Random123 known-answer vectors in
    tests/test_experiments.py)."""
    import jax.numpy as jnp
    from jax import lax

    u32 = np.uint32
    rot = lambda x, d: lax.shift_left(x, u32(d)) | lax.shift_right_logical(x, u32(32 - d))
    ks = [key1, key2, key1 ^ key2 ^ u32(0x1BD11BDA)]
    x = [jnp.asarray(x1 + ks[0]), jnp.asarray(x2 + ks[1])]
    rotations = [(13, 15, 26, 6), (17, 29, 16, 24)]
    for i in range(5):
        for d in rotations[i % 2]:
            x[0] = x[0] + x[1]
            x[1] = x[0] ^ rot(x[1], d)
        x[0] = x[0] + ks[(i + 1) % 3]
        x[1] = x[1] + ks[(i + 2) % 3] + u32(i + 1)
    return tuple(x)


_THREEFRY_DONE = []


def _unrolled_threefry_on_cpu():
    """Lower JAX's Threefry hash on the CPU as straight-line code (one fused loop) instead of
    JAX's CPU default, a rolled loop of five steps whose every step writes both words out and
    recomputes them in two fusions: the same bits (:func:`_threefry2x32_unrolled`), in less time
    than the rolled loop (the training draws its normals with it at every step) and with a shorter
    compile. Registered once per process, before the first compile; if this
    JAX lacks the public hooks, its own lowering stays."""
    if _THREEFRY_DONE:
        return
    _THREEFRY_DONE.append(True)
    try:
        from jax.extend.random import threefry2x32_p
        from jax.interpreters import mlir

        mlir.register_lowering(threefry2x32_p, mlir.lower_fun(_threefry2x32_unrolled, multiple_results=True),
                               platform="cpu")
    except (ImportError, AttributeError, NotImplementedError):  # pragma: no cover - other JAX versions
        pass


def _persistent_compilation_cache():
    """Keep JAX's compiled executables on disk (``SLR_VERIFY_CACHE``/jax, default
    ``~/.cache/slr-verify/jax``), unless the caller has configured a cache of its own: a later
    process with the same model, JAX and flags loads them instead of compiling again. The cache key
    is the optimised program with the compiler's version and flags, so a stale entry is never used.
    Skipped silently where the folder cannot be made."""
    import os

    import jax

    from ..model.cache import cache_dir

    if jax.config.jax_compilation_cache_dir or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return
    try:
        path = cache_dir("jax")
    except OSError:
        return
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.3)  # the sampler and the metrics too


_BUILD_KEYS = ("L", "d", "r", "K", "batch", "gamma2", "eps2", "lr", "heads", "dtype")


def _first_k(u, K):
    """``argsort(u, axis=1)[:, :K]`` (stable: ties go to the lower index) by K passes of argmin,
    which also returns the first of equal minima: the same indices without sorting every row."""
    import jax.numpy as jnp

    rows, out = jnp.arange(u.shape[0]), []
    for _ in range(K):
        j = jnp.argmin(u, axis=1)
        out.append(j)
        u = u.at[rows, j].set(jnp.inf)
    return jnp.stack(out, axis=1)


def _build(s):
    """The jitted pieces for these settings (cached: a second run with the same model reuses the
    compiled code)."""
    return _build_cached(tuple(s[k] for k in _BUILD_KEYS))


def _samplers(s):
    """(token_uniforms, sample_from, sample): the JAX functions drawing a batch of the model ``s`` (tokens, targets)."""
    import jax
    import jax.numpy as jnp

    L, d, K = s["L"], s["d"], s["K"]
    gamma, eps = gamma_of(gamma2=s["gamma2"]), math.sqrt(s["eps2"])  # eps2: this experiment states eps^2
    shift = math.sqrt(d / 2.0)
    dt = np.float64 if s["dtype"] == "float64" else np.float32
    lo_u = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt), dtype=dt)

    def token_uniforms(key, n):
        """The uniforms behind the tokens' normals: jax.random.normal(k1, shape) is
        sqrt(2) erf_inv(u) for u = uniform(k1, shape, lo, 1), lo = nextafter(-1, 0) (JAX's
        definition, checked against it in tests/test_experiments.py)."""
        k1 = jax.random.split(key, 3)[0]
        return jax.random.uniform(k1, (n, L, d), dt, lo_u, np.array(1.0, dt))

    def sample_from(key, u, fixed):
        """The batch of ``key``, its tokens' uniforms ``u`` given (see :func:`token_uniforms`)."""
        n = u.shape[0]
        _, k2, k3 = jax.random.split(key, 3)
        X = jax.lax.mul(np.array(np.sqrt(2), dt), jax.lax.erf_inv(u))  # = jax.random.normal(k1, (n, L, d))
        pos = _first_k(jax.random.uniform(k2, (n, L)), K)  # (n, K): K distinct positions
        rel = jnp.take_along_axis(X, pos[..., None], axis=1) * gamma + shift * fixed["k_star"][None]  # (n, K, d)
        token = jnp.arange(L)[None, :, None]
        for j in range(K):  # the relevant tokens replace the noise at their positions
            X = jnp.where(token == pos[:, None, j:j + 1], rel[:, j:j + 1], X)
        Y = jnp.einsum("nkd,kd->n", rel, fixed["v_star"]) + eps * jax.random.normal(k3, (n,), dtype=X.dtype)
        return X, Y

    def sample(key, fixed, n):
        return sample_from(key, token_uniforms(key, n), fixed)

    return token_uniforms, sample_from, sample


def _metrics(s, predict):
    """The JAX function of one run's metrics (excess risk, rank-1 ratio, alignments with k* and v*) on a test set."""
    import jax.numpy as jnp

    d = s["d"]

    def metrics(p, fixed, test):
        X, Y = test
        excess = jnp.mean((predict(p, fixed, X) - Y) ** 2) - s["eps2"]
        M = jnp.einsum("hrd,hre->hde", p["Wk"], p["Wq"])  # W_k^T W_q per head
        sv = jnp.linalg.svd(M, compute_uv=False)
        total = jnp.sum(sv**2, axis=1)
        # W_q = 0 at step 0: the ratio of the zero matrix is undefined (NaN here, null in the JSON)
        rank1 = jnp.where(total > 0, sv[:, 0] ** 2 / jnp.where(total > 0, total, 1), jnp.nan)
        _, _, vt = jnp.linalg.svd(p["Wq"], full_matrices=False)
        u = vt[:, 0, :]  # top right singular vector of W_q per head
        align_k = jnp.abs(u @ fixed["k_star"].T)  # (H, K)
        Vpath = p["Wv"] if "WO" not in p else jnp.einsum("hdr,hre->hde", p["Wv"], p["WO"])
        mlp = jnp.eye(d, dtype=M.dtype) + p["W2"] @ p["W1"]
        x = jnp.einsum("d,de,hfe->hf", p["theta"], mlp, Vpath)
        x = x / jnp.linalg.norm(x, axis=1, keepdims=True)
        align_v = jnp.abs(x @ fixed["v_star"].T)
        return excess, rank1, align_k, align_v

    return metrics


@lru_cache(maxsize=8)
def _build_cached(key):
    """The jitted pieces: a chunk of SGD steps and the metrics, vmapped over runs."""
    s = dict(zip(_BUILD_KEYS, key))
    import jax
    import jax.numpy as jnp

    _unrolled_threefry_on_cpu()
    _persistent_compilation_cache()

    d, r, B, lr = s["d"], s["r"], s["batch"], s["lr"]
    token_uniforms, sample_from, sample = _samplers(s)

    def ln(x):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / (jnp.sqrt(((x - mu) ** 2).mean(-1, keepdims=True)) + 1e-5)

    def predict(p, fixed, X):
        n = X.shape[0]
        Z = jnp.concatenate([jnp.broadcast_to(fixed["register"], (n, 1, d)), X], axis=1)
        N = ln(Z)
        q0 = jnp.einsum("nd,hrd->nhr", N[:, 0], p["Wk"])
        # the register's scores q0^T (W_q LN(Z_l)) = (W_q^T q0)^T LN(Z_l): contracting W_q with the
        # register's query first never forms the keys of every token (n, h, L+1, r), ten times the flops
        w = jnp.einsum("nhr,hrd->nhd", q0, p["Wq"])
        A0 = jax.nn.softmax(jnp.einsum("nhd,nld->nhl", w, N) / math.sqrt(r), axis=-1)
        heads = jnp.einsum("nhl,nld,hdv->nhv", A0, N, p["Wv"])
        if "WO" in p:
            heads = jnp.einsum("nhr,hrd->nhd", heads, p["WO"])
        z1 = Z[:, 0] + heads.sum(1)
        z2 = z1 + jax.nn.relu(z1 @ p["W1"].T + p["b1"]) @ p["W2"].T + p["b2"]
        return z2 @ p["theta"]

    def loss(p, fixed, X, Y):
        return jnp.mean((predict(p, fixed, X) - Y) ** 2)

    grad = jax.grad(loss)

    def step(carry, keys):
        # the uniforms of this step's tokens were drawn by the previous step (they come in through
        # the carry, a buffer): drawn inside the step, XLA fused the hash into each of their
        # readers and computed it twice per token
        p, fixed, u = carry
        key, key_next = keys
        X, Y = sample_from(key, u, fixed)
        g = grad(p, fixed, X, Y)
        p = jax.tree_util.tree_map(lambda a, b: a - lr * b, p, g)
        return (p, fixed, token_uniforms(key_next, B)), None

    def chunk(p, fixed, key, n):
        keys = jax.random.split(key, n)
        ahead = jnp.concatenate([keys[1:], keys[:1]])  # the last step's look-ahead draw is discarded
        (p, _, _), _ = jax.lax.scan(step, (p, fixed, token_uniforms(keys[0], B)), (keys, ahead))
        return p

    metrics = _metrics(s, predict)

    vchunk = jax.jit(jax.vmap(chunk, in_axes=(0, 0, 0, None)), static_argnums=3)
    vmetrics = jax.jit(jax.vmap(metrics))
    vsample = jax.jit(jax.vmap(sample, in_axes=(0, 0, None)), static_argnums=2)
    return vchunk, vmetrics, vsample


def _logged_metrics(logs, rec, s):
    """(excess, rank1, align_k, align_v) stacked over the log steps ``rec``, squeezed for one head; ValueError if diverged."""
    excess, rank1, ak, av = (np.stack([lg[i] for lg in logs]).astype(float) for i in range(4))
    if not np.all(np.isfinite(excess)):
        t = int(rec[int(np.argmax(~np.all(np.isfinite(excess.reshape(len(rec), -1)), axis=1)))])
        raise ValueError(f"the training diverged (non-finite risk by step {t}) at lr = {s['lr']:g}, gamma2 = {s['gamma2']:g}: "
                         f"reduce lr")
    if not np.all(np.isfinite(rank1[1:])):  # W_q has not moved from 0 (lr times its gradient underflows): no ratio
        t = int(rec[1 + int(np.argmax(~np.isfinite(rank1[1:]).reshape(len(rec) - 1, -1).all(axis=1)))])
        raise ValueError(f"lr = {s['lr']:g} is too small for {s['dtype']}: W_q is still 0 at step {t}; raise lr")
    if s["heads"] == 1:
        rank1 = rank1[..., 0]
    if s["heads"] == 1 and s["K"] == 1:
        ak, av = ak[..., 0, 0], av[..., 0, 0]
    return excess, rank1, ak, av


def transformer_layer(*, heads: int = 1, runs: int | None = None, steps: int | None = None, seed: int = 0,
                      progress="auto", **settings) -> TransformerRun:
    """Train the layer by single-pass SGD and log Figure 8's (heads = 1) or Figure 10's
    (heads > 1) metrics every ``log_every`` steps (module docstring). Settings default to
    :func:`paper_settings` (``dtype='float64'`` for double precision); ``progress`` a stream for
    a progress bar (``"auto"``: stderr when it is a terminal). JAX is a core dependency.

    Supported: heads in [1, 64] (dividing d unless r is given); runs >= 1 (within memory); steps in [1, 2^32 - 1];
    seed in [0, 2^63 - 1]; L, m, batch, test_size, log_every, K, r in [1, 1e5] with K <= L, and d in [2, 1e5] (v*_j
    orthogonal to k*_j); gamma2 in (0, 1e6], eps2 in [0, 1e6], lr in (0, 10]. Anything else is a ValueError naming
    the setting, raised before JAX is loaded."""
    import time

    heads = V.integer("heads", heads, 1, 64)
    progress = progress_stream(progress)
    base = paper_settings(int(heads))
    unknown = set(settings) - set(base) - {"r"}
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(set(base) | {'r'})}")
    s = _check_settings(heads, base["runs"] if runs is None else runs, base["steps"] if steps is None else steps, seed,
                        dict(base, **settings))
    try:  # after the validation: a bad setting is reported without loading JAX
        import jax
        import jax.numpy as jnp
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("the Transformer experiment needs JAX, a core dependency: reinstall slr-verify") from exc
    t0 = time.perf_counter()
    with jax.enable_x64(s["dtype"] == "float64"):
        dt = jnp.float64 if s["dtype"] == "float64" else jnp.float32
        inits = [_init(np.random.default_rng([s["seed"], run]), s) for run in range(s["runs"])]
        stack = lambda dicts: {k: jnp.asarray(np.stack([x[k] for x in dicts]), dtype=dt) for k in dicts[0]}
        params = stack([p for p, _ in inits])
        fixed = stack([f for _, f in inits])
        vchunk, vmetrics, vsample = _build(s)
        root = jax.random.PRNGKey(s["seed"])
        test_key, train_key = jax.random.split(root)
        test = vsample(jax.random.split(test_key, s["runs"]), fixed, s["test_size"])
        logs, rec = [], [0]
        logs.append([np.asarray(x) for x in vmetrics(params, fixed, test)])
        done = 0
        bar = None
        if progress is not None:
            from tqdm.auto import tqdm

            bar = tqdm(total=s["steps"], desc=f"transformer (H={s['heads']})", file=progress, unit="step", mininterval=0.5)
        while done < s["steps"]:
            n = min(s["log_every"], s["steps"] - done)
            keys = jax.random.split(jax.random.fold_in(train_key, done), s["runs"])
            params = vchunk(params, fixed, keys, n)
            done += n
            rec.append(done)
            logs.append([np.asarray(x) for x in vmetrics(params, fixed, test)])
            if bar is not None:
                bar.update(n)
        if bar is not None:
            bar.close()
    excess, rank1, ak, av = _logged_metrics(logs, rec, s)
    return TransformerRun(np.array(rec), excess, rank1, ak, av, s["K"] * s["gamma2"], s, time.perf_counter() - t0)
