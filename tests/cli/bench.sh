#!/usr/bin/env bash
# bench.sh: `convgen bench` on the default device (PoCL in CI): a tuned layer
# is benched against the naive kernel and CLBlast (cuDNN says why it does not
# run); a layer without a tuned kernel is tuned briefly first, and bench says
# so; a record of other kernels than convgen makes now is timed with a
# warning; the CSV and the SVG are written whole; a missing library is a row
# that says why, not a failure; wrong inputs are refused and leave no file.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

layer='n=1,c=4,h=9,w=7,k=6,bias=1,relu=1'
other='n=2,c=3,h=8,w=8,k=5,kh=1,kw=3,stride=2,pad=1'
db="$T/bench.db"

run tune "$layer" --budget 6 --cutoff 0 --db "$db"
expect_rc 0 "tune before bench"

run bench "$layer" --db "$db" --runs 10 --csv "$T/b.csv" --plot "$T/b.svg"
expect_rc 0 "bench a tuned layer"
expect_clean "bench a tuned layer"
for m in convgen naive clblast cudnn; do expect_out "  $m " "bench: a row for $m"; done
# convgen's row: the three best records measured here, the fastest kept and named
ok=$(sqlite3 "$db" "select count(distinct candidate_id) from measurements where status = 'ok'")
[ "$ok" -ge 3 ] || bad "tune before bench: $ok correct candidates, the test needs 3"
[ "$(grep -c 'convgen record [123] (' "$T/err")" = 3 ] || bad "bench: the three best records are not each measured"
grep -qE ',convgen,.*\(record [123] of the 3 best on record\)' "$T/b.csv" ||
  bad "bench: convgen's detail does not say which record was kept"
# cuDNN runs only on an NVIDIA device (the first line names the device)
nvidia=0
head -n 1 "$T/out" | grep -qi nvidia && nvidia=1
[ $nvidia = 1 ] || expect_out "not run: not an NVIDIA device" "bench: cuDNN says why it does not run"
expect_out "summary over 1 layer" "bench: the summary"
grep -q "tuning it briefly" "$T/err" && bad "bench: a tuned layer was tuned again"
grep -q "measured with other kernels" "$T/err" && bad "bench: a warning about records of the kernels convgen makes"
# convgen, naive and CLBlast were all timed and correct: their CSV rows say ran=1, correct=1
[ "$(wc -l <"$T/b.csv")" = 5 ] || bad "bench: the CSV has a header and 4 rows"
for m in convgen naive clblast; do
  grep -q ",$m,1,1," "$T/b.csv" || bad "bench: $m is not timed and correct in the CSV"
done
if [ $nvidia = 1 ]; then
  grep -q ",cudnn,1,1," "$T/b.csv" || bad "bench: cudnn is not timed and correct on an NVIDIA device"
else
  grep -q ",cudnn,0,0," "$T/b.csv" || bad "bench: cudnn did not run, in the CSV"
fi
# CLBlast's extra memory is its im2col buffer: c*kh*kw x out_h*out_w floats = 36 x 35 x 4 bytes
grep -q ",clblast,.*,5040,[0-9]*,im2col" "$T/b.csv" || bad "bench: CLBlast's im2col buffer is not 5040 bytes in the CSV"
head -c 200 "$T/b.svg" | grep -q "<svg" || bad "bench: the plot is not SVG"
ls "$T" | grep -q "tmp" && bad "bench: a temporary file was left behind"
# the results page's table is made from such a CSV (bench/table.py)
if command -v python3 >/dev/null; then
  python3 bench/table.py "$T/b.csv" >"$T/table.md" 2>&1 || bad "bench/table.py failed on bench's CSV: $(cat "$T/table.md")"
  grep -qE '^\| n=1,c=4,.* \| s[0-9] \|' "$T/table.md" || bad "bench/table.py: no row for the layer"
  grep -qE '^- naive / convgen: geometric mean [0-9.]+, convgen faster on [01] of 1' "$T/table.md" ||
    bad "bench/table.py: no geometric mean of the naive kernel"
  # with bench/pytorch.py's CSV: PyTorch's columns, its best (the graph here) over convgen's time
  python3 - "$T/b.csv" "$T/torch.csv" <<'PY'
