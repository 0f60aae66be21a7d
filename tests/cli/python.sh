#!/usr/bin/env bash
# python.sh: the Python package (python/convgen, ctypes over libconvgen.so
# and src/api/convgen.h) run as a user would: block.onnx's shapes, a
# session on the default device with no database, its output against
# `convgen infer`'s on the same input (.npy both ways; the same kernels,
# the same device), a second run on other inputs, cg_tune through the
# package, wrong inputs refused with convgen.Error, and the package as
# `make python` leaves it installed by pip. Skipped without
# python3 and numpy (scripts/setup.sh --test installs them) and under the
# sanitizers (a sanitized libconvgen.so wants its runtime preloaded).
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
skip_without_onnx
lib=$(dirname "$CONVGEN")/libconvgen.so
if ! command -v python3 >/dev/null || ! python3 -c "import numpy" 2>/dev/null; then
  echo "python.sh: no python3 with numpy: not checked (scripts/setup.sh --test installs them)" >&2
  finish
fi
if nm -D "$lib" 2>/dev/null | grep -q __asan_init; then
  echo "python.sh: $lib is sanitized (it wants libasan preloaded into python3): not checked" >&2
  finish
fi
[ -f "$lib" ] || { bad "no $lib (make builds it)"; finish; }
M=tests/onnx/block
python3 -c "import numpy as np; np.save('$T/x.npy', (np.arange(3*16*16, dtype=np.float32).reshape(1,3,16,16) % 7 - 3) / 4)"
run infer "$M.onnx" --input "$T/x.npy" -o "$T/y.npy" --db "$T/none.db"
expect_rc 0 "convgen infer on x.npy"
CONVGEN_LIB=$lib PYTHONPATH=python CONVGEN_PROGRAM=$CONVGEN python3 - "$M.onnx" "$T" >"$T/out" 2>"$T/err" <<'PY'
import sys
import numpy as np
import convgen
model_path, t = sys.argv[1], sys.argv[2]
print("version", convgen.version())
m = convgen.Model(model_path)
print("inputs", m.inputs, "outputs", m.outputs)
d = convgen.Device()
s = convgen.Session(m, d, db=t + "/none.db")
print("untuned", s.untuned)
x = np.load(t + "/x.npy")
(y,) = s.run(x)
want = np.load(t + "/y.npy")
print("same as infer", float(np.abs(y - want).max()))
(y2,) = s.run(x * 0.5)
print("other input differs", bool(np.abs(y2 - y).max() > 1e-6))
(y3,) = s.run(x)
print("again the same", bool((y3 == y).all()))
for bad in [lambda: s.run(), lambda: s.run(np.zeros((1, 3, 8, 8), np.float32)), lambda: convgen.Model(t + "/nothing.onnx"),
            lambda: convgen.Device(target="vulkan")]:
    try:
        bad()
        print("not refused")
    except convgen.Error as e:
        print("refused", e.code, e)
convgen.tune(m, d, db=t + "/tuned.db", seconds=1)
print("tuned untuned", convgen.Session(m, d, db=t + "/tuned.db").untuned)
PY
rc=$?
expect_rc 0 "the Python package"
expect_out "version $("$CONVGEN" --version | sed 's/^convgen //')" "convgen.version() is the library's"
expect_out "inputs [('x', (1, 3, 16, 16))] outputs [('fl', (1, 8))]" "the model's inputs and outputs with their shapes"
expect_out "untuned 3" "no database: its 3 convolutions untuned"
grep -qE '^same as infer [0-9.e-]+$' "$T/out" && awk '/^same as infer/ { exit !($4 < 1e-6) }' "$T/out" ||
  bad "the session's output is not infer's on the same input"
