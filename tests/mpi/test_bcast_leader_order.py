#!/usr/bin/env python3
"""Topology-aware Bcast between node leaders (coll_bcast_leader_order) against a real canopyd:
8 ranks on four virtual hosts, H1..H4 of the two-switch fabric (H1, H2 on S1; H3, H4 on S2),
listed so that neighbouring node indexes sit on different switches (nodes 0-3 = H1, H3, H2, H4).
For every tree between the leaders and both orders, `canopy bench -c -k rotate` checks every
byte on every rank from every root, and the order leader 0 logs for each root and message size
class is the paper's heuristic on this fabric: up to 1 KiB the extra link across the switches
weighs (nearest first); at 64 KiB it is within 5% of the transfer time (SDR), so every leader
ties and the scheduler's order fills the positions. Communicators over the same nodes ask the server once per process: an application's
Bcasts on MPI_COMM_WORLD and two duplicates, with a server that takes one connection only, are
all ordered. Without a server the tree keeps its own order (one warning), and stays correct.
And the whole collectives correctness suite (`--quick`, 8 ranks) with `bft` on: its virtual host
layouts (h0..h7, uneven, cyclic, reversed splits) are hosts of a generated 8-host fat tree that
canopyd serves, so every two_level Bcast between several nodes runs in an order of its own.
Under MPICH (where built): an unmodified application with libcanopy-mpi-mpich.so preloaded
prints what it prints under MPICH alone, its Bcasts between leaders ordered by canopyd's routes.

Usage: test_bcast_leader_order.py RUN_MPI BIN_DIR DUMP_DIR SCRATCH_DIR APP_BCAST_COMMS
                                  TEST_COLL_CORRECTNESS GEN_FABRIC [MPICH_LAUNCHER MPICH_APP MPICH_LIB]"""
import os
import re
import socket
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "service"))
from canopyd_harness import Canopyd  # noqa: E402

RUN_MPI, BIN, DUMP, SCRATCH, APP, CORRECTNESS, GEN_FABRIC = sys.argv[1:8]
MPICH = sys.argv[8:11]
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)
    if not condition:
        failures.append(name)


def bench(env, sizes="1:1024"):
    full = dict(os.environ, MPI_ENV=" ".join(f"{k}={v}" for k, v in env.items()))
    return subprocess.run([RUN_MPI, "120", "8", os.path.join(BIN, "canopy"), "bench", "bcast", "-m", sizes,
                           "-i", "8", "-x", "0", "-c", "-k", "rotate"], capture_output=True, text=True, env=full,
                          timeout=180)


def one_connection_proxy(port):
    """A port that passes one connection through to 127.0.0.1:port and refuses any after it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def pump(a, b):
        while data := a.recv(65536):
            b.sendall(data)
        b.shutdown(socket.SHUT_WR)

    def serve():
        client, _ = listener.accept()
        listener.close()
        upstream = socket.create_connection(("127.0.0.1", port))
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        pump(client, upstream)

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def orders(stderr):
    """{(size class, root node): [node at each position]} from leader 0's log."""
    found = {}
    for m in re.finditer(r"Bcast of up to (\d+) bytes from node (\d+) between 4 node leaders in \w+ order "
                         r"\(\w+ tree\):((?: \d+){4})$", stderr, re.M):
        found[(int(m.group(1)), int(m.group(2)))] = [int(x) for x in m.group(3).split()]
    return found


def per_class(by_root, classes=[2 ** k for k in range(11)]):
    """The same order for every size class up to 1 KiB."""
    return {(size, root): order for size in classes for root, order in by_root.items()}


def orders_match(got, want):
    """Every order logged is the expected one, from every root node, at most size classes: eight
    ranks share mpirun's stderr, and now and then it splits a line of rank 0 (seen once in many
    runs), so a line may be unreadable, never wrong."""
    return (all(want.get(key) == order for key, order in got.items()) and len(got) >= 0.8 * len(want)
            and {root for _, root in got} == {root for _, root in want})


os.makedirs(SCRATCH, exist_ok=True)
hostmap = os.path.join(SCRATCH, "leader_order_hostmap.txt")
with open(hostmap, "w") as f:
    f.write("H1\nH3\nH2\nH4\n" * 2)
