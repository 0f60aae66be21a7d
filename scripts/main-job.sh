#!/usr/bin/env bash
# main-job.sh: convgen's main job on the default device ($CONVGEN_DEVICE, else
# the first GPU, else PoCL on the CPU): every example program run and checked
# (scripts/run-examples.sh), then a short tune of a convolution layer whose
# results go into the tuning database (docs/tune.md), its best record, and
# that kernel benched against the naive kernel, CLBlast and cuDNN
# (bench/README.md; cuDNN only on NVIDIA devices). The last line says whether
# the job succeeded, and which steps failed when it did not (exit status 1).
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
failed=()
echo "== examples"
./scripts/run-examples.sh || failed+=(examples)
echo "== tune $layer (budget $budget per layer)"
# tune ends with the table of the best records, which `best` prints next:
# its standard output (that table only; the progress is on standard error)
# is left out so that the table is printed once
"$convgen" tune "$layer" --budget "$budget" >/dev/null || failed+=(tune)
echo "== best"
"$convgen" best "$layer" || failed+=(best)
echo "== bench $layer"
"$convgen" bench "$layer" --runs 10 || failed+=(bench)
if [ ${#failed[@]} -eq 0 ]; then
  echo "main job: OK (examples, tune, best and bench of $layer succeeded)"
  exit 0
fi
echo "main job: FAILED (${failed[*]})"
exit 1
