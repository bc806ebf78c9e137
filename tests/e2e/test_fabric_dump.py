#!/usr/bin/env python3
"""The e2e tests' own readers (fabric_dump.py) on recorded tool output, and
compare_routes.py's checks, so a route mismatch in an e2e test can be trusted
to be Canopy's, not the harness's."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_routes import check_rates, compare_hops  # noqa: E402
from fabric_dump import (Hop, ParseError, lft_walk, parse_ibnetdiscover, parse_ibroute,  # noqa: E402
                         parse_ibtracert, switch_distances)

# Recorded from ibsim + OpenSM 3.3.23 + infiniband-diags 44.0 on a two-switch fabric.
IBNETDISCOVER = """#
# Topology file: generated on Sat Nov 21 13:16:40 2026
#
# Initiated from node 0000000000100000 port 0000000000100001

vendid=0x0
devid=0x0
sysimgguid=0x200001
switchguid=0x200001(200001)
Switch\t8 "S-0000000000200001"\t\t# "leaf02" base port 0 lid 3 lmc 0
[1]\t"H-0000000000100004"[1](100005) \t\t# "h0003" lid 8 4xDDR
[3]\t"S-0000000000200000"[3]\t\t# "leaf01" lid 1 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch\t8 "S-0000000000200000"\t\t# "leaf01" base port 0 lid 1 lmc 0
[1]\t"H-0000000000100000"[1](100001) \t\t# "h0001" lid 2 4xSDR
[2]\t"H-0000000000100002"[1](100003) \t\t# "h0002 HCA-1" lid 7 4xQDR
[3]\t"S-0000000000200001"[3]\t\t# "leaf02" lid 3 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100004
caguid=0x100004
Ca\t1 "H-0000000000100004"\t\t# "h0003"
[1](100005) \t"S-0000000000200001"[1]\t\t# lid 8 lmc 0 "leaf02" lid 3 4xDDR

vendid=0x0
devid=0x0
sysimgguid=0x100002
caguid=0x100002
Ca\t1 "H-0000000000100002"\t\t# "h0002 HCA-1"
[1](100003) \t"S-0000000000200000"[2]\t\t# lid 7 lmc 0 "leaf01" lid 1 4xQDR

vendid=0x0
devid=0x0
sysimgguid=0x100000
caguid=0x100000
Ca\t1 "H-0000000000100000"\t\t# "h0001"
[1](100001) \t"S-0000000000200000"[1]\t\t# lid 2 lmc 0 "leaf01" lid 1 4xSDR
"""

IBROUTE_LEAF01 = """Unicast lids [0x0-0x8] of switch Lid 1 guid 0x0000000000200000 (leaf01):
  Lid  Out   Destination
       Port     Info 
0x0001 000 : (Switch portguid 0x0000000000200000: 'leaf01')
0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'h0001')
0x0003 003 : (Switch portguid 0x0000000000200001: 'leaf02')
0x0007 002 : (Channel Adapter portguid 0x0000000000100003: 'h0002 HCA-1')
0x0008 003 : (Channel Adapter portguid 0x0000000000100005: 'h0003')
5 valid lids dumped 
"""

IBROUTE_LEAF02 = """Unicast lids [0x0-0x8] of switch Lid 3 guid 0x0000000000200001 (leaf02):
  Lid  Out   Destination
       Port     Info 
