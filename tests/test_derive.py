"""Derivations: committed files match a fresh regeneration, and reload to the live expressions; the
output folder is explicit (``--out``, checked before any work; without it a named folder under the
working directory, never the checkout); :func:`derive.load` takes a name or a file."""
import io
import os
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


def test_load_takes_a_name_or_a_file():
    by_name = derive.load("manifold")
    assert by_name == derive.load(GENERATED / "manifold.json") == derive.load(str(GENERATED / "manifold.json"))
    assert by_name == {k: e for k, (_, e) in derive.derive("manifold").items()}


@pytest.mark.parametrize("call", [lambda: derive.load("manifol"), lambda: derive.load("no/such/file.json"),
                                  lambda: derive.derive("manifol"), lambda: derive.render("manifol")])
def test_unknown_name_lists_the_derivations(call):
    with pytest.raises(ValueError, match="risk, manifold, linear, dynamics, asymptotics, multihead, profile"):
        call()


def test_without_out_writes_a_named_folder_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    buf = io.StringIO()
    assert derive.main(["linear"], stream=buf) == 0
    folder = tmp_path / derive.DEFAULT_DIR
    assert sorted(p.name for p in folder.iterdir()) == ["linear.json", "linear.tex"]
    assert str(folder) in buf.getvalue() and "no --out given" in buf.getvalue()
    assert sorted(p.name for p in tmp_path.iterdir()) == [derive.DEFAULT_DIR]


def test_out_is_created_when_missing(tmp_path):
    out = tmp_path / "a" / "b"
    assert derive.check_out(out) == out and not (tmp_path / "a").exists()  # checking creates nothing
    assert derive.main(["linear"], out=out, stream=io.StringIO()) == 0
    assert (out / "linear.json").is_file()


def test_bad_out_is_refused_before_any_work(tmp_path, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("")

    def no_work(name):
        raise AssertionError("rendered before --out was checked")

    monkeypatch.setattr(derive, "render", no_work)
    for bad in (afile, afile / "sub"):
        with pytest.raises(ValueError, match="--out"):
            derive.check_out(bad)
        buf = io.StringIO()
        assert derive.main(["linear"], out=bad, stream=buf) == 2
        lines = buf.getvalue().splitlines()
        assert len(lines) == 1 and "--out" in lines[0] and str(bad) in lines[0]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write any directory")
def test_unwritable_out_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        for bad in (locked, locked / "sub"):
            with pytest.raises(ValueError, match="--out .*not writable"):
                derive.check_out(bad)
    finally:
        locked.chmod(0o700)


def test_cli_bad_out_is_one_line(tmp_path, capsys):
    from slr_verify.cli import main

    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["derive", "--out", str(afile), "linear"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("slr-verify derive: error: --out")


def test_every_derivation_has_its_script_readme_entry_and_docs_row():
    """derivations/NAME.py, a row of derivations/README.md and of the docs page for every derivation."""
    folder = GENERATED.parent
    readme = (folder / "README.md").read_text()
    page = (folder.parent / "docs" / "derivations.md").read_text()
    for name in derive.DERIVATIONS:
        assert (folder / f"{name}.py").is_file(), name
        assert f"`generated/{name}.*`" in readme, name
        assert f"\n| `{name}` |" in page, name


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
