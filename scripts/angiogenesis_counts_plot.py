#!/usr/bin/env python3
"""Plots the angiogenesis counts over time (docs/models/angiogenesis.md) as an SVG, with the
standard library only.

    scripts/angiogenesis_counts_plot.py OUT.svg "TITLE" COUNTS.txt ["TITLE" COUNTS.txt ...]

Each COUNTS.txt is the output of the `angiogenesis_counts` example (one line per seed and time:
seed t sprouts live loops reached front_x occupied; '# seed N: first arrival at t = X' lines).
One panel per file: the mean over seeds of sprouts, live tips and loops, with a band of one
standard deviation, on a log axis; the literature's expected live-tip range, tens to low
hundreds (MODELS.md section 1 after Anderson & Chaplain 1998), shaded; each seed's first
arrival at the tumour as a tick on the time axis.
"""
import math
import re
import sys
from collections import defaultdict

SERIES = [("sprouts", 2, "#1f77b4"), ("live tips", 3, "#d62728"), ("loops", 4, "#2ca02c")]
W, H, LEFT, RIGHT, TOP, BOTTOM = 420, 320, 56, 12, 34, 48
Y_LO, Y_HI = 1.0, 1.0e4


def read(path):
    rows, arrivals = defaultdict(list), []
    for line in open(path):
        m = re.match(r"# seed \d+: first arrival at t = ([0-9.]+)", line)
        if m:
            arrivals.append(float(m.group(1)))
        elif line[0].isdigit():
            v = line.split()
            rows[float(v[1])].append([float(a) for a in v])
    return rows, arrivals


def stats(values):
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / max(len(values) - 1, 1))
    return m, sd


def panel(x0, title, path):
    rows, arrivals = read(path)
    times = sorted(rows)
    seeds = len(rows[times[0]])
    t_hi = times[-1]
    px = lambda t: x0 + LEFT + (t / t_hi) * (W - LEFT - RIGHT)
    py = lambda n: TOP + (1 - (math.log10(max(n, Y_LO)) - 0) / math.log10(Y_HI)) * (H - TOP - BOTTOM)
    out = [f'<text x="{x0 + W / 2}" y="18" text-anchor="middle" font-size="13">{title} ({seeds} seeds)</text>']
    # Literature range of live tips: tens to low hundreds.
    out.append(f'<rect x="{px(0)}" y="{py(300)}" width="{px(t_hi) - px(0)}" height="{py(10) - py(300)}" fill="#eeeeee"/>')
    out.append(f'<text x="{px(0) + 4}" y="{py(300) + 12}" font-size="10" fill="#666">literature: tens to low hundreds of live tips</text>')
    for decade in range(0, 5):
        y = py(10**decade)
        out.append(f'<line x1="{px(0)}" y1="{y}" x2="{px(t_hi)}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{px(0) - 4}" y="{y + 4}" text-anchor="end" font-size="10">{10**decade:g}</text>')
    step = 5 if t_hi <= 40 else 10
    for t in range(0, int(t_hi) + 1, step):
        out.append(f'<text x="{px(t)}" y="{H - BOTTOM + 14}" text-anchor="middle" font-size="10">{t}</text>')
    out.append(f'<text x="{x0 + W / 2}" y="{H - 8}" text-anchor="middle" font-size="11">t (L^2/D_c)</text>')
    for name, col, colour in SERIES:
        ms = [stats([r[col] for r in rows[t]]) for t in times]
        upper = [f"{px(t)},{py(m + s)}" for t, (m, s) in zip(times, ms)]
        lower = [f"{px(t)},{py(max(m - s, Y_LO))}" for t, (m, s) in reversed(list(zip(times, ms)))]
        out.append(f'<polygon points="{" ".join(upper + lower)}" fill="{colour}" fill-opacity="0.18"/>')
        line = " ".join(f"{px(t)},{py(m)}" for t, (m, _) in zip(times, ms))
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
    for t in arrivals:
        out.append(f'<line x1="{px(t)}" y1="{py(Y_LO)}" x2="{px(t)}" y2="{py(Y_LO) - 10}" stroke="#9400d3" stroke-width="2"/>')
    label = f"first arrival, {len(arrivals)} of {seeds} seeds" if arrivals else "no seed reaches the tumour"
    out.append(f'<text x="{px(t_hi) - 4}" y="{py(Y_LO) - 14}" text-anchor="end" font-size="10" fill="#9400d3">{label}</text>')
    for i, (name, _, colour) in enumerate(SERIES):
        y = TOP + 30 + 14 * i
        out.append(f'<line x1="{px(0) + 8}" y1="{y}" x2="{px(0) + 26}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{px(0) + 30}" y="{y + 4}" font-size="10">{name} (mean +- sd)</text>')
    out.append(f'<rect x="{px(0)}" y="{TOP}" width="{px(t_hi) - px(0)}" height="{H - TOP - BOTTOM}" fill="none" stroke="#000"/>')
    return out


def main():
    out_path, pairs = sys.argv[1], sys.argv[2:]
    if not pairs or len(pairs) % 2:
        sys.exit(__doc__)
    panels = len(pairs) // 2
    body = []
    for i in range(panels):
        body += panel(i * W, pairs[2 * i], pairs[2 * i + 1])
    with open(out_path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * panels}" height="{H}" font-family="sans-serif">\n')
        f.write(f'<rect width="{W * panels}" height="{H}" fill="white"/>\n')
        f.write("\n".join(body) + "\n</svg>\n")


if __name__ == "__main__":
    main()
