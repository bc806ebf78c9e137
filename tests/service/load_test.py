#!/usr/bin/env python3
"""canopyd under load while its fabric changes: N concurrent connections in
JSON mode pipeline a mix of requests (query, route, hops, matrix, rate, hosts,
info) while the `current` link alternates between two different fabrics. Every
answer is checked against the expected answer of the fabric whose generation it
reports (expected answers computed beforehand with `canopy route --json`). Any
wrong answer, error, or connection lost fails the test.

Usage: load_test.py BIN_DIR SOURCE_DIR [--connections N] [--depth D] [--seconds S]"""
import argparse
import collections
import json
import os
import random
import selectors
import shutil
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canopyd_harness import (Canopyd, Checks, DumpStore, canopy_json, gen_fabric, raise_file_limit,  # noqa: E402
                             temp_dir, wait_until)

HOSTS = ["h%04d" % i for i in range(1, 17)]


def expected_answers(bin_dir, dump, pairs, work):
    """Request line -> expected JSON answer (without ok/snapshot), for the fabric in @dump."""
    expected = {}
    hostfile = os.path.join(work, "hosts-all.txt")
    with open(hostfile, "w") as f:
        f.write("\n".join(HOSTS) + "\n")
    m = canopy_json(bin_dir, "route", dump, "--matrix", hostfile)
    for i, a in enumerate(HOSTS):
        for j, b in enumerate(HOSTS):
            expected["hops %s %s" % (a, b)] = {"hops": m["hops"][i][j]}
    group = [0, 5, 9, 15]
    expected["matrix hops " + " ".join(HOSTS[i] for i in group)] = {
        "kind": "hops", "hosts": [HOSTS[i] for i in group], "hops": [[m["hops"][i][j] for j in group] for i in group]}
    for a, b in pairs:
        route = canopy_json(bin_dir, "route", dump, a, b)
        expected["route %s %s" % (a, b)] = route
        expected["query %s:%s" % (a, b)] = {"path": [h["name"] if h["type"] == "host" else h["guid"]
                                                     for h in route["path"]]}
        if a != b:
            expected["rate " + a] = {"rate": route["path"][0]["out_rate"], "gbps": route["path"][0]["out_gbps"]}
    return expected


class Reloads(threading.Thread):
    """Switches `current` between the two dumps and records which generation holds which fabric."""

    def __init__(self, daemon, store, interval):
        super().__init__()
        self.daemon_under_test, self.store, self.interval = daemon, store, interval
        self.fabric_of = {1: "a"}
        self.stop_event = threading.Event()
        self.problems = []

    def run(self):
        c = self.daemon_under_test.client(json_mode=True)
        current, generation = "a", 1
        while not self.stop_event.wait(self.interval):
            current = "b" if current == "a" else "a"
            self.store.publish("dump-" + current)
            info = wait_until(lambda: (lambda i: i["snapshot"] > generation and i)(c.ask_json("info")), 10, 0.005)
            if not info or info["snapshot"] != generation + 1 or not info["source"].endswith("/dump-" + current):
                self.problems.append("reload to %s: %s" % (current, info))
                return
            generation = info["snapshot"]
            self.fabric_of[generation] = current
        c.close()


class Connection:
    def __init__(self, port, requests, depth):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setblocking(False)
        self.requests = requests
        self.next = random.randrange(len(requests))
        self.depth = depth
        self.inflight = collections.deque()
        self.rbuf = b""
        self.wbuf = b""
        self.done = False  # "quit" answered and EOF seen

    def queue(self, line):
        self.inflight.append(line)
        self.wbuf += (line + "\n").encode()

    def fill(self):
        while len(self.inflight) < self.depth:
            self.queue(self.requests[self.next % len(self.requests)])
            self.next += 1

    def flush(self):
        if self.wbuf:
            n = self.sock.send(self.wbuf)
            self.wbuf = self.wbuf[n:]


