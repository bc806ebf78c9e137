"""Readers for what the real InfiniBand tools print, for the end-to-end tests.

Deliberately independent of Canopy's own C++ loaders: the tests compare
Canopy against the tools, so they must not share its parsing.

  parse_ibnetdiscover(text) -> Discovery (hosts and switches with GUIDs, LIDs, links)
  parse_ibroute(text)       -> (switch GUID, {LID: egress port})
  parse_ibtracert(text)     -> [Hop] from the source host to the destination host
  load_dump(dir)            -> Discovery with forwarding tables, from a dump directory
  lft_walk(discovery, a, b) -> [Hop] following the forwarding tables
  switch_distances(discovery, switch GUID) -> {switch GUID: links away}
  rate_gbps("4xQDR")        -> 32.0
"""
import os
import re
from dataclasses import dataclass, field


class ParseError(Exception):
    pass


@dataclass
class Hop:
    name: str
    guid: int       # node GUID
    in_port: int    # 0 at the source host
    out_port: int   # 0 at the destination host


@dataclass
class Node:
    kind: str       # "host" or "switch"
    guid: int
    name: str
    lid: int = 0
    peers: dict = field(default_factory=dict)  # port -> (peer node GUID, peer port, rate string)


@dataclass
class Discovery:
    nodes: dict = field(default_factory=dict)   # node GUID -> Node
    lfts: dict = field(default_factory=dict)    # switch GUID -> {LID: port}

    def hosts(self):
        return sorted((n for n in self.nodes.values() if n.kind == "host"), key=lambda n: n.name)

    def host(self, name):
        for n in self.nodes.values():
            if n.kind == "host" and n.name == name:
                return n
        raise KeyError(f"no host {name} in the discovery")

    def node_by_lid(self):
        return {n.lid: n for n in self.nodes.values() if n.lid}

    def leaf_of(self, host):
        """The switch a host's first port is cabled to."""
        return self.nodes[host.peers[min(host.peers)][0]]


# ---- ibnetdiscover -------------------------------------------------------

_NODE_HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(.*)$')
_SWITCH_LID = re.compile(r'\blid (\d+)')
_SWITCH_PORT = re.compile(r'^\[(\d+)\]\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*#.*?(\S+)\s*$')
_CA_PORT = re.compile(r'^\[(\d+)\]\([0-9a-fA-F]+\)\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]\s*#\s*lid (\d+) .*?(\S+)\s*$')


def parse_ibnetdiscover(text, source="ibnetdiscover"):
    """Switch and Ca records of ibnetdiscover's default output. The host name
    is the first word of the node description, as Canopy names hosts."""
    disc = Discovery()
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip()
        header = _NODE_HEADER.match(line)
        if header:
            kind, _, _, guid, desc, rest = header.groups()
            node_kind = "switch" if kind == "Switch" else "host"
            name = desc.split()[0] if node_kind == "host" and desc.split() else desc
            current = Node(node_kind, int(guid, 16), name)
            if node_kind == "switch":
                lid = _SWITCH_LID.search(rest)
                current.lid = int(lid.group(1)) if lid else 0
            disc.nodes[current.guid] = current
            continue
        if not line.startswith("[") or current is None:
            continue
        match = (_SWITCH_PORT if current.kind == "switch" else _CA_PORT).match(line)
        if not match:
            raise ParseError(f"{source}:{number}: unexpected port line: {line}")
        if current.kind == "switch":
            port, _, peer, peer_port, rate = match.groups()
        else:
            port, _, peer, peer_port, lid, rate = match.groups()
            current.lid = current.lid or int(lid)
        current.peers[int(port)] = (int(peer, 16), int(peer_port), rate)
    if not disc.nodes:
        raise ParseError(f"{source}: no Switch or Ca records")
    return disc


_LANE_GBPS = {"SDR": 2.0, "DDR": 4.0, "QDR": 8.0, "FDR10": 10.0, "FDR": 13.64, "EDR": 25.0, "HDR": 50.0,
              "NDR": 100.0}


def rate_gbps(rate):
    """Data rate of an ibnetdiscover rate like "4xQDR" (0 if not one)."""
    match = re.match(r"^(\d+)x([A-Z0-9]+)$", rate or "")
    return int(match.group(1)) * _LANE_GBPS.get(match.group(2), 0) if match else 0.0


# ---- ibroute -------------------------------------------------------------

_IBROUTE_HEADER = re.compile(r'^Unicast lids \[\S+\] of switch .*guid (0x[0-9a-fA-F]+)')
_IBROUTE_ENTRY = re.compile(r'^(0x[0-9a-fA-F]+)\s+(\d+)\s+:')


