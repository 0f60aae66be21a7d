# Why round 19's tune lost workers to SIGKILL (and at the end itself): the
# same tune's last two layers, with the memory of every process sampled.
set -u
export GIT_COMMIT=20c2a69
. bench/h200-env.sh .debs || exit 1
R=$OUT/r20; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r19/tune.db $R/tune.db
{ date -u; build/convgen --version; free -g; cat /sys/fs/cgroup/memory.max 2>/dev/null; cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null; } > $R/info.txt
( while :; do { date -u +%T; free -m | sed -n 2p; ps -eo pid,ppid,rss,etimes,comm --sort=-rss | head -8; } >> $R/mem.log; sleep 2; done ) &
S=$!
timeout 150 build/convgen tune vgg16.conv4_2,n=8 vgg16.conv5_1,n=8 --strategy s2 --jobs 14 --time 120 --seed 59 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune rc=$? $(date -u)" >> $R/info.txt
kill $S
cat /sys/fs/cgroup/memory.events 2>/dev/null >> $R/info.txt
dmesg 2>/dev/null | tail -20 > $R/dmesg.txt
cd $OUT && tar czf r20.tgz r20 && rm -rf r20