server = Canopyd(BIN, DUMP, SCRATCH)
base = {"CANOPY_HOSTMAP": hostmap, "CANOPY_TOPO_SERVER": f"127.0.0.1:{server.port}",
        "CANOPY_BCAST_ALGORITHM": "two_level", "CANOPY_LOG_LEVEL": "info"}
# Binomial over 4 leaders: position 2 (one child, position 3) before position 1. Depth first
# from H1: position 2 takes H2 (same switch), 3 the nearer of H3/H4 to H2 (a tie: node 1), 1 the
# last; breadth first: 2, then 1 (nearest to H1 of the rest: a tie, node 1), then 3.
expected = {
    ("binomial", "dft"): {0: [0, 3, 2, 1], 1: [1, 2, 3, 0], 2: [2, 3, 0, 1], 3: [3, 2, 1, 0]},
    ("binomial", "bft"): {0: [0, 1, 2, 3], 1: [1, 0, 3, 2], 2: [2, 1, 0, 3], 3: [3, 0, 1, 2]},
    # Radix 4: the root's three children, each without children, in position order; the
    # chain: each position the nearest to the one before.
    ("knomial", "dft"): {0: [0, 2, 1, 3], 1: [1, 3, 0, 2], 2: [2, 0, 1, 3], 3: [3, 1, 0, 2]},
    ("chain", "bft"): {0: [0, 2, 1, 3], 1: [1, 3, 0, 2], 2: [2, 0, 1, 3], 3: [3, 1, 0, 2]},
    ("scatter_rd_allgather", "dft"): {0: [0, 3, 2, 1], 1: [1, 2, 3, 0], 2: [2, 3, 0, 1], 3: [3, 2, 1, 0]},
    ("scatter_ring_allgather", "bft"): {0: [0, 1, 2, 3], 1: [1, 0, 3, 2], 2: [2, 1, 0, 3], 3: [3, 0, 1, 2]},
}
for (tree, order), want in expected.items():
    r = bench(dict(base, CANOPY_COLL_BCAST_INTER_ALGORITHM=tree, CANOPY_COLL_BCAST_LEADER_ORDER=order))
    rows = [line.split() for line in r.stdout.splitlines() if line and not line.startswith("#")]
    check(f"{tree} {order}: every byte right on every rank from every root",
          r.returncode == 0 and len(rows) == 11 and all(row[-1] == "Pass" for row in rows), r.stdout + r.stderr[-2000:])
    check(f"{tree} {order}: the leaders' order per root node and size class",
          orders_match(orders(r.stderr), per_class(want)), (orders(r.stderr), want))
    check(f"{tree} {order}: no warning", "[warn]" not in r.stderr, r.stderr[-2000:])
# 64 KiB: ties, filled in the scheduler's order along the depth-first visit (positions 2, 3, 1).
r = bench(dict(base, CANOPY_COLL_BCAST_INTER_ALGORITHM="binomial", CANOPY_COLL_BCAST_LEADER_ORDER="dft"),
          sizes="65536:65536")
want = per_class({0: [0, 3, 1, 2], 1: [1, 3, 0, 2], 2: [2, 3, 0, 1], 3: [3, 2, 0, 1]}, [65536])
check("binomial dft at 64 KiB: right, and the leaders in the scheduler's order (every delay ties)",
      r.returncode == 0 and "Pass" in r.stdout and "Fail" not in r.stdout and orders_match(orders(r.stderr), want),
      (orders(r.stderr), want, r.stderr[-2000:]))
proxy = one_connection_proxy(server.port)
full = dict(os.environ, MPI_ENV=" ".join(f"{k}={v}" for k, v in dict(
    base, CANOPY_TOPO_SERVER=f"127.0.0.1:{proxy}", CANOPY_COLL_BCAST_LEADER_ORDER="dft",
    CANOPY_COLL_BCAST_INTER_ALGORITHM="binomial", CANOPY_SERVICE_CLIENT_TIMEOUT_S="2").items()))
r = subprocess.run([RUN_MPI, "120", "8", APP], capture_output=True, text=True, env=full, timeout=180)
logged = re.findall(r"Bcast of up to 4096 bytes from node (\d+) between 4 node leaders in dft order", r.stderr)
check("three communicators over the same nodes: right, ordered from every root node each, one connection",
      r.returncode == 0 and r.stdout.strip() == "ok" and len(logged) >= 10 and set(logged) == {"0", "1", "2", "3"}
      and "[warn]" not in r.stderr, r.stdout + r.stderr[-3000:])
