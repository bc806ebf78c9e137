#!/usr/bin/env bash
# Installs the Debian 12 packages Canopy needs, when some are missing.
# As root it runs apt-get (non-interactively); otherwise it prints the exact
# package list and exits non-zero so the caller knows what to ask for.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config      # toolchain
  gfortran                                          # the Fortran test program (tests/mpi/app_halo3d.F90)
  clang libclang-rt-14-dev                          # libFuzzer targets
  libgtest-dev nlohmann-json3-dev libcli11-dev      # tests, JSON, command lines
  libhwloc-dev hwloc                                # node topology
  libmetis-dev                                      # graph partitioning (task mapping)
  libscotch-dev                                     # Scotch static mapping (the mapping peer)
  libopenmpi-dev openmpi-bin                        # MPI (collectives runtime, libcanopy-mpi.so)
  mpich libmpich-dev                                # MPICH beside it (libcanopy-mpi-mpich.so)
  libsimgrid-dev                                    # SimGrid SMPI (smpicc, smpirun): mapping evaluation
  libasio-dev                                       # canopyd networking (standalone Asio)
  infiniband-diags opensm ibsim-utils               # real fabric tools, simulated fabric
  python3                                           # fabric generator, e2e route comparison
  locales                                           # a decimal-comma locale for a unit test (localedef)
  graphviz gnuplot-nox                              # pictures
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "canopy setup: missing Debian packages (install them as root):" >&2
  echo "  apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "canopy setup: installing ${missing[*]}"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