class LoadTest:
    def __init__(self, args, daemon, reloads, expected):
        self.args, self.daemon, self.reloads, self.expected = args, daemon, reloads, expected
        self.answers = 0
        self.errors = []
        self.deferred = []  # answers from a generation the reload thread had not recorded yet

    def check(self, request, answer):
        if answer.pop("ok", None) is not True or "snapshot" not in answer:
            self.errors.append("%s -> %s" % (request, answer))
            return
        generation = answer.pop("snapshot")
        fabric = self.reloads.fabric_of.get(generation)
        if fabric is None:
            self.deferred.append((request, generation, answer))
            return
        self.compare(request, fabric, answer)

    def compare(self, request, fabric, answer):
        if request == "json on":
            ok = answer == {"json": True}
        elif request == "quit":
            ok = answer == {"bye": True}
        elif request == "hosts":
            ok = sorted(answer["hosts"]) == HOSTS
        elif request == "info":
            ok = answer["source"].endswith("/dump-" + fabric) and answer["state"] == "fresh"
        else:
            ok = answer == self.expected[fabric][request]
        if not ok:
            self.errors.append("%s on fabric %s -> %s" % (request, fabric, answer))

    def on_readable(self, c, sending):
        try:
            data = c.sock.recv(262144)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            data, c.error = b"", e
        if not data:
            if not c.inflight and c.quit_sent:
                c.done = True
            else:
                self.errors.append("connection lost with %d requests unanswered" % len(c.inflight))
                c.done = True
            return
        c.rbuf += data
        *lines, c.rbuf = c.rbuf.split(b"\n")
        for line in lines:
            if not c.inflight:
                self.errors.append("answer nobody asked for: %r" % line[:100])
                continue
            self.check(c.inflight.popleft(), json.loads(line))
            self.answers += 1
        if sending:
            c.fill()

    def run(self, connections):
        selector = selectors.DefaultSelector()
        for c in connections:
            c.quit_sent = False
            c.queue("json on")
            c.fill()
            selector.register(c.sock, selectors.EVENT_READ, c)
        start = time.monotonic()
        deadline = start + self.args.seconds
        quitting = False
        hard_deadline = deadline + 30
        while not all(c.done for c in connections) and time.monotonic() < hard_deadline:
            sending = time.monotonic() < deadline
            if not sending and not quitting:
                quitting = True
                for c in connections:
                    c.queue("quit")
                    c.quit_sent = True
            for c in connections:
                if c.wbuf and not c.done:
                    try:
                        c.flush()
                    except BlockingIOError:
                        pass
            for key, _ in selector.select(timeout=0.1):
                c = key.data
                if not c.done:
                    self.on_readable(c, sending)
                    if c.done:
                        selector.unregister(c.sock)
        elapsed = time.monotonic() - start
        unfinished = sum(not c.done for c in connections)
        if unfinished:
            self.errors.append("%d connections did not finish" % unfinished)
        for request, generation, answer in self.deferred:
            fabric = self.reloads.fabric_of.get(generation)
            if fabric is None:
                self.errors.append("%s: answer from unknown generation %d" % (request, generation))
            else:
                self.compare(request, fabric, answer)
        return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("source_dir")
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--reload-interval", type=float, default=0.3)
    args = parser.parse_args()
    check = Checks()
    limit = raise_file_limit(args.connections + 100)
    if not check("open file limit allows %d connections" % args.connections, limit >= args.connections + 50, limit):
        return check.finish()
    work = temp_dir("canopyd-load-")
    random.seed(7)
    store = DumpStore(os.path.join(work, "store"))
    store.add("dump-a", gen_fabric(args.source_dir, os.path.join(work, "fabric-a"), 16, 2))
    store.add("dump-b", gen_fabric(args.source_dir, os.path.join(work, "fabric-b"), 16, 3))
    store.publish("dump-a")
    pairs = [(random.choice(HOSTS), random.choice(HOSTS)) for _ in range(24)] + [("h0001", "h0016")]
    expected = {f: expected_answers(args.bin_dir, os.path.join(store.path, "dump-" + f), pairs, work) for f in "ab"}
    check("the two fabrics answer differently",
          expected["a"]["hops h0001 h0016"] != expected["b"]["hops h0001 h0016"])
    requests = sorted(expected["a"]) + ["hosts", "info"]
    random.shuffle(requests)

    daemon = Canopyd(args.bin_dir, store.path, work)
    wait_until(lambda: daemon.client().ask("hops h0001 h0002").startswith("hops"))
    connections = [Connection(daemon.port, requests, args.depth) for _ in range(args.connections)]
    reloads = Reloads(daemon, store, args.reload_interval)
    test = LoadTest(args, daemon, reloads, expected)
    reloads.start()
    elapsed = test.run(connections)
    reloads.stop_event.set()
    reloads.join(30)
    for c in connections:
        c.sock.close()

    print("%d connections, depth %d: %d answers in %.1f s (%.0f/s), %d reloads" % (
        args.connections, args.depth, test.answers, elapsed, test.answers / elapsed, len(reloads.fabric_of) - 1))
    check("reloads alternated the fabric", len(reloads.fabric_of) >= 5 and not reloads.problems,
          (len(reloads.fabric_of), reloads.problems))
    check("answers from both fabrics", {reloads.fabric_of[g] for g in reloads.fabric_of} == {"a", "b"})
    check("every answer right for its generation, no connection lost", not test.errors,
          "%d errors, first: %s" % (len(test.errors), test.errors[:5]))
    check("many answers", test.answers > args.connections * 10, test.answers)
    log = daemon.log_text()
    check("no error or warning logged", "[error]" not in log and "[warn]" not in log,
          [line for line in log.splitlines() if "[error]" in line or "[warn]" in line][:5])
    check("clean exit", daemon.stop() == 0)
    if not check.failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("logs kept in", work)
    return check.finish()


sys.exit(main())
