"""Every model through the Python API: observations, state arrays, determinism, checkpoints."""

import json

import numpy as np
import pytest

import petri


def same_state(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], list):
            assert a[k] == b[k], k
        else:
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            assert np.array_equal(a[k], b[k]), k


def test_adapters_are_listed_best_first():
    found = petri.adapters()
    assert found, "the tests need an adapter (scripts/ensure-gpu-driver.sh installs lavapipe)"
    for a in found:
        assert {"name", "backend", "device_type", "software"} <= a.keys()
        assert isinstance(a["software"], bool)
    # Hardware before software.
    flags = [a["software"] for a in found]
    assert flags == sorted(flags)


def test_angiogenesis_observes_at_multiples_and_its_arrays_match_the_observation(angio):
    sim = petri.open(angio)
    assert (sim.model, sim.step, sim.observe_every) == ("angiogenesis", 0, 20)
    obs = sim.run(50)
    assert obs["step"].tolist() == [20, 40, 50]
    assert sim.step == 50 and sim.time == pytest.approx(50 * sim.time_per_step)
    assert obs["time"][-1] == pytest.approx(sim.time)
    s = sim.state()
    assert s["n"].shape == s["c"].shape == (1, 41, 41) and s["n"].dtype == np.float32
    now = sim.observe()
    # The observed totals are sums over the grid (f64 sums of the f32 fields).
    assert now["total_c"] == pytest.approx(float(s["c"].sum(dtype=np.float64)), rel=1e-5)
    assert now["tips"] == int(s["tip_alive"].sum())
    assert s["segments"].shape[1] == 4 and s["segments"].shape[0] > 0
    # Every tip sits on a site a sprout has visited.
    for x, y, z in s["tip_position"]:
        assert s["sprout"][z, y, x] != 2**32 - 1


def test_runs_to_a_time_and_to_the_configs_steps(angio):
    sim = petri.open(angio)
    dt = sim.time_per_step
    sim.run(until=10.5 * dt)  # never past the time asked for
    assert sim.step == 10 and sim.time <= 10.5 * dt
    sim.run(until=sim.time + 3 * dt)  # a time on a step's end is reached
    assert sim.step == 13
    sim.run()
    assert sim.step == 13 + angio["steps"]


def test_same_seed_same_bits_and_a_checkpoint_resumes_bitwise(angio, tmp_path):
    a = petri.open(angio)
    a.run(60)
    a.save_checkpoint(tmp_path / "a.petri")
    a.run(40)
    b = petri.open(angio)
    b.run(100)
    same_state(a.state(), b.state())
    # An angiogenesis checkpoint carries its config.
    c = petri.open(resume=tmp_path / "a.petri")
    assert c.step == 60
    c.run(40)
    same_state(a.state(), c.state())


def test_a_run_into_a_folder_writes_what_petri_run_writes(angio, tmp_path):
    sim = petri.open(angio)
    out = tmp_path / "run"
    obs = sim.run(40, out=out, checkpoint_every=20)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["last_step"] == 40
    assert {"observables.csv", "checkpoint.petri", "vessels.png"} <= set(manifest["outputs"])
    rows = (out / "observables.csv").read_text().splitlines()
    assert len(rows) == 1 + len(obs["step"]) and obs["step"].tolist() == [0, 20, 40]
    resumed = petri.open(resume=out / "checkpoint.petri")
    assert resumed.step == 40


def test_rdme_conserves_particles_and_resumes_bitwise(rdme, tmp_path):
    sim = petri.open(rdme)
    assert sim.time_per_step == rdme["tau_s"]
    sim.run(40)
    s = sim.state()
    assert s["species"] == ["A", "B"]
    assert s["counts"].shape == (2, 32, 16, 16)
    assert int(s["counts"].sum()) == 800
    # Particles only in the cell (types 1 and 2).
    assert s["counts"].sum(axis=0)[s["site_type"] == 0].sum() == 0
    sim.save_checkpoint(tmp_path / "r.petri")
    sim.run(30)
    other = petri.open(rdme, resume=tmp_path / "r.petri")
    other.run(30)
    same_state(sim.state(), other.state())


def test_rdme_on_two_devices_or_other_sweeps_is_the_same_run(rdme):
    """A model's own options (`petri run` flags) reach it from Python; results do not depend
    on the device count or the sweeps."""
    one = petri.open(rdme)
    one.run(20)
    two = petri.open(rdme, options={"devices": 2, "sweeps": "every-site"})
    two.run(20)
    same_state(one.state(), two.state())


