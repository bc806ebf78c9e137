#!/usr/bin/env python3
"""MPI task mapping under mpirun: test_topomap.py SCENARIO RUN_MPI HALO_APP API_APP LIBCANOPY_MPI SCRATCH DATA

Scenarios (NP ranks, the process grid, the hosts the ranks pretend to be on, the fabric):
  halo_npN          app_halo3d with MPI_Dist_graph_create_adjacent(reorder=1): the same output
                    without Canopy, with LD_PRELOAD=libcanopy-mpi.so, with CANOPY_DISABLE=1 and
                    with CANOPY_MAP_REORDER=0 (the last two: no rank renumbered);
                    under Canopy ranks are renumbered, the graph on the new communicator is
                    each vertex's (the app checks), and the log shows the decision
  general_npN       the same through MPI_Dist_graph_create, unweighted
  cart_npN          the same through MPI_Cart_create (the grid's neighbours, unweighted; MPI_Cart_map
                    first gives each rank the rank the constructor gives it); at 8 ranks
                    also with a grid of 4 ranks (2x2x1: ranks 4-7 are left out, get MPI_COMM_NULL
                    and take no part in the mapping)
  graph1_np8        the same through MPI_Graph_create (the MPI-1 graph of the whole stencil; MPI_Graph_map
                    likewise)
  record_npN        app_halo3d with CANOPY_MAP_RECORD_GRAPH=FILE, every rank on one host (so no rank
                    moves), with MPI_Isend, with persistent sends and with neighbourhood collectives
                    (on the distributed graph and on the Cartesian grid): FILE is the stencil's edge
                    list, every face's bytes of every iteration, the same output as without Canopy
  uneven_np8        halo_np8 with 3 ranks on one host and 5 on the other: mapped, each host keeping its count
  group_steps_np8   halo_np8 with CANOPY_MAP_ANNEAL_MOVES=5 and CANOPY_MAP_ANNEAL_PROCESS_MOVES=5 (two
                    hosts on the tree), then on two hosts of a ring torus
                    CANOPY_MAP_ANALYTIC_ITERATIONS=5, unset (on by default there) and 0:
                    the decision says the step ran and found nothing, or with 0 does not mention it;
                    with -1 (and 1001 iterations), a warning and the ranks' order
  single_switch_npN no map_fabric: the single-switch model still gathers neighbours on a host
  bad_fabric_npN    map_fabric names no file: a warning, ranks keep their order, same output
  api_npN           app_topomap_api: canopy_topomap, _tree, _bipartition (no coordinates: an error)
  api_torus_np4     app_topomap_api on a ring torus, where _bipartition succeeds
  bindings_np2      two ranks on one host and the live node: bound to cores (MPI_BIND=core),
                    the decision uses their cores (cross-socket bytes); unbound, it says why not;
                    on a node of one core with two PUs (HWLOC_XMLFILE), bound to hardware
                    threads, it uses their PUs
  packages_npN      a line of N ranks on one host bound to its two packages in turn (MPI_BIND=socket, the
                    launcher and the ranks reading an hwloc XML of two one-core packages): the decision
                    places them on packages, every neighbour pair across them before, one after
  fortran_X_npN     scenario X_npN (halo, cart, graph1, record) with HALO_APP the Fortran twin of app_halo3d
                    (app_halo3d.F90, `use mpi`; f08_X_npN: its `use mpi_f08` build), which also
                    calls each intercepted collective once
                    and checks its result: under Canopy each of them is logged as intercepted;
                    record also with MPI_Sendrecv
The ranks are spread over two hosts of a Slurm tree (different leaf switches) like a
checkerboard, the worst placement of a stencil, so a mapping must move ranks.
"""
import os
import re
import subprocess
import sys

SCENARIO, RUN_MPI, HALO, API, LIB, SCRATCH, DATA = sys.argv[1:8]
FORTRAN = SCENARIO.startswith(("fortran_", "f08_"))
COLLECTIVES = ("bcast", "allgather", "barrier", "scatter", "gather", "alltoall", "reduce", "allreduce")
TREE = os.path.join(DATA, "slurm", "tree.conf")          # node001-004 on leaf0, node005-008 on leaf1
RING = os.path.join(DATA, "torus", "ring8.torus")        # hosts r0..r7 on an 8-router ring


def grid(np_):
    return {8: (2, 2, 2), 4: (2, 2, 1)}[np_]


