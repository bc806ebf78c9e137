#!/usr/bin/env python3
"""Generates communication graphs for `canopy map` tests and measurements.

  stencil   a 3D 7-point stencil (X x Y x Z processes, x fastest, no wrap-around)
  random    random sparse volumes between N processes

Output formats: METIS graph (--format metis, edge weights = bytes) or an edge
list (--format edges, "SRC DST BYTES"). Only the Python 3 standard library is used.

Examples:
  gen_comm_graph.py stencil --dims 32x16x16 --bytes 65536 -o stencil8k.graph
  gen_comm_graph.py random --processes 1024 --degree 6 --seed 1 --format edges -o r.edges
"""
import argparse
import random
import sys


def stencil_edges(x, y, z, nbytes):
    for k in range(z):
        for j in range(y):
            for i in range(x):
                v = i + x * (j + y * k)
                if i + 1 < x:
                    yield v, v + 1, nbytes
                if j + 1 < y:
                    yield v, v + x, nbytes
                if k + 1 < z:
                    yield v, v + x * y, nbytes


def random_edges(n, degree, seed):
    rng = random.Random(seed)
    seen = set()
    for _ in range(n * degree // 2):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b and (min(a, b), max(a, b)) not in seen:
            seen.add((min(a, b), max(a, b)))
            yield a, b, rng.randint(1, 1 << 20)


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
    s.add_argument("--bytes", type=int, default=1000, help="bytes per neighbour pair (default 1000)")
    r = sub.add_parser("random", help="random sparse graph")
    r.add_argument("--processes", type=int, required=True)
    r.add_argument("--degree", type=int, default=6)
    r.add_argument("--seed", type=int, default=1)
    for p in (s, r):
        p.add_argument("--format", choices=("metis", "edges"), default="metis")
        p.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = parser.parse_args()
    if args.mode == "stencil":
        x, y, z = (int(v) for v in args.dims.split("x"))
        n, edges = x * y * z, list(stencil_edges(x, y, z, args.bytes))
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
