# Round 32, call 1: __launch_bounds__ on the CUDA kernels of fixed group
# size (codegen dialect entry group_size_fmt), A/B on the tuned kernels:
# build A without it (the working tree with .debs/launch_bounds.patch
# reversed), build B with it, each layer's best CUDA record of round 31's
# database run A B B A (bench/build_ab.py). Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r32/call1; mkdir -p $R
save() { tar czf $OUT/call1.tgz -C /tmp/r32 call1; }
trap save EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
rm -rf /tmp/a && mkdir /tmp/a && tar cf - --exclude=./build --exclude=./.git . | tar xf - -C /tmp/a
(cd /tmp/a && patch -R -p1 < .debs/launch_bounds.patch && make -j16 build/convgen) > $R/build_a.log 2>&1
echo "build A rc=$? $(date -u)" >> $R/info.txt
gunzip -c bench/results/2026-12-03-bench-h200-r31/call4/tune.db.gz > /tmp/r32.db
specs() { python3 -c "import sqlite3,sys; c=sqlite3.connect('/tmp/r32.db'); print(';'.join(r[0] for r in c.execute('select spec from layers where n=1 and ('+sys.argv[1]+') order by id')))" "$1"; }
build/convgen compile vgg16.conv3_2 --strategy s2 --random 1 --target cuda 2>/dev/null | grep -m2 "__global__" > $R/sample_b.txt
timeout 330 python3 bench/build_ab.py /tmp/r32.db nvidia /tmp/a/build/convgen build/convgen --target cuda \
  --layers "$(specs 'id <= 14 or id >= 82 and id <= 88')" --csv $R/ab_vgg_resnet_res.csv > $R/ab_vgg_resnet_res.md 2> $R/ab1.log
echo "ab 1 rc=$? $(date -u)" >> $R/info.txt; save
timeout 200 python3 bench/build_ab.py /tmp/r32.db nvidia /tmp/a/build/convgen build/convgen --target cuda \
  --layers "$(specs 'id >= 24 and id <= 46')" --csv $R/ab_resnet.csv > $R/ab_resnet.md 2> $R/ab2.log
echo "ab 2 rc=$? $(date -u)" >> $R/info.txt
cat $R/info.txt; tail -n 3 $R/ab_vgg_resnet_res.md $R/ab_resnet.md
