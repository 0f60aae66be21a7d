#!/usr/bin/env python3
"""fuzz_onnx.py: mutate ONNX models (tests/onnx/*.onnx and, when Debian's
libonnx-testdata is there, its node tests' models) at the byte level and read
each mutant with `convgen import`; run mutants of the two smallest models
(block.onnx, tiny.onnx) whole with `convgen infer` and write them out with
`convgen export` (their values on the device, the buffer plan, the
operators' programs, the exported files); and mutate a tensor file
(tests/onnx/block_input.pb) and give it to `convgen infer` (the sanitizer
build by default); a crash, a sanitizer report, a timeout or an exit status
other than 0, 1 (a wrong output) or 2 is a bug.

Mutations: flipped bytes, bytes set to 0x00/0xff/0x7f/0x80 (varint edges),
deleted and duplicated spans, truncation, and varints of lengths and
dimensions pushed to huge values.

Usage: make SAN=1 && scripts/fuzz_onnx.py SEED COUNT [CONVGEN]
Findings are written to /tmp/fz_onnx/ (crash_N.onnx)."""
import glob, os, random, subprocess, sys

random.seed(int(sys.argv[1]))
count = int(sys.argv[2])
convgen = sys.argv[3] if len(sys.argv) > 3 else 'build-san/convgen'
files = glob.glob('tests/onnx/*.onnx') + glob.glob('/usr/share/libonnx-testdata/data/node/test_conv*/model.onnx')[:40]
files += ['tests/onnx/block_input.pb'] * 8
runnable = ['tests/onnx/block.onnx', 'tests/onnx/tiny.onnx']   # both take block_input.pb
files += runnable * 8
os.makedirs('/tmp/fz_onnx', exist_ok=True)
# as tests/run.sh runs the sanitizer build: leaks inside PoCL and LLVM (a kernel
# built for the first time) are theirs, not convgen's
os.environ.setdefault('LSAN_OPTIONS', 'suppressions=%s/tests/lsan.supp' % os.getcwd())
path = '/tmp/fz_onnx/mutant.onnx'
bad = 0
for it in range(count):
    src = random.choice(files)
    data = bytearray(open(src, 'rb').read())
    for _ in range(random.randint(1, 6)):
        op, pos = random.random(), random.randrange(max(1, len(data)))
        if op < 0.3 and data:
            data[pos] ^= 1 << random.randrange(8)
        elif op < 0.5 and data:
            data[pos] = random.choice([0x00, 0xff, 0x7f, 0x80])
        elif op < 0.65:
            del data[pos:pos + random.randint(1, 16)]
        elif op < 0.8:
            span = data[pos:pos + random.randint(1, 32)]
            data[pos:pos] = span
        elif op < 0.9:
            data = data[:pos]
        else:   # a varint of 10 bytes (past int64) or a huge length
            data[pos:pos] = bytes([0xff] * 9 + [0x01])
    open(path, 'wb').write(data)
    try:
        if src.endswith('.pb'):
            cmd = [convgen, 'infer', 'tests/onnx/block.onnx', '--input', path]
        elif src in runnable and random.random() < 0.5:   # the mutant run whole, or exported
            if random.random() < 0.5:
                cmd = [convgen, 'infer', path, '--input', 'tests/onnx/block_input.pb']
            else:
                subprocess.run(['rm', '-rf', '/tmp/fz_onnx/ex'])
                cmd = [convgen, 'export', path, '--input', 'tests/onnx/block_input.pb', '-o', '/tmp/fz_onnx/ex']
        else:
            cmd = [convgen, 'import', path]
        r = subprocess.run(cmd, capture_output=True, timeout=60)
        out = r.stderr.decode(errors='replace')
        if r.returncode not in (0, 1, 2) or 'Sanitizer' in out or 'runtime error:' in out:
            bad += 1
            keep = '/tmp/fz_onnx/crash_%d.onnx' % it
            open(keep, 'wb').write(data)
            print('BUG (exit %d): %s\n%s' % (r.returncode, keep, out[-600:]))
    except subprocess.TimeoutExpired:
        bad += 1
        open('/tmp/fz_onnx/timeout_%d.onnx' % it, 'wb').write(data)
        print('TIMEOUT: /tmp/fz_onnx/timeout_%d.onnx' % it)
print('%d mutants, %d bugs' % (count, bad))
sys.exit(1 if bad else 0)
