#!/usr/bin/env bash
# install.sh: `make install` and `make uninstall` (Makefile), or by hand:
#
#     scripts/install.sh BUILD PREFIX          # BUILD: the build folder (build)
#     scripts/install.sh --uninstall PREFIX
#
# Installs BUILD/convgen as PREFIX/bin/convgen (and BUILD/convgen-server
# beside it), its man pages made from its
# help texts (scripts/gen-man.sh: convgen(1), convgen-COMMAND(1)) into
# PREFIX/share/man/man1, the library BUILD/libconvgen.a into PREFIX/lib
# with its public header src/api/convgen.h in PREFIX/include and
# PREFIX/lib/pkgconfig/convgen.pc (Libs: the library, shared, found at run
# time through an rpath to PREFIX/lib, and $CONVGEN_LIBS, what it links
# with: make passes its LDLIBS), BUILD/libconvgen.so into
# PREFIX/lib with the Python package python/convgen in
# PREFIX/share/convgen/python (PYTHONPATH; it loads PREFIX/lib/libconvgen.so),
# and README.md and docs/ into PREFIX/share/doc/convgen; then lists what it wrote in
# PREFIX/share/convgen/installed, which --uninstall reads to remove exactly
# those files. It builds nothing: run `make` first. A DESTDIR staging root
# is the caller's to put in PREFIX (make does).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/install.sh BUILD PREFIX | --uninstall PREFIX" >&2; exit 2; }

if [ "${1:-}" = --uninstall ]; then
  [ $# -eq 2 ] || usage
  list=$2/share/convgen/installed
  [ -f "$list" ] || { echo "install.sh: $list: no convgen installed under $2" >&2; exit 1; }
  while IFS= read -r f; do rm -f "$2/$f"; done < "$list"
  rm -f "$list"
  rm -rf "$2/share/convgen/python/convgen/__pycache__"   # (what Python wrote beside the package it imported)
  for d in share/convgen/python/convgen share/convgen/python share/convgen share/doc/convgen/docs share/doc/convgen share/man/man1 share/man share/doc lib/pkgconfig lib \
    include bin share; do
    rmdir "$2/$d" 2>/dev/null || true   # (only the folders left empty)
  done
  echo "uninstalled convgen from $2"
  exit 0
fi
[ $# -eq 2 ] || usage
build=$1 prefix=$2
[ -x "$build/convgen" ] || { echo "install.sh: $build/convgen: not built (run make first)" >&2; exit 2; }
case $prefix in /*) ;; *) echo "install.sh: PREFIX '$prefix' is not an absolute path" >&2; exit 2 ;; esac

man=$(mktemp -d)
trap 'rm -rf "$man"' EXIT
bash scripts/gen-man.sh "$build/convgen" "$man"
files=()
put() {   # put MODE SOURCE DEST (DEST relative to the prefix)
  install -D -m "$1" "$2" "$prefix/$3"
  files+=("$3")
}
put 755 "$build/convgen" bin/convgen
if [ -x "$build/convgen-server" ]; then   # the device end of remote measurement (docs/remote.md)
  put 755 "$build/convgen-server" bin/convgen-server
fi
for p in "$man"/*.1; do put 644 "$p" "share/man/man1/$(basename "$p")"; done
if [ -f "$build/libconvgen.a" ]; then
  put 644 "$build/libconvgen.a" lib/libconvgen.a
  put 644 src/api/convgen.h include/convgen.h
  version=$("$build/convgen" --version | sed -n 's/^convgen \([0-9.]*\).*/\1/p')
  cat > "$man/convgen.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: convgen
Description: OpenCL and CUDA kernels generated from a functional IR; ONNX models run with them
Version: ${version:-0}
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lconvgen ${CONVGEN_LIBS:--lOpenCL -lsqlite3 -lm -lpthread}
PC
  put 644 "$man/convgen.pc" lib/pkgconfig/convgen.pc
fi
if [ -f "$build/libconvgen.so" ]; then
  put 755 "$build/libconvgen.so" lib/libconvgen.so
  put 644 python/convgen/__init__.py share/convgen/python/convgen/__init__.py
fi
put 644 README.md share/doc/convgen/README.md
for d in docs/*.md; do put 644 "$d" "share/doc/convgen/$d"; done
mkdir -p "$prefix/share/convgen"
printf '%s\n' "${files[@]}" share/convgen/installed > "$prefix/share/convgen/installed"
echo "installed $("$prefix/bin/convgen" --version) into $prefix: bin/convgen, ${#files[@]} files" \
  "(man convgen, man convgen-tune, ...; include/convgen.h and lib/pkgconfig/convgen.pc for the library;" \
  "PYTHONPATH=$prefix/share/convgen/python for Python's import convgen; share/convgen/installed lists them)"
