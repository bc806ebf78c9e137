#!/usr/bin/env python3
"""bench/mapping.sh end to end at its smallest size: every instance kind on the
three machines (fat tree, torus, fat tree with hosts of 8 and 24 slots), every
algorithm of this build, two mapping seeds, the raw results and the tables.
Checks the generators (27-point stencil edge count, symmetric mesh matrix) and
what the results must satisfy: every run succeeded, the seeded
algorithms ran once per seed and the others once, rt and rb are never worse in
hop-bytes than identity or block (the refinement's guard), the greedy baseline
is its placement alone and greedy-refined never above it, every mapping's bytes
across the machine's host cuts, weighted, add up to its hop-bytes on the real
routes (forwarding tables, dimension order), the per-cut relaxation is below
every mapping, the two charts are drawn, a machine whose hop counts are not
made of cuts gets no relaxation, a bad --seeds is refused,
--analytic-placement reaches every rt run, and with --anneal-moves and
--anneal-processes each rt run is followed by rt with its host groups and its
processes annealed, never above it, in a table of the report.

Usage: test_map_bench.py BUILD_DIR SOURCE_DIR"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUILD, SOURCE = sys.argv[1], sys.argv[2]
failures = []
TMP = tempfile.mkdtemp(prefix="canopy_map_bench_")


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(name)


def test_generators():
    out = os.path.join(TMP, "s27.edges")
    subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/gen_comm_graph.py"), "stencil", "--dims", "4x3x2",
                    "--points", "27", "--format", "edges", "-o", out], check=True)
    edges = [line for line in open(out) if not line.startswith("processes")]
    # Pairs of cells at Chebyshev distance 1 in a 4x3x2 grid: (3*3*3 - 1) / 2 offsets, counted per axis.
    expected = sum(max(0, 4 - abs(a)) * max(0, 3 - abs(b)) * max(0, 2 - abs(c))
                   for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)) // 2
    check("27-point stencil has every neighbour pair once", len(edges) == expected, f"{len(edges)} != {expected}")
    mesh = os.path.join(TMP, "mesh.mtx")
    subprocess.run([os.path.join(BUILD, "bin/bench_gen_mesh"), "--points", "500", "--neighbors", "6", "-o", mesh], check=True)
    lines = [line.split() for line in open(mesh) if not line.startswith("%")]
    rows, _, nnz = map(int, lines[0])
    entries = lines[1:]
    check("mesh matrix: announced entries", len(entries) == nnz, f"{len(entries)} != {nnz}")
    check("mesh matrix: lower triangle with a full diagonal",
          all(int(r) >= int(c) for r, c in entries) and sum(r == c for r, c in entries) == rows)
    degree = [0] * (rows + 1)
    for r, c in entries:
        if r != c:
            degree[int(r)] += 1
            degree[int(c)] += 1
    check("mesh matrix: every point has at least its k neighbours", min(degree[1:]) >= 6, min(degree[1:]))


def test_benchmark():
    out = os.path.join(TMP, "bench")
    bad = subprocess.run([os.path.join(SOURCE, "bench/mapping.sh"), "--seeds", "1,x", "--build", BUILD, "--out", out],
                         capture_output=True, text=True, timeout=60)
    check("mapping.sh refuses a bad --seeds", bad.returncode != 0 and "--seeds" in bad.stderr, bad.stderr[-300:])
    r = subprocess.run([os.path.join(SOURCE, "bench/mapping.sh"), "--sizes", "256", "--seeds", "1,2", "--build", BUILD,
                        "--out", out], capture_output=True, text=True, timeout=600)
    check("mapping.sh exits 0", r.returncode == 0, r.stderr[-2000:])
    check("mapping.sh reports progress", "stencil27, 256 processes, torus" in r.stderr, r.stderr[-500:])
    lines = [json.loads(line) for line in open(os.path.join(out, "results.jsonl"))]
    results = [x for x in lines if x["algorithm"] != "relaxation"]
    relaxations = {(x["machine"], x["instance"]): x for x in lines if x["algorithm"] == "relaxation"}
    algorithms = {(x["machine"], x["instance"]): set() for x in results}
    for x in results:
        algorithms[(x["machine"], x["instance"])].add(x["algorithm"])
        check(f"{x['machine']}/{x['instance']}/{x['algorithm']} ran", "metrics" in x or "skipped" in x, x.get("error"))
    check_relaxations(results, relaxations)
    check("the hops between 16 hosts: a 16 x 16 matrix", all(x["hop_table_bytes"] == 16 * 16 * 2 for x in results),
          {x["hop_table_bytes"] for x in results})
    check("15 instances", len(algorithms) == 15, sorted(algorithms))
    uneven = [line.split()[1] for line in open(os.path.join(out, "inputs", "fattree-32.16.fattree-uneven.hosts"))]
    check("fattree-uneven: hosts with 8 and 24 slots in turn", uneven == ["slots=8", "slots=24"] * 8, uneven)
    for (machine, instance), names in algorithms.items():
        want = {"identity", "block", "greedy", "greedy-refined", "rt"} | ({"rb"} if machine == "torus" else set())
        check(f"{machine}/{instance}: every algorithm", want <= names, names)
    seeds = {}
    for x in results:
        seeds.setdefault((x["machine"], x["instance"], x["algorithm"]), []).append(x.get("seed"))
    for (machine, instance, name), got in seeds.items():
        want = [1, 2] if name in ("rt", "rb", "scotch") else [None]
        check(f"{machine}/{instance}/{name}: runs per seed", got == want, got)
    by = {(x["machine"], x["instance"], x["algorithm"], x.get("seed")): x for x in results if "metrics" in x}
    for (machine, instance, name, seed), x in by.items():
        if name in ("rt", "rb"):
            floor = min(by[(machine, instance, b, None)]["metrics"]["hop_bytes"] for b in ("identity", "block"))
            check(f"{machine}/{instance}/{name}/seed {seed} not above identity or block",
                  x["metrics"]["hop_bytes"] <= floor * (1 + 1e-9), (x["metrics"]["hop_bytes"], floor))
    for (machine, instance, name, seed), x in by.items():
        if name == "greedy":  # the baseline: its placement alone
            check(f"{machine}/{instance}/greedy: no Canopy step",
                  x["refined_from"] == "" and x["moved_groups"] == [] and set(x["seconds"]) <= {"map", "intra", "total", "total_cpu"},
                  (x["refined_from"], x["moved_groups"], sorted(x["seconds"])))
            refined = by[(machine, instance, "greedy-refined", None)]
            check(f"{machine}/{instance}/greedy-refined not above greedy",
                  refined["metrics"]["hop_bytes"] <= x["metrics"]["hop_bytes"] * (1 + 1e-9),
                  (refined["metrics"]["hop_bytes"], x["metrics"]["hop_bytes"]))
    rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
    check("CSV has a row per run", len(rows) == len(results), (len(rows), len(results)))
    for chart in ("hop-bytes.svg", "time.svg"):
        text = open(os.path.join(out, chart)).read() if os.path.exists(os.path.join(out, chart)) else ""
        check(f"chart {chart}: an SVG with a panel per machine and instance kind",
              text.rstrip().endswith("</svg>") and all(f"{m}, {i}" in text for m in ("fattree", "torus", "fattree-uneven")
                                                       for i in ("stencil7", "stencil27", "mesh", "amr", "random")),
              text[:200])
    table = open(os.path.join(out, "results.md")).read()
    check("markdown tables", "### Hop-bytes relative to the best baseline" in table and "### Targets" in table
          and "### Spread over the seeds" in table and "### Per-cut relaxation" in table
          and table.count("| torus | mesh | 256 |") == 5, table[:400])


def check_relaxations(results, relaxations):
    check("a relaxation per instance", len(relaxations) == 15, sorted(relaxations))
    for (machine, instance), relax in relaxations.items():
        cuts = relax.get("cuts", [])
        # 256 processes: 16 hosts of a 3-level fat tree, or of a 4x4x4 torus (host links and 2 cuts per ring).
        names = [c["name"] for c in cuts]
        want = ["level 1", "level 2", "level 3"] if machine.startswith("fattree") else ["hosts"] + [f"dim {d} at {i}" for d in range(3) for i in range(2)]
        check(f"{machine}/{instance}: the machine's cuts", names == want, (names, relax.get("skipped")))
        mappings = [x for x in results if (x["machine"], x["instance"]) == (machine, instance) and "metrics" in x]
        for x in mappings:
            across = x.get("bytes_across_cuts", [])
            weighted = sum(c["weight"] * b for c, b in zip(cuts, across))
            hop_bytes = x["metrics"]["hop_bytes"]
            check(f"{machine}/{instance}/{x['algorithm']}/{x.get('seed')}: weighted cuts = hop-bytes",
                  len(across) == len(cuts) and abs(weighted - hop_bytes) <= 1e-9 * hop_bytes, (weighted, hop_bytes))
        lowest = min(x["metrics"]["hop_bytes"] for x in mappings)
        check(f"{machine}/{instance}: relaxation positive and below every mapping",
              0 < relax.get("hop_bytes", 0) <= lowest * (1 + 1e-9), (relax.get("hop_bytes"), lowest))


def torus_file(name, side):
    """A side x side x side torus whose hosts are t{x}{y}{z}; its path."""
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(f"dims {side} {side} {side}\n" + "".join(f"host t{x}{y}{z} {x} {y} {z}\n" for z in range(side)
                                                       for y in range(side) for x in range(side)))
    return path


def bench_map_on_torus(graph, torus, hosts, out, *options):
    """bench_map's JSON lines ([] when it failed) and the finished process."""
    r = subprocess.run([os.path.join(BUILD, "bin/bench_map"), "--graph", graph, "--fabric", "torus:" + torus, "--hosts", hosts,
                        "--out", out, *options], capture_output=True, text=True, timeout=120)
    return ([json.loads(line) for line in open(out)] if r.returncode == 0 else []), r


