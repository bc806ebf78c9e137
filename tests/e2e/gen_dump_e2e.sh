#!/usr/bin/env bash
# gen_fabric.py's synthetic dump as Canopy reads it: `canopy route` must follow
# the generator's forwarding tables (compare_routes.py's own walk) on a
# 1,024-host, 3-level fat tree.
#
# usage: gen_dump_e2e.sh --work DIR --canopy PATH
set -euo pipefail

# shellcheck source=e2e_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
e2e_options "work canopy" "$@"

rm -rf "$work"
python3 "$root/scripts/gen_fabric.py" dump --hosts 1024 --out "$work/dump"
python3 "$here/compare_routes.py" --dump "$work/dump" --expected lft-walk --actual canopy --canopy "$canopy" --pairs 40
