"""Angiogenesis (Anderson & Chaplain 1998, 2D): grow the vessel network, follow its counts,
and look at the TAF field and the tips as numpy arrays.

    python examples/python/angiogenesis.py [--steps 3000] [--grid 201]
"""

import argparse
import json

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3000)
p.add_argument("--grid", type=int, default=201)
args = p.parse_args()

config = json.load(open("assets/angiogenesis.json"))
config["grid"] = [args.grid, args.grid, 1]  # a config is a dict: change what you like
sim = petri.open(config)
print(f"{sim.model} on {sim.device}, dt = {sim.time_per_step:.4g}")
obs = sim.run(args.steps)
for k in range(len(obs["step"])):
    print(f"t = {obs['time'][k]:6.2f}  tips {obs['tips'][k]:4.0f}  sprouts {obs['sprouts'][k]:5.0f}"
          f"  loops {obs['anastomoses'][k]:4.0f}  reached tumour {obs['reached_tumour'][k]:3.0f}")

state = sim.state()
c = state["c"][0]  # the 2D grid: (ny, nx)
x_tips = state["tip_position"][state["tip_alive"] == 1][:, 0] / (c.shape[1] - 1)
print(f"TAF from {c[:, 0].mean():.3f} at the vessel to {c[:, -1].mean():.3f} at the tumour")
if len(x_tips):
    print(f"{len(x_tips)} live tips, mean x = {np.mean(x_tips):.2f}")
visited = state["sprout"] != np.iinfo(np.uint32).max
print(f"vessels cover {visited.mean():.1%} of the grid")
