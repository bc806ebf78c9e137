#!/usr/bin/env python3
"""The chart of bench/smpi_eval.sh's results (its results.txt rows: pattern ranks
nodes placement us_per_step ...): a column of panels per pattern over the rank
counts, the simulated time per exchange step of each placement above, and the
change against identity below, with the paper's best (RT:inter, -76% on Stampede,
its Fig. 10) for scale. A row measured twice counts with its last measurement.

Usage: smpi_eval_chart.py RESULTS.txt FILE.svg [--title TEXT]
"""
import argparse
import sys

import panel_chart

PAPER_BEST = -76  # % communication time against the system default (Wu, Xiong, Lan, Fig. 10)
PAPER_LABEL = f"the paper's best, RT:inter: {PAPER_BEST}%"
STYLES = {"identity": "linespoints pt 7 ps 0.5 lc rgb '#888888' lw 2",
          "rt": "linespoints pt 7 ps 0.5 lc rgb '#1f77b4' lw 3",
          "rt+intra": "linespoints pt 6 ps 0.8 lc rgb '#ff7f0e' lw 2 dt 2",
          PAPER_LABEL: "lines lc rgb '#d62728' lw 1.5 dt 2"}


def load(path):
    """{pattern: {ranks: {placement: microseconds per step}}}, patterns in file order."""
    steps = {}
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"smpi_eval_chart: cannot read {path}: {e.strerror}")
    with f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#") or fields[0] == "pattern":
                continue
            try:
                pattern, ranks, placement, us = fields[0], int(fields[1]), fields[3], float(fields[4])
            except (IndexError, ValueError):
                sys.exit(f"smpi_eval_chart: {path}:{number}: not a result row: {line.strip()}")
            steps.setdefault(pattern, {}).setdefault(ranks, {})[placement] = us
    if not steps:
        sys.exit(f"smpi_eval_chart: {path}: no result rows")
    return steps


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("chart", metavar="FILE.svg")
    parser.add_argument("--title", default="The paper's evaluation in SimGrid SMPI: communication time per exchange step")
    args = parser.parse_args()
    steps = load(args.results)
    ranks = sorted({r for by_ranks in steps.values() for r in by_ranks})
    xticks = [(f"{r // 1024}K" if r >= 1024 and r % 1024 == 0 else str(r), r) for r in ranks]
    every_us = [us for by_ranks in steps.values() for by_placement in by_ranks.values() for us in by_placement.values()]

    def series(pattern, placements, value):
        return [(p, [(r, y) for r, by_placement in sorted(steps[pattern].items())
                     for y in [value(by_placement, p)] if y is not None]) for p in placements]

    def change(by_placement, placement):  # % against identity
        if placement not in by_placement or not by_placement.get("identity"):
            return None
        return 100 * (by_placement[placement] / by_placement["identity"] - 1)

    paper = [(PAPER_LABEL, [(x, PAPER_BEST) for x in panel_chart.span(xticks)])]
    # The change axis spans -90..+30%, widened to any change beyond it, so that no point falls off.
    changes = [y for pattern in steps for _, points in series(pattern, ("rt", "rt+intra"), change) for _, y in points]
    change_range = (min([-90] + [y - 10 for y in changes]), max([30] + [y + 10 for y in changes]))
    rows = [("microseconds per step", (min(every_us) / 1.5, max(every_us) * 1.5), True,
             [(pattern, series(pattern, ("identity", "rt", "rt+intra"), dict.get)) for pattern in steps]),
            ("change against identity, %", change_range, False,
             [(pattern, series(pattern, ("rt", "rt+intra"), change) + paper) for pattern in steps])]
    try:
        panel_chart.draw(args.chart, args.title, xticks, rows, STYLES)
    except RuntimeError as e:
        sys.exit(f"smpi_eval_chart: {e}")


if __name__ == "__main__":
    main()