import csv, sys
c = next(r for r in csv.DictReader(open(sys.argv[1])) if r["method"] == "convgen")
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(["layer", "spec", "mode", "median_us"])
w.writerow([c["layer"], c["spec"], "per-call", "999999"])
w.writerow([c["layer"], c["spec"], "graph", f"{float(c['median_us']) * 2:.3f}"])
PY
  python3 bench/table.py "$T/b.csv" "$T/torch.csv" >"$T/table2.md" 2>&1 || bad "bench/table.py with PyTorch's CSV failed"
  grep -qE '^\| .* \| 999999.0 \| 2.00 \| - \|$' "$T/table2.md" ||
    bad "bench/table.py: PyTorch's columns (best 2.00 x convgen, no cuDNN row here): $(cat "$T/table2.md")"
  grep -qE '^- PyTorch best / convgen: geometric mean 2.00' "$T/table2.md" || bad "bench/table.py: PyTorch's geometric mean"
  # two targets side by side (bench/targets.py): the same CSV with convgen's time halved stands for CUDA's
  python3 - "$T/b.csv" "$T/cuda.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=rows[0].keys())
w.writeheader()
for r in rows:
    if r["method"] == "convgen":
        r["median_us"] = f"{float(r['median_us']) / 2:.6f}"
    w.writerow(r)
PY
  python3 bench/targets.py "$T/b.csv" "$T/cuda.csv" >"$T/targets.md" 2>&1 || bad "bench/targets.py failed: $(cat "$T/targets.md")"
  grep -qE '^\| n=1,c=4,.* \| 0.50 \| CUDA \|' "$T/targets.md" || bad "bench/targets.py: CUDA's row: $(cat "$T/targets.md")"
  grep -qE '^- CUDA / OpenCL: geometric mean 0.50 over 1 layers; faster under CUDA on 1' "$T/targets.md" ||
    bad "bench/targets.py: the geometric mean"
fi

# A layer with no tuned kernel: tuned briefly, and bench says so.
run bench "$other" --db "$db" --budget 3 --runs 10
expect_rc 0 "bench an untuned layer"
expect_err "has no tuned kernel" "bench: says it tunes a layer first"
expect_err "tuning it briefly (3 candidates" "bench: names the brief budget"
expect_out "  convgen " "bench: the untuned layer has a convgen row"
grep -q "best kernels on" "$T/out" && bad "bench: the brief tune's table is in bench's standard output"

# A record whose kernel hash is not that of the kernels convgen makes for it
# now (changed by hand, on the layer's best, the layer tuned first): timed here
# as convgen makes it, with a warning.
sqlite3 "$db" "update measurements set kernel_hash = '0123456789abcdef' where id = (select m.id from measurements m
  join candidates c on c.id = m.candidate_id where c.layer_id = (select min(id) from layers) and m.status = 'ok'
  order by m.median_us limit 1)"
run bench "$layer" --db "$db" --runs 10
expect_rc 0 "bench with a record of other kernels"
expect_out "  convgen " "bench with a record of other kernels: a convgen row"
expect_err "convgen bench: warning: " "bench warns about a record of other kernels"
expect_err "was measured with other kernels than this convgen makes for it (kernel hash 0123456789abcdef, now " \
  "bench names the hashes of a record of other kernels"

# A missing CLBlast is a row that says why, for each layer; the progress on
# standard error says it once.
CONVGEN_CLBLAST=/nonexistent/libclblast.so.1 run bench "$layer" "$other" --db "$db" --runs 10
expect_rc 0 "bench without CLBlast"
expect_out "clblast  not run: " "bench: CLBlast's row says it did not run"
expect_out "/nonexistent/libclblast.so.1" "bench: the row names the library"
[ "$(grep -c /nonexistent/libclblast.so.1 "$T/out")" = 2 ] || bad "bench without CLBlast: a row for each of the 2 layers"
[ "$(grep -c /nonexistent/libclblast.so.1 "$T/err")" = 1 ] || bad "bench without CLBlast: the progress says why once"

