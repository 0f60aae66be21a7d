/* tune.c: the tuning loop (tune.h): candidates in a fixed order, measured by
 * a worker, recorded, with progress and a final table. */
#include "tune/tune.h"

#include "space/layer_space.h"
#include "tune/worker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One layer's candidates: the strategies in turn, each its next sampled point. */
typedef struct Plan {
  int n;
  const Strategy **st;
  const char **point;   // "NAME=V ..."
} Plan;

/* At most max candidates (per strategy), interleaved. */
static bool make_plan(Arena *a, const TuneOptions *o, const Layer *l, const RtDeviceInfo *dev, int64_t max, Plan *plan,
                      Diag *d) {
  int ns = o->nstrategies;
  const char **pts[TUNE_MAX_STRATEGIES];
  int got[TUNE_MAX_STRATEGIES], total = 0;
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  for (int s = 0; s < ns; s++) {
    const char *name = arena_printf(a, "%s (strategy %s)", sb_str(&sb), o->strategies[s]->name);
    LayerSpace *ls = ls_new(a, o->strategies[s], l, name, 0, NULL, dev, d);
    if (!ls) return sb_free(&sb), false;
    LsPoint *p = calloc((size_t)max, sizeof *p);
    if (!p) cg_die("out of memory");
    got[s] = ls_sample(ls, o->seed + (uint64_t)s, (int)max, p);
    pts[s] = ARENA_ARRAY(a, const char *, (size_t)got[s] + 1);
    for (int i = 0; i < got[s]; i++) pts[s][i] = ls_point_text(ls, a, &p[i]);
    free(p);
    ls_free(ls);
    total += got[s];
  }
  sb_free(&sb);
  plan->n = 0;
  plan->st = ARENA_ARRAY(a, const Strategy *, (size_t)total + 1);
  plan->point = ARENA_ARRAY(a, const char *, (size_t)total + 1);
  for (int i = 0; plan->n < total; i++)
    for (int s = 0; s < ns; s++)
      if (i < got[s]) plan->st[plan->n] = o->strategies[s], plan->point[plan->n++] = pts[s][i];
  return true;
}

typedef struct Progress {
  const TuneOptions *o;
  double start;            // of the whole run
  int64_t done, measured;  // candidates walked / measured now (all layers)
  int64_t total;           // to walk (budget x layers), 0 when the time decides
  double best_us;          // of the current layer
  const char *best_st;
  bool line_open;          // a live line is on the terminal
} Progress;

static void progress(Progress *pr, const char *layer, int64_t i, int64_t n, const char *what) {
  double el = now_s() - pr->start, rate = el > 0 ? (double)pr->measured / el : 0;
  char best[64] = "none yet", left[48] = "";
  if (isfinite(pr->best_us)) snprintf(best, sizeof best, "%.1f us (%s)", pr->best_us, pr->best_st);
  if (pr->o->time_s > 0) snprintf(left, sizeof left, ", %.0f s left", fmax(0, pr->o->time_s - el));
  else if (pr->total && rate > 0) snprintf(left, sizeof left, ", ~%.0f s left", (double)(pr->total - pr->done) / rate);
  if (pr->o->live) {
    fprintf(stderr, "\r\033[K%s: %lld/%lld, best %s, %.2f/s%s", layer, (long long)i, (long long)n, best, rate, left);
    pr->line_open = true;
  } else {
    fprintf(stderr, "%s: %lld/%lld %s, best %s%s\n", layer, (long long)i, (long long)n, what, best, left);
  }
  fflush(stderr);
}

static void end_line(Progress *pr) {
  if (pr->line_open) fputs("\n", stderr);
  pr->line_open = false;
}

int tune_print_best(Db *db, int64_t device, const Layer *layers, const char *const *names, int nlayers) {
  Arena *a = arena_new();
  int found = 0, wl = 5;
  for (int i = 0; i < nlayers; i++) wl = (int)strlen(names[i]) > wl ? (int)strlen(names[i]) : wl;
  printf("%-*s  %-8s %12s %10s %9s %9s  %s\n", wl, "layer", "strategy", "time (us)", "GFLOP/s", "error", "measured",
         "point");
  for (int i = 0; i < nlayers; i++) {
    DbBest b;
    Diag d = {0};
    int64_t lid = db_layer(db, &layers[i], &d);
    if (lid > 0 && db_best(db, a, lid, device, &b)) {
      found++;
      printf("%-*s  %-8s %12.1f %10.1f %9.2g %9lld  %s\n", wl, names[i], b.m.strategy, b.m.median_us,
             layer_flops(&layers[i]) / (b.m.median_us * 1e3), b.m.error, (long long)b.measured, b.m.point);
    } else {
      int64_t all = 0, ok = 0;
      if (lid > 0) db_counts(db, lid, device, &all, &ok);
      printf("%-*s  %-8s %12s %10s %9s %9lld  %s\n", wl, names[i], "-", "-", "-", "-", (long long)all,
             "no correct kernel recorded");
    }
  }
  arena_free(a);
  return found;
}

