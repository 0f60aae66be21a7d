/* tune.c: the tuning loop (tune.h): candidates in a fixed order, measured by
 * a worker, recorded, with progress and a final table. */
#include "tune/tune.h"

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
    int64_t n = o->budget > 0 ? o->budget : 100000;
    Search *se = lid < 0 ? NULL
                         : search_new(a, o->search, o->strategies, o->nstrategies, l, &info, n, o->seed + (uint64_t)lid, d);
    if (!se) {
      rc = 2;
    } else {
      DbBest b;
      pr.best_us = db_best(db, a, lid, device, &b) ? b.m.median_us : INFINITY;
      pr.best_st = pr.best_us < INFINITY ? b.m.strategy : NULL;
      int64_t skipped = 0;
      Cand c;
      for (int64_t i = 0; i < n && rc == 0; i++) {
        if (o->time_s > 0 && now_s() - pr.start >= o->time_s) {
          stopped = true;
          break;
        }
        if (now_s() >= until) break;   // this layer's share of the time is spent
        if (!search_next(se, &c)) break;   // the spaces are used up
        const char *st = o->strategies[c.strategy]->name;
        pr.done++;
        double recorded;
        if (db_result(db, lid, device, st, c.point, &recorded)) {   // measured before: its result, not again
          skipped++;
          search_result(se, recorded);
          continue;
        }
        DbMeasurement m = {.strategy = st, .point = c.point};
        m.search = o->search == SEARCH_RANDOM ? "random" : arena_printf(a, "%s/%s", search_name(o->search), c.how);
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
        bool ok = strcmp(m.status, "ok") == 0;
        search_result(se, ok ? m.median_us : INFINITY);
        pr.measured++;
        if (ok && m.median_us < pr.best_us) pr.best_us = m.median_us, pr.best_st = st;
        const char *what = ok ? arena_printf(a, "%s %s: %.1f us", m.strategy, m.point, m.median_us)
                              : arena_printf(a, "%s %s: %s: %s", m.strategy, m.point, m.status, m.reason);
        progress(&pr, names[li], i + 1, n, what);
        arena_reset(a, mark);
      }
      search_free(se);
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