def parse_ibroute(text, source="ibroute"):
    guid, table = None, {}
    for number, line in enumerate(text.splitlines(), 1):
        header = _IBROUTE_HEADER.match(line)
        if header:
            guid = int(header.group(1), 16)
            continue
        entry = _IBROUTE_ENTRY.match(line)
        if entry:
            if guid is None:
                raise ParseError(f"{source}:{number}: LFT entry before the 'Unicast lids' header")
            table[int(entry.group(1), 16)] = int(entry.group(2))
    if guid is None:
        raise ParseError(f"{source}: no 'Unicast lids ... guid' header")
    return guid, table


def load_dump(directory):
    """A Canopy dump directory: ibnetdiscover.txt plus ibroute/*.txt."""
    path = os.path.join(directory, "ibnetdiscover.txt")
    with open(path, encoding="utf-8", errors="replace") as f:
        disc = parse_ibnetdiscover(f.read(), path)
    lft_dir = os.path.join(directory, "ibroute")
    for entry in sorted(os.listdir(lft_dir)):
        if entry.endswith(".txt"):
            path = os.path.join(lft_dir, entry)
            with open(path, encoding="utf-8", errors="replace") as f:
                guid, table = parse_ibroute(f.read(), path)
            disc.lfts[guid] = table
    return disc


# ---- ibtracert -----------------------------------------------------------

_ADDR = r'\{(0x[0-9a-fA-F]+)\}'
_TRACE_FROM = re.compile(r'^From (ca|switch|router) ' + _ADDR + r' portnum (\d+) lid \d+-\d+ "(.*)"$')
_TRACE_HOP = re.compile(r'^\[(\d+)\] -> (ca|switch|router) port ' + _ADDR + r'\[(\d+)\] lid \d+-\d+ "(.*)"$')
_TRACE_TO = re.compile(r'^To (ca|switch|router) ' + _ADDR + r' portnum \d+ lid \d+-\d+ "(.*)"$')


def parse_ibtracert(text, source="ibtracert"):
    """Hops of an ibtracert trace. Switches are named by node GUID; the last
    "ca port" line carries the destination's port GUID, so the destination's
    node GUID is taken from the "To ca" line."""
    hops, done = [], False
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        start, step, end = _TRACE_FROM.match(line), _TRACE_HOP.match(line), _TRACE_TO.match(line)
        if start and not hops:
            _, guid, port, name = start.groups()
            hops.append(Hop(_host_name(name), int(guid, 16), 0, int(port)))
        elif step and hops and not done:
            out_port, kind, guid, in_port, name = step.groups()
            hops[-1].out_port = int(out_port)
            name = _host_name(name) if kind == "ca" else name
            hops.append(Hop(name, int(guid, 16), int(in_port), 0))
        elif end and len(hops) >= 2 and not done:
            hops[-1].guid = int(end.group(2), 16)
            done = True
        elif end and len(hops) == 1:  # a host traced to itself
            done = True
        else:
            raise ParseError(f"{source}:{number}: unexpected line: {line}")
    if not done:
        raise ParseError(f"{source}: incomplete trace (no 'From ... To' pair)")
    return hops


def _host_name(description):
    words = description.split()
    return words[0] if words else description


# ---- following the forwarding tables ------------------------------------

def switch_distances(disc, start):
    """Switch-to-switch link counts from switch @p start (breadth-first)."""
    dist, frontier = {start: 0}, [start]
    while frontier:
        following = []
        for guid in frontier:
            for peer, _, _ in disc.nodes[guid].peers.values():
                if peer not in dist and disc.nodes[peer].kind == "switch":
                    dist[peer] = dist[guid] + 1
                    following.append(peer)
        frontier = following
    return dist


def lft_walk(disc, src_name, dst_name):
    """The route the forwarding tables give, hop by hop; ParseError on a hole or loop."""
    src, dst = disc.host(src_name), disc.host(dst_name)
    if src is dst:
        return [Hop(src.name, src.guid, 0, 0)]
    out_port = min(src.peers)
    hops = [Hop(src.name, src.guid, 0, out_port)]
    node, seen = src, set()
    while True:
        peer_guid, in_port, _ = node.peers[out_port]
        node = disc.nodes[peer_guid]
        if node is dst:
            hops.append(Hop(node.name, node.guid, in_port, 0))
            return hops
        if node.kind != "switch" or node.guid in seen:
            raise ParseError(f"route {src_name} -> {dst_name} loops or ends at {node.name}")
        seen.add(node.guid)
        out_port = disc.lfts.get(node.guid, {}).get(dst.lid)
        if out_port is None or out_port not in node.peers:
            raise ParseError(f"route {src_name} -> {dst_name}: switch {node.name} has no usable "
                             f"entry for LID {dst.lid} (port {out_port})")
        hops.append(Hop(node.name, node.guid, in_port, out_port))