# Wrong inputs.
usage_error "no layer" "missing LAYER or NETWORK" bench --db "$db"
usage_error "a bad layer" "unknown key 'q'" bench "n=1,c=4,h=8,w=8,k=4,q=1" --db "$db"
usage_error "too few runs" "--runs 5: the protocol times 10 to 1000000 runs" bench "$layer" --runs 5 --db "$db"
usage_error "an empty csv path" "--csv: an empty path" bench "$layer" --csv "" --db "$db"
usage_error "an unknown option" "--budgte" bench "$layer" --budgte 3
run bench "$layer" --db "$db" --runs 10 --csv "$T/no/such/dir/b.csv"
expect_rc 2 "bench into a missing folder"
expect_err "--csv $T/no/such/dir/b.csv: cannot write into $T/no/such/dir" "bench: names the file it cannot write"
grep -q "\[1/" "$T/err" && bad "bench: measured before finding that it cannot write its output"
expect_clean "bench into a missing folder"
# the CSV and the plot are written both or neither
run bench "$layer" --db "$db" --runs 10 --csv "$T/both.csv" --plot "$T/no/such/dir/b.svg"
expect_rc 2 "bench with a plot it cannot write"
[ -e "$T/both.csv" ] && bad "bench: the CSV was written though the plot could not be"
ls "$T" | grep -q "part" && bad "bench: a partial file was left behind"

# bench/ptxrun (the profile's runner): on a device that is not NVIDIA's it
# says so and exits 2; it refuses a point outside the space
ptxrun="$(dirname "$CONVGEN")/bench/ptxrun"
if [ $nvidia = 0 ]; then
  "$ptxrun" "$layer" s2 "LK=1 LH=1 LW=1 RW=1 RK=1" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 2 "ptxrun on a device without PTX"
  expect_err "the device's program binary is not PTX (not NVIDIA's OpenCL)" "ptxrun says why it cannot run"
fi
"$ptxrun" "$layer" s2 "LK=1 LH=1 LW=1 RW=4 RK=1" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "ptxrun with a point outside the space"
expect_err "the point is outside the space" "ptxrun names the broken constraint"

# a model: after its layers' rows, the network's row and a row a node in
# order (their own times, each node's kernel), and table.py's node table
if ! "$CONVGEN" import tests/onnx/block.onnx >/dev/null 2>&1; then
  echo "bench.sh: no ONNX reader: a model's CSV not checked" >&2
else
  run bench tests/onnx/block.onnx --db "$db" --budget 1 --runs 10 --csv "$T/m.csv"
  expect_rc 0 "bench of a model with --csv"
  grep -q "^tests/onnx/block.onnx,network,network,1,1,,[0-9.]*,.*,activations and temporaries,4 nodes; " "$T/m.csv" ||
    bad "bench --csv of a model: the network's row"
  [ "$(grep -c ',node,1,1,' "$T/m.csv")" = 4 ] || bad "bench --csv of a model: a row for each of its 4 nodes"
  grep -q '^gap,GlobalAveragePool,node,1,1,,[0-9.]*,.*,"a program of the IR, 1 kernel",$' "$T/m.csv" ||
    bad "bench --csv of a model: the pooling node's row, its kernel in detail"
  if command -v python3 >/dev/null; then
    python3 bench/table.py "$T/m.csv" >"$T/mt.md" 2>&1 || bad "bench/table.py on a model's CSV: $(cat "$T/mt.md")"
    grep -q "^- network tests/onnx/block.onnx: [0-9.]* us a run" "$T/mt.md" || bad "bench/table.py: the network's line"
    grep -qE '^\| conv1 \| Conv \| [0-9.]+ \| [0-9.]+% \| ' "$T/mt.md" || bad "bench/table.py: the node table"
    [ "$(grep -c '^| gap |' "$T/mt.md")" = 1 ] && ! grep -q '^| tests/onnx/block.onnx |' "$T/mt.md" ||
      bad "bench/table.py: the network's and the nodes' rows are not layers"
  fi
fi
finish
