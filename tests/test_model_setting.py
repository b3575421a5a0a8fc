"""The model's setting as one value (`slr_verify.model.params.ModelSetting`): it refuses each bad parameter naming it,
its balls (`slr_verify.checker.balls.param_balls`, the one function of their convention) contain the real parameters
(checked in exact rational arithmetic), the paper's figures are named instances, each statement's minimum of d is
its own, the command line states the setting once, and no dummy-argument validation is left in the source."""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from flint import arb, ctx

from slr_verify.checker.balls import ParamBalls, param_balls
from slr_verify.checker.profile import SettingBalls
from slr_verify.model.params import D_MIN, D_MINIMUMS, SUPPORTED_MAX, ModelSetting, Params
from slr_verify.model.settings import FIGURE_4B, FIGURE_5, FIGURES

ROOT = Path(__file__).resolve().parent.parent
GOOD = dict(gamma2=0.5, eps=0.1, d=80, L=10)


@pytest.mark.parametrize("bad, name, says", [
    (dict(gamma2=-0.5), "gamma2", "> 0"),
    (dict(gamma2=0.0), "gamma2", "> 0"),
    (dict(gamma2=float("nan")), "gamma2", "finite"),
    (dict(gamma2=float("inf")), "gamma2", "finite"),
    (dict(gamma2=True), "gamma2", "bool"),
    (dict(gamma2="0.5"), "gamma2", "string"),
    (dict(gamma2=1e41), "gamma2", "supported range"),
    (dict(eps=-0.1), "eps", ">= 0"),
    (dict(eps=float("nan")), "eps", "finite"),
    (dict(eps=1e101), "eps", "supported range"),
    (dict(d=1), "d", "integer >= 2"),
    (dict(d=80.5), "d", "integer >= 2"),
    (dict(d=None), "d", "required"),
    (dict(d=1e201), "d", "supported range"),
    (dict(L=0), "L", "integer >= 1"),
    (dict(L=2.5), "L", "integer >= 1"),
    (dict(L=None), "L", "required"),
    (dict(L=1e31), "L", "supported range"),
])
def test_the_value_refuses_each_bad_parameter_naming_it(bad, name, says):
    with pytest.raises(ValueError) as e:
        ModelSetting(**{**GOOD, **bad})
    assert str(e.value).startswith(name) or f" {name}" in str(e.value), str(e.value)
    assert says in str(e.value), str(e.value)