int tune_run(const TuneOptions *o, const Layer *layers, const char *const *names, int nlayers, Diag *d) {
  Db *db = db_open(o->db_path, d);
  if (!db) return 2;
  Worker *w = worker_start(o->device, d);
  RtDevice *dev = w ? rt_open(o->device, d) : NULL;   // its limits, for the spaces
  if (!dev) {
    worker_stop(w);
    db_close(db);
    return 2;
  }
  RtDeviceInfo info = *rt_info(dev);
  rt_close(dev);
  int64_t device = db_device(db, &info, d);
  if (device < 0) {
    worker_stop(w);
    db_close(db);
    return 2;
  }
  fprintf(stderr, "tune: %d layer%s on %s, database %s\n", nlayers, nlayers == 1 ? "" : "s", info.name, o->db_path);
  Progress pr = {o, now_s(), 0, 0, o->budget > 0 ? o->budget * nlayers : 0, INFINITY, NULL, false};
  int rc = 0;
  bool stopped = false;
  for (int li = 0; li < nlayers && !stopped && rc == 0; li++) {
    Arena *a = arena_new();
    const Layer *l = &layers[li];
    int64_t lid = db_layer(db, l, d);
    StrBuf spec;
    sb_init(&spec);
    layer_format(&spec, l);
    // a time limit without a budget: the layers share what is left
    double t0 = now_s();
    double until = o->time_s > 0 ? t0 + (o->time_s - (t0 - pr.start)) / (nlayers - li) : INFINITY;
    int64_t max = o->budget > 0 ? o->budget : 100000;
    Plan plan;
    if (lid < 0 || !make_plan(a, o, l, &info, max, &plan, d)) {
      rc = 2;
    } else {
      DbBest b;
      pr.best_us = db_best(db, a, lid, device, &b) ? b.m.median_us : INFINITY;
      pr.best_st = pr.best_us < INFINITY ? b.m.strategy : NULL;
      int64_t n = o->budget > 0 && o->budget < plan.n ? o->budget : plan.n;
      int64_t skipped = 0;
      for (int64_t i = 0; i < n && rc == 0; i++) {
        if (o->time_s > 0 && now_s() - pr.start >= o->time_s) {
          stopped = true;
          break;
        }
        if (now_s() >= until) break;   // this layer's share of the time is spent
        pr.done++;
        if (db_measured(db, lid, device, plan.st[i]->name, plan.point[i])) {
          skipped++;
          continue;
        }
        DbMeasurement m = {.strategy = plan.st[i]->name, .point = plan.point[i], .search = "random"};
        uint64_t seed = o->seed * 1000003u + (uint64_t)lid * 7919u + (uint64_t)i + 1;
        ArenaMark mark = arena_mark(a);
        if (!worker_measure(&w, a, sb_str(&spec), m.strategy, m.point, seed, o->timeout_s, &m, d)) {
          rc = 2;
          break;
        }
        bool fresh;
        if (!db_record(db, lid, device, &m, &fresh, d)) {
          rc = 2;
          break;
        }
        pr.measured++;
        if (strcmp(m.status, "ok") == 0 && m.median_us < pr.best_us)
          pr.best_us = m.median_us, pr.best_st = plan.st[i]->name;
        const char *what = strcmp(m.status, "ok") == 0
                               ? arena_printf(a, "%s %s: %.1f us", m.strategy, m.point, m.median_us)
                               : arena_printf(a, "%s %s: %s: %s", m.strategy, m.point, m.status, m.reason);
        progress(&pr, names[li], i + 1, n, what);
        arena_reset(a, mark);
      }
      if (o->live) end_line(&pr);
      int64_t all, ok;
      db_counts(db, lid, device, &all, &ok);
      fprintf(stderr, "%s: %lld measurements recorded (%lld correct)%s\n", names[li], (long long)all, (long long)ok,
              skipped ? arena_printf(a, ", %lld already there", (long long)skipped) : "");
    }
    sb_free(&spec);
    arena_free(a);
  }
  worker_stop(w);
  if (rc == 0) {
    printf("best kernels on %s:\n", info.name);
    int found = tune_print_best(db, device, layers, names, nlayers);
    if (found < nlayers) rc = 1;
  }
  db_close(db);
  return rc;
}
