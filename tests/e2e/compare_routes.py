#!/usr/bin/env python3
"""Compares host-to-host routes from two sources, hop by hop, for a seeded
sample of host pairs of a dump directory.

Sources:
  canopy     `canopy route DUMP A B --json` (the route Canopy computes from the dump)
  canopyd    `query A:B` asked of a running canopyd (--server): the hosts and the
             switch GUIDs in order, the paper's answer (no ports to compare)
  ibtracert  the real ibtracert against the live (simulated) fabric
  lft-walk   this script's own walk of the dump's forwarding tables

Each route is the list of nodes (node GUIDs and names, in order) with the
in and out port at each. With --expect (gen_fabric.py's JSON), the link rates
of the --actual route (Canopy's claims, or what ibnetdiscover reported for the
dump's links) are also checked against what the generator intended.

The sample always includes pairs on the same leaf switch (where the fabric
has any) and pairs on different leaves (across spines); the rest is random.
With --avoid NODE:PORT (a cable that was broken), every route of both sources
must stay off that port, and the sample also holds a pair from each host of
NODE, when it is a leaf, to a host on every other leaf.
Exit status 0 when every pair matches, 1 otherwise.
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from canopyd_client import Connection, ConnectionClosed, parse_server  # noqa: E402
from fabric_dump import (Hop, ParseError, lft_walk, load_dump, parse_ibtracert, rate_gbps,  # noqa: E402
                         switch_distances)

TOOL_TIMEOUT = 60


class RouteError(Exception):
    pass


# ---- route sources -------------------------------------------------------

def run_tool(argv, env=None):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        raise RouteError(f"{' '.join(argv)}: no answer within {TOOL_TIMEOUT}s") from None
    except OSError as e:
        raise RouteError(f"{argv[0]}: {e}") from None
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-3:]
        raise RouteError(f"{' '.join(argv)} failed (exit {done.returncode}): {' | '.join(tail)}")
    return done.stdout


def canopy_route(args, disc, a, b):
    """Canopy's route plus its rate claims: (hops, [(name, out_port, out_rate, out_gbps)], summary)."""
    text = run_tool([args.canopy, "route", args.dump, a, b, "--json"])
    try:
        answer = json.loads(text)
        hops = [Hop(h["name"], int(h["guid"], 16), int(h["in_port"]), int(h["out_port"]))
                for h in answer["path"]]
        rates = [(h["name"], int(h["out_port"]), h["out_rate"], float(h["out_gbps"])) for h in answer["path"]]
    except (ValueError, KeyError, TypeError) as e:
        raise RouteError(f"canopy route {a} {b}: unexpected JSON ({e}): {text[:300]}") from None
    return hops, rates, answer


def ibtracert_route(args, disc, a, b):
    env = dict(os.environ)
    if args.preload:
        env["LD_PRELOAD"] = args.preload
    src, dst = disc.host(a), disc.host(b)
    text = run_tool([args.ibtracert, str(src.lid), str(dst.lid)], env)
    try:
        return parse_ibtracert(text, f"ibtracert {src.lid} {dst.lid}"), None, None
    except ParseError as e:
        raise RouteError(str(e)) from None


def walk_route(args, disc, a, b):
    """The dump's own route, with the rates ibnetdiscover reported for its links."""
    try:
        hops = lft_walk(disc, a, b)
    except ParseError as e:
        raise RouteError(str(e)) from None
    rates = []
    for hop in hops:
        rate = disc.nodes[hop.guid].peers[hop.out_port][2] if hop.out_port else ""
        rates.append((hop.name, hop.out_port, rate, rate_gbps(rate)))
    return hops, rates, None


def canopyd_route(args, disc, a, b):
    """canopyd's `query A:B`: "A GUID... B". Ports are None: the answer has none."""
    request = f"query {a}:{b}"
    try:
        words = args.connection.ask(request).split()
    except (ConnectionClosed, OSError) as e:
        raise RouteError(f"canopyd, {request}: {e}") from None
    if len(words) < 2 or words[0] != a or words[-1] != b:
        raise RouteError(f"canopyd, {request}: unexpected answer {' '.join(words)[:300]!r}")
    hops = []
    for word in words:
        try:
            node = disc.host(word) if word in (a, b) else disc.nodes[int(word, 16)]
        except (KeyError, ValueError):
            raise RouteError(f"canopyd, {request}: {word!r} is no node of the dump") from None
        hops.append(Hop(node.name, node.guid, None, None))
    return hops, None, None


