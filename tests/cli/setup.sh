#!/usr/bin/env bash
# setup.sh: scripts/setup.sh decides exactly which packages are missing, with
# dpkg, apt-get and id replaced by stand-ins on PATH (nothing is installed).
# The stand-in dpkg writes a long status, as dpkg -s does for some packages:
# the old check (`dpkg -s P | grep -q` under pipefail) then took a present
# package for a missing one, because grep's early exit killed dpkg (SIGPIPE).
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
setup=$PWD/scripts/setup.sh

fake=$T/bin
mkdir -p "$fake"
# $T/missing names the packages that are not installed; $T/removed those
# whose configuration files are left.
cat >"$fake/dpkg-query" <<SH
#!/usr/bin/env bash
p=\${!#}
grep -qx "\$p" "$T/missing" 2>/dev/null && { echo "dpkg-query: no packages found matching \$p" >&2; exit 1; }
grep -qx "\$p" "$T/removed" 2>/dev/null && { printf config-files; exit 0; }
printf installed
SH
cat >"$fake/dpkg" <<SH
#!/usr/bin/env bash
p=\${!#}
grep -qx "\$p" "$T/missing" 2>/dev/null && exit 1
grep -qx "\$p" "$T/removed" 2>/dev/null && { echo "Status: deinstall ok config-files"; exit 0; }
echo "Package: \$p"
echo "Status: install ok installed"
yes " a long description" | head -n 100000
SH
cat >"$fake/apt-get" <<SH
#!/usr/bin/env bash
echo "\$*" >>"$T/apt.log"
SH
printf '#!/usr/bin/env bash\necho 0\n' >"$fake/id"
chmod +x "$fake"/*

# setup ARGS: runs scripts/setup.sh with the stand-ins.
setup() {
  rm -f "$T/apt.log"
  PATH="$fake:$PATH" bash "$setup" >"$T/out" 2>"$T/err"
  rc=$?
}

: >"$T/missing"
: >"$T/removed"
for i in 1 2 3; do
  setup
  expect_rc 0 "everything present ($i)"
  expect_out "setup: all packages present" "everything present ($i)"
  [ -e "$T/apt.log" ] && bad "everything present ($i): apt-get ran: $(cat "$T/apt.log")"
done

echo clinfo >"$T/missing"
echo sqlite3 >"$T/removed"
setup
expect_rc 0 "two missing"
expect_out "setup: installing sqlite3 clinfo" "two missing"
grep -qx "install -y -q sqlite3 clinfo" "$T/apt.log" || bad "two missing: apt-get installs them: $(cat "$T/apt.log")"

finish
