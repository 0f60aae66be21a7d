#!/usr/bin/env python3
"""table.py: the tables of issue 32's final run, from each call's files
(nothing typed): per layer convgen's best recorded kernel, cuDNN's row (its
fastest correct algorithm), PyTorch's CUDA graph, the ratios (above 1:
convgen is faster), memory and error; and from the call's database the best
time of each strategy (the faster of wino and the direct strategies against
the direct alone). Usage: table.py DIR SET..., DIR holding each SET's
extracted SET.tgz (issue32-SET/)."""
import csv, math, sqlite3, sys

g = lambda x: math.exp(sum(map(math.log, x)) / len(x)) if x else float("nan")


def table(d, s):
    root = f"{d}/issue32-{s}"
    info = dict(line.rstrip("\n").split(": ", 1) for line in open(f"{root}/{s}.txt") if ": " in line)
    print(f"### SET={s}\n\n{info['date']}, {info['gpu']}, commit {info['commit']}: `{info['command']}`\n")
    rows = list(csv.DictReader(open(f"{root}/bench.csv")))
    torch = {(r["layer"], r["mode"]): r for r in csv.DictReader(open(f"{root}/pytorch.csv"))}
    print("| layer | convgen us (point) | cuDNN us (algorithm) | cuDNN/convgen | PyTorch graph us | PyTorch/convgen |"
          " convgen MB | cuDNN MB | error convgen |")
    print("|---|---|---|---|---|---|---|---|---|")
    rc, rp = [], []
    for layer in dict.fromkeys(r["layer"] for r in rows):
        by = {r["method"]: r for r in rows if r["layer"] == layer}
        cg, cu = by["convgen"], by["cudnn"]
        t, tc = float(cg["median_us"]), float(cu["median_us"])
        tp = torch.get((layer, "graph"))
        tp = float(tp["median_us"]) if tp and tp["median_us"] else None
        rc.append(tc / t)
        if tp: rp.append(tp / t)
        mb = lambda r: f"{int(r['bytes_total']) / 1e6:.1f}"
        print(f"| {layer} | {t:.1f} ({cg['detail'].split(' (record')[0]}) | {tc:.1f} ({cu['detail'].split(', ')[1]}) |"
              f" {tc / t:.2f} | {tp:.1f} | {tp / t:.2f} | {mb(cg)} | {mb(cu)} | {float(cg['error']):.1e} |")
    print(f"| geometric mean | | | {g(rc):.2f} ({sum(x > 1 for x in rc)} of {len(rc)} faster) | |"
          f" {g(rp):.2f} ({sum(x > 1 for x in rp)} of {len(rp)}) | | | |\n")
    db = sqlite3.connect(f"{root}/tune.db")
    q = ("select l.spec, c.strategy, min(m.median_us), count(*) from measurements m join candidates c on "
         "c.id = m.candidate_id join layers l on l.id = c.layer_id where m.status = 'ok' group by l.id, c.strategy "
         "order by l.id, c.strategy")
    best = {}
    for spec, strategy, us, n in db.execute(q):
        best.setdefault(spec, []).append(f"{strategy} {us:.1f} ({n})")
    print("| layer | each strategy's best us (kernels timed) |\n|---|---|")
    for spec, v in best.items():
        print(f"| {spec} | {', '.join(v)} |")
    print()


for s in sys.argv[2:]:
    table(sys.argv[1], s)
