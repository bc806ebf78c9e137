#!/usr/bin/env python3
"""`canopy bench` under mpirun: OSU-compatible output, --compare, -c validation, --json,
--plot, --method smp-paper, --write-tuning (the file the selection then follows), and
command-line errors (once, from rank 0, non-zero exit).
Asserts outcomes (sizes, columns, Pass/Fail, files), never timings.

Usage: test_canopy_bench.py RUN_MPI BIN_DIR CORRUPT_SHIM SCRATCH_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

RUN_MPI, BIN, SHIM, SCRATCH = sys.argv[1:5]
CANOPY = os.path.join(BIN, "canopy")
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)
    if not condition:
        failures.append(name)


def bench(np, *args, env=None):
    full_env = dict(os.environ)
    if env:
        full_env["MPI_ENV"] = " ".join(f"{k}={v}" for k, v in env.items())
    return subprocess.run([RUN_MPI, "120", str(np), CANOPY, "bench", *args], capture_output=True, text=True,
                          env=full_env, timeout=180)


def data_rows(stdout):
    return [line.split() for line in stdout.splitlines() if line.strip() and not line.startswith("#")]


def header(stdout):
    return [line for line in stdout.splitlines() if line.startswith("# ")][-1]


def test_help():
    r = subprocess.run([CANOPY, "bench", "--help"], capture_output=True, text=True, timeout=60)
    check("bench --help (forwarded to canopy-bench)", r.returncode == 0 and "--compare" in r.stdout
          and "-m,--message-size" in r.stdout, r.stdout + r.stderr)
    r = subprocess.run([CANOPY, "--help"], capture_output=True, text=True, timeout=60)
    check("canopy --help lists bench", r.returncode == 0 and "bench" in r.stdout, r.stdout)


def test_osu_format():
    r = bench(2, "bcast", "-m", "1:1024", "-i", "20", "-x", "2")
    check("bcast exit 0", r.returncode == 0, r.stderr)
    lines = r.stdout.splitlines()
    check("OSU title line", lines[0].startswith("# Canopy MPI Broadcast Latency Test v"), lines[:1])
    check("OSU datatype line", "# Datatype: MPI_CHAR." in lines, lines)
    check("OSU column header", header(r.stdout) == "%-10s%20s" % ("# Size", "Avg Latency(us)"), repr(header(r.stdout)))
    rows = data_rows(r.stdout)
    check("bcast sizes 1..1024", [int(row[0]) for row in rows] == [2 ** k for k in range(11)], rows)
    check("bcast latencies are positive numbers", all(len(row) == 2 and float(row[1]) > 0 for row in rows), rows)
    check("OSU row layout (%-10d%20.2f)", all(re.fullmatch(r"\d+ +\d+\.\d\d", line) and len(line) == 30
                                                for line in r.stdout.splitlines() if not line.startswith("#")),
          r.stdout)


def test_full_and_validation():
    r = bench(2, "allgather", "-m", "4:64", "-i", "15", "-x", "1", "-f", "-c", "--algorithm", "ring")
    check("allgather -f -c exit 0", r.returncode == 0, r.stderr)
    check("-f -c columns", header(r.stdout).split() == ["#", "Size", "Avg", "Latency(us)", "Min", "Latency(us)",
                                                       "Max", "Latency(us)", "Iterations", "Validation"],
          header(r.stdout))
    rows = data_rows(r.stdout)
    check("-f iterations column is -i", rows and all(row[4] == "15" for row in rows), rows)
    check("-f min <= avg <= max", rows and all(float(row[2]) <= float(row[1]) <= float(row[3]) for row in rows), rows)
    check("-c every row passes", rows and all(row[5] == "Pass" for row in rows), rows)


def test_compare_bcast_validated():
    algs = ["mpi", "shm", "binomial", "knomial", "scatter_rd_allgather", "scatter_ring_allgather", "chain",
            "two_level", "auto"]
    r = bench(4, "bcast", "-m", "1:70000", "-i", "6", "-x", "1", "-c", "-k", "rotate", "--compare", ",".join(algs))
    check("bcast --compare -c -k rotate exit 0", r.returncode == 0, r.stderr)
    cols = header(r.stdout).split()
    check("one latency column per algorithm", all(f"{a}" in cols for a in algs) and cols.count("Avg(us)") == len(algs),
          cols)
    check("ratio columns against the first", [c for c in cols if "/" in c] == [f"{a}/mpi" for a in algs[1:]], cols)
    rows = data_rows(r.stdout)
    check("17 sizes up to 65536", [int(row[0]) for row in rows] == [2 ** k for k in range(17)], [row[0] for row in rows])
    check("every algorithm validated at every size", rows and all(row.count("Pass") == len(algs) for row in rows),
          rows)
    check("root rotation noted", "root rotate" in r.stdout, r.stdout)


def test_json_allgather():
    algs = ["mpi", "recursive_doubling", "ring", "bruck", "leader", "auto"]
    r = bench(4, "allgather", "-m", "1:4096", "-i", "5", "-x", "1", "-c", "--json", "--compare", ",".join(algs),
              env={"CANOPY_HOSTMAP": hostmap(["a:2", "b:2"])})
    check("allgather --json exit 0", r.returncode == 0, r.stderr)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        check("--json parses", False, f"{e}: {r.stdout[:300]}")
        return
    check("json collective and ranks", (doc["collective"], doc["ranks"], doc["nodes"]) == ("allgather", 4, 2), doc)
    check("json algorithms", doc["algorithms"] == algs, doc["algorithms"])
    check("json sizes", [row["size"] for row in doc["results"]] == [2 ** k for k in range(13)], doc["results"])
    for row in doc["results"]:
        lat = row["latency_us"]
        check(f"json {row['size']}: every algorithm measured",
              sorted(lat) == sorted(algs) and all(lat[a]["min"] <= lat[a]["avg"] <= lat[a]["max"] for a in algs), lat)
        check(f"json {row['size']}: validation passed", all(row["validation"][a]["passed"] for a in algs),
              row["validation"])
        check(f"json {row['size']}: ratios", sorted(row["ratio_to_first"]) == sorted(algs[1:]) and all(
            abs(row["ratio_to_first"][a] - lat[a]["avg"] / lat["mpi"]["avg"]) < 1e-9 for a in algs[1:]),
              row["ratio_to_first"])


# OSU's titles, and the first size -m 1:MAX gives (reductions: whole MPI_FLOATs).
NEW_COLLECTIVES = {"scatter": ("Scatter", True, "MPI_CHAR", 1), "gather": ("Gather", True, "MPI_CHAR", 1),
                   "alltoall": ("All-to-All Personalized Exchange", False, "MPI_CHAR", 1),
                   "reduce": ("Reduce", True, "MPI_FLOAT", 4), "allreduce": ("Allreduce", False, "MPI_FLOAT", 4)}


def catalogue_algorithms(coll):
    """auto and every catalogue algorithm of @p coll (mpi among them), as bench's error for an unknown name lists them."""
    r = bench(2, coll, "--algorithm", "nosuch")
    m = re.search(r"no %s algorithm 'nosuch' \((auto, [^)]*)\)" % coll, r.stderr)
    check(f"{coll}: algorithms listed", m is not None, r.stderr)
    return [a.strip() for a in m.group(1).split(",")] if m else []


