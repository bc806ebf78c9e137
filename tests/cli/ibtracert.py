"""Parses ibtracert output into hops comparable with `canopy route --json`."""
import re

_FROM = re.compile(r'^From (ca|switch) \{(0x[0-9a-f]+)\} portnum (\d+) lid (\d+)-\d+ "(.*)"')
_HOP = re.compile(r'^\[(\d+)\] -> (ca|switch) port \{(0x[0-9a-f]+)\}\[(\d+)\] lid \d+-\d+ "(.*)"')
_TO = re.compile(r'^To (ca|switch) \{(0x[0-9a-f]+)\} portnum (\d+) lid (\d+)-\d+ "(.*)"')


def parse(text):
    """Yields one route per From..To block: a list of (node_guid, in_port, out_port)."""
    route = None
    for line in text.splitlines():
        line = line.strip()
        if m := _FROM.match(line):
            route = [[m.group(2), 0, int(m.group(3))]]
        elif (m := _HOP.match(line)) and route is not None:
            route[-1][2] = int(m.group(1))
            route.append([m.group(3), int(m.group(4)), 0])
        elif (m := _TO.match(line)) and route is not None:
            route[-1][0] = m.group(2)  # the hop line names the port GUID; the node GUID is here
            route[-1][2] = 0
            yield [tuple(hop) for hop in route]
            route = None


def canopy_hops(route_json):
    return [(hop["guid"], hop["in_port"], hop["out_port"]) for hop in route_json["path"]]
