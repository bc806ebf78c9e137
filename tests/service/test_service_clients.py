#!/usr/bin/env python3
"""The service clients against the real canopyd: `canopy route --server` must
print exactly what `canopy route SOURCE` prints for the same dump (every host
pair, text and JSON, and the matrices), `canopy query` pipelines stdin, reads
CANOPY_TOPO_SERVER, and fails clearly on a refused connection or a server that
never answers; the C API's canopy_service_matrices returns exactly the matrices
canopy_topology_matrices computes (test_capi_service).

Usage: test_service_clients.py BIN_DIR SOURCE_DIR TEST_CAPI_SERVICE"""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canopyd_harness import keep_logs_on_failure, Canopyd, Checks, DumpStore, temp_dir, wait_until  # noqa: E402

BIN, SRC, CAPI_PROGRAM = sys.argv[1], sys.argv[2], sys.argv[3]
TWO_SWITCH = os.path.join(SRC, "tests", "data", "cli", "two-switch-dump")
CANOPY = os.path.join(BIN, "canopy")
HOSTS = ["H1", "H2", "H3", "H4"]
check = Checks()
WORK = temp_dir("canopy-clients-test-")


def run(args, env=None, stdin=None, timeout=60):
    full_env = {k: v for k, v in os.environ.items() if k != "CANOPY_TOPO_SERVER"}
    full_env.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=full_env, input=stdin, timeout=timeout)


def canopy(*args, env=None, stdin=None):
    return run([CANOPY, *args], env=env, stdin=stdin)


