#!/usr/bin/env python3
"""Machine files (one host name per line per rank, in rank order) for the SMPI
mapping evaluation, and the stencil communication graph it runs.

  identity     rank r on allocation slot r (host r // ppn): the system default
  random       a seeded random permutation of the identity slots (a bad placement)
  leaf-blocks  the rank grid cut into bricks, one per leaf switch, and each
               brick into one sub-brick per host (a hand-made good placement
               for grid patterns; needs the same number of hosts on every leaf)
  stencil27    not a placement: writes the 27-point stencil of the rank grid as a
               "SRC DST BYTES" edge list (faces, edges and corners weighted
               differently), a sparse-matrix-like pattern for spmv_pattern

The allocation is a host file, one host per line, in allocation order. The leaf
of each host is read from the SimGrid platform (canopy topo --simgrid): the
"ends" property of the host's link names the switch it is cabled to.
Only the Python 3 standard library is used."""
import argparse
import itertools
import random
import sys
import xml.etree.ElementTree as ET


class PlacementError(Exception):
    pass


def parse_dims(text):
    try:
        dims = [int(x) for x in text.split("x")]
    except ValueError:
        dims = []
    if len(dims) != 3 or min(dims) < 1:
        raise PlacementError(f"--dims {text!r}: expected XxYxZ with positive extents")
    return dims


def read_allocation(path):
    with open(path) as f:
        hosts = [line.split()[0] for line in f if line.strip() and not line.lstrip().startswith("#")]
    if not hosts:
        raise PlacementError(f"{path}: no hosts")
    return hosts


def leaf_of_hosts(platform):
    """host name -> the node at the other end of its (first) link."""
    hosts, leaf = set(), {}
    # Hosts and links come before the (millions of) routes: stop at the first route.
    for _, element in ET.iterparse(platform, events=("end",)):
        if element.tag == "route":
            break
        if element.tag == "host":
            hosts.add(element.get("id"))
        elif element.tag == "prop" and element.get("id") == "ends":
            ends = (element.get("value") or "").split()
            if len(ends) < 2:
                raise PlacementError(f"{platform}: a link's \"ends\" property names fewer than two ends")
            a, b = (end.rsplit(":", 1)[0] for end in ends[:2])
            if a in hosts and b not in hosts:
                leaf.setdefault(a, b)
            elif b in hosts and a not in hosts:
                leaf.setdefault(b, a)
    return leaf


def best_brick(dims, volume):
    """The brick of @volume cells that tiles dims with the smallest surface."""
    best = None
    for bx, by in itertools.product(range(1, dims[0] + 1), range(1, dims[1] + 1)):
        if volume % (bx * by):
            continue
        bz = volume // (bx * by)
        if dims[0] % bx or dims[1] % by or bz > dims[2] or dims[2] % bz:
            continue
        surface = bx * by + by * bz + bx * bz
        if best is None or surface < best[0]:
            best = (surface, [bx, by, bz])
    if best is None:
        raise PlacementError(f"no brick of {volume} cells tiles the grid {'x'.join(map(str, dims))}")
    return best[1]


