#!/usr/bin/env bash
# Generates a synthetic dump of an 8,192-host three-level fat tree (ibnetdiscover
# text + one ibroute file per switch, as canopy-collect writes them) and times
# loading it. Usage: bench/topology_load.sh [BUILD_DIR] [HOSTS]   (defaults: build, 8192)
# The dump is kept for the next run in $CANOPY_BENCH_DIR/fat-tree-HOSTS (default
# /tmp/canopy-bench; 779 MB at 8,192 hosts).
set -euo pipefail
. "$(dirname "$0")/positional_args.sh"
die() { echo "topology_load.sh: error: $*" >&2; exit 1; }
build=${1:-build}
hosts=${2:-8192}
[ -x "$build/bin/bench_topology_load" ] || die "$build/bin/bench_topology_load not built (cmake --build $build --target bench_topology_load)"
[[ "$hosts" =~ ^[1-9][0-9]*$ ]] || die "HOSTS takes a positive integer (got '$hosts')"
here=$(cd "$(dirname "$0")/.." && pwd)
dump=${CANOPY_BENCH_DIR:-/tmp/canopy-bench}/fat-tree-$hosts
if [ ! -f "$dump/manifest.json" ]; then
  echo "generating $dump ..."
  rm -rf "$dump"
  python3 "$here/scripts/gen_fabric.py" dump --hosts "$hosts" --out "$dump"
fi
du -sh "$dump"
"$build/bin/bench_topology_load" "$dump" 5