0x0001 003 : (Switch portguid 0x0000000000200000: 'leaf01')
0x0002 003 : (Channel Adapter portguid 0x0000000000100001: 'h0001')
0x0003 000 : (Switch portguid 0x0000000000200001: 'leaf02')
0x0007 003 : (Channel Adapter portguid 0x0000000000100003: 'h0002 HCA-1')
0x0008 001 : (Channel Adapter portguid 0x0000000000100005: 'h0003')
5 valid lids dumped 
"""

IBTRACERT = """From ca {0x0000000000100000} portnum 1 lid 2-2 "h0001"
[1] -> switch port {0x0000000000200000}[1] lid 1-1 "leaf01"
[3] -> switch port {0x0000000000200001}[3] lid 3-3 "leaf02"
[1] -> ca port {0x0000000000100005}[1] lid 8-8 "h0003"
To ca {0x0000000000100004} portnum 1 lid 8-8 "h0003"
"""


def discovery():
    disc = parse_ibnetdiscover(IBNETDISCOVER)
    for text in (IBROUTE_LEAF01, IBROUTE_LEAF02):
        guid, table = parse_ibroute(text)
        disc.lfts[guid] = table
    return disc


class IbnetdiscoverTest(unittest.TestCase):
    def test_nodes_lids_and_links(self):
        disc = parse_ibnetdiscover(IBNETDISCOVER)
        self.assertEqual([h.name for h in disc.hosts()], ["h0001", "h0002", "h0003"])
        h2 = disc.host("h0002")  # host name: first word of "h0002 HCA-1"
        self.assertEqual((h2.guid, h2.lid), (0x100002, 7))
        leaf02 = disc.nodes[0x200001]
        self.assertEqual((leaf02.kind, leaf02.name, leaf02.lid), ("switch", "leaf02", 3))
        self.assertEqual(leaf02.peers[1], (0x100004, 1, "4xDDR"))
        self.assertEqual(disc.leaf_of(disc.host("h0003")).name, "leaf02")

    def test_bad_port_line_names_the_line(self):
        with self.assertRaisesRegex(ParseError, r"x:11: unexpected port line"):
            parse_ibnetdiscover(IBNETDISCOVER.replace('[1]\t"H-0000000000100004"', "[1]\tjunk"), "x")

    def test_empty_input(self):
        with self.assertRaises(ParseError):
            parse_ibnetdiscover("# nothing\n")


class IbrouteTest(unittest.TestCase):
    def test_entries(self):
        guid, table = parse_ibroute(IBROUTE_LEAF01)
        self.assertEqual(guid, 0x200000)
        self.assertEqual(table, {1: 0, 2: 1, 3: 3, 7: 2, 8: 3})

    def test_missing_header(self):
        with self.assertRaisesRegex(ParseError, "before the 'Unicast lids' header"):
            parse_ibroute(IBROUTE_LEAF01.split("\n", 1)[1])


class IbtracertTest(unittest.TestCase):
    def test_hops_use_node_guids(self):
        self.assertEqual(parse_ibtracert(IBTRACERT), [
            Hop("h0001", 0x100000, 0, 1),
            Hop("leaf01", 0x200000, 1, 3),
            Hop("leaf02", 0x200001, 3, 1),
            Hop("h0003", 0x100004, 1, 0),  # node GUID from "To ca", not the port GUID
        ])

    def test_trace_to_itself(self):
        text = ('From ca {0x0000000000100000} portnum 1 lid 2-2 "h0001"\n'
                'To ca {0x0000000000100000} portnum 1 lid 2-2 "h0001"\n')
        self.assertEqual(parse_ibtracert(text), [Hop("h0001", 0x100000, 0, 1)])

    def test_incomplete_and_garbage(self):
        with self.assertRaisesRegex(ParseError, "incomplete"):
            parse_ibtracert("\n".join(IBTRACERT.splitlines()[:3]))
        with self.assertRaisesRegex(ParseError, ":2: unexpected line"):
            parse_ibtracert(IBTRACERT.replace("[1] -> switch", "[1] => switch", 1))


class WalkTest(unittest.TestCase):
    def test_walk_matches_the_trace(self):
        self.assertEqual(lft_walk(discovery(), "h0001", "h0003"), parse_ibtracert(IBTRACERT))

    def test_same_switch(self):
        self.assertEqual(lft_walk(discovery(), "h0001", "h0002"),
                         [Hop("h0001", 0x100000, 0, 1), Hop("leaf01", 0x200000, 1, 2), Hop("h0002", 0x100002, 1, 0)])

    def test_hole_is_reported(self):
        disc = discovery()
        del disc.lfts[0x200001][2]
        with self.assertRaisesRegex(ParseError, "leaf02 has no usable entry for LID 2"):
            lft_walk(disc, "h0003", "h0001")

    def test_loop_is_reported(self):
        disc = discovery()
        disc.lfts[0x200001][2] = 3
        disc.lfts[0x200000][2] = 3
        with self.assertRaisesRegex(ParseError, "loops"):
            lft_walk(disc, "h0003", "h0001")

    def test_switch_distances(self):
        self.assertEqual(switch_distances(discovery(), 0x200000), {0x200000: 0, 0x200001: 1})


class CompareTest(unittest.TestCase):
    def test_hop_differences(self):
        trace = parse_ibtracert(IBTRACERT)
        self.assertEqual(compare_hops(trace, list(trace)), [])
        other = [Hop(h.name, h.guid, h.in_port, h.out_port) for h in trace]
        other[1].out_port, other[3].guid = 4, 0x100005  # wrong port; port GUID instead of node GUID
        self.assertEqual(compare_hops(trace, other), ["hop 1: out_port 4 instead of 3",
                                                      "hop 3: guid 1048581 instead of 1048580"])
        self.assertEqual(compare_hops(trace, trace[:2]), ["1 links instead of 3"])

    def test_rates_against_the_generator(self):
        expected = {("h0001", 1): ("4xSDR", 8.0), ("leaf01", 3): ("4xDDR", 16.0)}
        claims = [("h0001", 1, "4xSDR", 8.0), ("leaf01", 3, "4xDDR", 16.0), ("h0003", 0, "", 0)]
        self.assertEqual(check_rates(claims, expected, {"min_gbps": 8.0}), [])
        wrong = [("h0001", 1, "4xSDR", 8.0), ("leaf01", 3, "4xSDR", 8.0), ("h0003", 0, "", 0)]
        self.assertEqual(check_rates(wrong, expected, {"min_gbps": 8.0}),
                         ["leaf01 port 3: rate 4xSDR 8.0 Gb/s instead of 4xDDR 16.0 Gb/s"])
        self.assertEqual(check_rates(claims, expected, {"min_gbps": 16.0}), ["min_gbps 16.0 instead of 8.0"])


if __name__ == "__main__":
    unittest.main()
