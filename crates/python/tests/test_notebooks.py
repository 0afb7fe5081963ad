"""The notebooks in examples/notebooks run from top to bottom in a Jupyter kernel (nbclient), at
the size PETRI_NOTEBOOK_SIZE names: "ci" by default here (every cell runs and checks its result
at a size the software adapter does in seconds), "laptop" for the sizes the notebooks show."""

import os
import time

import pytest

from conftest import REPO

NOTEBOOKS = sorted((REPO / "examples" / "notebooks").glob("*.ipynb"))


def test_every_model_has_a_notebook():
    assert {p.stem for p in NOTEBOOKS} == {"angiogenesis", "min", "vilar", "epidermis", "gliding"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat  # scripts/python-env.sh installs nbclient, nbformat and ipykernel
    from nbclient import NotebookClient

    size = os.environ.get("PETRI_NOTEBOOK_SIZE", "ci")
    monkeypatch.setenv("PETRI_NOTEBOOK_SIZE", size)
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "saved without outputs"
    client = NotebookClient(nb, timeout=1200, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    began = time.perf_counter()
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on a failure
    print(f"{path.name} at size {size}: {time.perf_counter() - began:.1f} s")
    figures = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs
                  if "image/png" in o.get("data", {}))
    drawn = sum(1 for c in nb.cells if c.cell_type == "code" and "plt.subplots" in c.source)
    assert figures == drawn > 0, (figures, drawn)
