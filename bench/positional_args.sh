# Sourced first by the bench scripts that take positional arguments only: -h/--help prints the
# script's header comment (line 2 up to its `set` line), any other option is a usage error (exit 2).
case "${1-}" in
  -h|--help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "$(basename "$0"): error: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
