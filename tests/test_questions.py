"""One command per question at any setting (`docs/own-setting.md`): the setting given one way, the tiers printed,
JSON for machines, refusals that name the fix. Independent routes: Theorem 1 in mpmath at 30 digits for the risk's
enclosure; the float64 kernels for the closed-form predictors."""
import json
import math

import mpmath
import pytest

import slr_verify as slr
from slr_verify.cli import main
from slr_verify.kernels.generated import risk_kernel_mp

OWN = ["--gamma2", "0.8", "--eps", "0.1", "--d", "200", "--L", "6"]


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse's own errors: one line, exit 2
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_risk_enclosure_contains_theorem1_at_30_digits(capsys):
    code, out, _ = run(capsys, "risk", *OWN, "--lam", "0.3", "--overlaps", "0.3,0.5,0.2,0.9,0.4", "--json")
    assert code == 0
    ans = json.loads(out)
    lo, hi = ans["results"][1]["value"]
    assert ans["results"][1]["tier"] == "proved (ball arithmetic)"
    with mpmath.workdps(30):
        ref = risk_kernel_mp()(mpmath.mpf("0.3"), mpmath.mpf("0.5"), mpmath.mpf("0.2"), mpmath.mpf("0.9"), mpmath.mpf("0.4"),
                               mpmath.mpf("0.3"), mpmath.sqrt(mpmath.mpf("0.8")), mpmath.mpf("0.1"), 200, 6)
    assert lo <= ref <= hi and hi - lo < 1e-13
    assert ans["setting"] == {"gamma2": 0.8, "eps": 0.1, "d": 200, "L": 6, "lam": 0.3, "source": "given"}


def test_text_output_carries_tiers_and_figure_shorthand(capsys):
    code, out, _ = run(capsys, "risk", "--figure", "4b", "--lam", "0.1")
    assert code == 0 and "(Figure 4b)" in out and "[proved (ball arithmetic)]" in out and "gamma^2 = 0.5" in out


