#!/usr/bin/env bash
# remote.sh: remote measurement (docs/remote.md). convgen-server, built
# beside $CONVGEN, serves PoCL on loopback; convgen's commands use it with
# --device 127.0.0.1:PORT: devices, run (its check passes), tune (records
# kept under the served device's own name, found by best through the server
# and on the device itself), infer, export of a model, bench; --target cuda
# is refused; bytes that are not the protocol do not bring the server down;
# a port where nothing listens and a server killed mid-run are clear errors. The server's port is
# the system's choice (--port 0), read from its ready line, so two runs of
# this test never clash; only the PIDs it started are killed.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

SERVER=$(dirname "$CONVGEN")/convgen-server
[ -x "$SERVER" ] || { echo "remote.sh: no $SERVER (make builds it)" >&2; exit 1; }
pids=()
# at the end: the processes this test started, by their PIDs, and the scratch files
# shellcheck disable=SC2317 # (called by the trap)
stop_all() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap stop_all EXIT

# start_server LOG ARGS...: starts convgen-server on 127.0.0.1, port 0, in the
# background; waits for its ready line; sets $spid and $port ("" when it
# never got ready).
start_server() {
  local log=$1
  shift
  "$SERVER" --port 0 "$@" 2>"$log" &
  spid=$!
  pids+=("$spid")
  port=""
  for _ in $(seq 200); do
    port=$(sed -n 's/^convgen-server: serving .* on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$log")
    [ -n "$port" ] && return 0
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}

# the server's own usage
"$SERVER" --help >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "convgen-server --help"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "no authentication"; do
  expect_out "$s" "convgen-server --help has $s"
done
"$SERVER" --no-such-option >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "convgen-server with an unknown option"
expect_err "unknown option '--no-such-option'" "convgen-server with an unknown option"
"$SERVER" --port 0 --device no-such-device-xyz >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "convgen-server with no such device"
expect_err "no OpenCL device matches 'no-such-device-xyz'" "convgen-server with no such device"

start_server "$T/server.log" --device pocl || { cat "$T/server.log" >&2; bad "convgen-server never got ready"; finish; }
R=127.0.0.1:$port
name=$(sed -n 's/^convgen-server: serving \(.*\) on 127\.0\.0\.1:[0-9]*$/\1/p' "$T/server.log")
L="n=1,c=8,h=8,w=8,k=8,kh=3,kw=3,pad=1"

CONVGEN_DEVICE=$R run devices
expect_rc 0 "devices with a remote default"
expect_out "default: device 0 ($name)" "the remote default device is the server's"

run run "$L" --strategy s2 --random 1 --device "$R"
expect_rc 0 "run through the server"
expect_out "check     PASS" "run through the server passes its check"
expect_out "device    0: $name" "run names the served device"

run tune "$L" --budget 3 --db "$T/r.db" --device "$R"
expect_rc 0 "tune through the server"
expect_err "3 correct" "tune through the server records correct kernels"
run best "$L" --db "$T/r.db" --device "$R"
expect_rc 0 "best through the server"
expect_out "best kernels on $name" "best through the server finds the records"
expect_out "$L" "best through the server lists the layer"
run best "$L" --db "$T/r.db" --device pocl
expect_out "$L" "records made through the server are the device's own"

run run "$L" --strategy s2 --random 1 --device "$R" --target cuda
expect_rc 2 "--target cuda with a remote device"
expect_err "OpenCL only" "--target cuda with a remote device"

# bytes that are not the protocol: an error reply, or the connection closed; the server goes on
if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  printf '\143\000\000\000\000\000\000\000' >&3   # request 99, empty
  reply=$(timeout 5 head -c 8 <&3 | od -An -tu1 | tr -s ' ')
  [ "${reply:0:8}" = " 3 0 0 0" ] || bad "an unknown request gets an error reply (got '$reply')"
  printf '\001\000\000\000\377\377\377\377' >&3   # a frame of 4 GiB
  exec 3>&-
fi
run run "$L" --strategy s2 --random 2 --device "$R"
expect_rc 0 "the server still serves after bad requests"

if "$CONVGEN" import tests/onnx/tiny.onnx >/dev/null 2>"$T/err" || ! grep -q "without an ONNX reader" "$T/err"; then
  run infer tests/onnx/blocks/mbconv.onnx --input tests/onnx/blocks/mbconv_input.pb \
    --expect tests/onnx/blocks/mbconv_y.pb --db "$T/r.db" --device "$R"
  expect_rc 0 "infer through the server"
  expect_out "PASS" "infer through the server matches the expected output"
  # a model exported for the served device: its kernels built and run there, the host program written here
  run export tests/onnx/blocks/mbconv.onnx --input tests/onnx/blocks/mbconv_input.pb --db "$T/r.db" --device "$R" \
    -o "$T/exp"
  expect_rc 0 "export of a model through the server"
  [ -f "$T/exp/convgen_net.c" ] && [ -f "$T/exp/weights.bin" ] || bad "export through the server wrote the network"
fi
# bench through the server: convgen's row from the remote records, checked and timed there
run bench "$L" --db "$T/r.db" --device "$R" --runs 10 --csv "$T/rb.csv"
expect_rc 0 "bench through the server"
grep -q ",convgen,1,1," "$T/rb.csv" || bad "bench through the server: convgen's row correct and timed"

# nothing listening: a clear error, exit 4
run run "$L" --strategy s2 --random 1 --device 127.0.0.1:1
expect_rc 4 "a port where nothing listens"
expect_err "remote device 127.0.0.1:1: cannot connect" "a port where nothing listens"
expect_clean "a port where nothing listens"

# the server killed mid-run: the run ends with the connection lost, no hang
start_server "$T/kill.log" --device pocl -v || bad "the second convgen-server never got ready"
"$CONVGEN" run "n=1,c=64,h=56,w=56,k=64,kh=3,kw=3,pad=1" --strategy s2 --random 1 --runs 300 \
  --device "127.0.0.1:$port" >"$T/out" 2>"$T/err" &
cpid=$!
pids+=("$cpid")
for _ in $(seq 300); do
  [ "$(grep -c 'client convgen' "$T/kill.log")" -ge 2 ] && break
  sleep 0.1
done
sleep 0.3
kill "$spid"
wait "$cpid"
rc=$?
expect_rc 4 "a server killed mid-run"
expect_err "remote device 127.0.0.1:$port: the connection was lost" "a server killed mid-run"
expect_clean "a server killed mid-run"

# the server's own stderr: no sanitizer report (make SAN=1 builds it sanitized too)
for log in "$T/server.log" "$T/kill.log"; do
  if grep -qE 'Sanitizer|runtime error:' "$log"; then bad "convgen-server: a sanitizer report in $(basename "$log")"; fi
done

finish
