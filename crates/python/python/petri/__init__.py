"""Petri: a portable GPU engine for biological simulation (WebGPU), from Python.

Every model opens from a config, a file or a dict, the same JSON that ``petri run`` reads::

    import petri
    sim = petri.open("assets/angiogenesis.json")
    obs = sim.run(1000)                 # observations: {column: numpy array}
    fields = sim.state()                # {"n": ndarray (nz, ny, nx), "c": ..., "segments": ...}
    sim.save_checkpoint("angio.petri")  # petri.open(resume="angio.petri") continues bitwise

A reaction network (JSON or SBML) runs as a stochastic ensemble; ``device="auto"`` (the
default) picks the GPU when a hardware adapter exists, else the CPU, and says why in
``sim.device_reason``::

    ens = petri.open("assets/vilar.json", trajectories=1000, t_end=200, points=201)
    ens.run()                           # to t_end
    stats = ens.state()                 # times, mean, sd (times x species), counts

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
)

__all__ = [
    "__version__",
    "open",
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
