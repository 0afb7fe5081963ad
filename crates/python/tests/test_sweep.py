"""Parameter sweeps from Python: on this machine's adapter, and through a Dask cluster."""

import csv
from pathlib import Path

import pytest

import petri

REPO = Path(__file__).resolve().parents[3]


def spec(**extra):
    return {
        "base": str(REPO / "assets" / "birth-death.json"),
        "grid": {"parameters.mu": [0.11, -1]},
        "seeds": [1, 2],
        "options": ["--device", "cpu", "--t-end", "4", "--points", "5", "--trajectories", "30"],
        **extra,
    }


def test_a_sweep_records_each_task_and_a_second_call_runs_only_what_is_left(tmp_path):
    records = petri.sweep(spec(), tmp_path / "s", workers=2)
    assert [r["status"] for r in records] == ["complete", "complete", "failed", "failed"]
    assert records[0]["task"]["overrides"] == [["parameters.mu", 0.11]]
    assert records[0]["columns"][:2] == ["time", "X-mean"] and records[0]["last"][0] == 4
    assert "mu" in records[2]["error"]
    with open(tmp_path / "s" / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == ["complete", "complete", "failed", "failed"]
    again = petri.sweep(spec(), tmp_path / "s")
    assert [r["skipped"] for r in again] == [True, True, False, False]
    assert again[0]["last"] == records[0]["last"]
    with pytest.raises(petri.ConfigError, match="holds another sweep"):
        petri.sweep(spec(seeds=[3]), tmp_path / "s")
    with pytest.raises(petri.ConfigError, match="grid.D"):
        petri.sweep(spec(grid={"D": 5}), tmp_path / "t")


def test_a_sweep_through_a_dask_cluster_writes_what_a_local_one_does(tmp_path):
    import distributed  # scripts/python-env.sh installs it

    local = petri.sweep(spec(), tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = petri.sweep(spec(), tmp_path / "dask", client=client)
    assert [(r["status"], r["last"]) for r in remote] == [(r["status"], r["last"]) for r in local]
    for i in (1, 2):
        name = f"task-{i:04d}/mean_sd.csv"
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert (tmp_path / "dask" / "summary.csv").read_text() == (
        tmp_path / "local" / "summary.csv"
    ).read_text()
