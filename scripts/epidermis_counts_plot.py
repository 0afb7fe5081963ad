#!/usr/bin/env python3
"""Plots the epidermis's cell count over time (docs/models/epidermis.md) as an SVG, with the
standard library only.

    scripts/epidermis_counts_plot.py OUT.svg COUNTS.txt

COUNTS.txt holds one line per seed and step: seed step cells ... ('#' lines are comments), as
docs/models/epidermis-counts/ keeps them (from each run's observables.csv). One line per seed;
the paper's start (100 cells) and end (535 cells at step 130,000, Christley et al. 2010, Fig. 4)
as points, the end with the +-10% tolerance the model page states as a bar.
"""
import sys
from collections import defaultdict

W, H, LEFT, RIGHT, TOP, BOTTOM = 560, 340, 60, 130, 30, 48
X_HI, Y_HI = 130000.0, 650.0
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
PAPER = [(0.0, 100.0), (130000.0, 535.0)]


def read(path):
    series = defaultdict(list)
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        v = line.split()
        series[v[0]].append((float(v[1]), float(v[2])))
    return series


def main(out, counts):
    series = read(counts)
    px = lambda x: LEFT + (W - LEFT - RIGHT) * x / X_HI
    py = lambda y: H - BOTTOM - (H - TOP - BOTTOM) * y / Y_HI
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="18" font-size="13">Epidermis: cells over time, the asset, {len(series)} seeds</text>']
    for y in range(0, int(Y_HI) + 1, 100):
        svg.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y}</text>')
    for x in range(0, int(X_HI) + 1, 20000):
        svg.append(f'<text x="{px(x):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{x // 1000}k</text>')
    svg.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(0)}" y2="{py(0)}" stroke="black"/>')
    svg.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{py(0)}" stroke="black"/>')
    svg.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 12}" text-anchor="middle">step (dt = 0.005)</text>')
    svg.append(f'<text transform="translate(16,{(TOP + H - BOTTOM) / 2}) rotate(-90)" text-anchor="middle">cells</text>')
    for k, (seed, points) in enumerate(sorted(series.items(), key=lambda s: int(s[0]))):
        c = COLOURS[k % len(COLOURS)]
        d = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(points))
        svg.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="1.5"/>')
        ly = TOP + 16 * k + 10
        svg.append(f'<line x1="{W - RIGHT + 10}" x2="{W - RIGHT + 28}" y1="{ly}" y2="{ly}" stroke="{c}" stroke-width="2"/>')
        svg.append(f'<text x="{W - RIGHT + 32}" y="{ly + 4}">seed {seed}</text>')
    x_end, y_end = PAPER[1]
    svg.append(f'<line x1="{px(x_end):.1f}" x2="{px(x_end):.1f}" y1="{py(0.9 * y_end):.1f}" y2="{py(1.1 * y_end):.1f}" stroke="black" stroke-width="2"/>')
    for x, y in PAPER:
        svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="black"/>')
    ly = TOP + 16 * len(series) + 10
    svg.append(f'<circle cx="{W - RIGHT + 19}" cy="{ly}" r="4" fill="black"/>')
    svg.append(f'<text x="{W - RIGHT + 32}" y="{ly + 4}">paper (+-10%)</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
