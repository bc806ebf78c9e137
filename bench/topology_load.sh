#!/usr/bin/env bash
# Generates a synthetic dump of an 8,192-host three-level fat tree (ibnetdiscover
# text + one ibroute file per switch, as canopy-collect writes them) and times
# loading it. Usage: bench/topology_load.sh [BUILD_DIR] [HOSTS]
set -euo pipefail
build=${1:-build}
hosts=${2:-8192}
here=$(cd "$(dirname "$0")/.." && pwd)
dump=${CANOPY_BENCH_DIR:-/tmp/canopy-bench}/fat-tree-$hosts
if [ ! -f "$dump/manifest.json" ]; then
  echo "generating $dump ..."
  rm -rf "$dump"
  python3 "$here/scripts/gen_fabric.py" dump --hosts "$hosts" --out "$dump"
fi
du -sh "$dump"
"$build/bin/bench_topology_load" "$dump" 5
