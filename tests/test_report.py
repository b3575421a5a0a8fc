"""The report (`slr-verify check`) and mutation tests: the checks must bite.

Each mutation perturbs one formula the way a bug would (a factor 1 + 1e-6, a flipped sign, a
wrong constant) and asserts that the claim checking it reports ``fail`` and that the command
exits non-zero. The unperturbed checks pass (asserted in the same tests), so a failure here
is the mutation's doing.
"""
import json
import subprocess
import sys

import pytest
import sympy as sp

from slr_verify import cli
from slr_verify.claims import CLAIMS, core
from slr_verify.kernels import special
from slr_verify.symbolic import risk as srisk

REQUIRED_IDS = {"zeta", "theorem-1", "oracle-risk", "corollary-2", "proposition-3", "lemma-4", "lemma-6",
                "proposition-9", "proposition-10", "theorem-5"}


def test_registry_lists_the_claims():
    assert REQUIRED_IDS <= {c.id for c in CLAIMS}


def test_json_report_and_exit_code():
    out = subprocess.run([sys.executable, "-m", "slr_verify", "check", "--json", "--quiet", "--only", "lemma-6", "zeta"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    claims = json.loads(out.stdout)["claims"]
    assert [c["id"] for c in claims] == ["zeta", "lemma-6"]
    for c in claims:
        assert set(c) >= {"id", "statement", "routes", "worst_error", "verdict"}
        assert c["verdict"] == "pass"


def _fresh_kernels():
    """Clear every cached derivation and kernel of the package (a mutation must neither leak
    into nor be masked by results cached by other tests, e.g. theorem1_gradient)."""
    for mod in [m for name, m in sys.modules.items() if name.startswith("slr_verify") and m is not None]:
        for name in dir(mod):
            fn = getattr(mod, name, None)
            if callable(fn) and hasattr(fn, "cache_clear") and getattr(fn, "__module__", None) == mod.__name__:
                fn.cache_clear()


@pytest.fixture
def mutate(monkeypatch):
    """Apply a mutation to the symbolic layer or a kernel; regenerate kernels before and after."""
    _fresh_kernels()
    yield monkeypatch
    monkeypatch.undo()
    _fresh_kernels()


def _perturbed_risk(transform):
    original = srisk.theorem1_risk.__wrapped__()
    return lambda: transform(original)


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
    res = core.check_theorem1()
    assert res["verdict"] == "fail", (name, res["worst_error"], res["worst_z"])


def test_zeta_check_bites(mutate):
    mutate.setattr(special, "erf_variance", lambda t, g, f=special.erf_variance: f(t, g) * (1 + 1e-6))
    assert core.check_zeta()["verdict"] == "fail"


def test_oracle_check_bites(mutate):
    original = srisk.bayes_gap_expr
    mutate.setattr(srisk, "bayes_gap_expr", lambda: original() * (1 - sp.Rational(1, 10**6)))
    assert core.check_oracle_risk()["verdict"] == "fail"


def test_monte_carlo_alone_bites(mutate):
    """Dropping the null-null cross term (L-1)(L-2) m0^2 is seen by Monte Carlo too."""
    m = srisk.token_moments()
    R0 = srisk.theorem1_risk.__wrapped__()
    dropped = sp.expand(R0 - (srisk.S.L - 1) * (srisk.S.L - 2) * m.E_Un**2)
    mutate.setattr(srisk, "theorem1_risk", lambda: dropped)
    res = core.check_theorem1()
    assert res["verdict"] == "fail" and res["worst_z"] > core.Z_MAX


def test_failing_claim_gives_nonzero_exit(mutate, capsys):
    mutate.setattr(special, "erf_variance", lambda t, g, f=special.erf_variance: -f(t, g))
    assert cli.main(["check", "--only", "zeta", "--quiet"]) == 1
    assert "FAIL" in capsys.readouterr().out
