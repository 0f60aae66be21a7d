#!/usr/bin/env bash
# setup.sh: installs the Debian packages convgen needs to build and test, and
# only those that are missing (checked with dpkg-query), without questions.
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
  protobuf-c-compiler libprotobuf-c-dev  # the ONNX reader: protoc-c generates C from onnx.proto, -lprotobuf-c
  libonnx-dev               # onnx.proto, which the build generates the reader from
  libonnx-testdata          # ONNX's node tests, read by tests/cli/import.sh
)

# Installed, exactly: dpkg's own word for the package's state. A removed
# package can linger as "config-files": that is missing too. (Not `dpkg -s P |
# grep -q`: under pipefail, grep's early exit killed dpkg with SIGPIPE, and a
# present package counted as missing.)
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
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
