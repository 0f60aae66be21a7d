#!/usr/bin/env bash
# onnx-ops.sh: the operators of ONNX models, without the onnx package.
# usage: scripts/onnx-ops.sh MODEL.onnx...   (or the paths one a line on stdin)
# Prints a line per model: its path, a tab, the distinct op_types of its
# nodes (subgraphs' included) in the order they first appear, space-
# separated; "?" for a file that cannot be read as a model. With python3,
# scripts/onnx_ops.py decodes the protobuf (and writes an operator of another
# domain DOMAIN:OP); without it, protoc-c --decode with the onnx.proto that
# libonnx-dev installs, which the build of the ONNX reader needs too (the
# domain is not looked at: convgen refuses such a node at import). Exit 2
# when neither is here. tests/cli/node-tests.sh and import.sh read this.
set -uo pipefail
here=$(dirname "$0")
proto_dir=${ONNX_PROTO_DIR:-/usr/include/onnx}

if command -v python3 >/dev/null 2>&1; then
  exec python3 "$here/onnx_ops.py" "$@"
fi
if ! command -v protoc-c >/dev/null 2>&1 || [ ! -f "$proto_dir/onnx.proto" ]; then
  echo "onnx-ops.sh: needs python3, or protoc-c and $proto_dir/onnx.proto (protobuf-c-compiler, libonnx-dev)" >&2
  exit 2
fi
one() {
  local ops
  ops=$(protoc-c --decode=onnx.ModelProto -I"$proto_dir" "$proto_dir/onnx.proto" <"$1" 2>/dev/null |
        sed -n 's/^ *op_type: "\(.*\)"$/\1/p' | awk '!seen[$0]++' | tr '\n' ' ')
  ops=${ops% }
  printf '%s\t%s\n' "$1" "${ops:-?}"
}
if [ $# -gt 0 ]; then
  for f in "$@"; do one "$f"; done
else
  while IFS= read -r f; do [ -n "$f" ] && one "$f"; done
fi