if MPICH:
    launcher, mpich_app, mpich_lib = MPICH
    plain = subprocess.run([RUN_MPI, "300", "8", mpich_app], capture_output=True, text=True, timeout=360,
                           env=dict(os.environ, MPI_LAUNCHER=launcher))
    full = dict(os.environ, MPI_LAUNCHER=launcher, MPI_ENV=" ".join(f"{k}={v}" for k, v in dict(
        base, LD_PRELOAD=mpich_lib, CANOPY_COLL_BCAST_LEADER_ORDER="bft",
        CANOPY_COLL_BCAST_INTER_ALGORITHM="binomial").items()))
    r = subprocess.run([RUN_MPI, "300", "8", mpich_app], capture_output=True, text=True, env=full, timeout=360)
    # Its Bcasts of 4 and 68 bytes (size classes 4 and 128) in the orders worked out above, from
    # every root node; the larger ones near the 5% ties, ordered but not checked here.
    want = per_class(expected[("binomial", "bft")], [4, 128])
    small = {key: order for key, order in orders(r.stderr).items() if key[0] <= 1024}
    check("MPICH: an unmodified application prints what it prints under MPICH alone, ordered by the routes",
          plain.returncode == 0 and r.returncode == 0 and plain.stdout and r.stdout == plain.stdout
          and orders_match(small, want) and "[warn]" not in r.stderr, (small, r.stderr[-2000:]))
server.stop()

r = bench(dict(base, CANOPY_TOPO_SERVER=f"127.0.0.1:{server.port}", CANOPY_COLL_BCAST_LEADER_ORDER="dft",
               CANOPY_SERVICE_CLIENT_TIMEOUT_S="2"))
rows = [line.split() for line in r.stdout.splitlines() if line and not line.startswith("#")]
check("no server: still right", r.returncode == 0 and rows and all(row[-1] == "Pass" for row in rows),
      r.stdout + r.stderr[-2000:])
check("no server: one warning, the tree's own order",
      r.stderr.count("Bcast between node leaders in the tree's own order, not dft") == 1 and not orders(r.stderr),
      r.stderr[-2000:])
# The correctness suite's hosts h0..h7 on a fat tree of 8 hosts (gen_fabric names them h0001..).
fabric = os.path.join(SCRATCH, "leader_order_fabric")
subprocess.run(["rm", "-rf", fabric], check=True)
subprocess.run([sys.executable, GEN_FABRIC, "dump", "--hosts", "8", "--levels", "2", "--out", fabric], check=True,
               capture_output=True)
topology = os.path.join(fabric, "ibnetdiscover.txt")
with open(topology) as f:
    text = re.sub(r'"h(\d{4})"', lambda m: '"h%d"' % (int(m.group(1)) - 1), f.read())
with open(topology, "w") as f:
    f.write(text)
suite_server = Canopyd(BIN, fabric, SCRATCH)
full = dict(os.environ, MPI_ENV=" ".join(f"{k}={v}" for k, v in {
    "CANOPY_TOPO_SERVER": f"127.0.0.1:{suite_server.port}", "CANOPY_COLL_BCAST_LEADER_ORDER": "bft",
    "CANOPY_LOG_LEVEL": "info"}.items()))
scratch = os.path.join(SCRATCH, "leader_order_suite")
os.makedirs(scratch, exist_ok=True)
r = subprocess.run([RUN_MPI, "300", "8", CORRECTNESS, scratch, "--quick"], capture_output=True, text=True, env=full,
                   timeout=360)
suite_server.stop()
ordered = len(re.findall(r"node leaders in bft order", r.stderr))
check("the correctness suite with bft: every check passes, many Bcasts ordered, no warning",
      r.returncode == 0 and " 0 failed" in r.stdout and ordered >= 20 and "[warn]" not in r.stderr,
      (ordered, r.stdout[-1500:], r.stderr[-1500:]))
print(f"{len(failures)} failures" if failures else "all passed")
sys.exit(1 if failures else 0)
