# Round 33, call 5: s2's patch staging (LS=3) on grouped and depthwise
# layers (commit 7c80e73; it refused them before): random points under both
# targets on MobileNet V2's depthwise layers and on two odd grouped layers,
# checked against the float64 reference; then a 40 s CUDA tune of s2 with
# LS=3 alone on the depthwise layers into call 3's database, each
# strategy's best per layer read back. Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r33
R=/tmp/r33/call5; mkdir -p $R
save() { tar czf $OUT/call5.tgz --exclude='*.db*' -C /tmp/r33 call5; }
trap 'rm -f $R/*.db*; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
L="$(for i in 1 2 3 4 5 7 8 12 14 15; do printf 'mobilenet_v2.features.%s.dw ' $i; done)"
G="n=2,c=6,h=9,w=10,k=9,pad=1,groups=3,bias=1,act=leaky(0.1) n=1,c=64,h=28,w=28,k=128,pad=1,groups=8,bias=1,relu=1"
for t in opencl cuda; do
  for l in $L $G; do
    out=$(timeout 60 build/convgen run "$l" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 --random 1 --target $t --device nvidia --runs 10 2>&1)
    echo "$t $l rc=$? $(echo "$out" | grep -E '^program|^check|convgen:' | tr '\n' ' ')" >> $R/random.txt
  done
done
echo "random pass=$(grep -c 'check     PASS' $R/random.txt) of $(wc -l < $R/random.txt) $(date -u)" >> $R/info.txt; save
gunzip -c $D/call3/tune.db.gz > $R/tune.db
timeout 60 build/convgen tune $L --strategy s2 --param LS=3 --target cuda --time 40 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune rc=$? $(date -u)" >> $R/info.txt
python3 $D/strategies.py $R/tune.db CUDA ',groups=' > $R/strategies_cuda.md 2>&1
python3 - $R/tune.db > $R/s2_patch_best.md <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print("| layer | s2 LS=3 best (us) | point |")
print("|---|---|---|")
for spec, us, pt in c.execute("""select l.spec, min(m.median_us), c.point from measurements m join candidates c on c.id = m.candidate_id
    join layers l on l.id = c.layer_id join devices d on d.id = m.device_id where m.status = 'ok' and d.platform = 'CUDA'
    and c.strategy = 's2' and c.point like '%LS=3%' and l.spec like '%groups=%' group by l.spec order by l.spec"""):
    print(f"| {spec} | {us:.2f} | {pt} |")
PY
save
cat $R/info.txt; grep -v "check     PASS" $R/random.txt | head -5; cat $R/s2_patch_best.md; cat $R/strategies_cuda.md
