#!/usr/bin/env bash
# setup.sh: scripts/setup.sh decides exactly which packages are missing, with
# dpkg, apt-get and id replaced by stand-ins on PATH (nothing is installed):
# the default group (build and run), --test and --all each install what
# they need and name the rest; a user without root or sudo who has what
# the group needs exits 0, one who lacks a package is told the command.
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
  PATH="$fake:$PATH" bash "$setup" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}

: >"$T/missing"
: >"$T/removed"
for group in "" --test --all; do
  for i in 1 2; do
    setup $group
    expect_rc 0 "everything present ($group $i)"
    expect_out "setup: all packages to build" "everything present ($group $i)"
    [ -e "$T/apt.log" ] && bad "everything present ($group $i): apt-get ran: $(cat "$T/apt.log")"
  done
done

# the default group (build and run): a build package missing is installed,
# a test package and an optional one missing are named, not installed
printf 'gcc\nclinfo\n' >"$T/missing"
echo sqlite3 >"$T/removed"
setup
expect_rc 0 "build: gcc missing"
expect_out "setup: installing gcc" "build: the missing build package"
expect_out "setup: not needed to build and run, not installed: sqlite3 clinfo (scripts/setup.sh --all installs them)" \
  "build: the test and optional packages named"
grep -qx "install -y -q gcc" "$T/apt.log" || bad "build: apt-get installs gcc alone: $(cat "$T/apt.log")"
# --test: the test package too (a removed one's configuration is not installed)
setup --test
expect_rc 0 "--test: two missing"
expect_out "setup: installing gcc sqlite3" "--test: the build and test packages"
grep -qx "install -y -q gcc sqlite3" "$T/apt.log" || bad "--test: apt-get installs them: $(cat "$T/apt.log")"
expect_out "not needed to build, run and test, not installed: clinfo" "--test: the optional one named"
setup --all
expect_rc 0 "--all: three missing"
grep -qx "install -y -q gcc sqlite3 clinfo" "$T/apt.log" || bad "--all: apt-get installs all three: $(cat "$T/apt.log")"

# Not root and no sudo (PATH holds only the stand-ins): what the group needs
# is there, so nothing to do and exit 0; a build package missing, exit 1 with
# the command to run as root
user=$T/user
mkdir -p "$user"
cp "$fake/dpkg-query" "$fake/apt-get" "$user/"
ln -s "$(command -v grep)" "$user/grep"   # (the stand-ins' own tool)
printf '#!%s\necho 1000\n' "$BASH" >"$user/id"
sed -i "1s|.*|#!$BASH|" "$user/dpkg-query" "$user/apt-get"
chmod +x "$user/id" "$user/dpkg-query" "$user/apt-get"
as_user() {
  rm -f "$T/apt.log"
  PATH=$user "$BASH" "$setup" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}
echo clinfo >"$T/missing"
: >"$T/removed"
as_user --test
expect_rc 0 "a user with what --test needs"
expect_out "setup: all packages to build, run and test present" "a user with what --test needs: told so"
as_user --all
expect_rc 1 "a user missing an optional package with --all"
expect_err "setup: not root and no sudo; as root run: apt-get install -y clinfo" "the user is told the command"
[ -e "$T/apt.log" ] && bad "a user without sudo: apt-get ran"
as_user --bad
expect_rc 2 "an unknown option"
expect_err "usage: scripts/setup.sh [--test | --all]" "the usage"

finish
