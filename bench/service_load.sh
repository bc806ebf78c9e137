#!/usr/bin/env bash
# canopyd under load on the 8,192-host three-level fat tree (generated as in
# topology_load.sh): answers/s and latency for 1, 64 and 1,000 connections,
# then the reload time (DIR/current switched between two names of the dump).
# Usage: bench/service_load.sh [BUILD_DIR] [HOSTS] [REPEATS]   (defaults: build, 8192, 3)
# The dump is kept for the next run in $CANOPY_BENCH_DIR/fat-tree-HOSTS (default
# /tmp/canopy-bench; 779 MB at 8,192 hosts), shared with topology_load.sh.
set -euo pipefail
. "$(dirname "$0")/positional_args.sh"
die() { echo "service_load.sh: error: $*" >&2; exit 1; }
build=${1:-build}
hosts=${2:-8192}
repeats=${3:-3}
for tool in canopyd bench_service_load; do
  [ -x "$build/bin/$tool" ] || die "$build/bin/$tool not built (cmake --build $build --target canopyd_tool bench_service_load)"
done
[[ "$hosts" =~ ^[1-9][0-9]*$ ]] || die "HOSTS takes a positive integer (got '$hosts')"
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "REPEATS takes a positive integer (got '$repeats')"
here=$(cd "$(dirname "$0")/.." && pwd)
bench_dir=${CANOPY_BENCH_DIR:-/tmp/canopy-bench}
dump=$bench_dir/fat-tree-$hosts
if [ ! -f "$dump/manifest.json" ]; then
  echo "generating $dump ..."
  rm -rf "$dump"
  python3 "$here/scripts/gen_fabric.py" dump --hosts "$hosts" --out "$dump"
fi

# A canopy-collect style directory whose two dumps are the same fabric under two names.
store=$(mktemp -d "$bench_dir/service-XXXXXX")
ln -s "$dump" "$store/dump-a"
ln -s "$dump" "$store/dump-b"
ln -s dump-a "$store/current"
log=$store/canopyd.log
CANOPY_LOG_LEVEL=info CANOPY_SERVICE_POLL_MS=20 "$build/bin/canopyd" --dump-dir "$store" --listen 127.0.0.1:0 \
  2>"$log" &
daemon=$!
# (|| true: under set -e a failing kill, canopyd already gone, would end the trap before the rm.)
trap 'kill $daemon 2>/dev/null || true; wait $daemon 2>/dev/null || true; rm -rf "$store"' EXIT
for _ in $(seq 200); do
  grep -q "snapshot 1:" "$log" 2>/dev/null && break
  kill -0 $daemon 2>/dev/null || break
  sleep 0.1
done
grep -q "snapshot 1:" "$log" || die "canopyd did not load $dump; its log: $(tail -n 5 "$log")"
port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
echo "canopyd on port $port, $(grep 'snapshot 1:' "$log" | sed 's/.*snapshot 1: //')"
echo "machine: $(nproc) cores, $(uname -r); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

load() {
  for _ in $(seq "$repeats"); do
    "$build/bin/bench_service_load" --connect "127.0.0.1:$port" --seconds 5 "$@"
  done
}
load --connections 1 --depth 1
load --connections 64 --depth 1
load --connections 64 --depth 1 --json
load --connections 64 --depth 16
load --connections 1000 --depth 1
load --connections 64 --depth 1 --mix query=4,route=2,hops=2,rate=1,matrix=1 --json
reloads() {
  "$build/bin/bench_service_load" --connect "127.0.0.1:$port" --reload-dir "$store" --targets dump-b,dump-a "$@"
}
reloads --reloads 7
echo "64 connections answering while the fabric reloads:"
"$build/bin/bench_service_load" --connect "127.0.0.1:$port" --connections 64 --seconds 8 --warmup 0.5 &
loader=$!
sleep 1
reloads --reloads 5
wait $loader
echo "load times logged by canopyd (the reload without the poll interval):"
grep -o 'snapshot [0-9]*: .*loaded in [0-9.]* s' "$log" | sed 's/:.*loaded in/: loaded in/'
echo "canopyd memory: $(grep -E 'VmRSS|VmHWM' /proc/$daemon/status | tr -s ' \t\n' ' '); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
