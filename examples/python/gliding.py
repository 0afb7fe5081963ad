"""Gliding motility assay (Cook et al.): filaments glide on surface-bound motors and drag the
fluid above them; follow the order parameters as polar streams and bands form from a noisy
isotropic start (local polar order up, the motors' flow at the filaments up to 0.6 of their
speed), then read the director, the motors and the fluid at the filaments' level from the
arrays.

    python examples/python/gliding.py [--steps 6000] [--cells 64] [--angles 32]
"""

import argparse
import json

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=6000)
p.add_argument("--cells", type=int, default=64, help="cells along x and y (the box stays 32 x 32)")
p.add_argument("--angles", type=int, default=32, help="filament angles")
args = p.parse_args()

config = json.load(open("assets/gliding.json"))
config["grid"].update(nx=args.cells, ny=args.cells, ntheta=args.angles)
sim = petri.open(config)
print(f"{sim.model} on {sim.device}, dt at most {sim.time_per_step}")
obs = sim.run(args.steps)
for k in np.unique(np.linspace(0, len(obs["step"]) - 1, 10).round().astype(int)):
    print(f"t = {obs['time'][k]:6.2f}  speed {obs['mean_speed'][k]:.3f}"
          f"  nematic {obs['nematic_order'][k]:.3f}  polar {obs['polar_order'][k]:.3f}"
          f"  local polar {obs['local_polar_order'][k]:.3f}"
          f"  fluid {obs['max_fluid_speed'][k]:.2e}  dt {obs['dt'][k]:.4f}")

state = sim.state()
psi = state["psi"].astype(np.float64)  # (theta, y, x)
theta = 2 * np.pi * np.arange(psi.shape[0]) / psi.shape[0]
c = psi.sum(axis=0)
q = np.tensordot(np.exp(2j * theta), psi, axes=1)  # the nematic moment per cell
director = np.degrees(np.angle(q.sum()) / 2)
print(f"director at {director:.0f} degrees; local nematic order"
      f" {np.abs(q).sum() / c.sum():.2f}, global {abs(q.sum()) / c.sum():.2f}")
print(f"density from {c.min() / c.mean():.2f} to {c.max() / c.mean():.2f} of the mean")

bound, total = state["motors_bound"], state["motors_total"]
print(f"{bound.sum() / total.sum():.0%} of the motors bound")
z0 = np.argmin(np.abs(state["z"] - config["grid"]["z0"]))  # the filaments' level
u, v = state["fluid"][0, z0], state["fluid"][1, z0]
print(f"fluid at z = {state['z'][z0]:.3f}: mean speed {np.hypot(u, v).mean():.2e}"
      f" against filaments at {obs['mean_speed'][-1]:.2f}")
