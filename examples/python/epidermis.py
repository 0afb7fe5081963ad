"""Epidermis (subcellular elements): a basal layer grows and divides; count the cells by layer
from the element positions, then checkpoint and continue.

    python examples/python/epidermis.py [--steps 20000]
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20000)
args = p.parse_args()

sim = petri.open("assets/epidermis.json")
print(f"{sim.model} on {sim.device}, dt = {sim.time_per_step}")
sim.run(args.steps // 2)
with tempfile.TemporaryDirectory() as d:
    sim.save_checkpoint(Path(d) / "half.petri")
    sim.run(args.steps - args.steps // 2)
    # The same run, continued from the checkpoint: bitwise the same cells.
    again = petri.open("assets/epidermis.json", resume=Path(d) / "half.petri")
    again.run(args.steps - args.steps // 2)
    assert np.array_equal(sim.state()["element_position"], again.state()["element_position"])

layer = json.load(open("assets/epidermis.json"))["output"]["layer_thickness"]
s = sim.state()
centre_z = np.zeros(len(s["cell_elements"]))
np.add.at(centre_z, s["element_cell"], s["element_position"][:, 2])
centre_z /= s["cell_elements"]
print(f"t = {sim.time:.1f}: {len(centre_z)} cells, {int(s['cell_basal'].sum())} basal")
for k in range(int(centre_z.max() // layer) + 1):
    n = int((centre_z // layer == k).sum())
    print(f"  layer {k + 1} (z in [{k * layer:.2f}, {(k + 1) * layer:.2f})): {n} cells")
