"""Stochastic kinetics: an ensemble of Vilar's circadian oscillator, mean +- sd of the
activator A and the repressor R, and a few single trajectories. The device is chosen for you
(a hardware GPU, else the CPU) and the reason printed.

    python examples/python/vilar.py [--trajectories 10000] [--t-end 200] [--plot vilar.png]

Vilar et al. 2002's rates are per hour, so time is in hours.
"""

import argparse

import numpy as np

import petri

p = argparse.ArgumentParser()
p.add_argument("--trajectories", type=int, default=10000)
p.add_argument("--t-end", type=float, default=200.0)
p.add_argument("--plot", default="vilar.png", help="the figure's file")
p.add_argument("--show", action="store_true", help="also open it in a window")
args = p.parse_args()

ens = petri.open(petri.assets.path("vilar.json"), trajectories=args.trajectories,
                 t_end=args.t_end, points=201, seed=1)
print(f"{args.trajectories} trajectories on {ens.device} ({ens.device_reason})")
ens.run(progress=True)
s = ens.state()
a, r = s["species"].index("A"), s["species"].index("R")
for k in range(0, len(s["times"]), 20):
    print(f"t = {s['times'][k]:6.1f} h  A {s['mean'][k, a]:8.1f} +- {s['sd'][k, a]:7.1f}"
          f"  R {s['mean'][k, r]:8.1f} +- {s['sd'][k, r]:7.1f}")

import matplotlib  # noqa: E402

if not args.show:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Three single cells, every output time kept: (trajectories, times, species).
few = petri.open(petri.assets.path("vilar.json"), trajectories=3, t_end=args.t_end, points=201,
                 seed=2, device="cpu", keep_trajectories=True)
few.run()
runs = few.state()["trajectories"]
t = s["times"]
fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True, constrained_layout=True)
for k in range(runs.shape[0]):
    top.plot(t, runs[k, :, r], lw=0.8, label=f"trajectory {k}")
top.set(ylabel="R (molecules)", title="single cells oscillate (period about a day)")
top.legend(loc="upper right")
for i, name in [(a, "A"), (r, "R")]:
    m, sd = s["mean"][:, i], s["sd"][:, i]
    bottom.plot(t, m, label=f"{name}: mean")
    bottom.fill_between(t, np.maximum(m - sd, 0), m + sd, alpha=0.25, label=f"{name}: mean ± sd")
bottom.set(xlabel="time (hours)", ylabel="molecules",
           title=f"the ensemble of {args.trajectories} dephases")
bottom.legend(loc="upper right")
fig.savefig(args.plot, dpi=100)
print(f"figure: {args.plot}")
if args.show:
    plt.show()