@pytest.mark.parametrize("kw, says", [
    (dict(gamma=-1.0, eps=0.0, d=4, L=1), "gamma must be > 0"),
    (dict(gamma=1e21, eps=0.0, d=4, L=1), "gamma = 1e+21 is outside the supported range"),
    (dict(gamma=1.0, gamma2=1.0, eps=0.0, d=4, L=1), "exactly one of gamma"),
    (dict(eps=0.0, d=4, L=1), "exactly one of gamma"),
    (dict(gamma2=0.5, eps=0.0, d=4, L=1, lam=0.1), "no keyword 'lam'"),
])
def test_gamma_or_gamma2_exactly_one_and_no_other_keyword(kw, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        ModelSetting(**kw)


def test_keywords_only_and_immutable():
    with pytest.raises(ValueError, match="keywords only"):
        ModelSetting(0.5, 0.0, 400, 10)
    s = ModelSetting(**GOOD)
    with pytest.raises(AttributeError):
        s.d = 3


def test_the_paper_figures_are_named_instances():
    assert FIGURE_4B == ModelSetting(gamma2=0.5, eps=0.0, d=400, L=10)
    assert FIGURE_5 == ModelSetting(gamma2=0.5, eps=0.1, d=80, L=10)
    assert all(FIGURES[f].model is FIGURE_4B for f in ("4a", "4b", "7a", "7b")) and FIGURES["5"].model is FIGURE_5
    assert (FIGURES["5"].d, FIGURES["5"].eps, FIGURES["5"].gamma2) == (80, 0.1, 0.5)
    # gamma^2 = 1/2 given as the variance or gamma = sqrt(1/2) as the float: one value, the same balls
    assert ModelSetting(gamma=0.5**0.5, eps=0.0, d=400, L=10) == FIGURE_4B and FIGURE_4B.gamma2 == 0.5


def _ends(b: arb) -> tuple:
    """The exact ends of an arb ball as Fractions (its midpoint and radius are exact binary numbers)."""
    (m, e), (r, f) = b.mid().man_exp(), b.rad().man_exp()
    mid, rad = Fraction(int(m)) * Fraction(2) ** int(e), Fraction(int(r)) * Fraction(2) ** int(f)
    return mid - rad, mid + rad


@pytest.mark.parametrize("gamma2, eps", [(Fraction(1, 2), Fraction(0)), (Fraction(1, 2), Fraction(1, 10)),
                                         (Fraction(3, 2), Fraction(1, 3)), (Fraction(4, 5), Fraction(1, 10)),
                                         (Fraction(7, 1000), Fraction(22, 7)), (Fraction(10**30, 3), Fraction(1, 10**9))])
@pytest.mark.parametrize("prec", [53, 128])
def test_the_balls_contain_the_real_parameters(gamma2, eps, prec):
    """The setting given by its floats (gamma2 and eps rounded to nearest) has balls holding the exact reals: sqrt of
    the rational gamma^2 (lo^2 <= gamma^2 <= hi^2, exactly) and the rational eps; d and L exact."""
    s = ModelSetting(gamma2=float(gamma2), eps=float(eps), d=400, L=10)
    with ctx.workprec(prec):
        P = s.balls()
    assert isinstance(P, ParamBalls) and P._fields == ("gamma", "eps", "d", "L")
    lo, hi = _ends(P.gamma)
    assert 0 < lo and lo * lo <= gamma2 <= hi * hi
    lo, hi = _ends(P.eps)
    assert lo <= eps <= hi
    assert P.d.is_exact() and P.d == 400 and P.L.is_exact() and P.L == 10
    # an independent reference: mpmath's 60-digit sqrt lies in the gamma ball
    with mpmath.workdps(60):
        ref = mpmath.sqrt(mpmath.mpf(gamma2.numerator) / gamma2.denominator)
        lo, hi = _ends(P.gamma)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator


def test_one_function_makes_the_balls_for_the_search_and_the_checker():
    """ModelSetting.balls, the checker's SettingBalls and a direct call are the same balls (mid and radius)."""
    s = FIGURE_5
    same = lambda a, b: all(x.mid() == y.mid() and x.rad() == y.rad() for x, y in zip(a, b))  # noqa: E731
    direct = param_balls(s.gamma, s.eps, s.d, s.L)
    assert same(s.balls(), direct) and same(SettingBalls(s.gamma, s.eps, s.d, s.L).P, direct)
    assert direct.kw("gamma", "d") == {"gamma": direct.gamma, "d": direct.d} and set(direct.kw()) == {"gamma", "eps", "d", "L"}


def test_the_value_with_lam_and_its_texts():
    p = FIGURE_4B.at(0.1)
    assert isinstance(p, Params) and p.setting == FIGURE_4B and p.lam == 0.1
    with pytest.raises(ValueError, match="lam must be > 0"):
        FIGURE_4B.at(-1.0)
    assert FIGURE_4B.label() == "gamma^2=0.5 eps=0 d=400 L=10" and p.label() == "lam=0.1 " + FIGURE_4B.label()
    assert FIGURE_4B.kw(eps=False) == {"gamma": FIGURE_4B.gamma, "d": 400, "L": 10}
    assert FIGURE_4B.replace(d=80, eps=0.1) == FIGURE_5
    assert FIGURE_4B.replace(gamma2=0.8).gamma2 == 0.8


def test_each_statement_states_its_minimum_of_d():
    assert D_MINIMUMS["model"][0] == D_MIN == 2
    assert ModelSetting(gamma2=0.5, d=4, L=3).require_d("profile").d == 4
    with pytest.raises(ValueError, match=r"d must be >= 4 for the profile's reduction .*got d = 3"):
        ModelSetting(gamma2=0.5, d=3, L=3).require_d("profile")


def test_the_profile_refuses_d_below_its_minimum():
    from slr_verify.landscape import float_global_minimum

    with pytest.raises(ValueError, match=r"d must be >= 4 for the profile's reduction.*got d = 3"):
        float_global_minimum(lam=0.5, gamma2=0.5, eps=0.0, d=3, L=10)


def test_the_supported_ranges_are_the_values():
    s = ModelSetting(gamma=SUPPORTED_MAX["gamma"], eps=SUPPORTED_MAX["eps"], d=SUPPORTED_MAX["d"], L=SUPPORTED_MAX["L"])
    assert s.gamma == 1e20 and s.d == 1e200


def test_the_command_line_refuses_a_figure_mixed_with_its_own_values(capsys):
    from slr_verify.cli import main

    assert main(["risk", "--figure", "4b", "--gamma2", "1.2", "--lam", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "--figure 4b fixes gamma^2, eps, d and L" in err and "--gamma2" in err


def test_gamma2_has_one_wording_in_every_command(capsys):
    from slr_verify.cli import build_parser
    from slr_verify.model.params import GAMMA2_MEANING

    parser = build_parser()
    for argv in (["risk"], ["certify", "oracle"], ["certify", "theorem5"], ["check"], ["pgd"]):
        with pytest.raises(SystemExit):
            parser.parse_args([*argv, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert GAMMA2_MEANING in text, argv
        assert "signal's variance" not in text


#: dummy-argument validation: a parameter invented to reach another's check
_DUMMY = re.compile(r"check_params\(1(\.0)?,|Params\(lam=1(\.0)?\b|check_params\([^)]*,\s*2,\s*L\)|checked\(lam=1(\.0)?\b")
#: gamma^2 -> gamma outside gamma_of
_SQRT = re.compile(r"sqrt\((?:float\()?(?:[A-Za-z_]+\.|[A-Za-z_]+\[\"|)gamma2")


def test_no_dummy_validation_and_one_square_root_in_the_source():
    bad = []
    for path in sorted((ROOT / "slr_verify").rglob("*.py")):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if _DUMMY.search(code) or (_SQRT.search(code) and path.name != "params.py"):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert bad == []
