"""Reaction networks as stochastic ensembles through the Python API."""

import math
from pathlib import Path

import numpy as np
import pytest

import petri

REPO = Path(__file__).resolve().parents[3]


def test_device_auto_says_which_device_and_why(birth_death):
    ens = petri.open(birth_death, trajectories=10, t_end=1.0, points=3)
    hardware = [a for a in petri.adapters() if not a["software"] and a["device_type"] != "Cpu"]
    if hardware:
        assert ens.device != "cpu"
    else:
        assert ens.device == "cpu"
        assert "software" in ens.device_reason or "no GPU" in ens.device_reason


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_birth_death_matches_its_analytic_mean_and_sd(birth_death, device):
    # X -> 2X at 0.1, X -> 0 at 0.11, X0 = 100 (DSMTS 00001): mean 100 e^(-0.01 t),
    # variance 2100 e^(-0.01 t) (1 - e^(-0.01 t)).
    n = 2000
    ens = petri.open(birth_death, trajectories=n, t_end=20.0, points=3, seed=7, device=device)
    ens.run()
    s = ens.state()
    assert s["species"] == ["X"] and s["times"].tolist() == [0.0, 10.0, 20.0]
    for k, t in enumerate(s["times"]):
        mean = 100 * math.exp(-0.01 * t)
        var = 2100 * math.exp(-0.01 * t) * (1 - math.exp(-0.01 * t))
        if var == 0:
            assert s["mean"][k, 0] == mean and s["sd"][k, 0] == 0
            continue
        z = (s["mean"][k, 0] - mean) / math.sqrt(var / n)
        assert abs(z) < 4, (t, s["mean"][k, 0], mean)
        # The sample sd of n draws: within 10 % of the true sd (about 6 standard errors).
        assert s["sd"][k, 0] == pytest.approx(math.sqrt(var), rel=0.1)


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_the_statistics_are_those_of_the_trajectories_returned(birth_death, device):
    ens = petri.open(birth_death, trajectories=64, t_end=5.0, points=6, seed=3,
                     keep_trajectories=True, device=device)
    ens.run(3)
    s = ens.state()
    assert s["trajectories"].shape == (64, 4, 1)
    assert np.array_equal(s["counts"], s["trajectories"][:, -1, :])
    assert np.allclose(s["mean"], s["trajectories"].mean(axis=0), rtol=1e-12)
    assert np.allclose(s["trajectories"][:, 0, 0], 100)


def test_same_seed_same_trajectories_and_a_checkpoint_resumes_bitwise(birth_death, tmp_path):
    opts = dict(trajectories=200, t_end=10.0, points=11, seed=5, device="cpu")
    a = petri.open(birth_death, **opts)
    a.run(4)
    a.save_checkpoint(tmp_path / "n.petri")
    a.run()
    b = petri.open(birth_death, **opts)
    b.run()
    assert np.array_equal(a.state()["counts"], b.state()["counts"])
    # The options come from the checkpoint.
    c = petri.open(birth_death, resume=tmp_path / "n.petri")
    assert (c.step, c.device) == (4, "cpu")
    c.run()
    for k in ("counts", "mean", "sd"):
        assert np.array_equal(a.state()[k], c.state()[k])
    other = petri.open(birth_death, **{**opts, "seed": 6})
    other.run()
    assert not np.array_equal(a.state()["counts"], other.state()["counts"])


def test_a_folder_run_writes_mean_sd_and_says_why_its_device(birth_death, tmp_path):
    import json

    ens = petri.open(birth_death, trajectories=20, t_end=2.0, points=5)
    obs = ens.run(out=tmp_path / "bd")
    manifest = json.loads((tmp_path / "bd" / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["device_reason"] == ens.device_reason
    assert {"mean_sd.csv", "mean_sd.png"} <= set(manifest["outputs"])
    assert obs["time"].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert np.array_equal(obs["X-mean"], ens.state()["mean"][:, 0])


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_an_sbml_model_beyond_mass_action_runs_on_either_device(device):
    # DSMTS 00019: birth-death of X with the assignment rule y = 2 X; the suite's means at
    # t = 10, 30, 50 within 4 standard errors, and y's statistics twice X's.
    xml = REPO / "data" / "dsmts" / "00019" / "00019-sbml-l3v1.xml"
    n = 2000
    ens = petri.open(xml, trajectories=n, t_end=50.0, points=6, seed=11, device=device)
    # `device` names the adapter on the GPU ("cpu" otherwise).
    assert (ens.device == "cpu") == (device == "cpu")
    ens.run()
    s = ens.state()
    x, y = s["species"].index("X"), s["species"].index("y")
    assert np.array_equal(s["mean"][:, y], 2 * s["mean"][:, x])
    assert np.allclose(s["sd"][:, y], 2 * s["sd"][:, x], rtol=1e-12)
    assert s["times"].tolist() == [0, 10, 20, 30, 40, 50]
    for k, mean, sd in [(1, 90.48374, 13.44708), (3, 74.08182, 20.08018), (5, 60.65307, 22.38677)]:
        t = s["times"][k]
        assert abs(s["mean"][k, x] - mean) < 4 * sd / math.sqrt(n), (t, s["mean"][k, x])


def test_events_run_on_the_gpu_and_a_delayed_one_stays_on_the_cpu(tmp_path):
    # DSMTS 00028: an event resets X to 50 at t = 25; the GPU runs it.
    xml = REPO / "data" / "dsmts" / "00028" / "00028-sbml-l3v1.xml"
    ens = petri.open(xml, trajectories=10, t_end=30.0, points=2, device="gpu")
    assert ens.device != "cpu"
    # The same event with a delay stays on the CPU, which auto says, and the GPU refuses it.
    delay = '<delay><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0.5</cn></math></delay>'
    delayed = tmp_path / "delayed.xml"
    delayed.write_text(xml.read_text().replace("</trigger>", "</trigger>" + delay))
    ens = petri.open(delayed, trajectories=10, t_end=1.0, points=2)
    assert ens.device == "cpu" and "delay" in ens.device_reason
    with pytest.raises(ValueError, match='<event id="reset">'):
        petri.open(delayed, trajectories=10, t_end=1.0, points=2, device="gpu")
