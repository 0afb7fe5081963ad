"""Petri: a portable GPU engine for biological simulation (WebGPU), from Python.

Every model opens from a config, a file or a dict, the same JSON that ``petri run`` reads::

    import petri
    sim = petri.open("assets/angiogenesis.json")
    obs = sim.run(1000, progress=True)  # observations: {column: numpy array}; a bar meanwhile
    fields = sim.state()                # {"n": ndarray (nz, ny, nx), "c": ..., "segments": ...}
    sim.save_checkpoint("angio.petri")  # petri.open(resume="angio.petri") continues bitwise

A reaction network (JSON or SBML) runs as a stochastic ensemble; ``device="auto"`` (the
default) picks the GPU when a hardware adapter exists, else the CPU, and says why in
``sim.device_reason``::

    ens = petri.open("assets/vilar.json", trajectories=1000, t_end=200, points=201)
    ens.run()                           # to t_end
    stats = ens.state()                 # times, mean, sd (times x species), counts

The model configs of the repository's ``assets/`` ship with the package:
``petri.open(petri.assets.load("angiogenesis.json"))`` (a dict) or ``petri.assets.path(name)``.

Errors are exceptions carrying the command line's messages: ``ConfigError`` (names the
field, the value and what is allowed; also a ``ValueError``), ``NonFiniteError``,
``CheckpointError``, ``DeviceError``, ``CapacityError``, all ``PetriError``; a file that cannot
be read is an ``OSError`` (``FileNotFoundError`` when it is missing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from ._petri import (
    __version__,
    CapacityError,
    CheckpointError,
    ConfigError,
    DeviceError,
    NonFiniteError,
    PetriError,
    Simulation,
    adapters as _adapters,
    open_simulation as _open_simulation,
    sweep_finish as _sweep_finish,
    sweep_prepare as _sweep_prepare,
    sweep_run as _sweep_run,
    sweep_task as _sweep_task,
)
from . import assets

__all__ = [
    "__version__",
    "assets",
    "open",
    "sweep",
    "adapters",
    "Simulation",
    "PetriError",
    "ConfigError",
    "NonFiniteError",
    "CheckpointError",
    "DeviceError",
    "CapacityError",
]

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def adapters(backend: Optional[str] = None) -> List[Dict[str, Any]]:
    """The GPU adapters present, best first (hardware before software, Vulkan first).

    Each is a dict with ``name``, ``backend``, ``device_type``, ``driver``, ``software`` and the
    limits and features Petri uses. ``backend`` is one of "vulkan", "metal", "dx12", "gl" or
    "all". Pass a name (or a part of it) or an index as ``adapter=`` to :func:`open`.
    """
    return _adapters(backend)


def open(
    config: Optional[Config] = None,
    *,
    resume: Optional[Union[str, "os.PathLike[str]"]] = None,
    backend: Optional[str] = None,
    adapter: Optional[Union[str, int]] = None,
    device: str = "auto",
    method: Optional[str] = None,
    trajectories: Optional[int] = None,
    t_end: Optional[float] = None,
    points: Optional[int] = None,
    seed: Optional[int] = None,
    keep_trajectories: Optional[bool] = None,
    options: Optional[Mapping[str, object]] = None,
) -> Simulation:
    """Opens a simulation of the model the config names (its ``"model"`` field).

    config: a path to a JSON config (or an SBML ``.xml``/``.sbml`` reaction network), or the
        config as a dict. Relative paths inside a file's config start from its folder; inside
        a dict, from the working directory.
    resume: a checkpoint written by :meth:`Simulation.save_checkpoint` or ``petri run
        --checkpoint-every``; the simulation continues from it bitwise as a straight run.
        Angiogenesis checkpoints hold their config (``config`` may be left out); the others
        are checked against the config given.
    backend, adapter: which GPU (see :func:`adapters`); default: ``PETRI_BACKEND`` and
        ``PETRI_ADAPTER``, else the best adapter present.

    Reaction networks only (a field left out takes the checkpoint's value when resuming):
    device: "auto" (the GPU when a hardware adapter exists, else the CPU), "cpu" or "gpu".
    method: "direct", "odm" or "tau" (default "direct").
    trajectories: ensemble size (default 1000). t_end: end time (required for a new run).
    points: output times from 0 to t_end, both included (default 101). seed: default 1.
    keep_trajectories: keep every trajectory at every output time (the ``trajectories``
        array of :meth:`Simulation.state`).

    options: the model's own ``petri run`` flags by name (``petri run --help`` lists each
        model's), e.g. ``{"devices": 2, "sweeps": "occupied"}`` for rdme; ``True`` gives a
        flag without a value, ``False`` or ``None`` leaves it out. A flag the model does not
        take is a ConfigError naming it.
    """
    config_text = origin = base = sbml = None
    if isinstance(config, Mapping):
        config_text = json.dumps(config)  # origin None: messages give no line and column
        base = os.getcwd()
    elif config is not None:
        path = Path(config)
        if path.suffix.lower() in (".xml", ".sbml"):
            sbml = str(path)
        else:
            config_text = path.read_text(encoding="utf-8")
            origin = str(path)
            base = str(path.parent)
    network_only = {
        "method": method,
        "trajectories": trajectories,
        "t_end": t_end,
        "points": points,
        "seed": seed,
        "keep_trajectories": keep_trajectories,
    }
    given = [k for k, v in network_only.items() if v is not None]
    if device != "auto":
        given.append("device")
    if given and config_text is not None:
        try:
            model = json.loads(config_text.lstrip("\ufeff")).get("model")
        except (ValueError, AttributeError):
            model = None  # the native reader reports what is wrong with the config
        if model not in (None, "network"):
            raise ConfigError(
                f"config: {given[0]} is an option of reaction networks; this config is for "
                f"model {model!r}"
            )
    return _open_simulation(
        config_text=config_text,
        origin=origin,
        base=base,
        sbml=sbml,
        resume=None if resume is None else str(resume),
        backend=backend,
        adapter=None if adapter is None else str(adapter),
        device=device,
        method=method,
        trajectories=trajectories,
        t_end=t_end,
        points=points,
        seed=seed,
        keep_trajectories=keep_trajectories,
        options=_flags(options),
    )


def _flags(options: Optional[Mapping[str, object]]) -> list:
    """``{"devices": 2, "trajectories_csv": True}`` as typed: ``--devices=2 --trajectories-csv``."""
    flags = []
    for name, value in (options or {}).items():
        flag = "--" + str(name).replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is not None and value is not False:
            flags.append(f"{flag}={value}")
    return flags


def sweep(
    spec: Config,
    out: Union[str, "os.PathLike[str]"],
    *,
    client: Any = None,
    workers: int = 1,
    backend: Optional[str] = None,
    adapter: Optional[Union[str, int]] = None,
) -> List[Dict[str, Any]]:
    """Runs a parameter sweep (docs/SWEEPS.md), as ``petri sweep`` does; returns the task
    records in task order.

    spec: a sweep file's path or the spec as a dict (a base config, ``grid`` and ``list`` of
        overrides by field path, ``seeds``, ``options``); a base given as a path starts from
        the sweep file's folder, or from the working directory for a dict.
    out: the sweep's folder: a run folder per task (``task-0001/``), a record per task
        (``task-0001.json``), ``summary.csv``. The same spec into the same folder again runs
        only the tasks not yet complete.
    client: a ``dask.distributed.Client``: each task runs on a Dask worker (each opening its own
        device; the folder must be one every worker can reach). Without it, ``workers`` tasks
        run at once on this machine's adapter.

    Each record is a dict: ``task`` (``index``, ``overrides``, ``seed``), ``status``
    ("complete", "failed" or "stopped"), ``error``, ``columns`` and ``last`` (the final
    observation), ``last_step`` and ``skipped`` (complete before this call). A failed task is
    recorded, not raised.
    """
    if isinstance(spec, Mapping):
        text, origin, base = json.dumps(spec), "<dict>", os.getcwd()
    else:
        path = Path(spec)
        text, origin, base = path.read_text(encoding="utf-8"), str(path), str(path.parent)
    adapter = None if adapter is None else str(adapter)
    out = str(out)
    if client is None:
        records = _sweep_run(text, origin, base, out, workers, backend, adapter)
        return [json.loads(r) for r in records]
    n = _sweep_prepare(text, origin, base, out)
    futures = client.map(
        _run_sweep_task, range(n), text=text, origin=origin, base=base, out=out,
        backend=backend, adapter=adapter, pure=False,
    )
    client.gather(futures)
    return [json.loads(r) for r in _sweep_finish(text, origin, base, out)]


def _run_sweep_task(index, *, text, origin, base, out, backend, adapter):
    """One task of a sweep on a Dask worker (a module-level function, so workers can unpickle
    it by name); its record as JSON text."""
    return _sweep_task(text, origin, base, out, index, backend, adapter)
