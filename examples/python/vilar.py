"""Stochastic kinetics: an ensemble of Vilar's circadian oscillator, mean +- sd per species.
The device is chosen for you (a hardware GPU, else the CPU) and the reason printed.

    python examples/python/vilar.py [--trajectories 10000] [--t-end 200]
"""

import argparse

import petri

p = argparse.ArgumentParser()
p.add_argument("--trajectories", type=int, default=10000)
p.add_argument("--t-end", type=float, default=200.0)
args = p.parse_args()

ens = petri.open("assets/vilar.json", trajectories=args.trajectories, t_end=args.t_end,
                 points=11, seed=1)
print(f"{args.trajectories} trajectories on {ens.device} ({ens.device_reason})")
ens.run()
s = ens.state()
a, r = s["species"].index("A"), s["species"].index("R")
for k, t in enumerate(s["times"]):
    print(f"t = {t:6.1f}  A {s['mean'][k, a]:8.1f} +- {s['sd'][k, a]:7.1f}"
          f"  R {s['mean'][k, r]:8.1f} +- {s['sd'][k, r]:7.1f}")
