"""The scripts in examples/python run (small sizes, from the repository root)."""

import subprocess
import sys

import pytest

from conftest import REPO

CASES = {
    "angiogenesis.py": (["--steps", "100", "--grid", "41"], "live tips"),
    "min_oscillator.py": (["--seconds", "0.0004", "--every", "0.0002"], "left pole"),
    "vilar.py": (["--trajectories", "50", "--t-end", "10"], "trajectories on"),
    "epidermis.py": (["--steps", "10"], "layer 1"),
    "gliding.py": (["--steps", "40", "--cells", "16", "--angles", "8"], "of the motors bound"),
}


def test_every_example_is_covered():
    scripts = {p.name for p in (REPO / "examples" / "python").glob("*.py")}
    assert scripts == set(CASES)


@pytest.mark.parametrize("script", sorted(CASES))
def test_example_runs(script):
    args, expect = CASES[script]
    done = subprocess.run([sys.executable, str(REPO / "examples" / "python" / script), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert expect in done.stdout, done.stdout