def test_group_steps_probe():
    # 16 hosts scattered over a 4x4x4 torus, 16 slots each, an AMR pattern: rt's host groups placed analytically
    # (--analytic-placement sets every rt run's iterations) and annealed (the "moved" line).
    torus = torus_file("t4.torus", 4)
    hosts = os.path.join(TMP, "t4.hosts")
    with open(hosts, "w") as f:
        f.write("".join(f"t{i % 4}{i // 4 % 4}{i // 16}\n" for i in range(0, 64, 4)))
    graph = os.path.join(TMP, "amr.graph")
    subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/gen_comm_graph.py"), "amr", "--processes", "256",
                    "--seed", "1", "-o", graph], check=True)
    results = os.path.join(TMP, "moved.jsonl")
    lines, r = bench_map_on_torus(graph, torus, hosts, results, "--ppn", "16", "--algorithms", "identity,rt", "--seeds",
                                  "1,2", "--analytic-placement", "5", "--anneal-moves", "2000", "--anneal-processes", "500",
                                  "--instance", "amr",
                                  "--machine", "t4")
    rt = {x["seed"]: x for x in lines if x["algorithm"] == "rt"}
    moved = {x["seed"]: x for x in lines if x["algorithm"] == "moved"}
    check("group steps: a line per rt seed", r.returncode == 0 and sorted(moved) == [1, 2] == sorted(rt), r.stderr[-500:])
    for seed, a in moved.items():
        check(f"group steps seed {seed}: rt placed analytically, and annealed on its moved line, each step timed",
              "analytic" in rt[seed].get("seconds", {}) and "moved_groups" in rt[seed]
              and a.get("moved_from") == "rt" and a.get("moves_per_host") == 2000 and a.get("moves_per_process") == 500
              and {"analytic", "anneal", "anneal-processes"} <= set(a.get("seconds", {})), (rt[seed], a))
        check(f"group steps seed {seed}: never above rt", a["metrics"]["hop_bytes"] <= rt[seed]["metrics"]["hop_bytes"],
              (a["metrics"]["hop_bytes"], rt[seed]["metrics"]["hop_bytes"]))
    tables = os.path.join(TMP, "moved.md")
    subprocess.run([sys.executable, os.path.join(SOURCE, "bench/mapping_report.py"), results, "--markdown", tables], check=True)
    row = [line for line in open(tables) if line.startswith("| t4 | amr | 256 | 2,000 | 500 |")]
    check("group steps: the report's table has the instance's row", len(row) == 1, open(tables).read()[-800:])
    for option in ("--analytic-placement", "--anneal-moves", "--anneal-processes"):
        bad = subprocess.run([os.path.join(SOURCE, "bench/mapping.sh"), option, "-1", "--build", BUILD, "--out",
                              os.path.join(TMP, "bad")], capture_output=True, text=True, timeout=60)
        check(f"mapping.sh refuses a bad {option}", bad.returncode != 0 and option in bad.stderr, bad.stderr[-300:])


