#!/usr/bin/env bash
# `make demo`: Canopy on a simulated InfiniBand cluster, end to end.
#   1. ibsim simulates the bundled 64-host two-level fat tree (data/fabrics/fat-tree-64.net);
#   2. OpenSM routes it with the ftree engine (checked in its log);
#   3. canopy-collect dumps it with the real ibnetdiscover and ibroute;
#   4-6. canopy loads the dump: summary, routes (checked against ibtracert), matrices, drawing;
#   7. OpenSM runs on as a daemon, canopy-collect --watch follows its log, canopyd serves the dumps;
#   8. a client asks canopyd over the protocol: query h0001:h0064, a matrix;
#   9. a cable on that route breaks in ibsim: OpenSM re-routes, the collector publishes
#      one new dump, canopyd reloads it;
#   10. canopyd answers the new route, checked against ibtracert;
#   11. canopy map places a 128-rank halo exchange on 16 hosts scattered over the fabric:
#       launcher files, the communication matrix before/after, the fabric drawn by link load;
#   12. the job's placements (identity, rt, rt+intra) timed in SimGrid SMPI on that fabric,
#       for the halo exchange and two sparse-matrix exchanges (bench/smpi_eval.sh);
#   13. 8 real MPI ranks placed on 4 fabric hosts (CANOPY_HOSTMAP): canopy bench --compare
#       measures Canopy's collectives against the MPI library's own, with a latency plot;
#   14. the topology-aware Bcast between node leaders: the 16 hosts of step 11 ordered by this
#       fabric's delays (SDR and DDR hosts), timed in SimGrid SMPI (bench/smpi_bcast.sh).
# Every background process (ibsim, OpenSM, collector, canopyd) is stopped on exit.
# Usage: scripts/demo.sh [BUILD_DIR]   (outputs in demo-output/, or $CANOPY_DEMO_DIR)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${CANOPY_DEMO_DIR:-$root/demo-output}
fabric=$root/data/fabrics/fat-tree-64.net
canopy=$build/bin/canopy
for tool in canopy canopy-collect canopyd; do
  [ -x "$build/bin/$tool" ] || { echo "demo: $build/bin/$tool is missing: build first" >&2; exit 1; }
done

