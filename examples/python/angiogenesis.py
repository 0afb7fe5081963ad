"""Angiogenesis (Anderson & Chaplain 1998, 2D): grow the vessel network, follow its counts,
and draw the TAF field, the vessels and the tips from the numpy arrays.

    python examples/python/angiogenesis.py [--steps 3000] [--grid 201] [--plot angiogenesis.png]

Lengths are in L (the 2 mm from the parent vessel to the tumour), time in L^2/D (about 1.6
days with A&C's TAF diffusion D).
"""

import argparse

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3000)
p.add_argument("--grid", type=int, default=201)
p.add_argument("--plot", default="angiogenesis.png", help="the figure's file")
p.add_argument("--show", action="store_true", help="also open it in a window")
args = p.parse_args()

config = petri.assets.load("angiogenesis.json")  # a config is a dict: change what you like
config["grid"] = [args.grid, args.grid, 1]
sim = petri.open(config)
print(f"{sim.model} on {sim.device}, dt = {sim.time_per_step:.4g} L^2/D")
obs = sim.run(args.steps, progress=True)
for k in range(len(obs["step"])):
    print(f"t = {obs['time'][k]:6.2f}  tips {obs['tips'][k]:4.0f}  sprouts {obs['sprouts'][k]:5.0f}"
          f"  loops {obs['anastomoses'][k]:4.0f}  reached tumour {obs['reached_tumour'][k]:3.0f}")

state = sim.state()
c = state["c"][0]  # the 2D grid: (ny, nx)
h = 1.0 / (c.shape[1] - 1)  # grid spacing in L
alive = state["tip_alive"] == 1
tips = state["tip_position"][alive][:, :2] * h
print(f"TAF from {c[:, 0].mean():.3f} at the vessel to {c[:, -1].mean():.3f} at the tumour")
if len(tips):
    print(f"{len(tips)} live tips, mean x = {tips[:, 0].mean():.2f} L")
vessels = state["sprout"][0] != np.iinfo(np.uint32).max
print(f"vessels cover {vessels.mean():.1%} of the grid")

import matplotlib  # noqa: E402

if not args.show:
    matplotlib.use("Agg")  # to a file, with or without a display
import matplotlib.pyplot as plt  # noqa: E402

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), constrained_layout=True)
image = left.imshow(c, origin="lower", extent=(0, 1, 0, 1), cmap="viridis", alpha=0.8)
fig.colorbar(image, ax=left, label="TAF c (1 at the tumour)")
left.contour(np.linspace(0, 1, c.shape[1]), np.linspace(0, 1, c.shape[0]), vessels,
             levels=[0.5], colors="k", linewidths=0.8)
left.scatter(tips[:, 0], tips[:, 1], s=12, c="red", label=f"live tips ({len(tips)})")
left.set(xlabel="x / L (tumour at x = 1)", ylabel="y / L",
         title=f"vessels (black) at t = {sim.time:.2f} L²/D")
left.legend(loc="upper left")
t = obs["time"]
for column, label in [("tips", "live tips"), ("sprouts", "sprouts"),
                      ("anastomoses", "anastomoses (loops)"), ("reached_tumour", "in the tumour")]:
    right.plot(t, obs[column], label=label)
right.set(xlabel="t (L²/D, about 1.6 days)", ylabel="count", title="network counts")
right.legend()
fig.savefig(args.plot, dpi=100)
print(f"figure: {args.plot}")
if args.show:
    plt.show()
