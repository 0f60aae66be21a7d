set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r23; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r22/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
DEEP="vgg16.conv3_1 vgg16.conv3_2 vgg16.conv4_1 vgg16.conv4_2 vgg16.conv5_1 alexnet.conv2 alexnet.conv3 alexnet.conv4 alexnet.conv5"
SPECS="n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=256,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=256,h=28,w=28,k=512,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=512,h=28,w=28,k=512,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=512,h=14,w=14,k=512,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=64,h=27,w=27,k=192,kh=5,kw=5,stride=1,pad=2,bias=1,relu=1;n=1,c=192,h=13,w=13,k=384,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=384,h=13,w=13,k=256,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1;n=1,c=256,h=13,w=13,k=256,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1"
build/convgen tune $DEEP alexnet.conv1 --strategy s2 --jobs 14 --time 200 --seed 47 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
tail -8 $R/table.md
cd $OUT && tar czf r23.tgz r23 && rm -rf r23