# shellcheck source=ibsim_fabric.sh
source "$root/scripts/ibsim_fabric.sh"
# shellcheck source=canopy_services.sh
source "$root/scripts/canopy_services.sh"
# Step titles in bold on a terminal only: a log file gets plain text.
if [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
# Prints the command (arguments with spaces quoted, so that it can be pasted), then runs it.
show() {
  local arg line='$'
  for arg in "$@"; do [[ $arg == *[[:space:]]* ]] && arg="'$arg'"; line+=" $arg"; done
  printf '%s\n' "$line"
  "$@"
}

rm -rf "$out"
mkdir -p "$out"

step "1. ibsim simulates $(basename "$fabric") (64 hosts, 8 leaf and 8 spine switches, SDR and DDR links)"
ibsim_start "$fabric" "$out/ibsim"
trap 'canopyd_stop || true; collector_stop || true; ibsim_stop' EXIT

step "2. OpenSM routes it with the ftree engine"
ibsim_route ftree

step "3. canopy-collect dumps it with the real ibnetdiscover and ibroute"
ibsim_run "$build/bin/canopy-collect" --once --out "$out/dumps"
echo "$(readlink "$out/dumps/current"): $(ls "$out/dumps/current" | tr "\n" " ")with $(ls "$out/dumps/current/ibroute" | wc -l) ibroute files"

step "4. what canopy sees in the dump"
show "$canopy" topo "$out/dumps" --svg "$out/fabric.svg"

step "5. routes: the one the fabric uses, hop by hop"
show "$canopy" route "$out/dumps" h0001 h0002
show "$canopy" route "$out/dumps" h0001 h0064
echo "Canopy's routes against the fabric's own answer (ibtracert), 40 host pairs:"
python3 "$root/tests/e2e/compare_routes.py" --dump "$out/dumps/current" --pairs 40 --seed 1 \
  --preload "$IBSIM_UMAD2SIM" --expected ibtracert --actual canopy --canopy "$canopy"

step "6. matrices for an 8-host job scattered over the fabric"
printf 'h0001\nh0002\nh0017\nh0018\nh0033\nh0041\nh0057\nh0064\n' > "$out/job.hosts"
show "$canopy" route "$out/dumps" --matrix "$out/job.hosts"

step "7. the live service: OpenSM as a daemon, canopy-collect --watch on its log, canopyd on the dumps"
ibsim_opensm_start ftree
collector_start "$build/bin/canopy-collect" "$out/live" "$out/collector.log" \
  --opensm-log "$IBSIM_WORKDIR/osm.log" --settle 1
echo "collector: $(grep -m1 'published' "$out/collector.log")"
canopyd_start "$build/bin/canopyd" "$out/live" "$out/canopyd.log"
server=127.0.0.1:$CANOPYD_PORT
echo "canopyd on $server"
show "$canopy" query --server "$server" info

step "8. a client asks canopyd over the protocol"
show "$canopy" query --server "$server" 'query h0001:h0064' 'hops h0001 h0064'
show "$canopy" query --server "$server" 'matrix hops h0001 h0002 h0017 h0033 h0064'
show "$canopy" route --server "$server" --matrix "$out/job.hosts"

# The cable to break: where the route from h0001 to h0064 leaves its leaf
# (the second hop of `route`: NAME,GUID,IN_PORT,OUT_PORT,OUT_GBPS).
read -r leaf port < <("$canopy" query --server "$server" 'route h0001 h0064' | awk '{split($6, hop, ","); print hop[1], hop[4]}')
route_before=$("$canopy" query --server "$server" 'query h0001:h0064')
generation=$(canopyd_snapshot)

step "9. the cable at $leaf port $port breaks (ibsim); OpenSM re-routes; the collector and canopyd follow"
show ibsim_unlink "$leaf" "$port"
echo "(ibsim's 'ibwarn: ... routing failed' and 'trap repress' lines around here are expected: the switches' traps about the broken cable, sent while the fabric re-routes)"
canopy_wait_until 60 "a new dump" canopy_dumps_above "$out/live" 1
echo "OpenSM: $(grep -m1 'Received Generic Notice' "$IBSIM_WORKDIR/osm.log" | cut -d'>' -f2-)"
echo "OpenSM: routed with $(ibsim_engine_used) now (ftree wants a complete fat tree), then:$(grep -- '-> SUBNET UP' "$IBSIM_WORKDIR/osm.log" | tail -n 1 | cut -d'>' -f2-)"
echo "collector: $(grep 'published' "$out/collector.log" | tail -n 1 | cut -c1-400)..."
_canopyd_newer() { [ "$(canopyd_snapshot)" -gt "$generation" ] 2>/dev/null; }
canopy_wait_until 30 "canopyd loading the new dump" _canopyd_newer
show "$canopy" query --server "$server" info

step "10. canopyd answers the new route, and it is the fabric's (ibtracert)"
echo "before: $route_before"
show "$canopy" query --server "$server" 'query h0001:h0064'
echo "canopyd's answers against ibtracert: h0001:h0064, every host of $leaf to every other leaf, 20 more pairs:"
python3 "$root/tests/e2e/compare_routes.py" --dump "$out/live/current" --pair h0001:h0064 --pairs 20 --seed 1 \
  --preload "$IBSIM_UMAD2SIM" --expected ibtracert --actual canopyd --server "$server" --avoid "$leaf:$port"

step "done with the fabric: stopping canopyd, the collector, OpenSM and ibsim"
canopyd_stop
collector_stop
ibsim_stop
trap - EXIT

step "11. task mapping: a 128-rank halo exchange on 16 hosts scattered over the fabric"
# Two hosts on each leaf switch, listed as a busy scheduler hands them out: the launcher's
# default (rank i on slot i, hosts in this order) puts grid neighbours on other leaves.
mkdir -p "$out/map"
printf '%s\n' h0003 h0012 h0021 h0030 h0036 h0045 h0054 h0063 h0004 h0013 h0022 h0031 h0037 h0046 h0055 h0064 \
  > "$out/map/job.hosts"
echo "allocation: $(tr '\n' ' ' < "$out/map/job.hosts")(8 ranks on each, nodes 'pack:2 core:4 pu:1')"
# The 7-point stencil of an 8x4x4 rank grid, 64 KiB each way per face (what halo3d sends).
python3 "$root/scripts/gen_comm_graph.py" stencil --dims 8x4x4 --bytes 131072 --format edges -o "$out/map/halo.edges"
show "$canopy" map --graph "edges:$out/map/halo.edges" --fabric "$out/dumps" --hosts "$out/map/job.hosts" --ppn 8 \
  --node-topology 'pack:2 core:4 pu:1' --rankfile "$out/map/job.rankfile" --slurm-hostfile "$out/map/job.slurm" \
  --machinefile "$out/map/job.machines" --heatmap "$out/map/matrix.svg" --draw-load "$out/map/link-load.svg"
echo "launch it unchanged: mpirun --rankfile $out/map/job.rankfile -np 128 APP (Open MPI),"
echo "  SLURM_HOSTFILE=$out/map/job.slurm srun --distribution=arbitrary -n 128 APP, or mpiexec -f $out/map/job.machines"

step "12. the placements in SimGrid SMPI on this fabric: identity (the launcher's) vs rt vs rt+intra"
echo "halo3d: the job above; spmv: a 27-point stencil matrix on the same grid; mesh: an irregular"
echo "matrix split into the ranks by METIS (its numbering already keeps neighbours close)"
show bash "$root/bench/smpi_eval.sh" --fabric "$out/dumps" --hosts "$out/map/job.hosts" --ranks 128 --ppn 8 \
  --node 'pack:2 core:4 pu:1' --patterns halo3d,spmv,mesh --mesh-rows 131072 --iters 5 --out "$out/smpi"

step "13. real MPI ranks on fabric hosts: Canopy's collectives against the MPI library's own"
if [ -x "$build/bin/canopy-bench" ]; then
  # 8 ranks placed on 4 hosts of the fabric (two on a leaf, two across the spines); Canopy's
  # hierarchy groups the ranks by these names (CANOPY_HOSTMAP), as it would on the real hosts.
  printf '# rank placement: 2 ranks on each of 4 fabric hosts\nh0001:2\nh0002:2\nh0017:2\nh0064:2\n' > "$out/hostmap"
  echo "hosts: $(grep -v '^#' "$out/hostmap" | tr '\n' ' ')(CANOPY_HOSTMAP=$out/hostmap)"
  echo "8 ranks on this machine's $(nproc) cores are oversubscribed: the numbers show the mechanism, not the fabric."
  # run_mpi.sh adds the flags containers need (root, oversubscription) and a time limit.
  bench() {
    printf '$ mpirun -np 8 -x CANOPY_HOSTMAP canopy bench %s\n' "$*"
    MPI_ENV="CANOPY_HOSTMAP=$out/hostmap" bash "$root/tests/mpi/run_mpi.sh" 120 8 "$canopy" bench "$@"
  }
  bench bcast -m 4:4096 -i 10 -x 2 --compare mpi,two_level,auto --plot "$out/bcast-latency.svg"
  bench allgather -m 4:1024 -i 10 -x 2 --compare mpi,leader,auto -c
  bench barrier -i 20 -x 2 --compare mpi,shm
  echo "latency plot: $out/bcast-latency.svg"
else
  echo "skipped: this build has no MPI (canopy bench needs CANOPY_WITH_MPI=ON)"
fi

step "14. topology-aware Bcast: node leaders ordered by this fabric's delays, in SimGrid SMPI"
echo "one leader on each host of step 11; half the fabric's hosts have SDR links, half DDR:"
echo "coll_bcast_leader_order=dft|bft puts the leaders nearest (fastest) to their parents at the tree's"
echo "busiest positions (the topology-aware Bcast paper, IV-B); none is the tree's own order; dft-hca and"
echo "bft-hca order by the hosts' HCA rates alone, as the Bcast does where no canopyd runs"
show bash "$root/bench/smpi_bcast.sh" --fabric "$out/dumps" --hosts "$out/map/job.hosts" --roots 4 \
  --out "$out/smpi-bcast" --build "$build"
echo "fabric drawing: $out/fabric.svg    dumps: $out/dumps/current, $out/live/current    logs: $out/*.log"
echo "task mapping: $out/map/ (launcher files, matrix.svg, link-load.svg), SMPI runs: $out/smpi/ (results.txt, results.svg),"
echo "  $out/smpi-bcast/results.txt"
