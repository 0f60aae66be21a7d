/* points.c: random points of a strategy's space on one layer, each checked
 * against the float64 convolution on fresh random inputs (output poisoned)
 * and then timed, one CSV line per point. What issue 3 asks of the H200:
 * many random valid points of each strategy, all correct, with the error
 * distribution and the range of times.
 *
 *   [POINTS_FIX="NAME=V ..."] build/bench/points LAYER STRATEGY N SEED [DEVICE] > points.csv
 *
 * POINTS_FIX narrows choices or parameters to one value each (LS=2: only
 * s2's staged variant), as `convgen space --param` does. POINTS_RUNS sets the
 * timed runs per point (default: the measurement protocol's).
 *
 * Points are drawn as `convgen space LAYER --strategy S --sample N` draws
 * them (among those that pass the lowering); point i gets input seed
 * SEED*1000+i. A point whose kernel needs a larger work-group than its build
 * allows (status over-limit: a register limit only the build reveals) is
 * kept in the CSV but not counted: drawing goes on until N points have run.
 * Progress goes to standard error. Exit status 1 when some point is not correct.
 */
#include "conv/reference.h"
#include "measure/measure.h"
#include "space/layer_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 5 || argc > 6) {
    fprintf(stderr, "usage: %s LAYER STRATEGY N SEED [DEVICE]\n", argv[0]);
    return 2;
  }
  Diag d = {0};
  Layer l;
  const Strategy *st = st_strategy(argv[2]);
  int n = atoi(argv[3]);
  uint64_t seed = strtoull(argv[4], NULL, 10);
  if (!st || !layer_parse(argv[1], &l, &d) || n < 1 || seed < 1) {
    fprintf(stderr, "points: bad arguments%s%s\n", d.set ? ": " : "", d.msg);
    return 2;
  }
  RtDevice *dev = rt_open(argc == 6 ? argv[5] : NULL, &d);
  if (!dev) return fprintf(stderr, "points: %s\n", d.msg), 2;
  Arena *a = arena_new();
  SpaceDomain fix[8];
  int nfix = 0;
  char *fixes = getenv("POINTS_FIX") ? strdup(getenv("POINTS_FIX")) : NULL;
  for (char *tok = fixes ? strtok(fixes, " ") : NULL; tok && nfix < 8; tok = strtok(NULL, " ")) {
    char *eq = strchr(tok, '=');
    if (!eq) return fprintf(stderr, "points: POINTS_FIX wants NAME=V, not '%s'\n", tok), 2;
    *eq = 0;
    fix[nfix++] = (SpaceDomain){tok, atoll(eq + 1), atoll(eq + 1), 0, NULL};
  }
  LayerSpace *ls = ls_new(a, st, &l, argv[1], nfix, fix, rt_info(dev), &d);
  if (!ls) return fprintf(stderr, "points: %s\n", d.msg), 2;
  LsPoint *pts = calloc((size_t)n * 4, sizeof *pts);
  int k = ls_sample(ls, seed, n * 4, pts);
  bool exact;
  fprintf(stderr, "%s %s: %llu points meet the constraints; %d drawn (pass the lowering)\n", argv[1], st->name,
          (unsigned long long)ls_count(ls, &exact), k);
  printf("layer,strategy,point,params,status,error,median_us,min_us,max_us,spread_pct,reason\n");
  int bad = 0, over = 0, ran = 0;
  bool tty = isatty(2);
  for (int i = 0; i < k && ran < n; i++) {
    int nb;
    const char **names;
    int64_t *vals;
    ls_bindings(ls, &pts[i], &nb, &names, &vals);
    StrBuf ps;
    sb_init(&ps);
    for (int j = 0; j < nb; j++) sb_printf(&ps, "%s%s=%lld", j ? " " : "", names[j], (long long)vals[j]);
    ArenaMark mark = arena_mark(a);
    CpOptions co = {.through = CP_LOWER};   // meas_run emits it
    CpResult cr;
    MeasResult r = {0};
    if (ls_compile(ls, a, &pts[i], &co, &cr, &d)) {
      MeasOptions o = meas_defaults();
      o.seed = seed * 1000 + (uint64_t)i;
      o.warmup = 1;
      if (getenv("POINTS_RUNS") && atoi(getenv("POINTS_RUNS")) > 0) o.runs = atoi(getenv("POINTS_RUNS"));
      o.reference = conv_reference_fn;
      o.reference_ctx = &l;
      r = meas_run(a, dev, cr.lp, &o);
    } else {
      r.status = MEAS_BUILD_FAILED;
      snprintf(r.reason, sizeof r.reason, "lowering: %.900s", d.msg);
      r.error = -1;
    }
    over += r.status == MEAS_OVER_LIMIT;
    ran += r.status != MEAS_OVER_LIMIT;
    bad += r.status != MEAS_OK && r.status != MEAS_OVER_LIMIT;
    for (char *c = r.reason; *c; c++)
      if (*c == ',' || *c == '\n' || *c == '"') *c = ' ';
    printf("\"%s\",%s,%d,%s,%s,%.3g,%.1f,%.1f,%.1f,%.1f,%s\n", argv[1], st->name, i, sb_str(&ps),
           meas_status_name(r.status), r.error, r.ms.median * 1e3, r.ms.min * 1e3, r.ms.max * 1e3,
           r.ms.median > 0 ? 100 * (r.ms.max - r.ms.min) / r.ms.median : 0, r.reason);
    fflush(stdout);
    if (tty || ran == n || i + 1 == k || (i + 1) % 20 == 0)
      fprintf(stderr, "%s%s %s: %d of %d run, %d not correct, %d over the build's limit%s", tty ? "\r" : "", argv[1],
              st->name, ran, n, bad, over, tty ? "" : "\n");
    sb_free(&ps);
    arena_reset(a, mark);
    d = (Diag){0};
  }
  if (tty) fprintf(stderr, "\n");
  free(pts);
  free(fixes);
  ls_free(ls);
  arena_free(a);
  rt_close(dev);
  return bad ? 1 : 0;
}
