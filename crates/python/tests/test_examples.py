"""The scripts in examples/python run (small sizes, from the repository root) and draw their
figure into a file."""

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
def test_example_runs_and_plots(script, tmp_path):
    args, expect = CASES[script]
    figure = tmp_path / "figure.png"
    # From another folder than the repository: the configs come from the package.
    done = subprocess.run([sys.executable, str(REPO / "examples" / "python" / script), *args,
                           "--plot", str(figure)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert expect in done.stdout, done.stdout
    assert f"figure: {figure}" in done.stdout
    import matplotlib.image

    pixels = matplotlib.image.imread(figure)
    # A figure, not a blank canvas: at least 600 pixels wide and many distinct colours.
    assert pixels.shape[1] >= 600, pixels.shape
    colours = {tuple(p) for p in pixels.reshape(-1, pixels.shape[-1])[::7].round(2).tolist()}
    assert len(colours) > 20, len(colours)
