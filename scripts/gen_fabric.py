#!/usr/bin/env python3
"""Generates InfiniBand fabrics for Canopy's end-to-end tests, demo and benchmarks.

  fat-tree  a k-ary folded-Clos fat tree as an ibsim net file (OpenSM's ftree
            engine accepts it: all hosts on leaves, all leaves at one level).
  torus     switches on a 1-3 dimensional torus or mesh, hosts attached, ports
            laid out per dimension so OpenSM's dor engine routes it.
  dump      a synthetic dump directory (ibnetdiscover.txt, ibroute/*.txt,
            manifest.json) of a large fat tree with up/down (d-mod-k) routing,
            written directly, without ibsim, for benchmarks.

Net files follow ibsim's format: hosts get node ids (and so node descriptions)
like h0001, switches leaf001, spine001, agg001, core001 or sw-X-Y-Z. Every port
line carries the ibsim speed-enable mask (s=) on BOTH ends of the link: OpenSM
rewrites the active speed of a link whose two ends disagree, so only matching
masks make the rate predictable. --expect writes what the generator intends
(expected routing engine, every link and its rate) for the tests to check.

Only the Python 3 standard library is used.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import sys

# ibsim speed-enable masks (bit 0 SDR, 1 DDR, 2 QDR; the active speed is the
# highest bit both ends enable) and the data rate of one lane after encoding.
SPEEDS = {"SDR": (1, 2.0), "DDR": (3, 4.0), "QDR": (7, 8.0)}
WIDTH = 4  # ibsim links come up 4x by default
SWITCH_GUID_BASE = 0x200000  # ibsim's default GUID bases: switches count up by one,
HOST_GUID_BASE = 0x100000    # channel adapters by (ports + 1); port GUID = node GUID + port
MAX_SWITCH_PORTS = 64


class FabricError(Exception):
    """A request the generator cannot turn into a valid fabric."""


# ---------------------------------------------------------------------------
# Fabric model
# ---------------------------------------------------------------------------

class Node:
    def __init__(self, name, kind, num_ports, guid):
        self.name = name
        self.kind = kind            # "switch" or "host"
        self.num_ports = num_ports
        self.guid = guid            # node GUID (ibsim assigns the same ones in file order)
        self.peers = {}             # port -> (peer Node, peer port, speed name)
        self.lid = 0

    def port_guid(self, port):
        return self.guid if self.kind == "switch" else self.guid + port


class Fabric:
    """Nodes in creation order (= net-file order, so ibsim gives them the GUIDs computed here)."""

    def __init__(self, kind, engine):
        self.kind = kind
        self.engine = engine  # the OpenSM routing engine this fabric is built for
        self.switches = []
        self.hosts = []

    def add_switch(self, name, num_ports):
        if num_ports > MAX_SWITCH_PORTS:
            raise FabricError(f"switch {name} would need {num_ports} ports (at most {MAX_SWITCH_PORTS})")
        node = Node(name, "switch", num_ports, SWITCH_GUID_BASE + len(self.switches))
        self.switches.append(node)
        return node

    def add_host(self, name):
        node = Node(name, "host", 1, HOST_GUID_BASE + 2 * len(self.hosts))
        self.hosts.append(node)
        return node

    def connect(self, a, port_a, b, port_b, speed):
        for node, port in ((a, port_a), (b, port_b)):
            if not 1 <= port <= node.num_ports or port in node.peers:
                raise AssertionError(f"bad or reused port {node.name}[{port}]")
        a.peers[port_a] = (b, port_b, speed)
        b.peers[port_b] = (a, port_a, speed)

    def nodes(self):
        return self.switches + self.hosts

    def links(self):
        """Each link once, as (node, port, peer, peer port, speed)."""
        for node in self.nodes():
            for port, (peer, peer_port, speed) in sorted(node.peers.items()):
                if (node.kind, node.guid, port) < (peer.kind, peer.guid, peer_port):
                    yield node, port, peer, peer_port, speed


def rate_name(speed):
    return f"{WIDTH}x{speed}"


def rate_gbps(speed):
    return WIDTH * SPEEDS[speed][1]


def host_name(index, total):
    return f"h{index + 1:0{max(4, len(str(total)))}d}"


# ---------------------------------------------------------------------------
# Fat tree
# ---------------------------------------------------------------------------

class FatTreeShape:
    """A k-ary folded Clos: leaves with K/2 host ports and K/2 uplinks.

    2 levels: up to K leaves (one pod), K/2 spines, each spine linked to every leaf.
    3 levels: pods of K/2 leaves and K/2 aggregation switches (complete bipartite
    inside the pod), (K/2)^2 cores; aggregation switch g of every pod links to
    cores g*K/2 .. g*K/2+K/2-1. Only whole pods are built, so every switch of a
    level has the same number of port groups, as OpenSM's ftree requires.
    """

    def __init__(self, levels, radix, hosts):
        if levels not in (2, 3):
            raise FabricError("--levels must be 2 or 3")
        if radix < 4 or radix % 2 or radix > MAX_SWITCH_PORTS:
            raise FabricError(f"--radix must be even, between 4 and {MAX_SWITCH_PORTS} (got {radix})")
        self.levels, self.radix, self.half = levels, radix, radix // 2
        h = self.half
        if levels == 2:
            capacity, self.pods = radix * h, 1
            self.leaves_per_pod = math.ceil(hosts / h)
        else:
            capacity, self.leaves_per_pod = radix * h * h, h
            self.pods = math.ceil(hosts / (h * h))
        if not 1 <= hosts <= capacity:
            raise FabricError(f"a {levels}-level fat tree of radix {radix} holds 1 to {capacity} hosts "
                              f"(asked for {hosts}); raise --radix or --levels")
        self.num_leaves = self.pods * self.leaves_per_pod
        if hosts < self.num_leaves:
            raise FabricError(f"{hosts} hosts cannot populate the {self.num_leaves} leaves of whole pods "
                              f"(ftree needs hosts on every leaf); use at least {self.num_leaves} hosts "
                              "or a smaller --radix")
        self.num_hosts = hosts

    def hosts_on_leaf(self, leaf):
        """Balanced: the first (hosts mod leaves) leaves get one more."""
        base, extra = divmod(self.num_hosts, self.num_leaves)
        return base + (1 if leaf < extra else 0)


class FatTree:
    """A built fat tree: the Fabric plus the switch roles the d-mod-k router needs."""

    def __init__(self, shape, link_speed):
        self.shape = shape
        self.fabric = Fabric("fat-tree", "ftree")
        f, h = self.fabric, shape.half
        # Every switch has all K ports (real switches do); the unused ones stay down.
        k = shape.radix
        self.cores = []
        if shape.levels == 3:
            self.cores = [f.add_switch(f"core{i + 1:03d}", k) for i in range(h * h)]
        upper_name = "agg" if shape.levels == 3 else "spine"
        self.aggs = [[f.add_switch(f"{upper_name}{p * h + g + 1:03d}", k) for g in range(h)]
                     for p in range(shape.pods)]
        self.leaves = [[f.add_switch(f"leaf{p * shape.leaves_per_pod + i + 1:03d}", k)
                        for i in range(shape.leaves_per_pod)] for p in range(shape.pods)]
        self.host_pos = []       # per host index: (pod, leaf in pod, slot)
        self.leaf_hosts = {}     # (pod, leaf in pod) -> host indexes
        for p, pod_leaves in enumerate(self.leaves):
            for i, leaf in enumerate(pod_leaves):
                leaf_index = p * shape.leaves_per_pod + i
                for slot in range(shape.hosts_on_leaf(leaf_index)):
                    self.leaf_hosts.setdefault((p, i), []).append(len(f.hosts))
                    self.host_pos.append((p, i, slot))
                    host = f.add_host(host_name(len(f.hosts), shape.num_hosts))
                    f.connect(leaf, 1 + slot, host, 1, link_speed("host", leaf_index, 0))
                for g, agg in enumerate(self.aggs[p]):
                    f.connect(leaf, h + 1 + g, agg, 1 + i, link_speed("leaf-up", leaf_index, g))
        if self.cores:
            for p, pod_aggs in enumerate(self.aggs):
                for g, agg in enumerate(pod_aggs):
                    for j in range(h):
                        f.connect(agg, shape.leaves_per_pod + 1 + j, self.cores[g * h + j], 1 + p,
                                  link_speed("agg-up", p * h + g, j))


def speed_plan(speed, mixed, num_leaves):
    """Which speed each link gets. With --mixed-speed A,B: hosts on the first half
    of the leaves and every switch's first uplink run at A, all else at B, so a
    route's slowest link depends on where it goes."""
    if not mixed:
        return lambda role, index, uplink: speed
    slow, fast = mixed

    def plan(role, index, uplink):
        if role == "host":
            return slow if index < num_leaves // 2 else fast
        return slow if uplink == 0 else fast
    return plan


