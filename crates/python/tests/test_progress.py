"""run(progress=...): a bar or a callable told the steps done as the run goes, the results
bitwise those of a run without it."""

import sys

import pytest
from test_models import same_state

import petri
from petri import _progress


def reported(calls):
    def report(done, total):
        calls.append((done, total))
    return report


@pytest.mark.parametrize("fixture", ["angio", "rdme", "gliding"])
def test_progress_reports_every_stretch_and_changes_nothing(fixture, request):
    cfg = request.getfixturevalue(fixture)
    calls = []
    sim = petri.open(cfg)
    steps = 3 * sim.observe_every + 7  # ends off a multiple of the period
    obs = sim.run(steps, progress=reported(calls))
    plain = petri.open(cfg)
    plain_obs = plain.run(steps)
    assert calls[0] == (0, steps) and calls[-1] == (steps, steps)
    done = [d for d, _ in calls]
    assert done == sorted(done) and len(calls) >= 3, calls
    assert all(total == steps for _, total in calls)
    assert obs.keys() == plain_obs.keys()
    for k in obs:
        assert (obs[k] == plain_obs[k]).all(), k
    same_state(sim.state(), plain.state())


def test_progress_of_a_network_counts_output_times(birth_death):
    calls = []
    ens = petri.open(birth_death, trajectories=50, t_end=5, points=11, device="cpu")
    ens.run(progress=reported(calls))
    assert calls[0] == (0, 10) and calls[-1] == (10, 10)


def test_progress_into_a_folder(angio, tmp_path):
    calls = []
    sim = petri.open(angio)
    obs = sim.run(angio["steps"], out=tmp_path / "run", progress=reported(calls))
    assert calls[0] == (0, angio["steps"]) and calls[-1] == (angio["steps"], angio["steps"])
    # One report per observation written (the first is the starting state's).
    assert [d for d, _ in calls[1:]] == list(obs["step"])


def test_an_exception_in_the_callable_stops_the_run_where_it_was(angio):
    def fail(done, total):
        if done >= 40:
            raise ValueError("enough")
    sim = petri.open(angio)
    with pytest.raises(ValueError, match="enough"):
        sim.run(120, progress=fail)
    assert 40 <= sim.step < 120 and sim.step % sim.observe_every == 0
    sim.run(120 - sim.step)  # and it goes on as a run never stopped
    straight = petri.open(angio)
    straight.run(120)
    same_state(sim.state(), straight.state())


def test_progress_true_draws_a_bar_on_stderr_without_tqdm(angio, capfd, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # as if tqdm were not installed
    sim = petri.open(angio)
    sim.run(60, progress=True)
    err = capfd.readouterr().err
    assert "angiogenesis [" in err and "60/60 steps" in err and err.endswith("\n"), err


def test_the_line_redraws_at_most_five_times_a_second_and_at_the_end():
    class Stream(list):
        def write(self, s):
            self.append(s)

        def flush(self):
            pass

    out = Stream()
    line = _progress.Line(1000, "rdme", out)
    for done in range(0, 1001, 10):
        line(done, 1000)
    line.close()
    assert 2 <= len(out) <= 4, out  # the first, maybe one more, the last, and the newline
    assert "1000/1000 steps" in out[-2] and "#" * 30 in out[-2] and out[-1] == "\n"
    assert "0/1000 steps" in out[0] and "[" + "." * 30 + "]" in out[0]


def test_progress_must_be_a_bool_or_a_callable(angio):
    sim = petri.open(angio)
    with pytest.raises(petri.ConfigError, match="progress = 'yes' is not allowed"):
        sim.run(10, progress="yes")
    assert sim.step == 0
