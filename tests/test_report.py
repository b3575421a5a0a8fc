"""The claim model, the report and the exit codes; every claim run in fast mode; mutations bite.

The verdicts asserted here are the mathematics' verdicts: the claims of the paper pass, except
Figure 4a's 'recovers', refuted by a reproducible converged run (the counterexample is checked
independently in ``test_figure4a_counterexample_independent``).
"""
import json
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from slr_verify import cli
from slr_verify.claims import CLAIMS, Context, Evidence, get, ids, report, run_claims, verdict
from slr_verify.claims import model as M
from slr_verify.claims import risk_claims as RC
from slr_verify.kernels import special
from slr_verify.symbolic import risk as srisk

REQUIRED_IDS = {"zeta", "theorem-1", "oracle-risk", "corollary-2", "proposition-3", "lemma-4", "lemma-6",
                "proposition-9", "proposition-10", "theorem-5"}
EXPECTED = {c.id: "pass" for c in CLAIMS}
EXPECTED["figure-4a-recovery"] = "refuted"


def test_registry_lists_the_claims():
    assert REQUIRED_IDS <= set(ids())
    assert {c.kind for c in CLAIMS} == {"paper", "finding"}
    assert get("off-M-stationary").kind == "finding"
    with pytest.raises(KeyError, match="known ids"):
        get("theorem1")


# ----------------------------------------------------------------- every claim, fast mode
@pytest.fixture(scope="module")
def fast_results():
    return {r.claim.id: r for r in run_claims(mode="fast", only={c.id for c in CLAIMS if not c.heavy})}


@pytest.fixture(scope="module")
def heavy_results():
    return {r.claim.id: r for r in run_claims(mode="fast", only={c.id for c in CLAIMS if c.heavy})}


@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS if not c.heavy]
                         + [pytest.param(c.id, marks=pytest.mark.slow) for c in CLAIMS if c.heavy])
def test_claim_verdict_fast_mode(request, claim_id):
    results = request.getfixturevalue("heavy_results" if get(claim_id).heavy else "fast_results")
    r = results[claim_id]
    assert r.error is None, r.error
    assert r.verdict == EXPECTED[claim_id], [e.as_dict() for e in r.evidence if not e.holds]
    for e in r.evidence:
        assert e.tier in M.TIERS and e.route and e.reference and e.why and e.unit


def test_figure4a_counterexample_independent(fast_results):
    """The refutation's end point, recomputed independently: Theorem 1's risk by mpmath quadrature
    is below the oracle's, and the end point is 1e-6-close to the stationary family k = v*."""
    from slr_verify import routes

    (cx,) = [e.counterexample for e in fast_results["figure-4a-recovery"].evidence if e.counterexample]
    end, lam = cx["end_overlaps"], cx["lam_T"]
    kw = dict(lam=lam, gamma=0.5**0.5, eps=0.0, d=400, L=10)
    end = [float(np.clip(x, -1, 1)) for x in end]
    assert float(routes.quad_risk(*end, **kw, dps=20)) < float(routes.quad_oracle_risk(**kw, dps=20)) - 1e-3
    assert abs(end[0]) + abs(end[1]) + abs(end[4]) < 1e-6 and abs(abs(end[3]) - 1) < 1e-6


# ----------------------------------------------------------------- the verdict, in one place
def _ev(figure, tol, **kw):
    return Evidence("r", "ref", "numeric", figure, "u", tol, "w", **kw)


def test_verdict_rules():
    assert verdict([]) == "pending"
    assert verdict([_ev(1e-16, 1e-12)]) == "pass"
    assert verdict([_ev(1e-16, 1e-12), _ev(1.0, 1e-12)]) == "fail"
    assert verdict([_ev(float("nan"), 1e-12)]) == "fail"
    assert verdict([_ev(1e-16, 1e-12), M.counterexample("r", "ref", "numeric", {"x": 1}, "w")]) == "refuted"
    assert verdict([_ev(1e-16, 1e-12)], error="boom") == "fail"
    with pytest.raises(ValueError, match="tier"):
        Evidence("r", "ref", "vibes", 0.0, "u", 1.0, "w")


def test_29_of_30_is_not_a_pass_of_always():
    """A rate evidence for an 'every run' statement: 29/30 fails (its 95% lower bound is 0.83),
    30/30 passes only if the bound clears the minimum asked."""
    e = M.rate("runs", "every run", 29, 30, minimum=1.0, why="w")
    assert not e.holds and verdict([e]) == "fail"
    lo, hi = e.details["ci95"]
    assert 0.82 < lo < 0.84 and 0.99 < hi < 1.0  # Clopper-Pearson for 29/30 (beta quantiles)
    assert M.rate("runs", "a.e.", 2000, 2000, minimum=0.99, why="w").holds


def test_clopper_pearson_coverage():
    """The interval covers the true p in at least 95% of 2000 binomial draws (seeded)."""
    rng = np.random.default_rng(0)
    p, n = 0.3, 40
    k = rng.binomial(n, p, 2000)
    cover = np.mean([lo <= p <= hi for lo, hi in (M.clopper_pearson(int(x), n) for x in k)])
    assert cover >= 0.95


