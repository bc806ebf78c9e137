#!/usr/bin/env bash
# on_simulated_hca.sh PROGRAM ARGS...: PROGRAM as one rank of a job whose hosts are HCAs of an
# ibsim fabric: under ibsim's libumad2sim.so (IBSIM_UMAD2SIM), attached (SIM_HOST) to the HCA
# named by this rank's line of SIM_HOSTMAP (default: CANOPY_HOSTMAP, the rank's host), so
# /sys/class/infiniband shows that HCA's port.
# Needs ibsim running (scripts/ibsim_fabric.sh exports IBSIM_SOCKNAME) and the rank in
# OMPI_COMM_WORLD_RANK (Open MPI) or PMI_RANK (MPICH).
set -euo pipefail
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?no MPI rank in the environment}}
map=${SIM_HOSTMAP:-${CANOPY_HOSTMAP:?}}
SIM_HOST=$(sed -n "$((rank + 1))p" "$map")
[ -n "$SIM_HOST" ] || { echo "on_simulated_hca.sh: $map has no line for rank $rank" >&2; exit 2; }
export SIM_HOST
LD_PRELOAD=${IBSIM_UMAD2SIM:?}${LD_PRELOAD:+:$LD_PRELOAD} exec "$@"
