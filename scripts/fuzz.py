#!/usr/bin/env python3
"""fuzz.py: mutate the example and must-fail programs and compile each mutant with the
sanitizer build; a crash, a sanitizer report, an internal error or an exit status other
than 0 or 2 is a bug. With a third argument, mutants that compile are also run on the
default device and must pass their check against the interpreter.

Mutations: deletions, inserted tokens (integers at and past int's and int64's
edges, floats past float's), copies of the text, deep nesting and long
pipelines around the parser's bound, sizes at the edge of int, and texts past
the 16 MiB limit.

Usage: make SAN=1 && make && scripts/fuzz.py SEED COUNT [run]
Findings are written to /tmp/fz/ (crash_N.cg, timeout_N.cg, runfail_N.cg)."""
import random, subprocess, os, glob, sys
random.seed(int(sys.argv[1]))
files = glob.glob('examples/ir/*.cg') + glob.glob('tests/errors/*.cg')
toks = "( ) [ ] , : = |> -> fun mapGlb mapLcl mapWrg split[4] join transpose 0 1 4 N float [float]N let in x y # {} . ; + * / % toLocal reduceSeq pad[1,1,clamp] slide[3,1] asVector[4] gather[(i,n)->n-1-i]".split(' ')
# integers at and past the edges of int and int64, and floats past float's range
toks += "2147483647 2147483648 4294967296 4294967297 -2147483649 99999999999 9223372036854775808 1e39f 3.5e38 get[2147483648] get[16] mapGlb[4294967296, pad[4294967297,1,clamp] split[2147483648]".split(' ')
sizes = ['1', '2147483647', '2147483648', '4294967296', '65536', '99999999999']

def deepen(src, pos):
    """Deep nesting or a long pipeline at pos: around the parser's bound of 1000."""
    k = random.choice([10, 999, 1000, 1001, 5000])
    if random.random() < 0.5:
        return src[:pos] + '(' * k + src[pos:] + ')' * random.choice([k, k - 1])
    return src[:pos] + ' |> split[2] |> join' * (k // 2) + src[pos:]
crashes = 0
stats = {}
for it in range(int(sys.argv[2])):
    orig = open(random.choice(files)).read()
    src = orig
    runline = [l for l in orig.splitlines() if l.startswith('# run:')]
    extra = runline[0][len('# run:'):].split() if runline else []
    if extra and random.random() < 0.1:   # a size at the edge of int, or its product past it
        i = random.randrange(len(extra))
        if '=' in extra[i]: extra[i] = extra[i].split('=')[0] + '=' + random.choice(sizes)
    for _ in range(random.randint(1, 4)):
        op = random.random(); pos = random.randrange(len(src) + 1)
        if op < 0.03:
            src = deepen(src, pos)
        elif op < 0.035:   # past the 16 MiB the command line reads
            src = src + ' ' * (17 << 20)
        elif op < 0.4 and len(src) > 1:
            n = random.randint(1, 8); src = src[:pos] + src[pos+n:]
        elif op < 0.8:
            src = src[:pos] + random.choice(toks) + src[pos:]
        else:
            q = random.randrange(len(src) + 1); src = src[:pos] + src[q:q+10] + src[pos:]
    os.makedirs('/tmp/fz', exist_ok=True); open('/tmp/fz/case.cg', 'w').write(src)
    args = ['build-san/convgen', 'compile', '/tmp/fz/case.cg'] + extra
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0')
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=20, env=env)
    except subprocess.TimeoutExpired:
        print('TIMEOUT', it); open('/tmp/fz/timeout_%d.cg' % it, 'w').write(src); crashes += 1; continue
    stats[r.returncode] = stats.get(r.returncode, 0) + 1
    bad = r.returncode not in (0, 2) or 'Sanitizer' in r.stderr or 'runtime error' in r.stderr or 'internal error' in r.stderr
    if r.returncode == 0 and len(sys.argv) > 3:
        rr = subprocess.run(['build/convgen', 'run', '/tmp/fz/case.cg'] + extra + ['--runs', '10'], capture_output=True, text=True, timeout=120)
        if rr.returncode != 0:
            print('RUN-FAIL', it, rr.returncode, (rr.stdout + rr.stderr)[-500:]); open('/tmp/fz/runfail_%d.cg' % it, 'w').write(src)
    if bad:
        crashes += 1
        open('/tmp/fz/crash_%d.cg' % it, 'w').write(src)
        print('CRASH', it, r.returncode, r.stderr[-400:])
print("done, crashes:", crashes, "exit codes:", stats)
