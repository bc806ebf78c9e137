#!/usr/bin/env bash
# Packs what bench/collectives.sh and bench/mapping.sh need into one folder, for a machine that
# has neither MPI nor Canopy's dependencies (x86-64 Linux with glibc 2.34 or newer and a C++
# runtime, such as a bare 16-core machine lent for a benchmark):
#   DIR/build/{bin,lib}  Canopy's benchmark binaries and libraries, debug info stripped
#   DIR/root             Open MPI's launcher, plugins, help and configuration files, relocated
#                        there with OPAL_PREFIX (the Open MPI Canopy was built against)
#   DIR/lib              every shared library those load, except glibc's and the C++ runtime
#   DIR/bin/mpirun       Open MPI's mpirun, with the environment the above needs
#   DIR/bin/run CMD...   runs CMD with DIR/lib on the library path (for bench/mapping.sh)
# On that machine, from a copy of the repository:
#   PATH=DIR/bin:$PATH bench/collectives.sh DIR/build OUT 16
#   DIR/bin/mpirun -np 16 DIR/build/bin/test_coll_correctness /tmp    (as root: --allow-run-as-root)
#   DIR/bin/run bench/mapping.sh --build DIR/build --sizes 8192
# Usage: bench/pack_runtime.sh [BUILD_DIR] [DIR]   (defaults: build, runtime)
# DIR is made afresh: an empty folder or one this script packed before is replaced; any other
# existing DIR is refused, so that a mistyped DIR cannot delete someone's files.
set -euo pipefail
. "$(dirname "$0")/positional_args.sh"
build=${1:-build}
dir=${2:-runtime}
die() { echo "pack_runtime.sh: error: $*" >&2; exit 1; }
for tool in canopy canopy-bench bench_map bench_gen_mesh test_coll_correctness; do
  [ -x "$build/bin/$tool" ] || die "$build/bin/$tool not built"
done
[ ! -e "$dir" ] || [ -f "$dir/bin/run" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ] ||
  die "$dir exists and is not a folder pack_runtime.sh made; remove it or name another DIR"
orterun=$(readlink -f "$(command -v mpirun)")
[ "$(basename "$orterun")" = orterun ] || die "mpirun is not Open MPI's ($orterun)"
prefix=$(ompi_info --path prefix --parsable | sed -n 's/^path:prefix://p')
libdir=$(ompi_info --path libdir --parsable | sed -n 's/^path:libdir://p')
pkgdatadir=$(ompi_info --path pkgdatadir --parsable | sed -n 's/^path:pkgdatadir://p')
sysconfdir=$(ompi_info --path sysconfdir --parsable | sed -n 's/^path:sysconfdir://p')

rm -rf "$dir"
mkdir -p "$dir/build/bin" "$dir/build/lib" "$dir/lib" "$dir/bin" "$dir/root"
echo "packing $build and Open MPI ($prefix) into $dir" >&2
cp "$build"/bin/{canopy,canopy-bench,bench_map,bench_gen_mesh,test_coll_correctness} "$dir/build/bin/"
cp -a "$build"/lib/libcanopy.so* "$build"/lib/libcanopy-mpi.so* "$dir/build/lib/"  # Open MPI flavour only
strip --strip-debug "$dir"/build/bin/* "$dir"/build/lib/*.so*
# Open MPI's tree under its own paths, so that OPAL_PREFIX relocates every one of them.
for path in "$libdir" "$pkgdatadir" "$sysconfdir" "$prefix/bin/orterun" "$prefix/bin/orted"; do
  mkdir -p "$dir/root$(dirname "$path")"
  cp -a "$path" "$dir/root$path"
done
# The libraries every packed ELF file loads, but glibc's and the C++ runtime (the machine's own).
find "$dir" -type f -print0 | while IFS= read -r -d '' f; do
  if [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then ldd "$f" 2>/dev/null || true; fi
done | awk '/=> \//{print $3}' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$dir/lib/"; done

cat >"$dir/bin/mpirun" <<EOF
#!/bin/sh
# Open MPI's mpirun from this folder (bench/pack_runtime.sh).
here=\$(cd "\$(dirname "\$0")/.." && pwd)
export OPAL_PREFIX="\$here/root$prefix" OPAL_SYSCONFDIR="\$here/root$sysconfdir"
export PMIX_MCA_pcompress_base_silence_warning=1  # PMIx's compression plugin is not packed
export LD_LIBRARY_PATH="\$here/lib:\$here/build/lib:\$here/root$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PATH="\$here/root$prefix/bin:\$PATH"
exec "\$here/root$prefix/bin/orterun" "\$@"
EOF
cat >"$dir/bin/run" <<'EOF'
#!/bin/sh
# Runs a command with this folder's libraries (bench/pack_runtime.sh).
here=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH="$here/lib:$here/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
EOF
chmod +x "$dir/bin/mpirun" "$dir/bin/run"
echo "$dir: $(du -sh "$dir" | cut -f1), $(find "$dir/lib" -type f | wc -l) libraries" >&2