# ----------------------------------------------------------------- CLI and formats
def test_cli_unknown_id_exits_2(capsys):
    assert cli.main(["check", "--only", "no-such-claim", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no-such-claim" in err and "theorem-1" in err


def test_json_and_markdown_reports():
    out = subprocess.run([sys.executable, "-m", "slr_verify", "check", "--json", "--quiet", "--fast", "--only", "lemma-6",
                          "zeta"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    claims = json.loads(out.stdout)["claims"]
    assert [c["id"] for c in claims] == ["zeta", "lemma-6"]
    for c in claims:
        assert set(c) >= {"id", "kind", "where", "statement", "domain", "tier", "verdict", "evidence"}
        assert c["verdict"] in M.VERDICTS
        for e in c["evidence"]:
            assert set(e) >= {"route", "reference", "tier", "figure", "unit", "tolerance", "why", "size"}
    md = report.markdown(list(run_claims(mode="fast", only={"zeta"})))
    assert "| `zeta` |" in md and "### `zeta`: pass" in md


def test_python_m_without_arguments_prints_help():
    out = subprocess.run([sys.executable, "-m", "slr_verify"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "usage" in out.stdout and "check" in out.stdout


def test_exit_codes():
    ok = M.Result(CLAIMS[0], [_ev(0.0, 1.0)], 0.0)
    pending = M.Result(CLAIMS[0], [], 0.0)
    refuted = M.Result(CLAIMS[0], [M.counterexample("r", "ref", "numeric", {}, "w")], 0.0)
    assert report.exit_code([ok]) == 0
    assert report.exit_code([ok, pending]) == 1 and report.exit_code([ok, pending], allow_pending=True) == 0
    assert report.exit_code([ok, refuted]) == 1


# ----------------------------------------------------------------- mutations turn checks red
def _fresh_kernels():
    """Clear every cached derivation and kernel of the package (a mutation must neither leak
    into nor be masked by results cached by other tests)."""
    for mod in [m for name, m in sys.modules.items() if name.startswith("slr_verify") and m is not None]:
        for name in dir(mod):
            fn = getattr(mod, name, None)
            if callable(fn) and hasattr(fn, "cache_clear") and getattr(fn, "__module__", None) == mod.__name__:
                fn.cache_clear()


@pytest.fixture
def mutate(monkeypatch):
    _fresh_kernels()
    yield monkeypatch
    monkeypatch.undo()
    _fresh_kernels()


def _perturbed_risk(transform):
    original = srisk.theorem1_risk.__wrapped__()
    return lambda: transform(original)


def _verdict(check):
    return verdict(check(Context("fast")))


@pytest.mark.parametrize(
    "name,transform",
    [
        ("factor 1 + 1e-6", lambda R: R * (1 + sp.Rational(1, 10**6))),
        ("sign of the relevant/null cross term",
         lambda R: R - 4 * (srisk.S.L - 1) * srisk.token_moments().E_U * srisk.token_moments().E_Un),
        ("constant: 2/pi -> 0.6366", lambda R: R.subs(sp.pi, sp.Float("3.1416"))),
    ],
)
def test_theorem1_check_bites(mutate, name, transform):
    mutate.setattr(srisk, "theorem1_risk", _perturbed_risk(transform))
    assert _verdict(RC.check_theorem1) == "fail", name


def test_zeta_check_bites(mutate):
    mutate.setattr(special, "erf_variance", lambda t, g, f=special.erf_variance: f(t, g) * (1 + 1e-6))
    assert _verdict(RC.check_zeta) == "fail"


def test_oracle_check_bites(mutate):
    original = srisk.bayes_gap_expr
    mutate.setattr(srisk, "bayes_gap_expr", lambda: original() * (1 - sp.Rational(1, 10**6)))
    assert _verdict(RC.check_oracle_risk) == "fail"


def test_law_of_J0_check_bites(mutate):
    """A sign flipped inside the claim's own SymPy check (the conditional risk) is caught."""
    original = srisk.risk_given_location
    mutate.setattr(srisk, "risk_given_location", lambda j, L: original(j, L) - 2 * srisk.S.eps**2)
    assert _verdict(RC.check_law_of_J0) == "fail"


def test_monte_carlo_alone_bites(mutate):
    """Dropping the null-null cross term (L-1)(L-2) m0^2 is seen by Monte Carlo too."""
    m = srisk.token_moments()
    R0 = srisk.theorem1_risk.__wrapped__()
    dropped = sp.expand(R0 - (srisk.S.L - 1) * (srisk.S.L - 2) * m.E_Un**2)
    mutate.setattr(srisk, "theorem1_risk", lambda: dropped)
    ev = RC.check_theorem1(Context("fast"))
    assert any(e.tier == "statistical" and not e.holds for e in ev)


def test_corollary2_exponent_bites(mutate):
    """The Corollary 2 exponent exists once (symbolic.asymptotics); a changed factor fails the claim."""
    from slr_verify.symbolic import asymptotics as sasym

    a, b, d = sasym.SYM["a"], sasym.SYM["b"], sasym.SYM["d"]
    mutate.setattr(sasym, "null_part_exponent", lambda: sp.simplify(sp.log(d**b * (d ** (-a)) ** 3) / sp.log(d)))
    assert _verdict(RC.check_corollary2) == "fail"


def test_failing_claim_gives_nonzero_exit(mutate, capsys):
    mutate.setattr(special, "erf_variance", lambda t, g, f=special.erf_variance: -f(t, g))
    assert cli.main(["check", "--only", "zeta", "--quiet", "--fast"]) == 1
    assert "FAIL" in capsys.readouterr().out