# ---------------------------------------------------------------------------
# Torus / mesh
# ---------------------------------------------------------------------------

def build_torus(dims, mesh, hosts_per_switch, speed):
    """Switch at every coordinate. Dimension d uses port 2d+1 towards lower
    coordinates and port 2d+2 towards higher ones, on every switch: the
    consistent per-dimension cabling OpenSM's dor engine needs. Hosts use the
    ports after the 2*len(dims) fabric ports."""
    fabric = Fabric("mesh" if mesh else "torus", "dor")
    ndims = len(dims)
    coords = list(itertools.product(*(range(size) for size in dims)))
    switch_at = {c: fabric.add_switch("sw-" + "-".join(map(str, c)), 2 * ndims + hosts_per_switch)
                 for c in coords}
    for c in coords:
        for d, size in enumerate(dims):
            if size == 1 or (mesh and c[d] == size - 1):
                continue
            up = c[:d] + ((c[d] + 1) % size,) + c[d + 1:]
            if size == 2 and c[d] == 1:
                continue  # a 2-ring: the 0->1 link already joins the pair
            fabric.connect(switch_at[c], 2 * d + 2, switch_at[up], 2 * d + 1, speed)
    total = len(coords) * hosts_per_switch
    for c in coords:
        for k in range(hosts_per_switch):
            host = fabric.add_host(host_name(len(fabric.hosts), total))
            fabric.connect(switch_at[c], 2 * ndims + 1 + k, host, 1, speed)
    return fabric


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------

