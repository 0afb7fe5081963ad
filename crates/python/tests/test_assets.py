"""The repository's configs ship inside the package (petri.assets)."""

import json

import pytest

import petri
from conftest import ASSETS


def test_the_package_holds_every_asset_of_the_repository_as_it_is():
    on_disk = sorted(p.name for p in ASSETS.glob("*.json"))
    assert petri.assets.names() == on_disk
    for name in on_disk:
        assert petri.assets.text(name) == (ASSETS / name).read_text(encoding="utf-8")
        assert petri.assets.load(name) == json.loads((ASSETS / name).read_text(encoding="utf-8"))


def test_an_asset_as_a_file_opens_like_the_repository_copy(tmp_path):
    path = petri.assets.path("birth-death.json", tmp_path)
    assert path == tmp_path / "birth-death.json"
    assert path.read_text(encoding="utf-8") == (ASSETS / "birth-death.json").read_text(encoding="utf-8")
    # A second call finds it; the default folder works too.
    assert petri.assets.path("birth-death.json", tmp_path) == path
    assert petri.assets.path("vilar.json").is_file()
    a = petri.open(path, trajectories=20, t_end=2, points=3, device="cpu")
    b = petri.open(ASSETS / "birth-death.json", trajectories=20, t_end=2, points=3, device="cpu")
    a.run(), b.run()
    assert (a.state()["mean"] == b.state()["mean"]).all()


def test_an_unknown_asset_names_the_ones_there_are():
    with pytest.raises(petri.ConfigError) as e:
        petri.assets.load("angiogenesis2.json")
    assert "angiogenesis2.json" in str(e.value)
    assert "angiogenesis.json" in str(e.value) and "vilar.json" in str(e.value)
