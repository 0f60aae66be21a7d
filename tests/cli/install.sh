#!/usr/bin/env bash
# install.sh: `make install`'s script (scripts/install.sh) puts the program,
# its man pages made from its help texts (scripts/gen-man.sh) and the
# documentation under a prefix, and --uninstall takes away exactly what it
# put; wrong arguments are refused. The script is run on $CONVGEN's folder
# (make itself would relink it: its version is compiled on every build).
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

build=$(dirname "$CONVGEN")
P=$T/prefix
CONVGEN_LIBS=$(make -s print-ldlibs 2>/dev/null) bash scripts/install.sh "$build" "$P" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "install into a fresh prefix"
expect_out "installed $("$CONVGEN" --version) into $P" "install says what it installed and where"
[ -x "$P/bin/convgen" ] || bad "no executable bin/convgen"
[ "$("$P/bin/convgen" --version)" = "$("$CONVGEN" --version)" ] || bad "the installed convgen is another build"
"$P/bin/convgen" devices >/dev/null 2>&1 || bad "the installed convgen does not list the devices"
M=$P/share/man/man1
for cmd in "" devices compile run space gen tune best export bench import infer worker help; do
  page=$M/convgen${cmd:+-$cmd}.1
  [ -f "$page" ] || { bad "no man page $page"; continue; }
  head -n 3 "$page" | grep -q '^\.TH "CONVGEN' || bad "$page: no .TH line"
  for s in NAME SYNOPSIS DESCRIPTION '"EXIT STATUS"' '"SEE ALSO"'; do
    grep -q "^\.SH \"\?${s//\"/}\"\?$" "$page" || bad "$page: no section $s"
  done
  if command -v groff >/dev/null; then   # no warning from the man macros
    groff -man -Tutf8 -ww "$page" 2>"$T/groff" >"$T/page" || bad "$page: groff failed"
    [ -s "$T/groff" ] && bad "$page: groff warns: $(head -c 300 "$T/groff")"
    # the text as the help prints it (hyphens escaped, indents kept)
    first=$("$CONVGEN" help $cmd | sed -n 2p | sed 's/^ *//')
    grep -qF -- "$first" "$T/page" || bad "$page: the page lacks the help's '$first'"
  fi
done
grep -q 'convgen tune \\- search for the fastest correct kernels' "$M/convgen-tune.1" ||
  bad "convgen-tune.1: NAME's hyphen is not escaped for roff"
[ -f "$P/share/doc/convgen/README.md" ] && [ -f "$P/share/doc/convgen/docs/cli.md" ] ||
  bad "the documentation is not under share/doc/convgen"
n=$(wc -l <"$P/share/convgen/installed")
[ "$n" -ge 17 ] || bad "share/convgen/installed lists $n files"
# the library as a program of a user's links it: the header and convgen.pc
# (their flags, read by hand where pkg-config is not there), block.onnx run
# through a session on the default device (a sanitized library wants its
# runtime in the program)
[ -f "$P/include/convgen.h" ] && [ -f "$P/lib/libconvgen.a" ] && [ -f "$P/lib/pkgconfig/convgen.pc" ] ||
  bad "no library, header or convgen.pc under the prefix"
