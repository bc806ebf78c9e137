#!/usr/bin/env python3
"""The `canopy` command-line contract, on a two-switch fabric recorded from ibsim
(OpenSM minhop routing, dumped with the real ibnetdiscover and ibroute; the
ibtracert answers for every host pair are recorded beside it).

Usage: test_canopy_cli.py BIN_DIR DATA_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibtracert  # noqa: E402
from terminal import run_on_terminal  # noqa: E402

BIN, DATA = sys.argv[1], sys.argv[2]
DUMP = os.path.join(DATA, "two-switch-dump")
failures = []


def canopy(*args, env=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([os.path.join(BIN, "canopy"), *args], capture_output=True, text=True, env=full_env,
                          timeout=60)


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(name)


def test_help_and_version():
    r = canopy("topo", "--help")
    check("topo --help names --simgrid", "--simgrid" in r.stdout and "--host-speed" in r.stdout, r.stdout)
    for args in (["--help"], ["topo", "--help"], ["route", "--help"], ["query", "--help"], ["info", "--help"]):
        r = canopy(*args)
        check("help " + " ".join(args), r.returncode == 0 and "Usage" in r.stdout, r.stderr)
    r = canopy("--version")
    check("version", r.returncode == 0 and "canopy" in r.stdout, r.stdout)
    r = canopy()
    check("no subcommand is a usage error (exit 2)", r.returncode == 2, r.returncode)
    check("usage errors read like other errors", r.stderr.startswith("canopy: error: A subcommand is required\n"),
          r.stderr)


def test_summary():
    r = canopy("topo", DUMP, "--json")
    check("topo --json exit 0", r.returncode == 0, r.stderr)
    s = json.loads(r.stdout)
    check("topo counts", (s["hosts"], s["switches"], s["links"]) == (4, 2, 6), s)
    check("topo routes from forwarding tables", s["routes"] == "lft" and s["forwarding_tables"] == 2, s)
    check("topo no forwarding problems", s["forwarding_problems"] == 0, s)
    check("topo rates", s["link_rates"] == {"4xSDR": 6}, s["link_rates"])
    check("topo in one part", s["connected_parts"] == 1 and s["diameter"] == 3, s)
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write("SwitchName=s1 Nodes=a[1-4]\nSwitchName=s2 Nodes=b[1-4]\n")  # no link between the switches
    r = canopy("topo", "slurm:" + f.name)
    r_json = canopy("topo", "slurm:" + f.name, "--json")
    os.unlink(f.name)
    check("a fabric in two parts says so", r.returncode == 0 and "in 2 disconnected parts" in r.stdout and
          json.loads(r_json.stdout)["connected_parts"] == 2, r.stdout)
    r = canopy("topo", DUMP)
    check("topo text", r.returncode == 0 and "hosts:       4" in r.stdout, r.stdout)


def test_routes_equal_ibtracert():
    with open(DUMP + ".ibtracert") as f:
        expected = list(ibtracert.parse(f.read()))
    check("recorded ibtracert routes", len(expected) == 12, len(expected))
    names = {"0x0000000000100000": "H1", "0x0000000000100003": "H2", "0x0000000000100006": "H3",
             "0x0000000000100009": "H4"}
    for want in expected:
        a, b = names[want[0][0]], names[want[-1][0]]
        r = canopy("route", DUMP, a, b, "--json")
        got = ibtracert.canopy_hops(json.loads(r.stdout)) if r.returncode == 0 else r.stderr
        check(f"route {a}->{b} equals ibtracert", got == want, f"{got} != {want}")
    r = canopy("route", DUMP, "H1", "H4")
    first = r.stdout.splitlines()[0] if r.stdout else ""
    check("route text: service answer line", first == "H1 0x0000000000200000 0x0000000000200001 H4", first)
    r = canopy("route", DUMP, "0x0000000000100001", "H2", "--json")
    check("host by port GUID", r.returncode == 0 and json.loads(r.stdout)["from"] == "H1", r.stderr)


def test_matrix():
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("# allocation order\nH3 slots=4\nH1\nH2:2\nH4\n")
    r = canopy("route", DUMP, "--matrix", f.name, "--json")
    os.unlink(f.name)
    check("matrix exit 0", r.returncode == 0, r.stderr)
    m = json.loads(r.stdout)
    check("matrix host order", m["hosts"] == ["H3", "H1", "H2", "H4"], m["hosts"])
    check("matrix hops", m["hops"] == [[0, 3, 3, 2], [3, 0, 2, 3], [3, 2, 0, 3], [2, 3, 3, 0]], m["hops"])
    check("matrix gbps", all(v == 8.0 for row in m["gbps"] for v in row), m["gbps"])
    check("leaf groups", m["leaf_groups"] == [["H3", "H4"], ["H1", "H2"]], m["leaf_groups"])
    check("hierarchy root", len(m["hierarchy"]["children"]) == 2, m["hierarchy"])


def test_errors():
    r = canopy("topo", "/nonexistent/fabric.txt")
    check("missing file: exit 1 + message", r.returncode == 1 and "canopy: error:" in r.stderr
          and "/nonexistent/fabric.txt" in r.stderr, r.stderr)
    r = canopy("route", DUMP, "H1", "nosuchhost")
    check("unknown host: exit 1", r.returncode == 1 and "nosuchhost" in r.stderr, r.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("Switch\t8 \"S-0000000000200000\"\t\t# \"S1\" base port 0 lid 1 lmc 0\n[99]\t\"H-1\"[1]\n")
    r = canopy("topo", f.name)
    check("parse error names file:line", r.returncode == 1 and f"{f.name}:2:" in r.stderr, r.stderr)
    os.unlink(f.name)
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("H1\nH2\n")
    r = canopy("route", DUMP, "--matrix", f.name, env={"CANOPY_TOPO_DELAY_BYTES": "lots"})
    os.unlink(f.name)
    check("bad parameter value is an error", r.returncode == 1 and "CANOPY_TOPO_DELAY_BYTES" in r.stderr, r.stderr)
    for args in (("--json", "--dot"), ("--node", "pack:2 core:2 pu:1")):  # one was silently dropped
        r = canopy("topo", DUMP, *args)
        check(f"topo SOURCE {' '.join(args)}: usage error", r.returncode == 2 and "excludes" in r.stderr, r.stderr)
    for args, says in ((("topo",), "SOURCE (or --node SPEC) is required"),  # exit 1 before
                       (("topo", DUMP, "--simgrid-hosts", "h"), "need --simgrid FILE")):
        r = canopy(*args)
        check(f"{' '.join(args)}: usage error", r.returncode == 2 and says in r.stderr, r.stderr)
    r = canopy("topo", "--formats", "--json")  # --json was ignored
    check("topo --formats --json", r.returncode == 0 and "dump" in [f["name"] for f in json.loads(r.stdout)], r.stdout)
    with open("/dev/full", "w") as full:  # a result lost on the way out is a failure (exit 0 before)
        r = subprocess.run([os.path.join(BIN, "canopy"), "topo", DUMP, "--json"], stdout=full, stderr=subprocess.PIPE,
                           text=True)
    check("stdout that cannot be written: exit 1", r.returncode == 1 and "cannot write the output to stdout" in r.stderr,
          r.stderr)


def test_service_arguments():
    """What needs no running canopyd: argument checks and a refused connection
    (tests/service/ drives the real server)."""
    r = canopy("route", "--server", "127.0.0.1:1", DUMP, "H1", "H4")
    check("route: SOURCE and --server is a usage error", r.returncode == 2 and "not both" in r.stderr, r.stderr)
    r = canopy("route", "H1")
    check("route: too few arguments is a usage error", r.returncode == 2 and "two hosts" in r.stderr, r.stderr)
    r = canopy("route", "--server", "127.0.0.1:1", "H1", "H4", "--matrix", "hosts.txt")
    check("route: hosts with --matrix is a usage error", r.returncode == 2, r.stderr)
    r = canopy("route", "--server", "127.0.0.1", "H1", "H4")
    check("route: address without port", r.returncode == 1 and "HOST:PORT" in r.stderr, r.stderr)
    env = {k: v for k, v in os.environ.items() if k != "CANOPY_TOPO_SERVER"}
    r = subprocess.run([os.path.join(BIN, "canopy"), "query", "info"], capture_output=True, text=True, env=env,
                       timeout=60)
    check("query without a server", r.returncode == 1 and "CANOPY_TOPO_SERVER" in r.stderr, r.stderr)
    r = canopy("query", "--server", "127.0.0.1:1", "info")
    check("query: connection refused", r.returncode == 1 and
          r.stderr.strip() == "canopy: error: cannot connect to 127.0.0.1:1: Connection refused", r.stderr)


def test_svg():
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "fabric.svg")
        r = canopy("topo", DUMP, "--svg", svg)
        ok = r.returncode == 0 and os.path.exists(svg) and "<svg" in open(svg).read()
        check("svg drawn", ok, r.stderr)
        r = canopy("topo", DUMP, "--dot")
        check("dot has clusters and colours", "subgraph cluster_" in r.stdout and "color=" in r.stdout, r.stdout[:200])
        bad = os.path.join(d, "missing-dir", "fabric.svg")
        r = canopy("topo", DUMP, "--svg", bad)
        check("svg into a missing directory fails cleanly", r.returncode == 1 and "fabric.svg" in r.stderr, r.stderr)
        check("no half-written svg left", sorted(os.listdir(d)) == ["fabric.svg"], os.listdir(d))
        # Over 256 hosts: one box per leaf, and dot told to spend only a few rounds on the layout.
        conf = os.path.join(d, "large.conf")
        with open(conf, "w") as f:
            f.write("".join(f"SwitchName=leaf{i} Nodes=n{i}x[1-16]\n" for i in range(20)))
            f.write("SwitchName=spine Switches=leaf[0-19]\n")
        r = canopy("topo", "slurm:" + conf, "--dot")
        check("a 320-host drawing: a box per leaf, a quick layout",
              r.stdout.count("16 hosts</TD>") == 20 and "nslimit=" in r.stdout, r.stdout[:300])
        r = canopy("topo", "slurm:" + conf, "--svg", svg)
        check("a 320-host drawing renders", r.returncode == 0 and "<svg" in open(svg).read(), r.stderr)


def test_simgrid():
    import xml.etree.ElementTree as ET
    with tempfile.TemporaryDirectory() as d:
        xml = os.path.join(d, "fabric.xml")
        r = canopy("topo", DUMP, "--simgrid", xml, "--simgrid-latency", "0.5", "--host-speed", "2", "--host-cores", "4")
        check("simgrid exit 0", r.returncode == 0 and "simgrid:     " + xml in r.stdout, r.stderr)
        root = ET.parse(xml).getroot()  # well-formed XML, or this raises
        check("simgrid DTD version", root.tag == "platform" and root.get("version") == "4.1", root.attrib)
        hosts = {h.get("id"): h for h in root.iter("host")}
        check("simgrid hosts", sorted(hosts) == ["H1", "H2", "H3", "H4"], sorted(hosts))
        check("simgrid host speed and cores", all(h.get("speed") == "2Gf" and h.get("core") == "4"
                                                   for h in hosts.values()), [h.attrib for h in hosts.values()])
        check("simgrid routers", len(list(root.iter("router"))) == 2)
        links = list(root.iter("link"))
        check("simgrid links at 4xSDR, split duplex, 0.5 us",
              len(links) == 6 and all((l.get("bandwidth"), l.get("latency"), l.get("sharing_policy")) ==
                                      ("8Gbps", "0.5us", "SPLITDUPLEX") for l in links), [l.attrib for l in links])
        pairs = set()
        for route in root.iter("route"):
            pairs.add((route.get("src"), route.get("dst")))
            if route.get("symmetrical") == "YES":
                pairs.add((route.get("dst"), route.get("src")))
        check("simgrid: a route for each of the 12 ordered pairs", len(pairs) == 12, sorted(pairs))
        # H1 -> H4 crosses S1 -> S2 as ibtracert recorded: 3 links.
        h1h4 = [r for r in root.iter("route") if (r.get("src"), r.get("dst")) == ("H1", "H4")]
        check("simgrid H1->H4 has 3 links", len(h1h4) == 1 and len(list(h1h4[0].iter("link_ctn"))) == 3)
        bad = os.path.join(d, "missing-dir", "other.xml")
        r = canopy("topo", DUMP, "--simgrid", bad)
        check("simgrid into a missing directory fails cleanly", r.returncode == 1 and "other.xml" in r.stderr, r.stderr)
        r = canopy("topo", DUMP, "--simgrid", os.path.join(d, "x.xml"), "--host-cores", "0")
        check("simgrid --host-cores 0 is an error", r.returncode == 1 and "cores" in r.stderr, r.stderr)
        code, _, shown = run_on_terminal([os.path.join(BIN, "canopy"), "topo", DUMP, "--simgrid", xml],
                                         dict(os.environ, CANOPY_PROGRESS_AFTER_S="0"))
        check("simgrid: progress on a terminal", code == 0 and "] routes between the 4 hosts\n" in shown and
              "] writing the routes from host 4 of 4\n" in shown and shown.endswith("] done\n"), shown)
        check("no half-written platform left", sorted(os.listdir(d)) == ["fabric.xml"], os.listdir(d))


def test_info():
    r = canopy("info", "--config", "--json", env={"CANOPY_TOPO_HOP_LATENCY_US": "0.3"})
    params = {p["name"]: p for p in json.loads(r.stdout)}
    check("info lists parameters", "log_level" in params and "topo_delay_bytes" in params, params.keys())
    p = params["topo_hop_latency_us"]
    check("info shows value and source", p["value"] == "0.3" and p["source"].startswith("environment"), p)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write('{"log_level": "warn",\n "topo_delay_bytes": }\n')
    r = canopy("info", env={"CANOPY_CONFIG_FILE": f.name})  # exit 0, the file unread, before
    os.unlink(f.name)
    check("plain info reports a broken config file", r.returncode == 1 and f"{f.name}:2: not valid JSON" in r.stderr,
          r.stderr)
    r = canopy("info", "--algorithms")
    rules = [line.split() for line in r.stdout.splitlines() if re.match(r"\s+\d+\.\.", line)]
    check("info --algorithms: each rule names the MPI library it holds for",
          rules and all(rule[-3] in ("any", "open_mpi") for rule in rules) and
          ["open_mpi", "->", "multi_leader_shm"] in [rule[-3:] for rule in rules], r.stdout)


def test_bench_without_mpirun():
    # canopy bench execs canopy-bench (built with MPI only); its runs are tested in tests/mpi.
    if os.path.exists(os.path.join(BIN, "canopy-bench")):
        r = canopy("bench", "--help")
        check("bench --help reaches canopy-bench", r.returncode == 0 and "--compare" in r.stdout, r.stderr)
    else:
        r = canopy("bench", "bcast")
        check("bench without MPI: says so, exit 1", r.returncode == 1 and "built without it" in r.stderr, r.stderr)


for test in (test_help_and_version, test_summary, test_routes_equal_ibtracert, test_matrix, test_errors,
             test_service_arguments, test_svg, test_simgrid, test_info, test_bench_without_mpirun):
    test()
print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
