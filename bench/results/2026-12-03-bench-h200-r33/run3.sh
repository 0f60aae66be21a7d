# Round 33, call 3: dw with the kernel's window in registers (commit
# 52beb41) against dw without (the same tree with window.patch reversed),
# each MobileNet V2 depthwise layer's fastest dw record of call 1's
# database run A B B A under CUDA and under OpenCL (bench/build_ab.py
# --strategy dw); dw's random points on every MobileNet V1/V2 depthwise
# layer again under both targets; then 40 s more of dw under CUDA (its
# kernels changed, so its records are measured again) and the layers
# benched under CUDA with PyTorch in the lease. Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r33
R=/tmp/r33/call3; mkdir -p $R
save() { tar czf $OUT/call3.tgz --exclude='*.db-*' -C /tmp/r33 call3; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
rm -rf /tmp/a && mkdir /tmp/a && tar cf - --exclude=./build --exclude=./.git . | tar xf - -C /tmp/a
(cd /tmp/a && patch -R -p1 < $D/window.patch && make -j16 build/convgen) > $R/build_a.log 2>&1
echo "build A rc=$? $(date -u)" >> $R/info.txt
gunzip -c $D/call1/tune.db.gz > $R/tune.db
specs=$(python3 -c "import sqlite3; c=sqlite3.connect('$R/tune.db'); print(';'.join(r[0] for r in c.execute(\"select spec from layers where n=1 and spec like '%groups=%' and spec like '%act=relu6%' order by id\")))")
for t in cuda opencl; do
  timeout 150 python3 bench/build_ab.py $R/tune.db nvidia /tmp/a/build/convgen build/convgen --target $t --strategy dw \
    --layers "$specs" --csv $R/ab_dw_$t.csv > $R/ab_dw_$t.md 2> $R/ab_dw_$t.log
  echo "ab $t rc=$? $(date -u)" >> $R/info.txt; save
done
V2L=$(for i in 1 2 3 4 5 7 8 12 14 15; do printf 'mobilenet_v2.features.%s.dw ' $i; done)
V1L=$(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do printf 'mobilenet_v1.conv%s_dw ' $i; done)
for t in opencl cuda; do
  for L in $V2L $V1L; do
    for s in 3 4; do
      out=$(timeout 30 build/convgen run $L --strategy dw --random $s --target $t --device nvidia --runs 10 2>&1)
      echo "$t $L $s rc=$? $(echo "$out" | grep -E '^program|^check|^time|convgen:' | tr '\n' ' ')" >> $R/random.txt
    done
  done
done
echo "random pass=$(grep -c 'check     PASS' $R/random.txt) of $(wc -l < $R/random.txt) $(date -u)" >> $R/info.txt; save
timeout 60 build/convgen tune $V2L --strategy dw --target cuda --time 40 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune cuda rc=$? $(date -u)" >> $R/info.txt; save
python3 $D/strategies.py $R/tune.db CUDA ',groups=' > $R/strategies_cuda.md 2>&1
timeout 100 build/convgen bench $V2L --target cuda --device nvidia --db $R/tune.db --budget 4 --runs 10 \
  --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 60 python3 bench/pytorch.py $R/bench_cuda.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
echo "pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1; save
cat $R/info.txt; cat $R/ab_dw_cuda.md $R/ab_dw_opencl.md; cat $R/strategies_cuda.md; tail -n 5 $R/table_cuda.md