@pytest.mark.parametrize("argv, words", [
    (["risk", "--gamma", "0.8", "--eps", "0", "--d", "200", "--L", "6", "--lam", "0.3"], ["--gamma2"]),
    (["risk", "--gamma2", "0.8", "--d", "200", "--L", "6", "--lam", "0.3"], ["--eps required"]),
    (["window", "--gamma2", "0.8", "--eps", "0", "--d", "200"], ["--L required"]),
    (["global-min", *OWN, "--lam", "0.3", "--out", "x.json"], ["--out needs --certify"]),
    (["risk", *OWN, "--lam", "0.3", "--overlaps", "1,1,0"], ["--overlaps"]),
    (["risk", *OWN, "--lam", "0.3", "--gamma2x", "1"], ["unrecognized"]),
])
def test_refusals_are_one_line_and_name_the_fix(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    for w in words:
        assert w in err, err


@pytest.mark.slow  # two float scans of lam
def test_global_min_and_window_float_routes(capsys):
    code, out, _ = run(capsys, "global-min", "--figure", "4b", "--lam", "0.3", "--json")
    ans = json.loads(out)
    assert code == 0 and ans["results"][0]["overlaps"] == [1.0, 1.0, 0.0, 0.0, 0.0]
    code, out, _ = run(capsys, "window", *OWN, "--json")
    ans = json.loads(out)
    lo, hi = ans["results"][0]["value"]
    assert code == 0 and 0.11 < lo < 0.12 < 0.9 < hi < 0.92 and ans["results"][0]["tier"].startswith("numeric")


def test_bayes_table(capsys):
    code, out, _ = run(capsys, "bayes", *OWN, "--lam", "0.3", "--n", "4096", "--json")
    assert code == 0
    res = {r["name"]: r for r in json.loads(out)["results"]}
    erf = res["erf attention at (k*, v*) (Theorem 1)"]
    assert math.isclose(erf["value"], slr.oracle_risk(lam=0.3, gamma2=0.8, eps=0.1, d=200, L=6), rel_tol=1e-12)
    lin = res["best linear predictor (Proposition 3)"]
    assert math.isclose(lin["value"], slr.linear_risk(gamma2=0.8, eps=0.1, L=6), rel_tol=1e-12)
    bay = res["Bayes predictor E[Y | X]"]
    assert bay["tier"].startswith("statistical") and bay["interval"][0] <= bay["value"] <= bay["interval"][1]
    assert 0.01 <= bay["value"] < erf["value"]


def test_api_gamma2_and_unknown_keywords():
    g = dict(lam=0.3, eps=0.1, d=200, L=6)
    assert slr.oracle_risk(gamma2=0.8, **g) == slr.oracle_risk(gamma=math.sqrt(0.8), **g)
    with pytest.raises(ValueError, match="exactly one of gamma"):
        slr.oracle_risk(gamma=0.8, gamma2=0.8, **g)
    with pytest.raises(ValueError, match="'stars'"):
        slr.landscape.float_global_minimum(gamma2=0.8, stars=10, **g)
    with pytest.raises(ValueError, match="gamma2"):
        slr.oracle_risk(gamma2=-1.0, **g)
    from slr_verify.model.params import Params

    assert Params(lam=0.3, gamma2=0.8, eps=0.1, d=200, L=6).gamma == math.sqrt(0.8)


@pytest.mark.slow  # PGD runs to their ends; the basins claim accounts for them in the default run
def test_basins_table_accounts_for_every_run(capsys):
    """Every run is in one row; each row's 95% interval holds its rate; the oracle's PGD stability is stated against
    2 / lambda_max (at alpha = 4e-3 and this setting the oracle's largest Hessian eigenvalue is ~274)."""
    code, out, err = run(capsys, "basins", *OWN, "--lam", "0.3", "--alpha", "4e-3", "--runs", "12", "--steps", "2000",
                         "--json")
    assert code == 0
    res = json.loads(out)["results"]
    rows = [r for r in res if "runs" in r]
    assert sum(r["value"] for r in rows) == 12
    for r in rows:
        assert r["ci95"][0] <= r["value"] / 12 <= r["ci95"][1] and r["tier"]
    orc = res[-1]
    assert orc["name"] == "the oracle at this alpha" and orc["value"] == (4e-3 < 2 / orc["lambda_max"])


def test_progress_true_means_stderr(capsys):
    """progress=True draws on stderr (it used to crash inside tqdm after the run)."""
    slr.overlap_pgd((0.1, 0.2, 0.0, 0.0, 0.0), lam=0.1, gamma2=0.5, d=400, L=10, alpha=4e-3, steps=50, progress=True)
    assert "pgd" in capsys.readouterr().err


def test_every_help_text_formats(capsys):
    """argparse formats help with %: a bare percent sign in a help string crashes --help (it did: '95% interval')."""
    for cmd in ("risk", "global-min", "window", "bayes", "basins"):
        code, out, _ = run(capsys, cmd, "--help")
        assert code == 0 and "--gamma2" in out


def test_pgd_at_your_own_setting(capsys, tmp_path):
    """PGD at a setting and schedule of the user's: the .npz records it; without --figure every parameter is required,
    and --figure with setting options is refused."""
    import numpy as np

    out = tmp_path / "own.npz"
    code, _, err = run(capsys, "pgd", *OWN, "--lam0", "1.0", "--alpha", "4e-3", "--steps", "300", "--repeats", "3",
                       "--out", str(out), "--quiet")
    assert code == 0, err
    z = np.load(out)
    params = json.loads(str(z["params_json"]))
    assert params["lam"] == "1/(1+1e-4 t)" and params["gamma2"] == 0.8 and params["repeats"] == 3
    assert z["kappa"].shape[-1] == 3
    code, _, err = run(capsys, "pgd", "--gamma2", "0.8", "--d", "200", "--L", "6", "--lam", "0.3", "--alpha", "4e-3",
                       "--out", str(tmp_path / "x.npz"))
    assert code == 2 and "--eps" in err and "--steps" in err
    code, _, err = run(capsys, "pgd", "--figure", "4b", "--d", "80", "--out", str(tmp_path / "y.npz"))
    assert code == 2 and "--figure fixes the setting" in err


@pytest.mark.slow  # every question once
def test_results_carry_their_tier():
    """The result objects say what they rest on, in the suite's tier vocabulary (slr_verify.model.tiers)."""
    from slr_verify import landscape as LS
    from slr_verify.certify.globalmin import GlobalCertificate
    from slr_verify.model import tiers as T

    assert LS.float_window(gamma2=0.5, d=400, L=10).tier.startswith(T.NUMERIC)
    assert LS.minimise_profile(lam=0.3, gamma2=0.5, d=400, L=10).tier.startswith(T.NUMERIC)
    c = GlobalCertificate(False, "", (0, 0), [], 0, 0.0, (0.3, 0.3), True)
    assert c.tier == T.NOT_PROVED
    c.proved = True
    assert c.tier.startswith(T.BALL)


def test_basins_usage_line_shows_what_it_requires(capsys):
    """The usage line marks --alpha and --runs as required (no brackets), as the command treats them: without one, one
    line naming it, exit 2."""
    code, out, _ = run(capsys, "basins", "--help")
    usage = " ".join(out.split("options:")[0].split())
    assert code == 0 and "--alpha ALPHA --runs RUNS" in usage and "[--alpha" not in usage and "[--runs" not in usage
    code, out, err = run(capsys, "basins", *OWN, "--lam", "0.3", "--alpha", "4e-3")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--runs" in err


@pytest.mark.parametrize("setting", [dict(gamma2=0.8, eps=0.1, d=200, L=6, lam=0.3),
                                     dict(gamma2=0.5, eps=0.0, d=400, L=10, lam=0.1),
                                     dict(gamma2=1.37, eps=0.25, d=17, L=3, lam=1.9)])
def test_the_command_line_reports_the_apis_r_at_the_oracle(capsys, setting):
    """R(k*, v*) from `risk` and from `bayes` is slr.oracle_risk's float, to the last digit (at the first setting Theorem
    1's general formula at (1, 1, 0, 0, 0) and eps^2 + exp(log excess) each round to a neighbouring float); the
    enclosure proved on balls contains it; at other overlaps `risk` reports slr.risk's float."""
    argv = [x for k, v in setting.items() for x in (f"--{k}", str(v))]
    api = slr.oracle_risk(**setting)
    code, out, _ = run(capsys, "risk", *argv, "--json")
    value, (lo, hi) = (r["value"] for r in json.loads(out)["results"])
    assert code == 0 and value == api and lo <= api <= hi
    code, out, _ = run(capsys, "bayes", *argv, "--n", "4096", "--json")
    erf, _, linear, _ = json.loads(out)["results"]
    assert code == 0 and erf["value"] == api
    assert linear["value"] == slr.linear_risk(gamma2=setting["gamma2"], eps=setting["eps"], L=setting["L"])
    code, out, _ = run(capsys, "risk", *argv, "--overlaps", "0.3,0.5,0.2,0.9,0.4", "--json")
    assert code == 0 and json.loads(out)["results"][0]["value"] == slr.risk(0.3, 0.5, 0.2, 0.9, 0.4, **setting)


def test_the_own_setting_page_lists_its_sections_and_commands():
    """docs/own-setting.md's opening list has one item per numbered section, in order, says how many in words, and
    names every question command and the two certify commands its sections show (theorem5, step-size)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "own-setting.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (\d+)\. ", text, re.M)
    intro = text.split("\n## ", 1)[0]
    items = re.findall(r"^(\d+)\. ", intro, re.M)
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    assert sections == items == [str(i) for i in range(1, len(sections) + 1)]
    assert f"The {words[len(sections)]} sections" in intro
    for cmd in ("risk", "global-min", "window", "bayes", "basins", "certify theorem5", "certify step-size", "check"):
        assert f"`slr-verify {cmd}" in intro, cmd


def test_an_unclassified_basin_row_ends_without_a_dash():
    """A basin row names what its end point is when there is one ("; a minimum"); an unclassified row (kind "-") ends
    with its interval, not "; a -" (issue 49)."""
    from slr_verify.questions import _basin_text

    row = dict(count=18, runs=50, rate=0.36, ci95=(0.2292, 0.5081))
    assert _basin_text(dict(row, kind="-")) == "18 of 50 runs, rate 0.36 (95% interval [0.2292, 0.5081])"
    assert _basin_text(dict(row, kind="minimum")).endswith("]); a minimum")
