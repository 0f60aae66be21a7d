#!/usr/bin/env bash
# The best kernel of each layer (`convgen best`) run through the CUDA driver
# (build/bench/ptxrun: the PTX NVIDIA's OpenCL built, launched with the same
# ND-range, checked against the float64 convolution, then timed), with its
# registers, spills and shared memory; and, when Nsight Compute (`ncu`) is
# there, profiled: ncu profiles CUDA launches, not OpenCL ones, which is why
# the kernel goes through ptxrun. What issue 5 asks for: the profile that
# shows why a layer is slower than the baselines.
#
#   bench/profile.sh OUTDIR DB DEVICE LAYER...
#
# Writes OUTDIR/LAYER.ptxrun.txt, LAYER.ptx and, with ncu, LAYER.ncu.csv
# (ncu --set full, one row per metric) and LAYER.ncu.txt (its summary).
# NCU=PATH names ncu when it is not on PATH.
set -u
out=${1:?usage: bench/profile.sh OUTDIR DB DEVICE LAYER...}
db=${2:?DB}
dev=${3:?DEVICE}
shift 3
mkdir -p "$out"
ncu=${NCU:-$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  convgen: $(build/convgen --version)  device: $dev"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "ncu: ${ncu:-none}"
} >"$out/info.txt"
status=0
for l in "$@"; do
  # the row of `convgen best`: layer, strategy, time, GFLOP/s, error, measured, then the point
  row=$(build/convgen best "$l" --db "$db" --device "$dev" | awk -v l="$l" '$1 == l')
  [ -n "$row" ] || { echo "$l: no record in $db" >>"$out/info.txt"; status=1; continue; }
  st=$(echo "$row" | awk '{print $2}')
  pt=$(echo "$row" | awk '{for (i = 7; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "")}')
  echo "$l: $st $pt" >>"$out/info.txt"
  PTXRUN_PTX="$out/$l.ptx" build/bench/ptxrun "$l" "$st" "$pt" "$dev" >"$out/$l.ptxrun.txt" 2>&1 || status=1
  if [ -n "$ncu" ]; then
    "$ncu" --set full --csv --page details build/bench/ptxrun "$l" "$st" "$pt" "$dev" 3 >"$out/$l.ncu.csv" 2>"$out/$l.ncu.log" || status=1
    "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      build/bench/ptxrun "$l" "$st" "$pt" "$dev" 3 >"$out/$l.ncu.txt" 2>&1 || status=1
  fi
done
exit $status
