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