def bricks(dims, brick):
    """Origins of the bricks tiling dims, x fastest."""
    counts = [d // b for d, b in zip(dims, brick)]
    for z, y, x in itertools.product(range(counts[2]), range(counts[1]), range(counts[0])):
        yield [x * brick[0], y * brick[1], z * brick[2]]


def cells(origin, brick):
    for z, y, x in itertools.product(range(brick[2]), range(brick[1]), range(brick[0])):
        yield [origin[0] + x, origin[1] + y, origin[2] + z]


def leaf_blocks(hosts, ppn, dims, leaf):
    """Rank (x fastest on the grid) -> host: leaf bricks, then host sub-bricks."""
    by_leaf = {}
    for h in hosts:
        if h not in leaf:
            raise PlacementError(f"host {h} is not cabled to a switch in the platform")
        by_leaf.setdefault(leaf[h], []).append(h)
    per_leaf = {len(v) for v in by_leaf.values()}
    if len(per_leaf) != 1:
        raise PlacementError("leaf-blocks needs the same number of allocated hosts on every leaf")
    hosts_per_leaf = per_leaf.pop()
    host_brick = best_brick(dims, ppn)
    host_grid = [d // b for d, b in zip(dims, host_brick)]
    leaf_brick = best_brick(host_grid, hosts_per_leaf)
    rank_host = [None] * (dims[0] * dims[1] * dims[2])
    leaves = list(by_leaf.values())
    for leaf_hosts, leaf_origin in zip(leaves, bricks(host_grid, leaf_brick)):
        for host, host_cell in zip(leaf_hosts, cells(leaf_origin, leaf_brick)):
            origin = [c * b for c, b in zip(host_cell, host_brick)]
            for x, y, z in cells(origin, host_brick):
                rank_host[x + dims[0] * (y + dims[1] * z)] = host
    return rank_host


def stencil27(dims, face, edge, corner):
    """Directed volumes of a 27-point stencil on the rank grid (x fastest)."""
    def rank(x, y, z):
        return x + dims[0] * (y + dims[1] * z)
    lines = [f"processes {dims[0] * dims[1] * dims[2]}"]
    for z, y, x in itertools.product(range(dims[2]), range(dims[1]), range(dims[0])):
        for dz, dy, dx in itertools.product((-1, 0, 1), repeat=3):
            nx, ny, nz = x + dx, y + dy, z + dz
            if (dx, dy, dz) == (0, 0, 0) or not (0 <= nx < dims[0] and 0 <= ny < dims[1] and 0 <= nz < dims[2]):
                continue
            size = (face, edge, corner)[abs(dx) + abs(dy) + abs(dz) - 1]
            lines.append(f"{rank(x, y, z)} {rank(nx, ny, nz)} {size}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["identity", "random", "leaf-blocks", "stencil27"])
    p.add_argument("--allocation", help="host file in allocation order")
    p.add_argument("--ranks", type=int, help="default: hosts x ppn")
    p.add_argument("--ppn", type=int, default=1, help="ranks per host (default 1)")
    p.add_argument("--seed", type=int, default=1, help="random: the shuffle's seed")
    p.add_argument("--platform", help="leaf-blocks: the SimGrid platform (canopy topo --simgrid)")
    p.add_argument("--dims", help="leaf-blocks, stencil27: the rank grid XxYxZ")
    p.add_argument("--bytes", type=int, default=65536, help="stencil27: face volume (edges /8, corners /64)")
    p.add_argument("-o", "--output", help="default: stdout")
    a = p.parse_args()
    try:
        if a.kind == "stencil27":
            if not a.dims:
                raise PlacementError("stencil27 needs --dims")
            if a.bytes < 1:
                raise PlacementError(f"--bytes {a.bytes}: must be at least 1")
            text = stencil27(parse_dims(a.dims), a.bytes, max(a.bytes // 8, 1), max(a.bytes // 64, 1))
        else:
            if not a.allocation:
                raise PlacementError(f"{a.kind} needs --allocation")
            hosts = read_allocation(a.allocation)
            ranks = len(hosts) * a.ppn if a.ranks is None else a.ranks
            if a.ppn < 1 or ranks < 1 or ranks > len(hosts) * a.ppn:
                raise PlacementError(f"{ranks} ranks do not fit {len(hosts)} hosts x {a.ppn} slots")
            slots = [hosts[r // a.ppn] for r in range(ranks)]
            if a.kind == "random":
                random.Random(a.seed).shuffle(slots)
            elif a.kind == "leaf-blocks":
                if not a.platform or not a.dims:
                    raise PlacementError("leaf-blocks needs --platform and --dims")
                dims = parse_dims(a.dims)
                if dims[0] * dims[1] * dims[2] != ranks or ranks != len(hosts) * a.ppn:
                    raise PlacementError("leaf-blocks needs --dims to multiply to hosts x ppn ranks")
                slots = leaf_blocks(hosts, a.ppn, dims, leaf_of_hosts(a.platform))
            text = "\n".join(slots) + "\n"
        if a.output:
            with open(a.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    except (PlacementError, OSError, ET.ParseError) as e:
        print(f"smpi_placement: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