class FakeServer:
    """A server on a free port of 127.0.0.1 that is not canopyd: @p line (one line of another
    protocol, as an HTTP server would send) to every connection, or None to hold connections
    and never answer (the client must time out)."""

    def __init__(self, line=None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.address = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.line, self.held = line, []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn = self.sock.accept()[0]
            except OSError:
                return
            if self.line is None:
                self.held.append(conn)
                continue
            with conn:
                conn.recv(4096)
                conn.sendall(self.line.encode() + b"\r\n\r\n")


def refused_address():
    with socket.socket() as s:  # bound, never listening: connecting is refused
        s.bind(("127.0.0.1", 0))
        return "127.0.0.1:%d" % s.getsockname()[1]


def without_source(text):
    value = json.loads(text)
    value.pop("source", None)
    return value


def test_routes(server, local_source):
    pairs = [(a, b) for a in HOSTS for b in HOSTS]
    for a, b in pairs:
        local, remote = canopy("route", local_source, a, b), canopy("route", "--server", server, a, b)
        check(f"route {a} {b}: text equal", local.returncode == 0 and remote.stdout == local.stdout,
              f"\n{remote.stdout}{remote.stderr} != \n{local.stdout}{local.stderr}")
        local = canopy("route", local_source, a, b, "--json")
        remote = canopy("route", "--server", server, a, b, "--json")
        ok = local.returncode == 0 and remote.returncode == 0
        check(f"route {a} {b}: JSON equal", ok and without_source(remote.stdout) == without_source(local.stdout),
              f"{remote.stdout}{remote.stderr} != {local.stdout}")
    r = canopy("route", "--server", server, "--json", "H1", "H4")
    check("route JSON names the served dump", r.returncode == 0 and "two-switch" in json.loads(r.stdout)["source"],
          r.stdout)
    r = canopy("route", "--server", server, "H1", "nosuchhost")
    check("route: unknown host is the server's error", r.returncode == 1 and
          f"{server}: unknown host 'nosuchhost'" in r.stderr, r.stderr)


def compare_matrices(name, server, local_source, hostfile, env=None):
    local = canopy("route", local_source, "--matrix", hostfile, "--json")
    remote = canopy("route", "--server", server, "--matrix", hostfile, "--json", env=env)
    check(f"{name}: both answer", local.returncode == 0 and remote.returncode == 0, local.stderr + remote.stderr)
    if local.returncode or remote.returncode:
        return
    lj, rj = json.loads(local.stdout), json.loads(remote.stdout)
    for key in ("hosts", "hops", "gbps", "delay_us"):
        check(f"{name}: JSON {key} equal", lj[key] == rj[key], f"{rj[key]} != {lj[key]}")
    check(f"{name}: no hierarchy from the service", "hierarchy" not in rj and "leaf_groups" not in rj, rj)


def test_matrices(server, local_source, work):
    hostfile = os.path.join(work, "job.hosts")
    with open(hostfile, "w") as f:
        f.write("H4\nH2\nH1\n")
    compare_matrices("matrix of 3 hosts (one request)", server, local_source, hostfile)
    with open(hostfile, "w") as f:
        f.write("# allocation order\nH3 slots=4\nH1\nH2:2\nH4\n")
    compare_matrices("matrix of 4 hosts (blocks, after the server's limit)", server, local_source, hostfile)
    compare_matrices("matrix of 4 hosts (blocks of 1)", server, local_source, hostfile,
                     env={"CANOPY_SERVICE_CLIENT_MATRIX_HOSTS": "2"})
    local = canopy("route", local_source, "--matrix", hostfile)
    remote = canopy("route", "--server", server, "--matrix", hostfile)
    check("matrix text equal up to the hierarchy", remote.returncode == 0 and
          local.stdout.split("hierarchy:")[0] == remote.stdout, f"\n{remote.stdout}\n!=\n{local.stdout}")
    with open(hostfile, "a") as f:
        f.write("nosuchhost\n")
    r = canopy("route", "--server", server, "--matrix", hostfile)
    check("matrix: unknown host is the server's error", r.returncode == 1 and "unknown host 'nosuchhost'" in r.stderr,
          r.stderr)


def test_query(server, local_source):
    requests = "hops H1 H4\n\nquery H1:H4\nroute H1 H4\ninfo\n"
    r = canopy("query", "--server", server, stdin=requests)
    answers = r.stdout.splitlines()
    check("query stdin: one answer per request, exit 0", r.returncode == 0 and len(answers) == 4, r.stdout + r.stderr)
    first_line = canopy("route", local_source, "H1", "H4").stdout.splitlines()[0]
    check("query stdin: answers in order", answers[:2] == ["hops 3", first_line] and answers[2].startswith("route ")
          and answers[3].startswith("info "), answers)
    r = canopy("query", "--server", server, stdin="hops H1 H2\nhops H1 nosuchhost\nhops H2 H1\n")
    check("query: an ERR answer means exit 1, the others still printed", r.returncode == 1 and
          r.stdout.splitlines() == ["hops 2", "ERR unknown host 'nosuchhost'", "hops 2"], r.stdout)
    r = canopy("query", "--server", server, "--json", "route H1 H4", "hops H1 nosuchhost")
    lines = r.stdout.splitlines()
    route = json.loads(lines[0]) if lines else {}
    local = json.loads(canopy("route", local_source, "H1", "H4", "--json").stdout)
    check("query --json: route object as canopy route --json", r.returncode == 1 and route.get("ok") is True and
          all(route.get(k) == v for k, v in local.items() if k != "source"), r.stdout)
    check("query --json: error object", len(lines) == 2 and json.loads(lines[1]).get("ok") is False, lines)
    r = canopy("query", "hops H1 H4", env={"CANOPY_TOPO_SERVER": server})
    check("query: CANOPY_TOPO_SERVER is the default server", r.returncode == 0 and r.stdout == "hops 3\n",
          r.stdout + r.stderr)


def test_failures():
    refused = refused_address()
    for args in (["query", "--server", refused, "info"], ["route", "--server", refused, "H1", "H2"]):
        r = canopy(*args)
        check(f"{args[0]}: connection refused", r.returncode == 1 and
              r.stderr == f"canopy: error: cannot connect to {refused}: Connection refused\n", r.stderr)
    silent = FakeServer()
    start = time.time()
    r = canopy("query", "--server", silent.address, "info", env={"CANOPY_SERVICE_CLIENT_TIMEOUT_S": "1"})
    waited = time.time() - start
    check("query: a silent server times out", r.returncode == 1 and
          f"no answer from {silent.address} within 1 s" in r.stderr and waited < 10, f"{waited:.1f} s: {r.stderr}")
    other = FakeServer("HTTP/1.1 400 Bad Request")
    r = canopy("query", "--server", other.address, "info")
    check("query: a server that is not canopyd is an error", r.returncode == 1 and r.stderr ==
          f"canopy: error: {other.address} does not answer as canopyd: 'HTTP/1.1 400 Bad Request' to 'info'\n",
          r.stdout + r.stderr)
    return refused, silent


def test_capi(server, local_source, refused, silent):
    r = run([CAPI_PROGRAM, local_source, server, refused, silent.address], timeout=120)
    check("C API: service matrices equal the local ones; errors in bounded time", r.returncode == 0,
          r.stdout + r.stderr)


def start_canopyd(store):
    """canopyd serving DIR/current, taking matrices of at most 3 hosts so that a
    4-host list exercises the clients' blocks (and their retry after the limit)."""
    d = Canopyd(BIN, store.path, WORK, service_max_matrix_hosts=3)
    server = "127.0.0.1:%d" % d.port
    ready = wait_until(lambda: "state=fresh" in canopy("query", "--server", server, "info").stdout, timeout=30)
    check("canopyd loaded the dump", ready, d.log_text()[-500:])
    return d, server


def main():
    try:
        store = DumpStore(os.path.join(WORK, "dumps"))
        store.add("dump-two-switch", TWO_SWITCH)
        store.publish("dump-two-switch")
        d, server = start_canopyd(store)
        try:
            test_routes(server, store.path)
            test_matrices(server, store.path, WORK)
            test_query(server, store.path)
            refused, silent = test_failures()
            test_capi(server, store.path, refused, silent)
        finally:
            check("canopyd: clean exit", d.stop() == 0, d.log_text()[-500:])
    finally:
        keep_logs_on_failure(check, WORK)
    return check.finish()


sys.exit(main())
