# shellcheck shell=bash
# What every end-to-end script shares: its options, its checks and timings,
# the simulated-fabric and service libraries, and the small fat tree the
# collector and service tests run on. Source it first; a failed check exits.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
#   e2e_options "work collect canopy" "$@"   # --work DIR --collect PATH --canopy PATH [-- REST...]

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/ibsim_fabric.sh
source "$root/scripts/ibsim_fabric.sh"
# shellcheck source=../../scripts/canopy_services.sh
source "$root/scripts/canopy_services.sh"

e2e_rest=()
timings=()
_step_start=

_e2e_usage() {
  local name usage="usage: $(basename "$0")"
  for name in $1; do usage+=" --$name VALUE"; done
  echo "$usage${2:+ -- ...}" >&2
  exit 2
}

# e2e_options "NAME..." ARGS...: each --NAME VALUE sets the variable NAME; every
# NAME listed is required; what follows "--" goes to e2e_rest.
e2e_options() {
  local names=" $1 " name
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --) shift; e2e_rest=("$@"); break ;;
      --*)
        name=${1#--}
        [[ $names == *" $name "* ]] && [ $# -ge 2 ] || _e2e_usage "$names"
        printf -v "$name" '%s' "$2"
        shift 2 ;;
      *) _e2e_usage "$names" ;;
    esac
  done
  for name in $names; do [ -n "${!name:-}" ] || _e2e_usage "$names"; done
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
expect_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }
step() {
  _step_start=$(date +%s%N)
  echo "== $*"
}
step_done() { timings+=("$1 $((($(date +%s%N) - _step_start) / 1000000)) ms"); }

# no_incoming DIR WHAT: WHAT left no .incoming-* directory in DIR.
no_incoming() {
  [ -z "$(find "$1" -maxdepth 1 -name '.incoming-*')" ] || fail "$2 left an incoming directory in $1"
}

# e2e_small_fabric [GEN_FABRIC_ARGS...]: a fresh $work holding a 16-host
# two-level fat tree, simulated by ibsim.
e2e_small_fabric() {
  rm -rf "$work"
  mkdir -p "$work"
  python3 "$root/scripts/gen_fabric.py" fat-tree --levels 2 --radix 8 --hosts 16 -o "$work/fabric.net" "$@"
  ibsim_start "$work/fabric.net" "$work/sim"
}
