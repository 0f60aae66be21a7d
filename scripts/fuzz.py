#!/usr/bin/env python3
"""fuzz.py: mutate the example and must-fail programs and compile each mutant with the
sanitizer build; a crash, a sanitizer report, an internal error or an exit status other
than 0 or 2 is a bug. With a third argument, mutants that compile are also run on the
default device and must pass their check against the interpreter.

Usage: make SAN=1 && make && scripts/fuzz.py SEED COUNT [run]
Findings are written to /tmp/fz/ (crash_N.cg, timeout_N.cg, runfail_N.cg)."""
import random, subprocess, os, glob, sys
random.seed(int(sys.argv[1]))
files = glob.glob('examples/ir/*.cg') + glob.glob('tests/errors/*.cg')
toks = "( ) [ ] , : = |> -> fun mapGlb mapLcl mapWrg split[4] join transpose 0 1 4 N float [float]N let in x y # {} . ; + * / % toLocal reduceSeq pad[1,1,clamp] slide[3,1] asVector[4] gather[(i,n)->n-1-i]".split(' ')
crashes = 0
stats = {}
for it in range(int(sys.argv[2])):
    orig = open(random.choice(files)).read()
    src = orig
    runline = [l for l in orig.splitlines() if l.startswith('# run:')]
    extra = runline[0][len('# run:'):].split() if runline else []
    for _ in range(random.randint(1, 4)):
        op = random.random(); pos = random.randrange(len(src) + 1)
        if op < 0.4 and len(src) > 1:
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