def test_every_collective_validated():
    for coll, (title, rooted, datatype, first) in NEW_COLLECTIVES.items():
        algs = catalogue_algorithms(coll)
        if not algs:
            continue
        r = bench(4, coll, "-m", "1:512", "-i", "3", "-x", "1", "-c", *(["-k", "rotate"] if rooted else []),
                  "--compare", ",".join(algs))
        check(f"{coll} --compare -c exit 0", r.returncode == 0, r.stderr[-2000:])
        lines = r.stdout.splitlines()
        check(f"{coll}: OSU title", lines and lines[0].startswith(f"# Canopy MPI {title} Latency Test v"), lines[:1])
        check(f"{coll}: datatype", f"# Datatype: {datatype}." in lines, lines)
        rows = data_rows(r.stdout)
        sizes = [first * 2 ** k for k in range(10) if first * 2 ** k <= 512]
        check(f"{coll}: sizes", [int(row[0]) for row in rows] == sizes, [row[0] for row in rows])
        check(f"{coll}: every algorithm validated at every size ({len(algs)})",
              rows and all(row.count("Pass") == len(algs) for row in rows), rows)


def test_json_allreduce():
    algs = ["mpi", "recursive_doubling", "reduce_scatter_allgather", "ring", "two_level", "auto"]
    r = bench(4, "allreduce", "-m", "1:1024", "-i", "4", "-x", "1", "-c", "--json", "--compare", ",".join(algs),
              env={"CANOPY_HOSTMAP": hostmap(["a:2", "b:2"])})
    check("allreduce --json exit 0", r.returncode == 0, r.stderr)
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    check("allreduce json: collective, nodes", (doc.get("collective"), doc.get("nodes")) == ("allreduce", 2), doc)
    results = doc.get("results", [])
    check("allreduce json: float sizes 4..1024", [row["size"] for row in results] == [4 * 2 ** k for k in range(9)],
          results)
    check("allreduce json: every algorithm passed", results and all(
        row["validation"][a] == {"passed": True, "wrong_bytes": 0} for row in results for a in algs), results)


