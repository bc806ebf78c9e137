#!/usr/bin/env bash
# The speed-aware Bcast between node leaders without a topology service (coll_bcast_leader_order
# with the leaders' HCA rates: the topology-aware bcast paper, IV-B2), on real HCAs of an ibsim
# fabric routed by OpenSM: h0001 and h0002 at 4X SDR, h0003 and h0004 at 4X DDR
# (gen_fabric.py --mixed-speed). 8 ranks on four virtual hosts listed so that nodes 0-3 are
# h0001, h0003, h0002, h0004 (slow, fast, slow, fast); on_simulated_hca.sh attaches each rank to
# its host's HCA, so /sys/class/infiniband shows that HCA's port. `canopy bench -c -k rotate`
# checks every byte on every rank from every root, and leader 0 logs the rates it gathered and,
# per root and size class, the order the heuristic gives (the unit test
# CollLeaderOrder.HcaRatesSendFromFastLeadersToFastOnesFirst has the same orders). A leader
# without an active port (no simulated HCA, or coll_hca_port naming another): one warning, the
# tree's own order, still right; so do leaders whose HCAs all run at one rate (every delay would
# tie), without a warning. And `canopy info --hca` on each kind of host. Under MPICH
# (where built): an unmodified application with LD_PRELOAD=libcanopy-mpi-mpich.so prints what it
# prints under MPICH alone, its Bcasts between leaders ordered by the rates.
#
# Usage: bcast_hca_rates.sh RUN_MPI BIN_DIR SCRATCH_DIR GEN_FABRIC [MPICH_LAUNCHER MPICH_APP MPICH_LIB]
set -euo pipefail
run_mpi=$(realpath "$1") bin=$(realpath "$2") work=$(realpath "$3")/bcast_hca_rates gen_fabric=$4
mpich_launcher=${5:-} mpich_app=${6:-} mpich_lib=${7:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/ibsim_fabric.sh
source "$here/../../scripts/ibsim_fabric.sh"
failures=0
check() {  # check NAME CONDITION-STATUS [DETAIL]
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1${3:+: $3}"; failures=$((failures + 1)); fi
}

rm -rf "$work"
mkdir -p "$work"
python3 "$gen_fabric" fat-tree --levels 2 --radix 4 --hosts 4 --mixed-speed SDR,DDR -o "$work/fabric.net"
ibsim_start "$work/fabric.net" "$work/sim"
ibsim_route ftree > /dev/null
printf 'h0001\nh0003\nh0002\nh0004\n%.0s' 1 2 > "$work/hostmap"
cd "$work"  # libumad2sim.so writes each process's simulated sysfs under the working directory

# bench NAME TREE [PROGRAM...]: canopy bench from every root, 1 B to 1 KiB, ordered bft, each rank
# through PROGRAM (default on_simulated_hca.sh); MPI_EXTRA: more rank environment. Output in
# $work/NAME.out and .err; checks that every size passed.
bench() {
  local name=$1 tree=$2
  shift 2
  MPI_ENV="CANOPY_HOSTMAP=$work/hostmap IBSIM_SOCKNAME=$IBSIM_SOCKNAME IBSIM_UMAD2SIM=$IBSIM_UMAD2SIM
           CANOPY_BCAST_ALGORITHM=two_level CANOPY_LOG_LEVEL=info CANOPY_COLL_BCAST_LEADER_ORDER=bft
           CANOPY_COLL_BCAST_INTER_ALGORITHM=$tree ${MPI_EXTRA:-}" \
    "$run_mpi" 120 8 "${@:-$here/on_simulated_hca.sh}" "$bin/canopy" bench bcast -m 1:1024 -i 8 -x 0 -c -k rotate \
    > "$work/$name.out" 2> "$work/$name.err" || true
  [ "$(grep -c ' Pass$' "$work/$name.out")" -eq 11 ] && ! grep -q Fail "$work/$name.out"
  check "$name: every byte right on every rank from every root" $? "$(tail -n 5 "$work/$name.out" "$work/$name.err")"
}

# orders NAME TREE ORDER0 ORDER1 ORDER2 ORDER3: from root node r every order logged is ORDERr, at 9
# of the 11 size classes or more (eight ranks share mpirun's stderr, which now and then splits a
# line: a line may be unreadable, never wrong).
orders() {
  local name=$1 tree=$2 root logged right
  shift 2
  for root in 0 1 2 3; do
    logged=$(grep -c "from node $root between 4 node leaders in bft order" "$work/$name.err" || true)
    right=$(grep -c "from node $root between 4 node leaders in bft order ($tree tree): $1\$" "$work/$name.err" || true)
    [ "$logged" -eq "$right" ] && [ "$right" -ge 9 ]
    check "$name: from node $root the leaders in the order $1" $? "$right of $logged logged orders right"
    shift
  done
}

# From a fast root the fast leader goes to the position with a child (binomial) or is served
# first (k-nomial, radix 4: three leaves); from a slow one every leader ties, and the
# scheduler's order fills the positions.
bench binomial binomial
grep -q "delays between 4 node leaders from their HCA rates (no topo_server): 2 at 8 Gb/s 2 at 16 Gb/s" \
  "$work/binomial.err"
check "binomial: leader 0 gathered two SDR and two DDR rates" $?
! grep -q "\[warn\]" "$work/binomial.err"
check "binomial: no warning" $?
orders binomial binomial "0 2 1 3" "1 0 3 2" "2 1 0 3" "3 0 1 2"
MPI_EXTRA="CANOPY_COLL_HCA_PORT=ibsim0:1" bench knomial knomial
orders knomial knomial "0 1 2 3" "1 3 0 2" "2 0 1 3" "3 1 0 2"

# No simulated HCA (this machine has no InfiniBand), or a port no host has: the tree's own order.
bench no_hca binomial env
[ "$(grep -c "Bcast between node leaders in the tree's own order, not bft" "$work/no_hca.err")" -eq 1 ] &&
  grep -q "node 0 (h0001) has no active InfiniBand port" "$work/no_hca.err" &&
  ! grep -q "in bft order" "$work/no_hca.err"
check "no HCA: one warning, the tree's own order" $? "$(tail -n 3 "$work/no_hca.err")"
MPI_EXTRA="CANOPY_COLL_HCA_PORT=mlx5_0" bench other_port binomial
[ "$(grep -c "Bcast between node leaders in the tree's own order, not bft" "$work/other_port.err")" -eq 1 ] &&
  grep -q "no HCA rate for the Bcast between node leaders: no active InfiniBand port mlx5_0 with a rate (ibsim0:1 active 10 Gb/sec (4X))" \
    "$work/other_port.err"
check "coll_hca_port naming no port: one warning, each leader's reason in its info log" $? "$(tail -n 3 "$work/other_port.err")"

# Four hosts on DDR HCAs only (two virtual hosts on each of h0003 and h0004): one rate.
printf 'h0003\nh0004\n%.0s' 1 2 3 4 > "$work/ddr_hcas"
MPI_EXTRA="SIM_HOSTMAP=$work/ddr_hcas" bench one_rate binomial
grep -q "delays between 4 node leaders from their HCA rates (no topo_server): 4 at 16 Gb/s: one rate, the tree's own order" \
  "$work/one_rate.err" && ! grep -q "in bft order\|\[warn\]" "$work/one_rate.err"
check "one rate: the tree's own order, no warning" $? "$(tail -n 3 "$work/one_rate.err")"

for host in h0001:8 h0004:16; do
  SIM_HOST=${host%:*} LD_PRELOAD=$IBSIM_UMAD2SIM "$bin/canopy" info --hca --json > "$work/info.json"
  python3 - "$work/info.json" "${host#*:}" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
assert info["chosen"] == "ibsim0:1" and info["reason"] is None, info
assert [(p["device"], p["port"], p["active"], p["gbps"]) for p in info["ports"]] == [("ibsim0", 1, True, float(sys.argv[2]))], info
PY
  check "canopy info --hca on ${host%:*}: ibsim0:1 at ${host#*:} Gb/s" $?
done

if [ -n "$mpich_app" ]; then
  MPI_LAUNCHER=$mpich_launcher "$run_mpi" 300 8 "$mpich_app" > "$work/mpich_plain.out"
  MPI_LAUNCHER=$mpich_launcher MPI_ENV="CANOPY_HOSTMAP=$work/hostmap IBSIM_SOCKNAME=$IBSIM_SOCKNAME
    IBSIM_UMAD2SIM=$IBSIM_UMAD2SIM LD_PRELOAD=$mpich_lib CANOPY_BCAST_ALGORITHM=two_level CANOPY_LOG_LEVEL=info
    CANOPY_COLL_BCAST_LEADER_ORDER=bft CANOPY_COLL_BCAST_INTER_ALGORITHM=binomial" \
    "$run_mpi" 300 8 "$here/on_simulated_hca.sh" "$mpich_app" > "$work/mpich.out" 2> "$work/mpich.err" || true
  cmp -s "$work/mpich_plain.out" "$work/mpich.out" && [ -s "$work/mpich.out" ]
  check "MPICH: the application's output as under MPICH alone" $? "$(diff "$work/mpich_plain.out" "$work/mpich.out" | head -n 5)"
  grep -q "delays between 4 node leaders from their HCA rates (no topo_server): 2 at 8 Gb/s 2 at 16 Gb/s" \
    "$work/mpich.err" && grep -q "from node 1 between 4 node leaders in bft order (binomial tree): 1 0 3 2\$" \
    "$work/mpich.err" && ! grep -q "\[warn\]" "$work/mpich.err"
  check "MPICH: the rates gathered, the Bcasts between leaders ordered by them" $? "$(tail -n 3 "$work/mpich.err")"
fi
ibsim_stop
[ "$failures" -eq 0 ] && echo "all passed" || { echo "$failures failures"; exit 1; }