def test_relaxation_skipped_where_hops_are_not_cuts():
    # A 3x3x3 torus: its rings have odd length, and no diametral cuts count their distances.
    torus = torus_file("odd.torus", 3)
    hosts = os.path.join(TMP, "odd.hosts")
    with open(hosts, "w") as f:
        f.write("".join(f"t{x}{y}{z}\n" for z in range(3) for y in range(3) for x in range(3)))
    graph = os.path.join(TMP, "odd.graph")
    subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/gen_comm_graph.py"), "stencil", "--dims", "3x3x3",
                    "-o", graph], check=True)
    lines, r = bench_map_on_torus(graph, torus, hosts, os.path.join(TMP, "odd.jsonl"), "--ppn", "1", "--algorithms",
                                  "identity,rt", "--instance", "stencil", "--machine", "odd")
    check("bench_map on an odd torus", r.returncode == 0 and all("metrics" in x for x in lines[:-1]), r.stderr[-500:])
    relax = lines[-1] if lines else {}
    check("odd torus: no relaxation, and why", relax.get("algorithm") == "relaxation" and "hop_bytes" not in relax
          and "odd length 3" in relax.get("skipped", ""), relax)


try:
    test_generators()
    test_benchmark()
    test_relaxation_skipped_where_hops_are_not_cuts()
    test_group_steps_probe()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
