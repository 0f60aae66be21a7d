#!/usr/bin/env bash
# setup.sh: installs the Debian packages convgen needs, and only those that
# are missing (checked with dpkg-query), without questions.
#
#     scripts/setup.sh           # to build convgen and run it (the main job)
#     scripts/setup.sh --test    # and to run the test suite
#     scripts/setup.sh --all     # and the optional tools (clinfo)
#
# Run as root, or with sudo available; a user who has what the chosen group
# needs is told so and the script exits 0 without either. Optional packages
# that are missing are named, not installed (--all installs them). Safe to
# run again: it does nothing when everything is there.
set -euo pipefail

build=(
  gcc libc6-dev make        # the C11 toolchain (libasan/libubsan come with gcc)
  ocl-icd-opencl-dev        # the OpenCL ICD loader, -lOpenCL
  opencl-headers            # CL/cl.h
  pocl-opencl-icd           # an OpenCL device on the CPU (PoCL)
  libsqlite3-dev            # the tuning database, -lsqlite3
  protobuf-c-compiler libprotobuf-c-dev  # the ONNX reader: protoc-c generates C from onnx.proto, -lprotobuf-c
  libonnx-dev               # onnx.proto, which the build generates the reader from
  libclblast1               # convgen bench's im2col+GEMM baseline (CLBlast, loaded at run time; the main job benches)
)
test=(
  sqlite3                   # the database's shell, which the tests read records with
  libonnx-testdata          # ONNX's node tests, run by tests/cli/import.sh, infer.sh and node-tests.sh
  libopenmpi-dev openmpi-bin  # tune's scale-out over MPI ranks (mpicc's flags, mpirun), which tune.sh runs
  python3-numpy             # the Python package (python/convgen), which python.sh and install.sh run
  python3-venv              # a virtual environment with pip, which python.sh installs the package into
)
optional=(
  clinfo                    # to inspect the OpenCL setup by hand
)

usage() { echo "usage: scripts/setup.sh [--test | --all]" >&2; exit 2; }
[ $# -le 1 ] || usage
case ${1:-} in
  "") want=("${build[@]}") maybe=("${test[@]}" "${optional[@]}") what="build and run" ;;
  --test) want=("${build[@]}" "${test[@]}") maybe=("${optional[@]}") what="build, run and test" ;;
  --all) want=("${build[@]}" "${test[@]}" "${optional[@]}") maybe=() what="build, run, test and inspect" ;;
  -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) usage ;;
esac

# Installed, exactly: dpkg's own word for the package's state. A removed
# package can linger as "config-files": that is missing too. (Not `dpkg -s P |
# grep -q`: under pipefail, grep's early exit killed dpkg with SIGPIPE, and a
# present package counted as missing.)
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

missing=() skipped=()
for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
for p in ${maybe[@]+"${maybe[@]}"}; do installed "$p" || skipped+=("$p"); done
[ ${#skipped[@]} -eq 0 ] ||
  echo "setup: not needed to $what, not installed: ${skipped[*]} (scripts/setup.sh --all installs them)"
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages to $what present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: not root and no sudo; as root run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q "${missing[@]}"
