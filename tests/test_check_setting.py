"""``slr-verify check --setting``: the parameterised claims run at a user's setting, the others at
the paper's, the report says which ran where, and the exit code means the same as at the paper's settings.

Kept cheap: the claims run are the fastest of each kind (oracle-risk, theorem-5 a few seconds each in fast mode at the
user's setting; lemma-4 about 1 s at the paper's), in this process; the reports' formats are checked on results built
by hand.
"""
import json
import re
from pathlib import Path

import pytest

from slr_verify import cli
from slr_verify.claims import CLAIMS, ClaimSetting, Result, get, parameterised, report, run_claims
from slr_verify.claims import vocabulary as V
from slr_verify.model.cli_args import parse_setting, setting_from_args

ROOT = Path(__file__).resolve().parents[1]
USER = dict(gamma2=0.8, eps=0.1, d=200, L=6)
ARG = "gamma2=0.8,eps=0.1,d=200,L=6"


def _check_json(capsys, *args):
    code = cli.main(["check", *args, "--fast", "--json", "--jobs", "1", "--quiet"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_a_parameterised_claim_runs_at_the_users_setting_a_tied_one_at_the_papers(capsys):
    """oracle-risk runs at gamma^2 = 0.8, eps = 0.1, d = 200, L = 6 (its evidence carries the numbers); lemma-4 is tied
    to Figure 4b's model and says so; the header and the coverage say which ran where."""
    code, doc = _check_json(capsys, "--setting", ARG, "--only", "oracle-risk", "lemma-4")
    assert code == 0 and doc["as_established"]
    assert doc["setting"] == dict(USER, source="user") and doc["mode"] == "fast"
    claims = {c["id"]: c for c in doc["claims"]}
    orc, lem = claims["oracle-risk"], claims["lemma-4"]
    assert orc["setting"] == dict(USER, source="user") and orc["verdict"] == "pass"
    assert "gamma^2 = 0.8, eps = 0.1, d = 200, L = 6" in orc["domain"]
    numeric = [e for e in orc["evidence"] if e["tier"] != "proved (symbolic)"]
    assert numeric and all(e["details"]["setting"] == dict(USER, source="user") for e in numeric)
    assert lem["setting"]["source"] == "paper" and (lem["setting"]["gamma2"], lem["setting"]["d"]) == (0.5, 400)
    assert "Figure 4b" in lem["setting"]["note"] and lem["verdict"] == "pass"
    assert doc["coverage"] == {"user": ["oracle-risk"], "paper": ["lemma-4"], "outside": {}}
    assert "(yours). Ran at it: oracle-risk." in doc["header"][1] and "lemma-4" in doc["header"][1]


def test_the_four_options_are_the_same_setting():
    parser = cli.build_parser()
    one = setting_from_args(parser.parse_args(["check", "--setting", ARG]))
    four = setting_from_args(parser.parse_args(["check", "--gamma2", "0.8", "--eps", "0.1", "--d", "200", "--L", "6"]))
    assert one == four == USER and parse_setting(" d=200, L=6,gamma2=0.8 ,eps=0.1") == USER
    assert setting_from_args(parser.parse_args(["check"])) is None  # the paper's settings


@pytest.mark.parametrize("args, names", [
    (["--setting", "gamma2=-1,eps=0.1,d=200,L=6"], "gamma2 must be > 0"),
    (["--setting", "gamma2=0.8,eps=0.1,d=1,L=6"], "d must be an integer >= 2"),
    (["--setting", "gamma2=0.8,eps=-0.1,d=200,L=6"], "eps must be >= 0"),
    (["--setting", "gamma2=0.8,eps=0.1,d=200,L=0"], "L must be an integer >= 1"),
    (["--setting", "foo=1,gamma2=0.8,eps=0.1,d=200,L=6"], "unknown key 'foo'"),
    (["--setting", "gamma=0.8,eps=0.1,d=200,L=6"], "give gamma2"),
    (["--setting", "gamma2=0.8,eps=0.1,d=200"], "L missing"),
    (["--setting", "gamma2=x,eps=0.1,d=200,L=6"], "gamma2 must be a number"),
    (["--gamma", "0.8", "--eps", "0.1", "--d", "200", "--L", "6"], "--gamma2"),
    (["--gamma2", "-1", "--eps", "0.1", "--d", "200", "--L", "6"], "--gamma2 must be > 0"),
    (["--gamma2", "0.8", "--d", "200", "--L", "6"], "--eps missing"),
    (["--setting", ARG, "--d", "100"], "not both"),
])
def test_a_bad_setting_exits_2_with_one_line_naming_it(capsys, args, names):
    """Refused before any claim runs: exit 2, one line on stderr naming the value (or the option to use)."""
    assert cli.main(["check", *args, "--only", "zeta", "--fast", "--quiet"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and names in out.err, out.err


def test_outside_its_range_a_parameterised_claim_runs_at_the_papers_and_says_why(capsys):
    """At d = 2 there is no M with |kappa|, |nu| < 1: Proposition 9 (a claim on M, the cheapest of them) runs at Figure
    4b's model, the report gives the reason, and the exit code is 0 (its verdict is the established one)."""
    code, doc = _check_json(capsys, "--gamma2", "0.8", "--eps", "0.1", "--d", "2", "--L", "6", "--only", "proposition-9")
    (c,) = doc["claims"]
    assert code == 0 and c["setting"]["source"] == "paper" and "M needs d >= 4" in c["setting"]["note"]
    assert doc["coverage"]["outside"] == {"proposition-9": "M needs d >= 4, got d = 2"}


def test_a_tiny_gamma2_is_outside_the_rates_range_not_an_error(capsys):
    """At gamma^2 = 1e-20 the reduced map's gradient at (1, 1) is ~1e-20: Proposition 10's predicted rates
    (1 - alpha |g|)^2 round to 1 (their step count was -inf, which passed the step limit) and Theorem 5's numeric
    alpha_max is infinite (its range check raised LinAlgError on an infinite step). Proposition 10 runs at the paper's
    setting, the report says why, and it does not end with an error; Theorem 5 gives its reason (the same runner then
    sends it to the paper's setting, as the test above shows for Proposition 9; run here, it would replay the theorem's
    certificate once more)."""
    code, doc = _check_json(capsys, "--setting", "gamma2=1e-20,eps=0,d=400,L=10", "--only", "proposition-10")
    (c,) = doc["claims"]
    assert code == 0 and c["id"] == "proposition-10"
    assert c["setting"]["source"] == "paper" and c["error"] is None and c["verdict"] == "pass"
    assert "round to 1 in float64" in doc["coverage"]["outside"]["proposition-10"] and "round to 1" in c["setting"]["note"]
    tiny = ClaimSetting(gamma2=1e-20, eps=0.0, d=400, L=10, source="user")
    assert "alpha_max is inf" in get("theorem-5").outside(tiny)
    assert get("theorem-5").setting_for(tiny).source == "paper"


@pytest.mark.slow  # 1.6 s; the command line's runs at a setting stay
def test_run_claims_at_a_setting_from_python():
    """The library's route: a dict; the check reads ctx.setting; a bad value is a ValueError naming it."""
    (r,) = run_claims(mode="fast", only={"theorem-5"}, setting=USER)
    assert r.verdict == "pass" and r.setting == ClaimSetting(**USER) and r.setting.user
    (runs,) = [e for e in r.evidence if "setting" in e.details]  # the sampled runs at the user's setting
    assert runs.details["setting"] == dict(USER, source="user")
    (p,) = run_claims(mode="fast", only={"proposition-10"})  # a parameterised claim, no setting given: the paper's
    assert not p.setting.user and p.setting.d == 400
    with pytest.raises(ValueError, match="d must be an integer >= 2"):
        run_claims(mode="fast", only={"theorem-5"}, setting=dict(USER, d=1))


def test_the_exit_code_means_the_same_at_a_users_setting(monkeypatch, capsys):
    """A parameterised claim that fails at the user's setting makes the exit code 1, as at the paper's."""
    from slr_verify.kernels import api

    real = api.oracle_risk
    monkeypatch.setattr(api, "oracle_risk", lambda **p: real(**p) * (1 + 1e-6))
    assert cli.main(["check", "--setting", ARG, "--only", "oracle-risk", "--fast", "--jobs", "1", "--quiet"]) == 1
    assert "FAIL (expected pass)" in capsys.readouterr().out


def _result(claim_id, setting):
    return Result(get(claim_id), [V.Measured("r", "ref", 0.0, 1.0, "w", unit="u")], 0.1, mode="fast", setting=setting)


def test_text_and_markdown_say_where_each_claim_ran():
    user = ClaimSetting(**USER)
    res = [_result("oracle-risk", user), _result("lemma-4", None), _result("theorem-5", get("theorem-5").setting_for(
        ClaimSetting(0.8, 0.1, 2, 6)))]
    text = report.text(res, setting=user)
    assert "setting" in text.splitlines()[text.splitlines().index("Claims of the paper") + 2]
    rows = {line.split()[0]: line for line in text.splitlines() if line[:1].isalpha()}
    assert " yours " in rows["oracle-risk"] and " paper " in rows["lemma-4"]
    assert "fast mode" in text and "gamma^2 = 0.8, eps = 0.1, d = 200, L = 6 (yours)" in text
    plain = report.text(res[:2])
    assert " yours " not in plain and "every claim at the paper's settings" in plain
    md = report.markdown(res, setting=user)
    assert "Setting: gamma^2 = 0.8, eps = 0.1, d = 200, L = 6 (yours)." in md
    assert "Setting: gamma^2 = 0.5, eps = 0, d = 400, L = 10 (the paper's: Figure 4b's model)." in md
    for block in re.findall(r"((?:^\|.*\|\n)+)", md + "\n", re.M):
        cells = {len(re.split(r"(?<!\\)\|", row)) for row in block.strip().splitlines()}
        assert len(cells) == 1, block


def test_which_claims_are_parameterised():
    """The mathematics that holds at any setting; never a figure's claim nor an established refutation; each states
    its domain at a user's setting with the setting's numbers."""
    ids = set(parameterised())
    assert {"theorem-1", "oracle-risk", "lemma-6", "law-of-J0", "proposition-9", "proposition-10", "theorem-5"} <= ids
    assert not ids & {"figure-4a-recovery", "constant-lam-not-always", "basins", "landscape", "oracle-window",
                      "global-minimiser", "figure-8", "figure-9", "bayes-risk"}
    user = ClaimSetting(**USER)
    for c in CLAIMS:
        if c.parameterised:
            assert c.expect == "pass" and c.setting_for(user) is user, c.id
            for mode in ("fast", "default", "thorough"):
                assert "d = 200" in c.domain_text(mode, user), c.id
        else:
            assert not c.setting_for(user).user, c.id
    with pytest.raises(ValueError, match="expected to pass"):
        type(get("theorem-1"))("x", "w", "s", lambda ctx: [], expect="refuted", reason="r", at_setting=lambda s, st: "")


def test_the_docs_list_the_parameterised_claims():
    """docs/own-setting.md names exactly the claims that run at a user's setting (from the registry)."""
    page = (ROOT / "docs" / "own-setting.md").read_text(encoding="utf-8")
    section = page.split("<!-- parameterised:start -->", 1)[1].split("<!-- parameterised:end -->", 1)[0]
    assert re.findall(r"`([A-Za-z0-9-]+)`", section) == parameterised()
