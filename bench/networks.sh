#!/usr/bin/env bash
# networks.sh: the run behind bench/README.md's results. VGG-16 and AlexNet
# are tuned into one fresh database (each network for a wall-clock budget),
# then `convgen bench` measures every distinct layer of both in one process:
# convgen's best kernels, the naive kernel, CLBlast and cuDNN side by side.
#
#   bench/networks.sh OUTDIR DEVICE VGG16_SECONDS ALEXNET_SECONDS
#   e.g. bench/networks.sh out/h200 nvidia 250 80
#
# Writes OUTDIR/info.txt (date, convgen version, device, libraries),
# tune-NET.txt/.log (the tuner's table and progress), tune.db, and
# bench.txt (the tables), bench.log (progress), bench.csv, bench.svg.
# Environment: CONVGEN (default build/convgen), CONVGEN_CLBLAST,
# CONVGEN_CUDNN (where the libraries are, when not on the loader's path),
# JOBS (tune --jobs: workers building at once; default 1, on a GPU machine
# about its CPU cores less two: rounds 9 and 10 used 12 and 14 of 16).
set -u
out=${1:?usage: bench/networks.sh OUTDIR DEVICE VGG16_SECONDS ALEXNET_SECONDS}
dev=${2:?DEVICE}
tv=${3:?VGG16_SECONDS}
ta=${4:?ALEXNET_SECONDS}
convgen=${CONVGEN:-build/convgen}
jobs=${JOBS:-1}
mkdir -p "$out"
db="$out/tune.db"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "convgen: $("$convgen" --version)"
  echo "command: JOBS=$jobs bench/networks.sh OUTDIR $dev $tv $ta"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "CONVGEN_CLBLAST=${CONVGEN_CLBLAST:-}"
  echo "CONVGEN_CUDNN=${CONVGEN_CUDNN:-}"
} >"$out/info.txt"
status=0
"$convgen" tune vgg16 --time "$tv" --jobs "$jobs" --device "$dev" --db "$db" >"$out/tune-vgg16.txt" \
  2>"$out/tune-vgg16.log" || status=1
"$convgen" tune alexnet --time "$ta" --jobs "$jobs" --device "$dev" --db "$db" >"$out/tune-alexnet.txt" \
  2>"$out/tune-alexnet.log" || status=1
"$convgen" bench vgg16 alexnet --device "$dev" --db "$db" --csv "$out/bench.csv" --plot "$out/bench.svg" \
  >"$out/bench.txt" 2>"$out/bench.log" || status=1
cat "$out/bench.txt"
exit $status
