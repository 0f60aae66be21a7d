#!/usr/bin/env bash
# setup.sh: installs the Debian packages convgen needs to build and test, and
# only those that are missing (checked with dpkg -s), without questions.
# Run as root (or with sudo available). Safe to run again: it does nothing when
# everything is there.
set -euo pipefail

packages=(
  gcc libc6-dev make        # the C11 toolchain (libasan/libubsan come with gcc)
  ocl-icd-opencl-dev        # the OpenCL ICD loader, -lOpenCL
  opencl-headers            # CL/cl.h
  pocl-opencl-icd           # an OpenCL device on the CPU (PoCL)
  libsqlite3-dev sqlite3    # the tuning database (-lsqlite3), and its shell for inspection and tests
  libopenmpi-dev openmpi-bin  # tune's scale-out over MPI ranks (mpicc's flags, mpirun)
  libclblast1               # convgen bench's im2col+GEMM baseline (CLBlast, loaded at run time)
  clinfo                    # to inspect the OpenCL setup by hand
)

missing=()
for p in "${packages[@]}"; do
  # a removed package can linger as "deinstall ok config-files": that is missing too
  dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
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
