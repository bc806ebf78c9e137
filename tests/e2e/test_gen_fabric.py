#!/usr/bin/env python3
"""scripts/gen_fabric.py without ibsim: argument errors, the shape of the net
files (what OpenSM's ftree and dor engines need), the intended link rates, and
a synthetic dump whose every forwarding-table entry must lead to its LID."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "scripts", "gen_fabric.py")
sys.path.insert(0, HERE)
from fabric_dump import load_dump  # noqa: E402


def gen(*args):
    return subprocess.run([sys.executable, GEN, *args], capture_output=True, text=True, timeout=120)


def parse_net(text):
    """{name: (kind, ports, {port: (peer, peer port, speed mask)})} of an ibsim net file."""
    nodes, current = {}, None
    for line in text.splitlines():
        header = re.match(r'^(Switch|Hca)\t(\d+) "([^"]+)"$', line)
        if header:
            current = header.group(3)
            nodes[current] = (header.group(1), int(header.group(2)), {})
            continue
        port = re.match(r'^\[(\d+)\]\t"([^"]+)"\[(\d+)\]\ts=(\d)$', line)
        if port:
            nodes[current][2][int(port.group(1))] = (port.group(2), int(port.group(3)), int(port.group(4)))
    return nodes


class ArgumentsTest(unittest.TestCase):
    def check_error(self, args, message, status=1):
        done = gen(*args)
        self.assertEqual(done.returncode, status, done.stderr)
        self.assertIn(message, done.stderr)

    def test_errors(self):
        self.check_error(["fat-tree", "--levels", "2", "--radix", "7", "--hosts", "8"], "--radix must be even")
        self.check_error(["fat-tree", "--levels", "2", "--radix", "8", "--hosts", "33"],
                         "holds 1 to 32 hosts (asked for 33)")
        self.check_error(["fat-tree", "--levels", "3", "--radix", "8", "--hosts", "3"],
                         "cannot populate the 4 leaves")
        self.check_error(["fat-tree", "--levels", "2", "--radix", "8", "--hosts", "8", "--speed", "SDR",
                          "--mixed-speed", "SDR,DDR"], "not both", 2)
        self.check_error(["fat-tree", "--levels", "2", "--radix", "8", "--hosts", "8", "--mixed-speed", "SDR"],
                         "two speeds", 2)
        self.check_error(["fat-tree", "--levels", "4", "--radix", "8", "--hosts", "8"], "invalid choice", 2)
        self.check_error(["torus", "--dims", "3x0"], "bad dimensions", 2)
        self.check_error(["dump", "--hosts", "8"], "--out", 2)
        self.check_error([], "MODE", 2)

    def test_help(self):
        done = gen("--help")
        self.assertEqual(done.returncode, 0)
        self.assertIn("fat-tree", done.stdout)


class FatTreeTest(unittest.TestCase):
    def build(self, *args):
        with tempfile.TemporaryDirectory() as tmp:
            net, expect = os.path.join(tmp, "net"), os.path.join(tmp, "expect.json")
            done = gen("fat-tree", *args, "-o", net, "--expect", expect)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(net) as f, open(expect) as g:
                return parse_net(f.read()), json.load(g)

    def check_symmetric(self, nodes):
        for name, (_, ports, peers) in nodes.items():
            self.assertLessEqual(max(peers), ports)
            for port, (peer, peer_port, speed) in peers.items():
                self.assertEqual(nodes[peer][2][peer_port], (name, port, speed), f"{name}[{port}]")

    def test_three_levels_are_a_pure_fat_tree(self):
        nodes, expect = self.build("--levels", "3", "--radix", "8", "--hosts", "100")
        self.check_symmetric(nodes)
        self.assertEqual(expect["engine"], "ftree")
        self.assertEqual(list(nodes)[0], "h0001")  # ibsim attaches its clients to the first node
        hosts = [n for n, v in nodes.items() if v[0] == "Hca"]
        self.assertEqual(len(hosts), 100)
        leaves = {n for n, v in nodes.items() if v[0] == "Switch" and any(p[0] in hosts for p in v[2].values())}
        self.assertEqual(len(leaves), 28)  # 7 whole pods of 4 leaves
        # OpenSM ftree: switches of one level have the same number of up and down port groups.
        for level in ("leaf", "agg", "core"):
            shapes = {(len(v[2]) if level != "leaf" else len([p for p in v[2].values() if p[0].startswith("agg")]))
                      for n, v in nodes.items() if n.startswith(level)}
            self.assertEqual(len(shapes), 1, f"{level}: {shapes}")
        for name in hosts:
            self.assertTrue(nodes[name][2][1][0].startswith("leaf"))

    def test_mixed_speeds_follow_the_plan(self):
        nodes, expect = self.build("--levels", "2", "--radix", "8", "--hosts", "32", "--mixed-speed", "SDR,DDR")
        self.check_symmetric(nodes)
        rate = {(link["a"], link["a_port"]): link["rate"] for link in expect["links"]}
        rate.update({(link["b"], link["b_port"]): link["rate"] for link in expect["links"]})
        self.assertEqual(rate[("h0001", 1)], "4xSDR")  # leaf001: first half of the 8 leaves
        self.assertEqual(rate[("h0032", 1)], "4xDDR")  # leaf008
        self.assertEqual(rate[("leaf008", 5)], "4xSDR")  # every first uplink
        self.assertEqual(rate[("leaf008", 6)], "4xDDR")
        gbps = {link["rate"]: link["gbps"] for link in expect["links"]}
        self.assertEqual(gbps, {"4xSDR": 8.0, "4xDDR": 16.0})
        self.assertEqual(nodes["h0001"][2][1][2], 1)  # ibsim mask: SDR only, on both ends
        self.assertEqual(nodes["leaf001"][2][1][2], 1)
        self.assertEqual(nodes["h0032"][2][1][2], 3)


class TorusTest(unittest.TestCase):
    def build(self, *args):
        done = gen("torus", *args)
        self.assertEqual(done.returncode, 0, done.stderr)
        return parse_net(done.stdout)

    def test_ports_per_dimension(self):
        nodes = self.build("--dims", "3x3x3")
        for name, (kind, _, peers) in nodes.items():
            if kind != "Switch":
                continue
            coords = [int(c) for c in name.split("-")[1:]]
            for d in range(3):
                peer, peer_port, _ = peers[2 * d + 2]  # + direction, wrapping around
                expected = coords[:]
                expected[d] = (expected[d] + 1) % 3
                self.assertEqual(peer, "sw-" + "-".join(map(str, expected)))
                self.assertEqual(peer_port, 2 * d + 1)
            self.assertTrue(peers[7][0].startswith("h"))

    def test_mesh_has_no_wrap(self):
        nodes = self.build("--dims", "3x3x3", "--mesh", "--hosts-per-switch", "2")
        self.assertNotIn(2, nodes["sw-2-0-0"][2])
        self.assertNotIn(1, nodes["sw-0-0-0"][2])
        self.assertEqual(len([n for n in nodes if n.startswith("h")]), 54)


class DumpTest(unittest.TestCase):
    def test_every_forwarding_entry_reaches_its_lid(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "dump")
            done = gen("dump", "--hosts", "1000", "--radix", "16", "--out", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(os.path.join(out, "manifest.json")) as f:
                manifest = json.load(f)
            disc = load_dump(out)
        self.assertEqual({k: manifest[k] for k in ("format", "hosts", "switches", "forwarding_tables")},
                         {"format": "canopy-dump/1", "hosts": 1000, "switches": 320, "forwarding_tables": 320})
        self.assertEqual(manifest["tools"], {"generator": "gen_fabric.py"})
        self.assertEqual(len(disc.hosts()), 1000)
        self.assertEqual(len(disc.lfts), 320)
        owner = disc.node_by_lid()
        for switch_guid, table in disc.lfts.items():
            self.assertEqual(set(table), set(owner), "every LID has an entry")
            for lid in table:
                self.assert_reaches(disc, switch_guid, lid, owner[lid])

    def assert_reaches(self, disc, start, lid, target):
        node, steps = disc.nodes[start], 0
        while node is not target:
            port = disc.lfts[node.guid][lid]
            self.assertNotEqual(port, 0, f"{node.name} claims LID {lid}")
            node = disc.nodes[node.peers[port][0]]
            steps += 1
            self.assertLess(steps, 8, f"LID {lid} loops from {disc.nodes[start].name}")
            if node.kind == "host":
                self.assertIs(node, target, f"LID {lid} from {disc.nodes[start].name} ends at {node.name}")
        return steps


if __name__ == "__main__":
    unittest.main()
