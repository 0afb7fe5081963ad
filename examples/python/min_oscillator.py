"""The Min oscillator (MPD-RDME, Lattice Microbes): run the E. coli cell for a while and watch
membrane MinD move between the poles.

    python examples/python/min_oscillator.py [--seconds 60] [--every 2]

On a data-centre GPU 60 s of cell time take about a minute; on the software adapter use a
few hundredths of a second.
"""

import argparse

import petri

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=60.0)
p.add_argument("--every", type=float, default=2.0, help="seconds between prints")
args = p.parse_args()

sim = petri.open("assets/min-system.json")
species = sim.state()["species"]
d_m = species.index("MinD_m")
print(f"{sim.model} on {sim.device}; tau = {sim.time_per_step:g} s")
t = 0.0
while t < args.seconds - 1e-12:
    t = min(t + args.every, args.seconds)
    sim.run(until=t)
    counts = sim.state()["counts"][d_m]  # (nz, ny, nx): MinD on the membrane
    along = counts.sum(axis=(1, 2))  # per z plane, along the long axis
    n = len(along)
    left, right = along[: n // 3].sum(), along[-(n // 3):].sum()
    print(f"t = {sim.time:8.4f} s  MinD_m {along.sum():6d}  left pole {left:6d}  right pole {right:6d}")
