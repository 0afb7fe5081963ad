"""Gliding motility assay (Cook et al.): filaments glide on surface-bound motors and drag the
fluid above them; follow the order parameters as polar streams and bands form from a noisy
isotropic start (local polar order up, the motors' flow at the filaments up to 0.6 of their
speed), then read the director, the motors and the fluid at the filaments' level from the
arrays, and draw them.

    python examples/python/gliding.py [--steps 6000] [--cells 64] [--angles 32] [--plot gliding.png]

Units: the filament length l, the motor speed V and the time l/V.
"""

import argparse

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=6000)
p.add_argument("--cells", type=int, default=64, help="cells along x and y (the box stays 32 x 32)")
p.add_argument("--angles", type=int, default=32, help="filament angles")
p.add_argument("--plot", default="gliding.png", help="the figure's file")
p.add_argument("--show", action="store_true", help="also open it in a window")
args = p.parse_args()

config = petri.assets.load("gliding.json")
config["grid"].update(nx=args.cells, ny=args.cells, ntheta=args.angles)
sim = petri.open(config)
print(f"{sim.model} on {sim.device}, dt at most {sim.time_per_step}")
obs = sim.run(args.steps, progress=True)
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

import matplotlib  # noqa: E402

if not args.show:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

lx, ly = config["grid"]["lx"], config["grid"]["ly"]
extent = (0, lx, 0, ly)
fig, (left, mid, right) = plt.subplots(1, 3, figsize=(16, 5), constrained_layout=True)
image = left.imshow(c, origin="lower", extent=extent, cmap="Blues")
fig.colorbar(image, ax=left, label="filament density c (per l²)")
# The local director, every 4th cell, its length the local nematic order.
ny, nx = c.shape
ys, xs = np.mgrid[0:ny:4, 0:nx:4]
order = np.abs(q[ys, xs]) / np.maximum(c[ys, xs], 1e-12)
angle = np.angle(q[ys, xs]) / 2
left.quiver((xs + 0.5) * lx / nx, (ys + 0.5) * ly / ny, order * np.cos(angle), order * np.sin(angle),
            color="red", headwidth=0, pivot="mid", scale=20)
left.set(xlabel="x (filament lengths l)", ylabel="y (filament lengths l)",
         title=f"density and director, t = {sim.time:.1f} l/V")
image = mid.imshow(bound, origin="lower", extent=extent, cmap="Reds")
fig.colorbar(image, ax=mid, label="bound motors n_b (per l²)")
mid.quiver((xs + 0.5) * lx / nx, (ys + 0.5) * ly / ny, u[ys, xs], v[ys, xs])
mid.set(xlabel="x (filament lengths l)", ylabel="y (filament lengths l)",
        title="bound motors, fluid velocity at z0")
t = obs["time"]
for column in ["polar_order", "nematic_order", "local_polar_order"]:
    right.plot(t, obs[column], label=column.replace("_", " "))
right.set(xlabel="t (l/V)", ylabel="order parameter (0 to 1)", title="order over time")
right.legend()
fig.savefig(args.plot, dpi=100)
print(f"figure: {args.plot}")
if args.show:
    plt.show()
