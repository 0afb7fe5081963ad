"""Type stubs of the native module petri._petri (documented through the petri package)."""

from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np
import numpy.typing as npt

__version__: str

class PetriError(Exception): ...
class ConfigError(PetriError, ValueError): ...
class NonFiniteError(PetriError): ...
class CheckpointError(PetriError): ...
class DeviceError(PetriError): ...
class CapacityError(PetriError): ...

def asset_names() -> List[str]: ...
def asset_text(name: str) -> str: ...
def adapters(backend: Optional[str] = None) -> List[Dict[str, Any]]: ...
def open_simulation(
    config_text: Optional[str] = None,
    origin: Optional[str] = None,
    base: Optional[str] = None,
    sbml: Optional[str] = None,
    resume: Optional[str] = None,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    device: Optional[str] = None,
    method: Optional[str] = None,
    trajectories: Optional[int] = None,
    t_end: Optional[float] = None,
    points: Optional[int] = None,
    seed: Optional[int] = None,
    keep_trajectories: Optional[bool] = None,
    options: Optional[List[str]] = None,
) -> Simulation: ...

class Simulation:
    """A simulation of one model, opened by petri.open."""

    @property
    def model(self) -> str:
        """The model's name: angiogenesis, rdme, epidermis, gliding or network."""
    @property
    def step(self) -> int:
        """Steps done so far (for a network: output times after the first)."""
    @property
    def time(self) -> float:
        """The simulated time now: step * time_per_step, in the model's unit."""
    @property
    def time_per_step(self) -> float:
        """The model's time per step, in its own unit."""
    @property
    def observe_every(self) -> int:
        """Steps between observations (the config's observe_every)."""
    @property
    def default_steps(self) -> int:
        """The steps run() does when given neither steps nor until."""
    @property
    def columns(self) -> List[str]:
        """The names of an observation's values (observables.csv's columns)."""
    @property
    def device(self) -> str:
        """Where it runs: "cpu", or the adapter's name and backend."""
    @property
    def device_reason(self) -> str:
        """Why it runs there."""
    def observe(self) -> Dict[str, float]:
        """The observation of the current state: {column: value}."""
    def run(
        self,
        steps: Optional[int] = None,
        *,
        until: Optional[float] = None,
        out: Optional[str] = None,
        checkpoint_every: Optional[int] = None,
        overwrite: bool = False,
        progress: Union[bool, None, Callable[[int, int], Any]] = None,
    ) -> Dict[str, npt.NDArray[Any]]:
        """Runs steps (or on to the time until) and returns the observations made on the way,
        {"step": uint64 array, column: float64 array}. With out, writes the run into that
        folder as `petri run` does. progress: True for a bar (tqdm's when installed), or a
        callable given (steps done, steps asked) as the run goes."""
    def state(self) -> Dict[str, npt.NDArray[Any]]:
        """The state now as numpy arrays, by name."""
    def save_checkpoint(self, path: str) -> None:
        """Writes a checkpoint of the current step to path."""
    def write_snapshot(self, dir: str) -> List[str]:
        """Writes the model's snapshot of the current state into dir; returns the file names."""
