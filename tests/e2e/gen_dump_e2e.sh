#!/usr/bin/env bash
# gen_fabric.py's synthetic dump as Canopy reads it: `canopy route` must follow
# the generator's forwarding tables (compare_routes.py's own walk) on a
# 1,024-host, 3-level fat tree.
#
# usage: gen_dump_e2e.sh --work DIR --canopy PATH
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work= canopy=
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=$2; shift 2 ;;
    --canopy) canopy=$2; shift 2 ;;
    *) echo "gen_dump_e2e: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] && [ -n "$canopy" ] || { echo "usage: gen_dump_e2e.sh --work DIR --canopy PATH" >&2; exit 2; }

rm -rf "$work"
python3 "$root/scripts/gen_fabric.py" dump --hosts 1024 --out "$work/dump"
python3 "$here/compare_routes.py" --dump "$work/dump" --expected lft-walk --actual canopy --canopy "$canopy" --pairs 40