cat >"$T/use.c" <<'C'
#include <convgen.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  cg_error e;
  cg_model *m = cg_model_load(argv[1], &e);
  cg_device *d = m ? cg_device_open(NULL, NULL, &e) : NULL;
  if (d && argc > 3 && cg_tune(m, d, argv[2], atof(argv[3]), &e) != CG_OK) return fprintf(stderr, "use: %s\n", e.msg), 1;
  cg_session *s = d ? cg_session_new(m, d, argv[2], &e) : NULL;
  if (!s) return fprintf(stderr, "use: %s\n", e.msg), 1;
  int64_t dims[CG_MAX_RANK], nin, nout;
  cg_model_input_shape(m, 0, dims, &nin);
  cg_model_output_shape(m, 0, dims, &nout);
  float *x = calloc((size_t)nin, sizeof *x), *y = calloc((size_t)nout, sizeof *y);
  for (int64_t i = 0; i < nin; i++) x[i] = (float)(i % 5) * 0.1f;
  const float *in[] = {x};
  float *out[] = {y};
  if (cg_session_run(s, in, out, &e) != CG_OK) return fprintf(stderr, "use: %s\n", e.msg), 1;
  printf("%s: %s, %lld outputs, y[0] %g, %d untuned\n", cg_version(), cg_model_output_name(m, 0), (long long)nout, y[0],
         cg_session_untuned(s));
  cg_session_free(s), cg_device_close(d), cg_model_free(m), free(x), free(y);
  return 0;
}
C
pc=$P/lib/pkgconfig/convgen.pc
cflags="-I$P/include"
libs=$(sed -n 's/^Libs: //p' "$pc" | sed "s|\${libdir}|$P/lib|g")
command -v pkg-config >/dev/null && libs=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --libs convgen)
san=()
nm "$P/lib/libconvgen.a" 2>/dev/null | grep -q __asan_report && san=(-fsanitize=address,undefined)
# shellcheck disable=SC2086 # the flags, word by word
cc -std=c11 ${san[@]+"${san[@]}"} $cflags "$T/use.c" -o "$T/use" $libs >"$T/cc" 2>&1 || bad "a program does not build against the installed library: $(head -c 600 "$T/cc")"
if [ -x "$T/use" ]; then
  "$T/use" tests/onnx/block.onnx "$T/none.db" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "the program that uses the library"
  expect_out "$("$CONVGEN" --version | sed 's/^convgen //'): fl, 8 outputs, y[0] " "the library loads, prepares and runs the model"
  expect_out ", 3 untuned" "with no database, its 3 convolutions untuned"
  # cg_tune runs the installed program ($CONVGEN_PROGRAM), then the session reads its records
  CONVGEN_PROGRAM=$P/bin/convgen "$T/use" tests/onnx/block.onnx "$T/tuned.db" 1 >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "the program that tunes through the library"
  expect_out ", 0 untuned" "after cg_tune, every convolution has its record"
  expect_err "best kernels on " "the tune's table goes to standard error"
  CONVGEN_PROGRAM=$T/no-such-convgen "$T/use" tests/onnx/block.onnx "$T/tuned.db" 1 >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 1 "cg_tune without the program"
  expect_err "cg_tune: cannot run '$T/no-such-convgen'" "cg_tune says it cannot run the program"
fi
# Python's package from the prefix, loading the prefix's libconvgen.so
# (where python3 and numpy are, and the library is not sanitized)
if [ -f "$P/lib/libconvgen.so" ] && command -v python3 >/dev/null && python3 -c "import numpy" 2>/dev/null &&
  ! nm -D "$P/lib/libconvgen.so" 2>/dev/null | grep -q __asan_init; then
  PYTHONPATH=$P/share/convgen/python python3 -c "import convgen; print(convgen.version(), convgen._lib._name)" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "import convgen from the prefix"
  expect_out "$("$CONVGEN" --version | sed 's/^convgen //') $P/share/convgen/python/convgen/../../../../lib/libconvgen.so" \
    "the package loads the prefix's library"
fi
# installed again over itself: the same files
bash scripts/install.sh "$build" "$P" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "install again over an installed prefix"
# uninstall: every file it put, and the folders it left empty; nothing else
touch "$P/share/mine"
bash scripts/install.sh --uninstall "$P" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "uninstall"
expect_out "uninstalled convgen from $P" "uninstall says so"
left=$(cd "$P" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./share ./share/mine " ] || bad "uninstall left '$left' (want only the file it did not put)"
# wrong arguments
bash scripts/install.sh "$T/nothing" "$P" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "install from a folder with no convgen"
expect_err "install.sh: $T/nothing/convgen: not built (run make first)" "it says what is missing"
bash scripts/install.sh "$build" relative/prefix >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "a relative PREFIX"
expect_err "PREFIX 'relative/prefix' is not an absolute path" "a relative PREFIX is refused"
[ -e relative ] && bad "a refused install wrote relative/"
bash scripts/install.sh --uninstall "$T/empty" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "uninstall where nothing is installed"
expect_err "no convgen installed under $T/empty" "uninstall says there is nothing"
bash scripts/install.sh >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "no arguments"
expect_err "usage: scripts/install.sh BUILD PREFIX" "the usage"
# make's targets run the script with BUILD and DESTDIR PREFIX
make -n install BUILD=build PREFIX=/opt/cg DESTDIR="$T/stage" 2>/dev/null | grep -qF "scripts/install.sh build \"$T/stage/opt/cg\"" ||
  bad "make install does not run scripts/install.sh with DESTDIR and PREFIX"
make -n uninstall PREFIX=/opt/cg 2>/dev/null | grep -qF 'scripts/install.sh --uninstall "/opt/cg"' ||
  bad "make uninstall does not run scripts/install.sh --uninstall"
make -n BUILD=build CPPFLAGS=-DCG_HOOK LDFLAGS=-L/opt/cg/lib build/convgen 2>/dev/null >"$T/make" || true
grep -q -- '-DCG_HOOK' "$T/make" && grep -q -- '-L/opt/cg/lib' "$T/make" ||
  bad "CPPFLAGS and LDFLAGS do not reach the compile and link lines"
finish
