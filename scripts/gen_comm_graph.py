#!/usr/bin/env python3
"""Generates communication graphs for `canopy map` tests and measurements.

  stencil   a 3D 7- or 27-point stencil (X x Y x Z processes, x fastest, no wrap-around)
  random    random sparse volumes between N processes
  amr       an AMR-like, diagonally dominant pattern: processes hold patches in
            space-filling-curve order, so most traffic is near the diagonal;
            refined regions exchange more bytes with closer partners

Output formats: METIS graph (--format metis, edge weights = bytes) or an edge
list (--format edges, "SRC DST BYTES"). Only the Python 3 standard library is used.

Examples:
  gen_comm_graph.py stencil --dims 32x16x16 --bytes 65536 -o stencil8k.graph
  gen_comm_graph.py stencil --dims 16x16x16 --points 27 -o stencil27.graph
  gen_comm_graph.py random --processes 1024 --degree 6 --seed 1 --format edges -o r.edges
  gen_comm_graph.py amr --processes 8192 --seed 1 -o amr.graph
"""
import argparse
import random
import sys


# Offsets to the "later" half of the neighbours, so each pair is listed once:
# faces for 7 points; faces, edges and corners for 27 (a face message carries
# nbytes, an edge nbytes/8, a corner nbytes/64, as halos of a cube of cells).
FACES = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
ALL_26 = [(di, dj, dk) for dk in (-1, 0, 1) for dj in (-1, 0, 1) for di in (-1, 0, 1)
          if (dk, dj, di) > (0, 0, 0)]


def stencil_edges(x, y, z, nbytes, points=7):
    offsets = FACES if points == 7 else ALL_26
    for k in range(z):
        for j in range(y):
            for i in range(x):
                v = i + x * (j + y * k)
                for di, dj, dk in offsets:
                    a, b, c = i + di, j + dj, k + dk
                    if 0 <= a < x and 0 <= b < y and 0 <= c < z:
                        shared = 3 - abs(di) - abs(dj) - abs(dk)  # 2 face, 1 edge, 0 corner
                        yield v, a + x * (b + y * c), max(1, nbytes >> (3 * (2 - shared)))


def random_edges(n, degree, seed):
    rng = random.Random(seed)
    seen = set()
    for _ in range(n * degree // 2):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b and (min(a, b), max(a, b)) not in seen:
            seen.add((min(a, b), max(a, b)))
            yield a, b, rng.randint(1, 1 << 20)


def amr_edges(n, seed, nbytes=65536):
    """Patches in space-filling-curve order: process i talks to i+1..i+w with
    volume falling with the distance. About a quarter of the processes lie in
    refined regions (random runs of consecutive processes), where patches are
    small and talk more (8x the bytes) to closer partners (w = 3 instead of 8);
    a few coarse-fine links cross to the coarse neighbours of a region, and one
    parent-child link per process joins the levels (i to i // 8 * 8 + n // 8)."""
    rng = random.Random(seed)
    refined = [False] * n
    while sum(refined) < n // 4:
        start, length = rng.randrange(n), rng.randint(8, max(8, n // 32))
        for i in range(start, min(n, start + length)):
            refined[i] = True
    pairs = {}

    def add(a, b, w):
        if a != b:
            key = (min(a, b), max(a, b))
            pairs[key] = pairs.get(key, 0) + w

    for i in range(n):
        width, volume = (3, nbytes * 8) if refined[i] else (8, nbytes)
        for d in range(1, width + 1):
            if i + d < n and refined[i + d] == refined[i]:
                add(i, i + d, volume // d)
        if i + 1 < n and refined[i + 1] != refined[i]:  # a region's edge: coarse-fine interface
            for d in range(1, 5):
                if i + d < n:
                    add(i, i + d, nbytes // 2)
        add(i, (i // 8 * 8 + n // 8) % n, nbytes // 4)
    for (a, b), w in pairs.items():
        yield a, b, w


def write_metis(n, edges, out):
    rows = [[] for _ in range(n)]
    for a, b, w in edges:
        rows[a].append((b, w))
        rows[b].append((a, w))
    out.write(f"{n} {sum(len(r) for r in rows) // 2} 001\n")
    for r in rows:
        out.write(" ".join(f"{b + 1} {w}" for b, w in r) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True, metavar="MODE")
    s = sub.add_parser("stencil", help="3D 7-point stencil")
    s.add_argument("--dims", required=True, help="XxYxZ")
    s.add_argument("--bytes", type=int, default=1000, help="bytes per face neighbour pair (default 1000)")
    s.add_argument("--points", type=int, choices=(7, 27), default=7, help="stencil points (default 7)")
    r = sub.add_parser("random", help="random sparse graph")
    r.add_argument("--processes", type=int, required=True)
    r.add_argument("--degree", type=int, default=6)
    r.add_argument("--seed", type=int, default=1)
    a = sub.add_parser("amr", help="AMR-like diagonally dominant pattern")
    a.add_argument("--processes", type=int, required=True)
    a.add_argument("--seed", type=int, default=1)
    for p in (s, r, a):
        p.add_argument("--format", choices=("metis", "edges"), default="metis")
        p.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = parser.parse_args()
    if args.mode == "stencil":
        x, y, z = (int(v) for v in args.dims.split("x"))
        n, edges = x * y * z, list(stencil_edges(x, y, z, args.bytes, args.points))
    elif args.mode == "amr":
        n, edges = args.processes, list(amr_edges(args.processes, args.seed))
    else:
        n, edges = args.processes, list(random_edges(args.processes, args.degree, args.seed))
    out = open(args.output, "w") if args.output else sys.stdout
    if args.format == "metis":
        write_metis(n, edges, out)
    else:
        out.write(f"processes {n}\n" + "".join(f"{a} {b} {w}\n" for a, b, w in edges))
    if args.output:
        out.close()


if __name__ == "__main__":
    main()