def test_barrier_and_smp_paper():
    r = bench(2, "barrier", "-i", "20", "-x", "2", "-f", "--compare", "mpi,dissemination,shm")
    check("barrier --compare exit 0", r.returncode == 0, r.stderr)
    check("barrier header has no size", header(r.stdout).startswith("# mpi Avg(us)"), header(r.stdout))
    rows = data_rows(r.stdout)
    check("barrier: one row", len(rows) == 1 and len(rows[0]) == 3 * 3 + 1 + 2, rows)
    r = bench(2, "bcast", "-m", "1:256", "-i", "10", "-x", "1", "--method", "smp-paper", "--purge-bytes", "65536",
              "--json", "--algorithm", "shm")
    check("smp-paper exit 0", r.returncode == 0, r.stderr)
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    check("smp-paper in json", doc.get("method") == "smp-paper" and doc.get("purge_bytes") == 65536, doc)
    check("smp-paper sizes", [row["size"] for row in doc.get("results", [])] == [1, 2, 4, 8, 16, 32, 64, 128, 256], doc)
    # Over the calls' maxima, the percentiles lie between the extremes, in order.
    lat = [row["latency_us"]["shm"] for row in doc.get("results", [])]
    check("smp-paper percentiles ordered", lat and all(
        x["min"] <= x["p50"] <= x["p90"] <= x["p99"] <= x["max"] for x in lat), lat)
    r = bench(2, "allgather", "-m", "8:16", "-i", "10", "-z", "--compare", "mpi,ring")
    check("-z columns", r.returncode == 0 and header(r.stdout).split()[-7:] == [
        "ring", "P50(us)", "ring", "P90(us)", "ring", "P99(us)", "ring/mpi"], header(r.stdout))


def test_plot():
    with tempfile.TemporaryDirectory(dir=SCRATCH) as d:
        svg = os.path.join(d, "bcast.svg")
        r = bench(2, "bcast", "-m", "1:4096", "-i", "5", "-x", "1", "--compare", "mpi,shm,auto", "--plot", svg)
        check("--plot exit 0", r.returncode == 0, r.stderr)
        try:
            root = ET.parse(svg).getroot()
            texts = " ".join(t for t in root.itertext())
            check("--plot writes an SVG", root.tag.endswith("svg"), root.tag)
            check("--plot names every algorithm", all(a in texts for a in ("mpi", "shm", "auto")), texts[:400])
        except (OSError, ET.ParseError) as e:
            check("--plot writes an SVG", False, str(e))
        check("--plot leaves no temporary", os.listdir(d) == ["bcast.svg"], os.listdir(d))
        r = bench(2, "bcast", "-m", "1:8", "-i", "2", "--plot", os.path.join(d, "missing", "x.svg"))
        check("--plot into a missing folder fails before measuring",
              r.returncode != 0 and r.stderr.count("no folder") == 1 and "Avg" not in r.stdout, r.stderr + r.stdout)


def selections(stderr):
    """{bytes: (algorithm, reason)} from CANOPY_LOG_LEVEL=info's per-call lines."""
    found = {}
    for m in re.finditer(r"\[info\] \w+ (\d+) bytes, .*: (\w+) \((.*)\)$", stderr, re.M):
        found[int(m.group(1))] = (m.group(2), m.group(3))
    return found


