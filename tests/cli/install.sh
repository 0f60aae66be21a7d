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
bash scripts/install.sh "$build" "$P" >"$T/out" 2>"$T/err"
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