def test_epidermis_arrays_describe_the_same_cells(epidermis, tmp_path):
    sim = petri.open(epidermis)
    sim.run(10)
    s = sim.state()
    cells = len(s["cell_elements"])
    assert cells == 9
    assert s["element_position"].shape == (int(s["cell_elements"].sum()), 3)
    assert np.array_equal(np.bincount(s["element_cell"], minlength=cells), s["cell_elements"])
    assert s["cell_genes"].shape == (cells, len(s["genes"]))
    assert s["cell_basal"].all()  # no cell has left the basement membrane yet
    sim.save_checkpoint(tmp_path / "e.petri")
    sim.run(10)
    again = petri.open(epidermis, resume=tmp_path / "e.petri")
    again.run(10)
    same_state(sim.state(), again.state())


def test_gliding_observations_are_the_arrays_integrals(gliding):
    sim = petri.open(gliding)
    assert (sim.model, sim.observe_every) == ("gliding", 10)
    assert sim.time_per_step == gliding["dt"]
    obs = sim.run(25)
    assert obs["step"].tolist() == [10, 20, 25]
    # The asset's filaments are slow enough for the largest step (dt, in whole ticks).
    assert obs["dt"] == pytest.approx(np.full(3, gliding["dt"]), rel=1e-7)
    assert sim.time == obs["time"][-1] == pytest.approx(25 * gliding["dt"], rel=1e-7)
    assert (obs["max_courant"] < gliding["courant_safety"] * 0.25).all()
    s = sim.state()
    g = gliding["grid"]
    nx, ny, nt, nz = g["nx"], g["ny"], g["ntheta"], g["nz"]
    assert s["psi"].shape == (nt, ny, nx) and s["psi"].dtype == np.float32
    assert s["velocity"].shape == (3, nt, ny, nx)
    assert s["fluid"].shape == (3, nz, ny, nx)
    assert s["z"].shape == (nz,) and np.all(np.diff(s["z"]) > 0)
    offsets = len(s["bound_offsets"])
    assert s["bound_offsets"].shape == (offsets, 2)
    assert s["bound_density"].shape == (ny, nx, offsets, nt, g["ns"])
    assert s["motor_force"].shape == (ny, nx, 2)
    now = sim.observe()
    dx, dy, dtheta = g["lx"] / nx, g["ly"] / ny, 2 * np.pi / nt
    psi = s["psi"].astype(np.float64)
    assert now["filaments"] == pytest.approx(psi.sum() * dx * dy * dtheta, rel=1e-6)
    speed = np.hypot(s["velocity"][0], s["velocity"][1]).astype(np.float64)
    assert now["mean_speed"] == pytest.approx((psi * speed).sum() / psi.sum(), rel=1e-6)
    motors = {k: float(s[f"motors_{k}"].sum(dtype=np.float64)) * dx * dy
              for k in ("total", "bound", "free")}
    for k in motors:
        assert now[f"{k}_motors"] == pytest.approx(motors[k], rel=1e-6), k
    # Motors are conserved: the bound and the free make up the total, anchor by anchor.
    np.testing.assert_allclose(s["motors_bound"] + s["motors_free"], s["motors_total"],
                               rtol=1e-5)
    assert now["bound_motors"] > 0 and now["free_motors"] > 0
    # Filaments glide at about the motor speed.
    assert now["mean_speed"] == pytest.approx(gliding["filaments"]["v_sp"], rel=0.05)
    assert (s["bound_density"] >= 0).all()


def test_fast_gliding_filaments_take_shorter_steps_and_time_is_their_sum(gliding):
    gliding["filaments"]["v_sp"] = 20.0
    sim = petri.open(gliding)
    obs = sim.run(20)
    bound = gliding["courant_safety"] * 0.25
    assert (obs["dt"] < gliding["dt"]).all()
    assert obs["max_courant"] == pytest.approx(np.full(2, bound), rel=1e-5)
    assert 20 * obs["dt"].min() * 0.9 < sim.time < 20 * gliding["dt"]
    # To a time: the steps at most time_per_step, so at least (until - now) / dt of them.
    now = sim.time
    sim.run(until=now + 10 * gliding["dt"])
    assert sim.step == 30 and sim.time < now + 10 * gliding["dt"]


def test_gliding_same_seed_same_bits_and_a_checkpoint_resumes_bitwise(gliding, tmp_path):
    gliding["dt"] = 0.1  # every step's dt from its Courant rate: the clock is state too
    a = petri.open(gliding)
    a.run(20)
    a.save_checkpoint(tmp_path / "g.petri")
    a.run(15)
    b = petri.open(gliding)
    b.run(35)
    same_state(a.state(), b.state())
    # A gliding checkpoint is checked against the config it is resumed with.
    c = petri.open(gliding, resume=tmp_path / "g.petri")
    assert c.step == 20
    c.run(15)
    same_state(a.state(), c.state())
    assert c.observe() == a.observe()
