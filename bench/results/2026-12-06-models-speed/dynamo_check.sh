#!/usr/bin/env bash
# dynamo_check.sh: the default (dynamo, torch.export-based) exporter's
# ConvNeXt-Tiny and DeepLabV3 MobileNetV3-Large, which round 34 saw refused,
# through `convgen import` and an untuned `convgen infer --expect` under each
# target. Run from the repository root after a build (build/convgen);
# writes $R/dynamo.txt and the logs into $R/logs (R: default /tmp/dynamo),
# with each model's operator counts ($R/logs/NAME.ops.txt).
set -u
R=${R:-/tmp/dynamo}
W=$R/models
mkdir -p "$W" "$R/logs"
MODELS=${MODELS:-convnext_tiny deeplabv3_mobilenet_v3_large}
# shellcheck disable=SC2086 # the names, one word each
EXPORTER=dynamo python3 bench/results/2026-12-06-models-h100/export.py "$W" $MODELS > "$R/logs/export.log" 2>&1
for n in $MODELS; do
  python3 -c "import collections, onnx, sys; m = onnx.load(sys.argv[1], load_external_data=False)
print('opset', [(o.domain, o.version) for o in m.opset_import])
for op, k in sorted(collections.Counter(x.op_type for x in m.graph.node).items()): print(op, k)" "$W/$n.onnx" \
    > "$R/logs/$n.ops.txt" 2>&1
  build/convgen import "$W/$n.onnx" > "$R/logs/$n.import.out" 2> "$R/logs/$n.import.err"
  echo "$n import: exit $?; $(head -c 400 "$R/logs/$n.import.err")" >> "$R/dynamo.txt"
  for t in cuda opencl; do
    timeout 300 build/convgen infer "$W/$n.onnx" --input "$W/${n}_input.pb" --expect "$W/${n}_output.pb" --target "$t" \
      --db "$R/none.db" -v > "$R/logs/$n.infer.$t.out" 2> "$R/logs/$n.infer.$t.err"
    echo "$n infer --target $t: exit $?; $(grep -o 'PASS relative L2 error [^ ]*\|FAIL.*' "$R/logs/$n.infer.$t.out")" \
      "$(grep -o 'steps prepared and run once in [^:]*' "$R/logs/$n.infer.$t.err")" \
      "$(grep '^convgen: [^n]' "$R/logs/$n.infer.$t.err" | head -c 400)" >> "$R/dynamo.txt"
  done
done
cat "$R/dynamo.txt"