def net_file_text(fabric):
    """The fabric in ibsim's net format (node id = description = the name).
    Hosts come first: ibsim attaches its clients (OpenSM, the diagnostics) to
    the first node, and a host, as in a real cluster, reaches every switch by
    LID. From a spine, ftree's tables do not lead to the other spines, so
    `ibroute <spine LID>` would fail. (GUIDs are counted per node type, so the
    order does not change them.)"""
    out = [f"# {fabric.kind} fabric generated by gen_fabric.py for OpenSM's {fabric.engine} engine\n"]
    for node in fabric.hosts + fabric.switches:
        kind = "Switch" if node.kind == "switch" else "Hca"
        out.append(f"\n{kind}\t{node.num_ports} \"{node.name}\"\n")
        for port, (peer, peer_port, speed) in sorted(node.peers.items()):
            out.append(f"[{port}]\t\"{peer.name}\"[{peer_port}]\ts={SPEEDS[speed][0]}\n")
    return "".join(out)


def expectation(fabric):
    """What the fabric should look like once ibsim and OpenSM have it."""
    return {
        "kind": fabric.kind,
        "engine": fabric.engine,
        "hosts": [h.name for h in fabric.hosts],
        "switches": [s.name for s in fabric.switches],
        "links": [{"a": a.name, "a_port": pa, "b": b.name, "b_port": pb,
                   "rate": rate_name(speed), "gbps": rate_gbps(speed)}
                  for a, pa, b, pb, speed in fabric.links()],
    }


def write_text(path, text):
    if path in (None, "-"):
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


# ---------------------------------------------------------------------------
# Synthetic dump directory
# ---------------------------------------------------------------------------

def assign_lids(fabric):
    """Switches first (1..S), then hosts, as a fresh OpenSM sweep roughly does."""
    for lid, node in enumerate(fabric.nodes(), start=1):
        node.lid = lid


