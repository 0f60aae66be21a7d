#!/usr/bin/env bash
# main-job.sh: convgen's main job on the default device ($CONVGEN_DEVICE, else
# the first GPU, else PoCL on the CPU): every example program run and checked
# (scripts/run-examples.sh), then a short tune of a convolution layer whose
# results go into the tuning database (docs/tune.md), its best record, and
# that kernel benched against the naive kernel, CLBlast and cuDNN
# (bench/README.md; cuDNN only on NVIDIA devices).
#
# usage: scripts/main-job.sh [LAYER|NETWORK] [BUDGET]
#        (default: alexnet.conv5 with 8 candidates; e.g. 'vgg16 30' on a GPU)
# environment: CONVGEN (default build/convgen), CONVGEN_DB (the database,
#              default ~/.local/share/convgen/tune.db), CONVGEN_DEVICE.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
convgen=${CONVGEN:-build/convgen}
layer=${1:-alexnet.conv5}
budget=${2:-8}
status=0
echo "== examples"
./scripts/run-examples.sh || status=1
echo "== tune $layer (budget $budget per layer)"
"$convgen" tune "$layer" --budget "$budget" || status=1
echo "== best"
"$convgen" best "$layer" || status=1
echo "== bench $layer"
"$convgen" bench "$layer" --runs 10 || status=1
exit $status
