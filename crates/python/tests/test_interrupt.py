"""Ctrl-C inside a long call: KeyboardInterrupt after the batch under way,
the observations made so far on the exception, the simulation whole and usable (it goes on as
a run that was never stopped), a folder run's files kept with its manifest saying "stopped"."""

import json
import os
import signal
import threading
import time

import pytest
from test_models import same_state

import petri


@pytest.fixture(autouse=True)
def python_handles_ctrl_c():
    """Python's own SIGINT handler for each test: a process started in the background by a
    shell without job control inherits SIGINT ignored, and Python then installs none, so the
    signal would never arrive and the runs below would not end."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def ctrl_c_in(seconds):
    """Sends SIGINT to this process from another thread after `seconds`, as Ctrl-C does."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def period_seconds(cfg):
    """Wall time of one observation period of `cfg` (after a first, warming one)."""
    sim = petri.open(cfg)
    sim.run(sim.observe_every)
    t = time.perf_counter()
    sim.run(sim.observe_every)
    return time.perf_counter() - t


def test_ctrl_c_stops_a_run_within_a_period_and_the_simulation_goes_on(rdme):
    period = period_seconds(rdme)
    sim = petri.open(rdme)
    every = sim.observe_every
    delay = 3 * period + 0.2
    timer = ctrl_c_in(delay)
    t = time.perf_counter()
    with pytest.raises(KeyboardInterrupt) as info:
        sim.run(10**9)
    late = time.perf_counter() - t - delay
    timer.join()
    # The batch under way (at most a period) ends, then the call returns: no later than a few
    # periods' time.
    assert late < 5 * period + 1.0, (late, period)
    steps = info.value.observations["step"]
    # Observed where observations are due; stopped at the last one or between it and the next.
    assert len(steps) >= 1 and steps[-1] <= sim.step < steps[-1] + every, (steps, sim.step)
    assert all(s % every == 0 for s in steps), steps
    assert all(v.shape == steps.shape for v in info.value.observations.values())
    # Whole and usable: it goes on as a simulation that was never stopped.
    sim.run(every)
    straight = petri.open(rdme)
    straight.run(sim.step)
    same_state(sim.state(), straight.state())


def test_ctrl_c_in_a_folder_run_keeps_its_files_and_says_stopped(rdme, tmp_path):
    period = period_seconds(rdme)
    sim = petri.open(rdme)
    out = tmp_path / "run"
    timer = ctrl_c_in(3 * period + 0.2)
    with pytest.raises(KeyboardInterrupt) as info:
        sim.run(10**9, out=out, checkpoint_every=1000)
    timer.join()
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "stopped"
    assert m["error"] == f"interrupted at step {sim.step}"
    assert m["checkpoint_step"] == sim.step
    steps = info.value.observations["step"].tolist()
    rows = (out / "observables.csv").read_text().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == steps
    assert not (out / ".petri.lock").exists()
    # The checkpoint written where it stopped resumes.
    resumed = petri.open(rdme, resume=out / "checkpoint.petri")
    assert resumed.step == sim.step
    same_state(resumed.state(), sim.state())