expect_out "other input differs True" "another input, another output"
expect_out "again the same True" "the first input again, the first output"
expect_out "refused 2 $M.onnx has 1 input(s); 0 given" "no input refused"
expect_out "refused 2 input 'x': shape (1, 3, 8, 8) given, (1, 3, 16, 16) wanted" "a wrong shape refused"
expect_out "refused 2 $T/nothing.onnx" "a missing model refused, named"
expect_out "refused 2 cg_device_open: target 'vulkan': must be 'opencl' or 'cuda'" "a wrong target refused"
expect_out "tuned untuned 0" "tune through the package, then a session with its records"
grep -q "not refused" "$T/out" && bad "a wrong call was not refused"
# pip: the package as `make python` leaves it (build/libconvgen.so beside
# it) installed by pip into a virtual environment, used from another folder
# with no PYTHONPATH or $CONVGEN_LIB: it loads its own copy of the library.
# The copy is made in $T (the repository is not written). Skipped where
# python3 has no venv with pip (Debian: python3-venv, which setup.sh --test
# installs).
if python3 -m venv --system-site-packages "$T/venv" >/dev/null 2>&1 && [ -x "$T/venv/bin/pip" ]; then
  cp -r python "$T/pkg" && rm -rf "$T/pkg/build" "$T/pkg"/*.egg-info && cp "$lib" "$T/pkg/convgen/libconvgen.so" &&
    cp "$CONVGEN" "$T/pkg/convgen/convgen"
  "$T/venv/bin/pip" install --no-deps --no-build-isolation --no-index --quiet "$T/pkg" >"$T/pip.log" 2>&1 ||
    bad "pip install of the package: $(tail -5 "$T/pip.log")"
  (cd "$T" && env -u PYTHONPATH -u CONVGEN_LIB -u CONVGEN_PROGRAM "$T/venv/bin/python" - \
    "$OLDPWD/$M.onnx" "$T" >"$T/out" 2>"$T/err" <<'PY'
import os, sys
import numpy as np
import convgen
print("package at", os.path.dirname(convgen.__file__))
print("library", convgen._lib._name)
print("version", convgen.__version__, convgen.version())
# the model as one object: its device and database, called on arrays, tuned
m = convgen.Model(sys.argv[1], db=sys.argv[2] + "/pip.db")
print("untuned", m.untuned)
y = m(np.load(sys.argv[2] + "/x.npy"))
print("same as infer", float(np.abs(y - np.load(sys.argv[2] + "/y.npy")).max()))
m.tune(seconds=1)   # by the convgen the package carries: no convgen on PATH here
print("program", os.environ.get("CONVGEN_PROGRAM"))
print("after tune untuned", m.untuned, "same", bool((m(np.load(sys.argv[2] + "/x.npy")) == y).all()) or "differs")
PY
  )
  rc=$?
  expect_rc 0 "the package installed by pip"
  grep -q "^package at $T/venv/lib/" "$T/out" || bad "the package imported is pip's, in the environment: $(head -1 "$T/out")"
  grep -q "^library $T/venv/lib/.*/convgen/libconvgen.so$" "$T/out" || bad "pip's package loads its own library: $(sed -n 2p "$T/out")"
  v=$("$CONVGEN" --version | sed 's/^convgen \([^ ]*\).*/\1/')
  grep -q "^version $v $v " "$T/out" || bad "the package's version is convgen's ($v): $(sed -n 3p "$T/out")"
  awk '/^same as infer/ { ok = $4 < 1e-6 } END { exit !ok }' "$T/out" || bad "pip's package computes infer's output"
  expect_out "untuned 3" "Model(path, db=...): its session's untuned convolutions"
  grep -q "^program $T/venv/lib/.*/convgen/convgen$" "$T/out" || bad "model.tune runs the convgen the package carries: $(grep program "$T/out")"
  grep -q "^after tune untuned 0 " "$T/out" || bad "model.tune records every convolution: $(grep 'after tune' "$T/out")"
  "$T/venv/bin/pip" show convgen 2>/dev/null | grep -q "^Version: $v$" || bad "pip knows convgen $v"
else
  echo "python.sh: python3 has no venv with pip: pip install not checked (scripts/setup.sh --test installs python3-venv)" >&2
fi
finish
