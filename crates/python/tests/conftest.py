"""Small configs of every model, sized for the software adapter."""

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
ASSETS = REPO / "assets"


def asset(name):
    return json.loads((ASSETS / name).read_text())


@pytest.fixture
def angio():
    """Anderson & Chaplain's 2D setting on a 41 x 41 grid."""
    cfg = asset("angiogenesis.json")
    cfg.update(grid=[41, 41, 1], steps=120, observe_every=20, frame_every=0)
    return cfg


@pytest.fixture
def rdme():
    """A capsule with a membrane shell; A and B inter-convert, so A + B stays 800."""
    h = 1.6e-8
    return {
        "model": "rdme",
        "lattice": {"shape": [16, 16, 32], "spacing_m": h},
        "tau_s": 1e-5,
        "steps": 100,
        "seed": 11,
        "site_types": ["extracellular", "cytoplasm", "membrane"],
        "geometry": [{"capsule": {
            "center_m": [8 * h, 8 * h, 16 * h], "length_m": 30 * h, "radius_m": 7 * h,
            "site_type": "cytoplasm", "shell": {"thickness_m": h, "site_type": "membrane"}}}],
        "species": ["A", "B"],
        "diffusion": [{"species": ["A", "B"], "from": ["cytoplasm", "membrane"],
                       "to": ["cytoplasm", "membrane"], "d_m2_per_s": 2.5e-12}],
        "reactions": [
            {"reactants": ["A"], "products": ["B"], "rate": 200.0, "units": "1/s",
             "site_types": ["membrane"]},
            {"reactants": ["B"], "products": ["A"], "rate": 100.0, "units": "1/s",
             "site_types": ["cytoplasm"]},
        ],
        "initial": [
            {"species": "A", "count": 600, "site_types": ["cytoplasm"]},
            {"species": "B", "count": 200, "site_types": ["cytoplasm"]},
        ],
        "output": {"observe_every": 20},
    }


@pytest.fixture
def epidermis():
    """Nine basal cells that grow every step (and never divide by the gene network)."""
    cfg = asset("epidermis.json")
    cfg.update(steps=40, observe_every=5, snapshot_every=0, frame_every=0)
    cfg["box"] = {"lx": 3.0, "ly": 3.0, "height": 4.0}
    cfg["initial"].update(cells_x=3, cells_y=3, extra_elements=0)
    cfg["capacity"]["max_cells"] = 32
    cfg["growth"].update(interval=1, delta_threshold=1e9)
    return cfg


@pytest.fixture
def birth_death():
    return ASSETS / "birth-death.json"


@pytest.fixture
def gliding():
    """The gliding assay on 16 x 16 cells over 8 x 8 filament lengths (the asset's noisy
    isotropic start; ring sizes for a test that starts from rings)."""
    cfg = asset("gliding.json")
    cfg.update(steps=40, observe_every=10, snapshot_every=0, frame_every=0)
    cfg["grid"].update(nx=16, ny=16, lx=8.0, ly=8.0, ntheta=8, ns=4, nz=8, z0=0.1)
    cfg["initial"].update(ring_radius=2.0, ring_spacing=8.0, ring_width=0.7)
    return cfg