def checkerboard(dims, names):
    px, py, pz = dims
    return [names[(r % px + r // px % py + r // (px * py)) % 2] for r in range(px * py * pz)]


def write_hostmap(name, hosts):
    path = os.path.join(SCRATCH, f"topomap-{name}.hostmap")
    with open(path, "w") as f:
        f.write("\n".join(hosts) + "\n")
    return path


def run(np_, argv, env=None, expect_rc=0, bind=None, launcher_env=None):
    full = dict(os.environ, **(launcher_env or {}))
    full["MPI_ENV"] = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    if bind:
        full["MPI_BIND"] = bind
    p = subprocess.run([RUN_MPI, "150", str(np_)] + argv, env=full, capture_output=True, text=True)
    if p.returncode != expect_rc:
        sys.exit(f"FAILED: {' '.join(argv)} with {full['MPI_ENV']!r}: exit {p.returncode}\n"
                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p.stdout, p.stderr


def renumbered(stderr):
    m = re.search(r"renumbered ranks: (\d+)", stderr)
    if not m or "graph check: ok" not in stderr:
        sys.exit(f"FAILED: the application did not report a good graph:\n{stderr}")
    return int(m.group(1))


def canopy_env(hostmap, fabric, **extra):
    env = {"LD_PRELOAD": LIB, "CANOPY_LOG_LEVEL": "info", "CANOPY_HOSTMAP": hostmap}
    if fabric is not None:
        env["CANOPY_MAP_FABRIC"] = fabric
    env.update(extra)
    return env


def halo(np_, app_args, fabric, expect_mapped, check_disabled=False, hosts=None, decision_says="", extra_env=None,
         decision_absent=None, dims=None, bind=None, launcher_env=None):
    dims = dims or grid(np_)
    hostmap = write_hostmap(SCENARIO, hosts or checkerboard(dims, ["node001", "node005"]))
    argv = [HALO] + [str(d) for d in dims] + app_args
    plain_out, plain_err = run(np_, argv, bind=bind, launcher_env=launcher_env)
    out, err = run(np_, argv, canopy_env(hostmap, fabric, **(extra_env or {})), bind=bind, launcher_env=launcher_env)
    if out != plain_out:
        sys.exit(f"FAILED: output differs under Canopy:\n--- plain\n{plain_out}--- canopy\n{out}\n{err}")
    moved = renumbered(err)
    if FORTRAN:  # the Fortran program's collectives went through Canopy's and gave the right results
        missed = [c for c in COLLECTIVES if not re.search(rf"canopy \[info\] {c} \d+ bytes", err)]
        if "collectives check: ok" not in err or missed:
            sys.exit(f"FAILED: the Fortran collectives (not intercepted: {missed}):\n{err}")
        print(f"Fortran collectives intercepted: {', '.join(COLLECTIVES)}; collectives check: ok")
    call = "MPI_Cart_create:" if "--cart" in app_args else "MPI_Graph_create:" if "--graph1" in app_args \
        else "MPI_Dist_graph_create:"
    decision = [line for line in err.splitlines() if call in line]
    print(f"plain run: {renumbered(plain_err)} ranks renumbered; under Canopy: {moved}")
    print("\n".join(decision))
    says = decision_says if isinstance(decision_says, tuple) else (decision_says,)
    if not decision or any(part not in decision[0] for part in says):
        sys.exit(f"FAILED: Canopy logged no decision for MPI_Dist_graph_create saying {decision_says!r}:\n{err}")
    if ("--cart" in app_args or "--graph1" in app_args) and "map check: ok" not in err:
        sys.exit(f"FAILED: MPI_Cart_map / MPI_Graph_map did not give each rank its reordered rank:\n{err}")
    if decision_absent and decision_absent in decision[0]:
        sys.exit(f"FAILED: the decision should not mention {decision_absent!r}:\n{err}")
    if expect_mapped and moved == 0:
        sys.exit(f"FAILED: the checkerboard placement was not improved:\n{err}")
    if not expect_mapped and (moved != 0 or "task mapping failed" not in err):
        sys.exit(f"FAILED: expected a warning and the identity order:\n{err}")
    if check_disabled:
        for variable in ("CANOPY_DISABLE", "CANOPY_MAP_REORDER"):
            value = "1" if variable == "CANOPY_DISABLE" else "0"
            out, err = run(np_, argv, canopy_env(hostmap, fabric, **{variable: value}))
            if out != plain_out or call in err or renumbered(err) != 0:
                sys.exit(f"FAILED: {variable}={value} did not pass the call through:\n{out}\n{err}")
            print(f"{variable}={value}: passed through, {renumbered(err)} ranks renumbered")
    print(f"output ({len(plain_out.splitlines())} lines) identical:\n{plain_out}", end="")


def record(np_):
    """The bytes the halo exchange sends, recorded at MPI_Finalize as an edge list."""
    dims = grid(np_)
    path = os.path.join(SCRATCH, f"topomap-{SCENARIO}.edges")
    if os.path.exists(path):
        os.remove(path)
    px, py, pz = dims
    coords = [(r % px, r // px % py, r // (px * py)) for r in range(np_)]
    expected = {(a, b): 3 * 6 * 6 * 8 for a in range(np_) for b in range(np_)
                if sum(abs(x - y) for x, y in zip(coords[a], coords[b])) == 1}  # 3 iterations of 6x6 long longs
    hostmap = write_hostmap(SCENARIO, ["node001"] * np_)  # one host: nothing to gain, no rank moves
    # MPI_Isend; MPI_Send_init and MPI_Startall; neighbourhood collectives on the distributed graph and on
    # the Cartesian grid (whose edges have MPI_PROC_NULL neighbours); the Fortran program also MPI_Sendrecv
    for sends in ([], ["--persistent"], ["--neighbor"], ["--cart", "--neighbor"]) + \
            ((["--sendrecv"],) if FORTRAN else ()):
        # the neighbourhood collectives end with each rank's rank (an int) to each neighbour
        edge_bytes = {edge: volume + (4 if "--neighbor" in sends else 0) for edge, volume in expected.items()}
        argv = [HALO] + [str(d) for d in dims] + ["--iterations", "3"] + sends
        plain_out, _ = run(np_, argv)
        out, err = run(np_, argv, canopy_env(hostmap, "slurm:" + TREE, CANOPY_MAP_RECORD_GRAPH=path))
        if out != plain_out or renumbered(err) != 0:
            sys.exit(f"FAILED: recording changed the run:\n{out}\n{err}")
        lines = [line for line in open(path).read().splitlines() if not line.startswith("#")]
        edges = {tuple(map(int, line.split()[:2])): int(line.split()[2]) for line in lines[1:]}
        print(f"{' '.join(sends) or 'isend'}: recorded {len(edges)} edges: {lines[0]}; " +
              next(line for line in err.splitlines() if "map_record_graph" in line))
        if lines[0] != f"processes {np_}" or len(lines) != 1 + len(edges) or edges != edge_bytes:
            sys.exit(f"FAILED: the recorded graph is not the stencil's:\n{open(path).read()}\nexpected {edge_bytes}")
        os.remove(path)


def api(np_, torus):
    if torus:
        dims, hosts, fabric, rb = (4, 1, 1), ["r0", "r4", "r1", "r5"], "torus:" + RING, "ok"
    else:
        dims = grid(np_)
        hosts, fabric, rb = checkerboard(dims, ["node001", "node005"]), "slurm:" + TREE, "error"
    hostmap = write_hostmap(SCENARIO, hosts)
    env = {"CANOPY_LOG_LEVEL": "info", "CANOPY_HOSTMAP": hostmap, "CANOPY_MAP_FABRIC": fabric}
    out, err = run(np_, [API] + [str(d) for d in dims] + [hostmap, rb], env)
    print(out + "\n".join(line for line in err.splitlines() if "canopy_topomap" in line))


def bindings(np_):
    """Intra-node mapping on the live node takes the cores the ranks are bound to."""
    hostmap = write_hostmap(SCENARIO, ["node001"] * np_)
    argv = [HALO, str(np_), "1", "1"]
    for bind, expected in (("core", "cross-socket bytes"), (None, "is not bound to one core")):
        _, err = run(np_, argv, canopy_env(hostmap, "slurm:" + TREE), bind=bind)
        decision = [line for line in err.splitlines() if "MPI_Dist_graph_create:" in line]
        print(f"bind-to {bind or 'none'}: " + "\n".join(decision))
        if len(decision) != 1 or expected not in decision[0] or (bind and "no intra-node mapping" in decision[0]):
            sys.exit(f"FAILED: with bind-to {bind or 'none'} the decision should say {expected!r}:\n{err}")
    # Two ranks on one core, each on its own PU: hwloc reads the live node from an XML of one
    # core with two PUs (its PUs 0 and 1 are this machine's CPUs 0 and 1, which the launcher
    # binds the ranks to), so both ranks are on core 0 and the decision takes their PUs.
    smt = os.path.join(SCRATCH, "topomap-smt.xml")
    subprocess.run(["lstopo-no-graphics", "--input", "pack:1 core:1 pu:2", "--of", "xml", "-f", smt], check=True)
    _, err = run(np_, argv, canopy_env(hostmap, "slurm:" + TREE, HWLOC_XMLFILE=smt, HWLOC_THISSYSTEM="1"),
                 bind="hwthread")
    decision = [line for line in err.splitlines() if "MPI_Dist_graph_create:" in line]
    print("bind-to hwthread, one core of two PUs: " + "\n".join(decision))
    if len(decision) != 1 or f"{np_} ranks on 1 hosts x {np_} slots (on PUs)" not in decision[0] \
            or "no intra-node mapping" in decision[0]:
        sys.exit(f"FAILED: bound to hardware threads of one core, the decision should take the PUs:\n{err}")


def packages(np_):
    """Ranks bound to packages, several to one (Open MPI's default beyond two ranks): the intra-node
    mapping places them on packages. The launcher and hwloc in the ranks read a node of two packages
    of one core each (its PUs 0 and 1 are this machine's CPUs 0 and 1), round-robin binding puts every
    pair of neighbours of a line of NP ranks on different packages, and the mapping cuts the line once."""
    xml = os.path.join(SCRATCH, "topomap-packages.xml")
    subprocess.run(["lstopo-no-graphics", "--input", "pack:2 core:1 pu:1", "--of", "xml", "-f", xml], check=True)
    face = 6 * 6 * 8 * 2  # a face's bytes, both ways
    halo(np_, [], "slurm:" + TREE, True, hosts=["node001"] * np_, dims=(np_, 1, 1), bind="socket",
         launcher_env={"HWLOC_XMLFILE": xml, "HWLOC_THISSYSTEM": "1"},
         decision_says=(f"{np_} ranks on 1 hosts x {np_} slots (on packages)",
                        f"cross-socket bytes {(np_ - 1) * face} -> {face}"))


def main():
    name, np_ = SCENARIO.removeprefix("fortran_").removeprefix("f08_").rsplit("_np", 1)
    np_ = int(np_)
    tree = "slurm:" + TREE
    if name == "halo":
        halo(np_, [], tree, True, check_disabled=True)
    elif name == "general":
        halo(np_, ["--general", "--unweighted"], tree, True)
    elif name == "cart":
        halo(np_, ["--cart"], tree, True, check_disabled=True)
        if np_ == 8:  # a grid of the first 4 ranks: the other 4 are left out, and only the grid takes part
            halo(np_, ["--cart"], tree, True, dims=(2, 2, 1), decision_says="4 ranks on 2 hosts x 2 slots",
                 hosts=checkerboard((2, 2, 1), ["node001", "node005"]) + ["node001"] * 4)
    elif name == "graph1":
        halo(np_, ["--graph1"], tree, True)
    elif name == "uneven":  # 3 ranks on node001, 5 on node005; no two of node001's are grid neighbours
        hosts = ["node001", "node005", "node005", "node001", "node005", "node001", "node005", "node005"]
        halo(np_, [], tree, True, hosts=hosts, decision_says="8 ranks on 2 hosts with 3-5 slots")
    elif name == "group_steps":
        # Two hosts, on a tree for annealing and on a ring torus for analytic placement (on by default, where
        # coordinates exist): the steps run and find nothing to move (map_job's unit tests see them move groups).
        ring, on_ring = "torus:" + RING, checkerboard(grid(np_), ["r0", "r4"])
        analytic_found_nothing = "analytic placement of the host groups found nothing to keep"
        for variable, fabric, hosts, says, bad in (
                ("CANOPY_MAP_ANNEAL_MOVES", tree, None, "annealing of the host groups found nothing to keep", ["-1"]),
                ("CANOPY_MAP_ANNEAL_PROCESS_MOVES", tree, None, "annealing of the processes found nothing to keep",
                 ["-1"]),
                ("CANOPY_MAP_ANALYTIC_ITERATIONS", ring, on_ring, analytic_found_nothing, ["-1", "1001"])):
            halo(np_, [], fabric, True, hosts=hosts, decision_says=says, extra_env={variable: "5"})
            for value in bad:
                halo(np_, [], fabric, False, hosts=hosts, extra_env={variable: value})
        halo(np_, [], ring, True, hosts=on_ring, decision_says=analytic_found_nothing)  # on by default
        halo(np_, [], ring, True, hosts=on_ring, extra_env={"CANOPY_MAP_ANALYTIC_ITERATIONS": "0"},
             decision_absent="analytic")
    elif name == "record":
        record(np_)
    elif name == "single_switch":
        halo(np_, [], None, True)
    elif name == "bad_fabric":
        halo(np_, [], os.path.join(SCRATCH, "no-such-fabric"), False)
    elif name == "bindings":
        bindings(np_)
    elif name == "packages":
        packages(np_)
    elif name in ("api", "api_torus"):
        api(np_, name == "api_torus")
    else:
        sys.exit(f"unknown scenario {SCENARIO}")
    print("1 passed, 0 failed")


main()