SOURCES = {"canopy": canopy_route, "canopyd": canopyd_route, "ibtracert": ibtracert_route, "lft-walk": walk_route}


# ---- sampling ------------------------------------------------------------

def sample_pairs(disc, count, seed):
    """A quarter of the pairs share a leaf switch (when any leaf has two hosts);
    the others take turns over the leaf-to-leaf distances seen from a random
    leaf, so short and long routes (same pod, across spines) all get checked."""
    rng = random.Random(seed)
    by_leaf = {}
    for h in disc.hosts():
        by_leaf.setdefault(disc.leaf_of(h).guid, []).append(h.name)
    shared = [names for names in by_leaf.values() if len(names) >= 2]
    pairs = [tuple(rng.sample(rng.choice(shared), 2)) for _ in range(count // 4 if shared else 0)]
    leaves = sorted(by_leaf)
    while len(pairs) < count and len(leaves) >= 2:
        la = rng.choice(leaves)
        by_distance = {}
        for leaf, hops in switch_distances(disc, la).items():
            if leaf in by_leaf and leaf != la:
                by_distance.setdefault(hops, []).append(leaf)
        distances = sorted(by_distance)
        lb = rng.choice(by_distance[distances[len(pairs) % len(distances)]])
        pairs.append((rng.choice(by_leaf[la]), rng.choice(by_leaf[lb])))
    leaf_of = {name: leaf for leaf, names in by_leaf.items() for name in names}
    return pairs, leaf_of


def pairs_from_switch(disc, switch_name):
    """A pair from each host on @p switch_name to the first host of every other leaf."""
    switch = next((n for n in disc.nodes.values() if n.kind == "switch" and n.name == switch_name), None)
    if switch is None:
        raise RouteError(f"no switch named {switch_name!r} in the dump")
    first_on_leaf = {}
    for h in disc.hosts():
        first_on_leaf.setdefault(disc.leaf_of(h).guid, h.name)
    local = [h.name for h in disc.hosts() if disc.leaf_of(h).guid == switch.guid]
    return [(a, b) for a in local for leaf, b in sorted(first_on_leaf.items()) if leaf != switch.guid]


# ---- comparison ----------------------------------------------------------

def describe(hops):
    return " ".join(f"[{h.in_port}]{h.name}({h.guid:#x})[{h.out_port}]" for h in hops)


def compare_hops(expected, actual):
    if len(expected) != len(actual):
        return [f"{len(actual) - 1} links instead of {len(expected) - 1}"]
    problems = []
    for i, (e, a) in enumerate(zip(expected, actual)):
        for what in ("guid", "name", "in_port", "out_port"):
            if getattr(a, what) is None:  # a source that does not know it
                continue
            if getattr(e, what) != getattr(a, what):
                problems.append(f"hop {i}: {what} {getattr(a, what)!r} instead of {getattr(e, what)!r}")
    return problems


def load_expected_rates(path):
    with open(path, encoding="utf-8") as f:
        expect = json.load(f)
    rates = {}
    for link in expect["links"]:
        rates[(link["a"], link["a_port"])] = (link["rate"], link["gbps"])
        rates[(link["b"], link["b_port"])] = (link["rate"], link["gbps"])
    return rates


def check_rates(rates, expected_rates, summary):
    problems = []
    slowest = None
    for name, port, rate, gbps in rates[:-1]:
        want = expected_rates.get((name, port))
        if want is None:
            problems.append(f"{name} port {port}: no such link in the generated fabric")
        elif (rate, gbps) != want:
            problems.append(f"{name} port {port}: rate {rate} {gbps} Gb/s instead of {want[0]} {want[1]} Gb/s")
        else:
            slowest = gbps if slowest is None else min(slowest, gbps)
    if summary is not None and slowest is not None and summary.get("min_gbps") != slowest:
        problems.append(f"min_gbps {summary.get('min_gbps')} instead of {slowest}")
    return problems


def parse_pair(text):
    a, _, b = text.partition(":")
    if not a or not b:
        raise argparse.ArgumentTypeError(f"--pair wants A:B, not {text!r}")
    return a, b


def parse_avoid(text):
    name, _, port = (text or "").rpartition(":")
    if not name or not port.isdigit():
        raise argparse.ArgumentTypeError(f"--avoid wants NODE:PORT, not {text!r}")
    return name, int(port)


def uses_port(hops, node, port):
    return any(h.name == node and port in (h.in_port, h.out_port) for h in hops)


def check_pair(args, disc, expected_rates, a, b):
    expected, _, _ = SOURCES[args.expected](args, disc, a, b)
    actual, rates, summary = SOURCES[args.actual](args, disc, a, b)
    problems = compare_hops(expected, actual)
    if args.avoid:
        for source, hops in ((args.expected, expected), (args.actual, actual)):
            if uses_port(hops, *args.avoid):
                problems.append(f"the {source} route goes through {args.avoid[0]} port {args.avoid[1]}")
    if summary is not None:
        if (summary.get("from"), summary.get("to"), summary.get("links")) != (a, b, len(actual) - 1):
            problems.append(f"summary says {summary.get('from')} -> {summary.get('to')}, "
                            f"{summary.get('links')} links")
        if summary.get("method") != "lft":
            problems.append(f"method {summary.get('method')!r} instead of 'lft' (forwarding tables ignored?)")
    if expected_rates is not None and rates is not None:
        problems += check_rates(rates, expected_rates, summary)
    return expected, actual, problems


def run(args):
    disc = load_dump(args.dump)
    if "canopyd" in (args.expected, args.actual):
        if not args.server:
            raise RouteError("the canopyd source needs --server HOST:PORT")
        args.connection = Connection(*args.server)
    pairs, leaf = sample_pairs(disc, args.pairs, args.seed)
    pairs = list(args.pair) + pairs
    if args.avoid:
        pairs += pairs_from_switch(disc, args.avoid[0])
    if not pairs:
        raise RouteError("the dump has fewer than two hosts")
    expected_rates = load_expected_rates(args.expect) if args.expect else None
    failures, same_leaf, links_seen = 0, 0, set()
    for a, b in pairs:
        expected, actual, problems = check_pair(args, disc, expected_rates, a, b)
        if leaf[a] == leaf[b]:
            same_leaf += 1
            if len(expected) - 1 != 2:
                problems.append(f"same-leaf route has {len(expected) - 1} links, not 2")
        links_seen.add(len(expected) - 1)
        if problems:
            failures += 1
            print(f"MISMATCH {a} -> {b}:\n  {args.expected}: {describe(expected)}\n"
                  f"  {args.actual}: {describe(actual)}\n  " + "\n  ".join(problems))
        elif args.verbose:
            print(f"ok {a} -> {b}: {describe(actual)}")
    print(f"compare_routes: {len(pairs) - failures}/{len(pairs)} pairs match ({args.actual} vs {args.expected}; "
          f"{same_leaf} on one leaf; route lengths {sorted(links_seen)} links)")
    return 0 if failures == 0 else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", required=True, metavar="DIR", help="dump directory (e.g. OUT/current)")
    parser.add_argument("--expected", choices=SOURCES, default="ibtracert", help="reference source (ibtracert)")
    parser.add_argument("--actual", choices=SOURCES, default="canopy", help="source under test (canopy)")
    parser.add_argument("--canopy", default="canopy", metavar="PATH", help="the canopy CLI")
    parser.add_argument("--server", type=parse_server, metavar="HOST:PORT", help="canopyd, for the canopyd source")
    parser.add_argument("--ibtracert", default="ibtracert", metavar="PATH")
    parser.add_argument("--preload", default=os.environ.get("IBSIM_UMAD2SIM", ""), metavar="LIB",
                        help="LD_PRELOAD for ibtracert (libumad2sim.so to reach ibsim)")
    parser.add_argument("--expect", metavar="JSON", help="gen_fabric.py --expect file: check link rates too")
    parser.add_argument("--avoid", type=parse_avoid, metavar="NODE:PORT",
                        help="a broken cable: no route may use this port (adds pairs from NODE's hosts)")
    parser.add_argument("--pair", action="append", default=[], type=parse_pair, metavar="A:B",
                        help="a host pair to check besides the sample (repeatable)")
    parser.add_argument("--pairs", type=int, default=40, help="sampled host pairs (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (RouteError, ParseError, OSError, KeyError) as e:
        print(f"compare_routes: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