def ibnetdiscover_text(fabric, now):
    """The fabric as `ibnetdiscover` prints it (switch records, then CAs)."""
    first = fabric.hosts[0]
    out = ["#\n", f"# Topology file: generated on {now.strftime('%a %b %d %H:%M:%S %Y')}\n", "#\n",
           f"# Initiated from node {first.guid:016x} port {first.port_guid(1):016x}\n"]
    for sw in fabric.switches:
        out.append(f"\nvendid=0x0\ndevid=0x0\nsysimgguid={sw.guid:#x}\nswitchguid={sw.guid:#x}({sw.guid:x})\n"
                   f"Switch\t{sw.num_ports} \"S-{sw.guid:016x}\"\t\t# \"{sw.name}\" base port 0 lid {sw.lid} lmc 0\n")
        for port, (peer, peer_port, speed) in sorted(sw.peers.items()):
            if peer.kind == "host":
                out.append(f"[{port}]\t\"H-{peer.guid:016x}\"[{peer_port}]({peer.port_guid(peer_port):x}) "
                           f"\t\t# \"{peer.name}\" lid {peer.lid} {rate_name(speed)}\n")
            else:
                out.append(f"[{port}]\t\"S-{peer.guid:016x}\"[{peer_port}]\t\t# \"{peer.name}\" "
                           f"lid {peer.lid} {rate_name(speed)}\n")
    for host in fabric.hosts:
        out.append(f"\nvendid=0x0\ndevid=0x0\nsysimgguid={host.guid:#x}\ncaguid={host.guid:#x}\n"
                   f"Ca\t{host.num_ports} \"H-{host.guid:016x}\"\t\t# \"{host.name}\"\n")
        for port, (peer, peer_port, speed) in sorted(host.peers.items()):
            out.append(f"[{port}]({host.port_guid(port):x}) \t\"S-{peer.guid:016x}\"[{peer_port}]\t\t"
                       f"# lid {host.lid} lmc 0 \"{peer.name}\" lid {peer.lid} {rate_name(speed)}\n")
    return "".join(out)


