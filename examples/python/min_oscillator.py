"""The Min oscillator (MPD-RDME, Lattice Microbes): run the E. coli cell for a while, watch
membrane MinD move between the poles, and draw its kymograph from the lattice counts.

    python examples/python/min_oscillator.py [--seconds 60] [--every 2] [--plot min.png]

On a data-centre GPU 60 s of cell time take about a minute; on the software adapter use a
few hundredths of a second (examples/notebooks/min.ipynb has a coarser cell that oscillates
on a laptop).
"""

import argparse

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=60.0)
p.add_argument("--every", type=float, default=2.0, help="seconds between prints")
p.add_argument("--plot", default="min.png", help="the figure's file")
p.add_argument("--show", action="store_true", help="also open it in a window")
args = p.parse_args()

config = petri.assets.load("min-system.json")
sim = petri.open(config)
species = sim.state()["species"]
d_m = species.index("MinD_m")
h_um = config["lattice"]["spacing_m"] * 1e6
print(f"{sim.model} on {sim.device}; tau = {sim.time_per_step:g} s")
times, profiles = [], []
t = 0.0
while t < args.seconds - 1e-12:
    t = min(t + args.every, args.seconds)
    sim.run(until=t)
    counts = sim.state()["counts"][d_m]  # (nz, ny, nx): MinD on the membrane
    along = counts.sum(axis=(1, 2))  # per z plane, along the long axis
    n = len(along)
    left, right = along[: n // 3].sum(), along[-(n // 3):].sum()
    print(f"t = {sim.time:8.4f} s  MinD_m {along.sum():6d}  left pole {left:6d}  right pole {right:6d}")
    times.append(sim.time)
    profiles.append(along)

import matplotlib  # noqa: E402

if not args.show:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

kymograph = np.array(profiles).T  # (z planes, times)
z = np.arange(kymograph.shape[0] + 1) * h_um
edges = np.concatenate([[0.0], times])
fig, ax = plt.subplots(figsize=(10, 4), constrained_layout=True)
mesh = ax.pcolormesh(edges, z, kymograph, cmap="magma")
fig.colorbar(mesh, ax=ax, label="membrane MinD per plane (molecules)")
ax.set(xlabel="time (s)", ylabel="position along the long axis z (µm)",
       title="kymograph of membrane MinD")
fig.savefig(args.plot, dpi=100)
print(f"figure: {args.plot}")
if args.show:
    plt.show()
