#!/usr/bin/env bash
# malformed.sh: models, tensor files, bindings and paths that crashed, wrapped
# or were accepted before issue 34's fixes, each refused now with exit 2 and
# its message, and no crash: tests/onnx/malformed/ (EXPECT lists each file
# and the text its message must contain; tests/onnx/make_malformed.py writes
# them), read by `import` and `infer` (a model) or as infer's --input (a
# tensor file), or exported (run_*: a model whose run does not fit the
# device); endless streams; --shape past the bounds.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx
D=$M/malformed

skip_without_onnx

n=0
while IFS= read -r line; do
  case $line in '#'* | '') continue ;; esac
  file=${line%%: *} msg=${line#*: }
  n=$((n + 1))
  case $file in
    run_*.onnx)   # a model import takes, whose run does not fit: refused before anything is allocated
      run export "$D/$file" -o "$T/exp"
      [ "$rc" -ne 0 ] || bad "export $file: exit 0"
      expect_err "$msg" "export $file"
      expect_clean "export $file"
      [ -e "$T/exp" ] && bad "export $file: wrote $T/exp"
      ;;
    *.onnx)
      usage_error "import $file" "$msg" import "$D/$file"
      usage_error "infer $file" "$msg" infer "$D/$file"
      ;;
    *.pb)
      usage_error "infer --input $file" "$msg" infer "$M/block.onnx" --input "$D/$file"
      ;;
  esac
done <"$D/EXPECT"
[ "$n" -ge 20 ] || bad "EXPECT lists $n files, fewer than the 20 written"

# Endless streams: read up to a cap, then a message (they ran out of memory, exit 134).
usage_error "import /dev/zero" "/dev/zero: more than" import /dev/zero
usage_error "infer --input /dev/zero" "/dev/zero: more than" infer "$M/block.onnx" --input /dev/zero
# Bindings past an int: 4294967298 became a layer of w=2; 2^31 aborted export.
usage_error "--shape past int" "--shape x=1x3x16x4294967298: a dimension past 2147483647" \
  import "$M/tiny_batch.onnx" --shape x=1x3x16x4294967298
usage_error "export --shape past int" "--shape x=1x3x5x2147483648: a dimension past 2147483647" \
  export "$M/tiny_batch.onnx" --shape x=1x3x5x2147483648 -o "$T/exp"
[ -e "$T/exp" ] && bad "export --shape past int: wrote $T/exp"
usage_error "--shape past int64" "--shape x=1x3x16x18446744073709551617: a dimension past 2147483647" \
  import "$M/tiny_batch.onnx" --shape x=1x3x16x18446744073709551617
usage_error "--shape with a trailing x" "expected NAME=D1xD2x... with positive dimensions" \
  import "$M/tiny_batch.onnx" --shape x=1x3x16x16x
usage_error "--shape empty" "expected NAME=D1xD2x... with positive dimensions" import "$M/tiny_batch.onnx" --shape x=
usage_error "--shape past the elements" "--shape x=64x64x1024x1024: more than 2147483647 elements" \
  import "$M/tiny_batch.onnx" --shape x=64x64x1024x1024

# infer -o onto a device is written in place (a temporary renamed over a copy
# of /dev/null replaced it, as root).
if mknod "$T/null" c 1 3 2>/dev/null; then
  run infer "$M/block.onnx" --input "$M/block_input.pb" -o "$T/null"
  expect_rc 0 "infer -o onto a character device"
  [ -c "$T/null" ] || bad "infer -o onto a character device: it was replaced"
fi
[ -n "$(find "$T" -name '*.tmp.*')" ] && bad "a temporary file was left behind"
finish
