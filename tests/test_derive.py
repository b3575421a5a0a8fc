"""Derivations: committed files match a fresh regeneration, and reload to the live expressions."""
from pathlib import Path

import pytest

from slr_verify import derive

GENERATED = Path(__file__).resolve().parents[1] / "derivations" / "generated"


def test_committed_files_are_up_to_date():
    assert derive.main(out=GENERATED, check=True) == 0


@pytest.mark.parametrize("name", list(derive.DERIVATIONS))
def test_machine_readable_form_reloads_to_live_expressions(name):
    loaded = derive.load(GENERATED / f"{name}.json")
    live = derive.derive(name)
    assert set(loaded) == set(live)
    for key, (_, expr) in live.items():
        assert loaded[key] == expr, key


def test_check_detects_a_stale_file(tmp_path):
    derive.main(["linear"], out=tmp_path)
    assert derive.main(["linear"], out=tmp_path, check=True) == 0
    path = tmp_path / "linear.json"
    path.write_text(path.read_text().replace("Symbol('gamma'", "Symbol('gama'", 1))
    assert derive.main(["linear"], out=tmp_path, check=True) == 1


def test_generated_mpmath_kernels_take_float_arguments_exactly():
    """A Python float argument is the exact binary number it stands for: the mpmath kernel must not
    round x*y - 1 to 53 bits before mpf enters (0.1 * 10.0 - 1 is 0.0 in floats). Reference: SymPy's
    own evaluation at 50 digits with the arguments as exact rationals."""
    import mpmath
    import sympy as sp

    from slr_verify.kernels.codegen import generate_mp

    x, y = sp.symbols("x y")
    expr = x * y - 1 + x**2
    f = generate_mp((x, y), [expr])
    want = expr.subs({x: sp.Rational(0.1), y: sp.Rational(10.0)}).evalf(50)
    with mpmath.workdps(50):
        got = f(0.1, 10.0)[0]
        assert abs(got - mpmath.mpf(str(want))) <= mpmath.mpf(10) ** -48 * abs(mpmath.mpf(str(want)))
