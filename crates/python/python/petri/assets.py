"""The model configs of the repository's ``assets/`` folder, shipped inside the package (the
native module holds them), so an installed ``petri`` has them wherever it runs::

    import petri
    petri.assets.names()                        # ["angiogenesis.json", ...]
    cfg = petri.assets.load("angiogenesis.json")  # a dict: change what you like
    cfg["grid"] = [101, 101, 1]
    sim = petri.open(cfg)
    sim = petri.open(petri.assets.path("vilar.json"), t_end=50)  # as a file

Each config holds its provenance: where every value comes from.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ._petri import __version__, asset_names as _names, asset_text as _text

__all__ = ["names", "text", "load", "path"]


def names() -> List[str]:
    """The file names of the configs the package holds."""
    return list(_names())


def text(name: str) -> str:
    """The config ``name`` as the file's text (a ConfigError lists the names for one that is
    not there)."""
    return _text(name)


def load(name: str) -> Dict[str, Any]:
    """The config ``name`` as a dict, for ``petri.open``."""
    return json.loads(text(name))


def path(name: str, folder: Optional[Union[str, "os.PathLike[str]"]] = None) -> Path:
    """A file holding the config ``name``: written into ``folder`` (default: a folder of this
    package version under the system's temporary folder) unless one with the same text is
    already there; for ``petri.open(path)`` (messages then give the file's line and column) or
    ``petri run`` on the command line."""
    body = text(name)
    where = Path(folder) if folder is not None else Path(tempfile.gettempdir()) / (
        f"petri-{__version__}-assets-{_user()}"
    )
    where.mkdir(parents=True, exist_ok=True)
    target = where / name
    if target.is_file() and target.read_text(encoding="utf-8") == body:
        return target
    # Written under a temporary name and renamed: another process reading it sees all or none.
    fd, temp = tempfile.mkstemp(dir=where, prefix=f".{name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(body)
    os.replace(temp, target)
    return target


def _user() -> str:
    """Who runs this, so users of one machine do not share (or fight over) a folder."""
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")
