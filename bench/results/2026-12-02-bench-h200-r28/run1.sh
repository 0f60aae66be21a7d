# Round 28, call 1 (about 6 minutes):
#  1. the two split-K points that hung under --target cuda in round 27, alone,
#     after the hold that gives way (869c0b5): do they finish, and correct?
#  2. the tuning defaults with --transfer (afdc18c): vgg16.conv3_1 then
#     conv3_2 from an empty database, 120 s each (conv3_2's transfer takes
#     conv3_1's winners); the best known conv3_2 is 129.3 us (round 26)
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
P1="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=3 -p LN=2 -p LX=2 -p CK=32 -p RW=4 -p RK=4 -p RH=2 -p TW=7 -p TH=2 -p TK=2 -p CC=4"
P2="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=2 -p LN=2 -p LX=2 -p CK=8 -p RW=2 -p RK=8 -p RH=4 -p TW=1 -p TH=14 -p TK=1 -p CC=2"
timeout 30 build/convgen run vgg16.conv2_1 --strategy s2 $P1 --target cuda --device nvidia --runs 10 > $R/hang1_cuda.txt 2>&1; echo "hang1 cuda rc=$?" >> $R/info.txt
timeout 30 build/convgen run vgg16.conv3_1 --strategy s2 $P2 --target cuda --device nvidia --runs 10 > $R/hang2_cuda.txt 2>&1; echo "hang2 cuda rc=$?" >> $R/info.txt
build/convgen tune vgg16.conv3_1 --time 120 --seed 5 --device nvidia --db $R/fresh.db > $R/fresh1.txt 2> $R/fresh1.log
build/convgen tune vgg16.conv3_2 --time 120 --seed 5 --device nvidia --db $R/fresh.db > $R/fresh2.txt 2> $R/fresh2.log
echo "fresh tunes rc=$? $(date -u)" >> $R/info.txt
rm -f $R/*.db-*; gzip $R/*.db
cat $R/info.txt; tail -n 3 $R/fresh1.txt $R/fresh2.txt
cd $OUT && tar czf r.tgz r && rm -rf r
