"""Epidermis (subcellular elements): a basal layer grows and divides; count the cells by layer
from the element positions, checkpoint and continue, and draw a side view of the tissue.

    python examples/python/epidermis.py [--steps 20000] [--plot epidermis.png]

Lengths are in the model's unit, about one settled basal cell's diameter (the asset's lattice
spacing).
"""

import argparse
import tempfile
from pathlib import Path

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20000)
p.add_argument("--plot", default="epidermis.png", help="the figure's file")
p.add_argument("--show", action="store_true", help="also open it in a window")
args = p.parse_args()

config = petri.assets.load("epidermis.json")
sim = petri.open(config)
print(f"{sim.model} on {sim.device}, dt = {sim.time_per_step}")
sim.run(args.steps // 2, progress=True)
with tempfile.TemporaryDirectory() as d:
    sim.save_checkpoint(Path(d) / "half.petri")
    sim.run(args.steps - args.steps // 2)
    # The same run, continued from the checkpoint: bitwise the same cells.
    again = petri.open(config, resume=Path(d) / "half.petri")
    again.run(args.steps - args.steps // 2)
    assert np.array_equal(sim.state()["element_position"], again.state()["element_position"])

layer = config["output"]["layer_thickness"]
s = sim.state()
centre_z = np.zeros(len(s["cell_elements"]))
np.add.at(centre_z, s["element_cell"], s["element_position"][:, 2])
centre_z /= s["cell_elements"]
print(f"t = {sim.time:.1f}: {len(centre_z)} cells, {int(s['cell_basal'].sum())} basal")
for k in range(int(centre_z.max() // layer) + 1):
    n = int((centre_z // layer == k).sum())
    print(f"  layer {k + 1} (z in [{k * layer:.2f}, {(k + 1) * layer:.2f})): {n} cells")

import matplotlib  # noqa: E402

if not args.show:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

xyz = s["element_position"]
basal = s["cell_basal"][s["element_cell"]] == 1
top = xyz[:, 2].max() + layer  # the tissue, not the empty box above it
fig, ax = plt.subplots(figsize=(10, 3 + 6 * top / config["box"]["lx"]), constrained_layout=True)
ax.scatter(xyz[~basal, 0], xyz[~basal, 2], s=6, c="tab:blue",
           label=f"suprabasal cells ({int((s['cell_basal'] == 0).sum())})")
ax.scatter(xyz[basal, 0], xyz[basal, 2], s=6, c="tab:red",
           label=f"basal cells ({int(s['cell_basal'].sum())})")
ax.set_aspect("equal")
ax.set(xlim=(0, config["box"]["lx"]), ylim=(0, top), xlabel="x (basal cell diameters)",
       ylabel="z above the membrane (basal cell diameters)",
       title=f"side view at t = {sim.time:.1f} (step {sim.step})")
ax.legend(loc="upper right")
fig.savefig(args.plot, dpi=100)
print(f"figure: {args.plot}")
if args.show:
    plt.show()