class UpDownRouter:
    """d-mod-k up/down routing of a FatTree, computed from the structure.

    Towards a host or leaf: down if it is below, else up through uplink
    (d mod K/2) at a leaf and ((d div K/2) mod K/2) at an aggregation switch,
    d being the destination's host index (its LID for switches). Towards an
    aggregation or core switch that is not above, a switch first steps down
    to a leaf of its own pod, which then climbs to the right group: never a
    loop, and every LFT entry reaches its destination.
    """

    def __init__(self, tree):
        self.tree, self.h = tree, tree.shape.half
        self.lpp = tree.shape.leaves_per_pod
        self.role = {}  # switch name -> (role, pod, index)
        for i, core in enumerate(tree.cores):
            self.role[core.name] = ("core", i // self.h, i % self.h)
        for p in range(tree.shape.pods):
            for g, agg in enumerate(tree.aggs[p]):
                self.role[agg.name] = ("agg", p, g)
            for i, leaf in enumerate(tree.leaves[p]):
                self.role[leaf.name] = ("leaf", p, i)

    def host_rows(self):
        """Egress port towards every host (by host index) for the rows switches
        share: leaves (before leaf_row_patch adds their own hosts) and cores."""
        h, pos = self.h, self.tree.host_pos
        leaf_up = [h + 1 + d % h for d in range(len(pos))]
        core_down = [1 + p for p, _, _ in pos]
        return leaf_up, core_down

    def agg_row(self, pod):
        """Egress port towards every host at the aggregation switches of @p pod
        (all alike): down to the leaf for the pod's hosts, up otherwise."""
        h, lpp = self.h, self.lpp
        return [1 + i if p == pod else lpp + 1 + (d // h) % h for d, (p, i, _) in enumerate(self.tree.host_pos)]

    def switch_port(self, at, dest, d):
        """Egress port at switch @p at towards switch @p dest (d: spreading index)."""
        h, lpp = self.h, self.lpp
        role, p, k = self.role[at.name]
        drole, q, m = self.role[dest.name]
        if at is dest:
            return 0
        if drole == "leaf":
            if role == "leaf":
                return h + 1 + d % h
            if role == "agg":
                return 1 + m if p == q else lpp + 1 + (d // h) % h
            return 1 + q
        if drole == "agg":  # dest = agg m of pod q (cores of group m above it)
            if role == "leaf":
                return h + 1 + m
            if role == "agg":
                return lpp + 1 + (d // h) % h if k == m else 1 + d % lpp
            return 1 + q  # core: down into pod q, then sideways through a leaf if needed
        # dest = core (group q, index m)
        if role == "leaf":
            return h + 1 + q
        if role == "agg":
            return lpp + 1 + m if k == q else 1 + d % lpp
        return 1 + d % self.tree.shape.pods

    def leaf_row_patch(self, leaf):
        """(host index, port) for the hosts on this leaf."""
        _, p, i = self.role[leaf.name]
        return [(d, 1 + self.tree.host_pos[d][2]) for d in self.tree.leaf_hosts[(p, i)]]


def ibroute_texts(tree, router):
    """One `ibroute <lid>` text per switch, as (switch, text)."""
    fabric = tree.fabric
    switches, hosts = fabric.switches, fabric.hosts
    top = max(n.lid for n in fabric.nodes())
    # Per destination LID, the fixed parts of its line; only the port changes per switch.
    head = {n.lid: f"0x{n.lid:04x} " for n in fabric.nodes()}
    tail = {}
    for n in switches:
        tail[n.lid] = f" : (Switch portguid 0x{n.guid:016x}: '{n.name}')\n"
    for n in hosts:
        tail[n.lid] = f" : (Channel Adapter portguid 0x{n.port_guid(1):016x}: '{n.name}')\n"
    port_text = [f"{p:03d}" for p in range(MAX_SWITCH_PORTS + 1)]

    def host_lines(row):
        return [head[hosts[d].lid] + port_text[row[d]] + tail[hosts[d].lid] for d in range(len(hosts))]
    leaf_up, core_down = router.host_rows()
    leaf_lines, core_lines = host_lines(leaf_up), host_lines(core_down)
    pod_agg_lines = {}
    for sw in switches:
        role, pod, _ = router.role[sw.name]
        if role == "leaf":
            lines = list(leaf_lines)
            for d, port in router.leaf_row_patch(sw):
                lines[d] = head[hosts[d].lid] + port_text[port] + tail[hosts[d].lid]
        elif role == "agg":
            if pod not in pod_agg_lines:
                pod_agg_lines[pod] = host_lines(router.agg_row(pod))
            lines = pod_agg_lines[pod]
        else:
            lines = core_lines
        switch_lines = [head[t.lid] + port_text[router.switch_port(sw, t, t.lid)] + tail[t.lid] for t in switches]
        body = "".join(switch_lines) + "".join(lines)  # switches have the lower LIDs: ascending order
        text = (f"Unicast lids [0x0-0x{top:x}] of switch Lid {sw.lid} guid 0x{sw.guid:016x} ({sw.name}):\n"
                "  Lid  Out   Destination\n       Port     Info \n"
                f"{body}{len(switches) + len(hosts)} valid lids dumped \n")
        yield sw, text


def write_dump(args):
    levels, hosts = args.levels, args.hosts
    radix = args.radix or smallest_radix(levels, hosts)
    tree = FatTree(FatTreeShape(levels, radix, hosts), speed_plan(args.speed, None, 0))
    fabric = tree.fabric
    assign_lids(fabric)
    out = args.out
    if os.path.exists(out) and os.listdir(out):
        raise FabricError(f"{out} exists and is not empty; give a new directory")
    os.makedirs(os.path.join(out, "ibroute"), exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    write_text(os.path.join(out, "ibnetdiscover.txt"), ibnetdiscover_text(fabric, now))
    router = UpDownRouter(tree)
    for sw, text in ibroute_texts(tree, router):
        write_text(os.path.join(out, "ibroute", f"0x{sw.guid:016x}.txt"), text)
    manifest = {"format": "canopy-dump/1", "created": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "tools": {"generator": "gen_fabric.py"}, "hosts": len(fabric.hosts),
                "switches": len(fabric.switches), "forwarding_tables": len(fabric.switches),
                "fabric": {"kind": "fat-tree", "levels": levels, "radix": radix}}
    write_text(os.path.join(out, "manifest.json"), json.dumps(manifest, indent=2) + "\n")
    print(f"gen_fabric: {out}: {len(fabric.hosts)} hosts, {len(fabric.switches)} switches "
          f"({levels}-level fat tree, radix {radix})", file=sys.stderr)


def smallest_radix(levels, hosts):
    for radix in range(4, MAX_SWITCH_PORTS + 1, 2):
        capacity = radix * (radix // 2) ** (levels - 1)
        if capacity >= hosts:
            return radix
    raise FabricError(f"{hosts} hosts do not fit a {levels}-level fat tree of {MAX_SWITCH_PORTS}-port switches")


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def parse_dims(text):
    try:
        dims = tuple(int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad dimensions '{text}' (expected e.g. 3x3x3)") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1 or max(dims) > 16:
        raise argparse.ArgumentTypeError(f"bad dimensions '{text}': 1 to 3 sizes, each 1..16")
    return dims


def parse_speed(text):
    name = text.upper()
    if name not in SPEEDS:
        raise argparse.ArgumentTypeError(f"unknown speed '{text}' (one of {', '.join(SPEEDS)})")
    return name


def parse_speed_pair(text):
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"--mixed-speed takes two speeds like SDR,DDR (got '{text}')")
    pair = tuple(parse_speed(p) for p in parts)
    if pair[0] == pair[1]:
        raise argparse.ArgumentTypeError("--mixed-speed needs two different speeds")
    return pair


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def build_parser():
    parser = argparse.ArgumentParser(
        prog="gen_fabric.py", description=__doc__.split("\n\n")[0],
        epilog="Examples:\n"
               "  gen_fabric.py fat-tree --levels 2 --radix 16 --hosts 64 -o ft2.net --expect ft2.json\n"
               "  gen_fabric.py fat-tree --levels 2 --radix 8 --hosts 32 --mixed-speed SDR,DDR -o mixed.net\n"
               "  gen_fabric.py torus --dims 3x3x3 --mesh -o mesh.net\n"
               "  gen_fabric.py dump --hosts 8192 --out /tmp/dump8k",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True, metavar="MODE")

    def outputs(p):
        p.add_argument("-o", "--output", metavar="FILE", help="net file to write (default: stdout)")
        p.add_argument("--expect", metavar="FILE", help="also write the expected engine, hosts and link rates as JSON")

    ft = sub.add_parser("fat-tree", help="k-ary fat tree net file for ibsim (OpenSM ftree)")
    ft.add_argument("--levels", type=int, choices=(2, 3), required=True)
    ft.add_argument("--radix", type=positive_int, required=True, metavar="K", help="switch ports (even, 4..64)")
    ft.add_argument("--hosts", type=positive_int, required=True, metavar="N")
    ft.add_argument("--speed", type=parse_speed, metavar="SDR|DDR|QDR", help="every link's speed (default SDR)")
    ft.add_argument("--mixed-speed", type=parse_speed_pair, metavar="A,B",
                    help="hosts on the first half of the leaves and every first uplink at A, the rest at B")
    outputs(ft)

    torus = sub.add_parser("torus", help="torus or mesh net file for ibsim (OpenSM dor)")
    torus.add_argument("--dims", type=parse_dims, required=True, metavar="XxYxZ")
    torus.add_argument("--mesh", action="store_true", help="no wrap-around links")
    torus.add_argument("--hosts-per-switch", type=positive_int, default=1, metavar="N")
    torus.add_argument("--speed", type=parse_speed, default="SDR", metavar="SDR|DDR|QDR")
    outputs(torus)

    dump = sub.add_parser("dump", help="synthetic dump directory of a big fat tree (no ibsim)")
    dump.add_argument("--hosts", type=positive_int, required=True, metavar="N")
    dump.add_argument("--out", required=True, metavar="DIR", help="new or empty directory")
    dump.add_argument("--levels", type=int, choices=(2, 3), default=3)
    dump.add_argument("--radix", type=positive_int, metavar="K", help="default: the smallest that fits")
    dump.add_argument("--speed", type=parse_speed, default="QDR", metavar="SDR|DDR|QDR")
    return parser


def write_net(args, fabric):
    write_text(args.output, net_file_text(fabric))
    if args.expect:
        write_text(args.expect, json.dumps(expectation(fabric)) + "\n")


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.mode == "fat-tree":
            if args.speed and args.mixed_speed:
                parser.error("give --speed or --mixed-speed, not both")
            shape = FatTreeShape(args.levels, args.radix, args.hosts)
            plan = speed_plan(args.speed or "SDR", args.mixed_speed, shape.num_leaves)
            write_net(args, FatTree(shape, plan).fabric)
        elif args.mode == "torus":
            if args.hosts_per_switch > MAX_SWITCH_PORTS - 2 * len(args.dims):
                raise FabricError("--hosts-per-switch leaves no ports for the torus links")
            write_net(args, build_torus(args.dims, args.mesh, args.hosts_per_switch, args.speed))
        else:
            write_dump(args)
    except (FabricError, OSError) as e:
        print(f"gen_fabric.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