def test_write_tuning():
    """Rules for the run's shape, first, in place of that shape's old ones; the rest kept; the
    selection then follows them at every measured size and leaves larger sizes to the rules after."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as d:
        tuning = os.path.join(d, "tuning.json")
        shape = {"comm_size": [4, 4], "nodes": [2, 2], "ranks_per_node": [2, 2]}
        old = {"note": "kept",
               "bcast": [{"nodes": [3, None], "algorithm": "binomial"}],
               "allgather": [dict(shape, library="open_mpi", algorithm="ring"),
                             dict(shape, library="mpich", algorithm="ring"),
                             {"comm_size": [1, 64], "algorithm": "bruck"}]}
        with open(tuning, "w") as f:
            json.dump(old, f)
        env = {"CANOPY_HOSTMAP": hostmap(["a", "a", "b", "b"])}
        r = bench(4, "allgather", "-m", "1:2048", "-i", "10", "-x", "1", "--rounds", "2", "-c", "--json",
                  "--compare", "all", "--write-tuning", tuning, env=env)
        check("--compare all --write-tuning exit 0", r.returncode == 0, r.stderr)
        check("--write-tuning says what it wrote",
              re.search(r"\d+ allgather rules? for 4 ranks on 2 nodes \(open_mpi\) written to ", r.stderr), r.stderr)
        doc = json.loads(r.stdout)
        algs = doc["algorithms"]
        check("--compare all: mpi, Canopy's algorithms, auto", algs[0] == "mpi" and algs[-1] == "auto" and
              {"ring", "bruck", "multi_leader_p2p", "multi_leader_shm"} <= set(algs), algs)
        auto = {row["size"]: row["auto_algorithm"] for row in doc["results"]}
        with open(tuning) as f:
            written = json.load(f)
        rules = written["allgather"]
        new = [rule for rule in rules if rule.get("library") == "open_mpi" and rule.get("nodes") == [2, 2]]
        check("other keys and collectives kept", written["note"] == "kept" and written["bcast"] == old["bcast"], written)
        check("the shape's old rule replaced, other shapes' rules kept after the new ones",
              rules[len(new):] == old["allgather"][1:] and rules[:len(new)] == new, rules)
        check("new rules: this shape, Canopy's names",
              new and all({k: rule[k] for k in shape} == shape and rule["algorithm"] in algs[:-1] + list(auto.values())
                          for rule in new), new)
        ranges = [rule["bytes"] for rule in new]
        check("new rules cover 1..2048 once, in order",
              ranges and ranges[0][0] == 1 and ranges[-1][1] == 2048 and
              all(a[1] + 1 == b[0] for a, b in zip(ranges, ranges[1:])), ranges)
        check("neighbouring rules differ", all(a["algorithm"] != b["algorithm"] for a, b in zip(new, new[1:])), new)
        check("no temporary left", os.listdir(d) == ["tuning.json"], os.listdir(d))
        r = bench(4, "allgather", "-m", "1:4096", "-i", "1", "-x", "0",
                  env=dict(env, CANOPY_COLL_TUNING_FILE=tuning, CANOPY_LOG_LEVEL="info"))
        chosen = selections(r.stderr)
        expected = {size: rule["algorithm"] for rule in new for size in auto if rule["bytes"][0] <= size <= rule["bytes"][1]}
        check("the selection follows the written rules at every measured size",
              r.returncode == 0 and all(chosen.get(size, ("",))[0] == alg and
                                        "tuning file " + tuning + " rule " in chosen[size][1]
                                        for size, alg in expected.items()), (chosen, expected))
        check("larger sizes left to the rules after them (the kept comm_size [1, 64] rule)",
              chosen.get(4096, ("",))[0] == "bruck", chosen)

        with open(tuning, "w") as f:
            f.write('{"allgather": [{"algorithm": "nosuch"}]}')
        r = bench(4, "allgather", "-m", "1:8", "-i", "2", "--compare", "mpi,ring", "--write-tuning", tuning, env=env)
        with open(tuning) as f:
            kept = f.read()
        check("a tuning file that does not parse: refused before measuring, left as it was",
              r.returncode == 1 and r.stderr.count("'nosuch' is not a allgather algorithm") == 1 and
              "Avg" not in r.stdout and "nosuch" in kept, r.stderr + r.stdout)
        r = bench(4, "bcast", "-m", "1:4", "-i", "2", "-x", "0", "--compare", "all", env=env)
        check("--compare all on two nodes leaves shm out", r.returncode == 0 and "# Algorithms: mpi, " in r.stdout
              and " shm," not in r.stdout and "two_level" in r.stdout, r.stdout + r.stderr)
        fresh = os.path.join(d, "fresh.json")
        r = bench(2, "bcast", "-m", "1:64", "-i", "4", "-x", "0", "-c", "--compare", "mpi,binomial",
                  "--write-tuning", fresh, env={"LD_PRELOAD": SHIM})
        check("a failed validation writes no tuning file",
              r.returncode != 0 and "tuning file " + fresh + " not written" in r.stderr and not os.path.exists(fresh),
              r.stderr)


def test_validation_can_fail():
    r = bench(2, "bcast", "-m", "1:64", "-i", "4", "-x", "0", "-c", "--compare", "mpi,binomial",
              env={"LD_PRELOAD": SHIM})
    rows = data_rows(r.stdout)
    check("corrupted MPI_Bcast: exit status 1", r.returncode != 0, r.returncode)
    check("corrupted MPI_Bcast: mpi fails, binomial passes",
          rows and all(row[3:5] == ["Fail", "Pass"] for row in rows), rows)
    check("corrupted MPI_Bcast: error names mpi", "validation failed: mpi at 1 bytes" in r.stderr, r.stderr)


def hostmap(lines):
    path = os.path.join(SCRATCH, "bench_hostmap.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_errors():
    cases = [
        (["nosuch"], "canopy bench: error: COLLECTIVE: unknown collective 'nosuch'"),
        (["bcast", "--algorithm", "nosuch"], "no bcast algorithm 'nosuch' (auto, binomial"),
        (["bcast", "--compare", "mpi"], "needs at least two algorithms"),
        (["bcast", "--compare", "mpi,shm,mpi"], "'mpi' is listed twice"),
        (["bcast", "-m", "64:8"], "minimum 64 is above maximum 8"),
        (["bcast", "-m", "x"], "invalid message size 'x'"),
        (["bcast", "-k", "fixed:5"], "root rank 5 is not below the 2 ranks"),
        (["bcast", "-k", "sideways"], "invalid root 'sideways'"),
        (["allgather", "-k", "rotate"], "allgather has no root"),
        (["barrier", "-c"], "barrier has no data to validate"),
        (["barrier", "-m", "8"], "barrier has no message size"),
        (["reduce", "-m", "2"], "reduce needs at least 4 bytes (one MPI_FLOAT)"),
        (["alltoall", "-k", "fixed:1"], "alltoall has no root"),
        (["bcast", "--method", "fast"], "unknown method 'fast'"),
        (["bcast", "--purge-bytes", "100"], "applies to --method smp-paper only"),
        (["bcast", "--plot", "out.png"], "is not a FILE.svg"),
        (["bcast", "-i", "0"], "--iterations: must be at least 1, not 0"),
        (["bcast", "-x", "-1"], "--warmup: must be at least 0, not -1"),
        (["bcast", "--method", "smp-paper", "--purge-bytes", "-5"], "--purge-bytes: must be at least 0, not -5"),
        (["bcast", "--method", "smp-paper", "--purge-bytes", "2e9"], "--purge-bytes: must be at most 1073741824"),
        (["bcast", "--algorithm", "shm", "--compare", "mpi,shm"], "excludes"),
        (["bcast", "--write-tuning", "t.json"], "--write-tuning: needs --compare"),
    ]
    for args, message in cases:
        r = bench(2, *args)
        check(f"error {' '.join(args)}: exit 2, said once",
              r.returncode == 2 and r.stderr.count(message) == 1 and r.stdout.strip() == "",
              f"rc={r.returncode} stderr={r.stderr!r}")
    r = bench(2, "bcast", "--algorithm", "shm", env={"CANOPY_HOSTMAP": hostmap(["a", "b"])})
    check("shm on two virtual hosts: refused, not mislabelled",
          r.returncode != 0 and r.stderr.count("bcast algorithm 'shm' cannot run on") == 1, r.stderr)
    r = bench(1, "bcast")
    check("one rank: refused", r.returncode != 0 and "at least 2 ranks" in r.stderr, r.stderr)


for test in (test_help, test_osu_format, test_full_and_validation, test_compare_bcast_validated, test_json_allgather,
             test_every_collective_validated, test_json_allreduce,
             test_barrier_and_smp_paper, test_plot, test_write_tuning, test_validation_can_fail, test_errors):
    test()
print(f"{len(failures)} failures" if failures else "all passed")
sys.exit(1 if failures else 0)
