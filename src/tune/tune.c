/* tune.c: the tuning loop (tune.h): candidates in a fixed order, measured by
 * a worker, recorded, with progress and a final table. A candidate recorded
 * before is not measured again unless its kernels have changed since: the
 * hash of the kernels this convgen makes for it, computed here, differs from
 * the record's. */
#include "tune/tune.h"

#include "conv/program.h"
#include "tune/default_point.h"
#include "tune/nearest.h"

#include "tune/team.h"
#include "tune/worker.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
  double el = cg_now_s() - pr->start, rate = el > 0 ? (double)pr->measured / el : 0;
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

bool tune_kernel_hash(const LayerSpace *ls, const LsPoint *pt, const char *target, char out[MEAS_HASH_LEN + 1],
                      Diag *d) {
  Arena *a = arena_new();   // a large point's lowering is large: given back at once
  CpResult cr;   // as the worker lowers it, and emitted as meas_run emits it
  bool ok = ls_lower(ls, a, pt, target, &cr, d);
  MeasOptions mo = meas_defaults();
  mo.target = target;
  if (ok) mo.fixed_inputs = conv_fixed_inputs(cr.lp->prog), meas_kernel_hash(cr.lp, &mo, out);
  arena_free(a);
  return ok;
}

bool tune_record_matches(const LayerSpace *ls, const LsPoint *pt, const char *target, const char *name,
                         const DbMeasurement *m, const char *who) {
  char now[MEAS_HASH_LEN + 1];
  Diag d = {0};
  if (!m->kernel_hash || !tune_kernel_hash(ls, pt, target, now, &d) || strcmp(now, m->kernel_hash) == 0) return true;
  fprintf(stderr, "%s: warning: %s: the record of strategy %s, point %s, was measured with other kernels than this "
          "convgen makes for it (kernel hash %s, now %s): its time is theirs ('convgen tune' measures it again)\n",
          who, name, m->strategy, m->point, m->kernel_hash, now);
  return false;
}

/* The index of the strategy named name among those searched; -1 when none
 * (search_seed and search_prime refuse it). */
static int strategy_index(const TuneOptions *o, const char *name) {
  for (int i = 0; i < o->nstrategies; i++)
    if (strcmp(o->strategies[i]->name, name) == 0) return i;
  return -1;
}

/* Seeds the layer's search with its o->warm_start fastest records on the
 * device that are points of the search's spaces (search_seed; not for the
 * random search), and with --warm-from primes it with as many of the twin
 * device's (the same GPU under the other target: search_prime, measured
 * first); says how many on standard error. */
static void warm_start(const TuneOptions *o, Db *db, Arena *a, int64_t layer, int64_t device, int64_t twin,
                       Search *se, const char *name) {
  if (o->warm_start <= 0) return;
  DbBest *b = ARENA_ARRAY(a, DbBest, (size_t)o->warm_start);
  if (o->search != SEARCH_RANDOM) {
    int n = db_best_n(db, a, layer, device, o->warm_start, b), seeded = 0;
    for (int k = 0; k < n; k++) seeded += search_seed(se, strategy_index(o, b[k].m.strategy), b[k].m.point, b[k].m.median_us);
    fprintf(stderr, "%s: warm start from %d of its %d fastest records\n", name, seeded, n);
  }
  if (twin <= 0) return;
  int n = db_best_n(db, a, layer, twin, o->warm_start, b), primed = 0;
  for (int k = 0; k < n; k++) primed += search_prime(se, strategy_index(o, b[k].m.strategy), b[k].m.point, "seed");
  fprintf(stderr, "%s: %d of the %d fastest records under --target %s measured first\n", name, primed, n, o->warm_from);
}

/* The space of st on l with the choices that point names fixed (and those
 * it leaves out at their fallback), so that only the point's variant is
 * derived: a large layer's s2 has dozens, seconds each. */
static LayerSpace *point_space(Arena *a, const Strategy *st, const Layer *l, const char *name, const char *point,
                               const RtDeviceInfo *dev, Diag *d) {
  const char *names[LS_POINT_MAX];
  int64_t vals[LS_POINT_MAX];
  int given = ls_split_point(a, point, names, vals, LS_POINT_MAX);
  if (given < 0) return diag_error(d, "bad point '%s'", point), NULL;
  SpaceDomain doms[ST_MAX_CHOICES];
  int n = 0;
  for (int i = 0; i < st->nchoices; i++) {
    int64_t v = st->choices[i].fallback;
    for (int j = 0; j < given; j++)
      if (strcmp(names[j], st->choices[i].name) == 0) v = vals[j];
    if (v > 0) doms[n++] = (SpaceDomain){st->choices[i].name, v, v, 0, NULL};
  }
  return ls_new(a, st, l, arena_printf(a, "%s (strategy %s)", name, st->name), n, doms, dev, d);
}

bool tune_record_current(const Layer *l, const char *name, const DbMeasurement *m, const RtDeviceInfo *dev,
                         const char *who) {
  if (!m->kernel_hash) return true;   // recorded before convgen kept the hash
  Arena *a = arena_new();
  Diag d = {0};
  const Strategy *st = st_strategy(m->strategy);
  LayerSpace *ls = st ? point_space(a, st, l, name, m->point, dev, &d) : NULL;
  LsPoint pt;
  bool same = !ls || !ls_parse_point(ls, a, m->point, &pt, &d) || tune_record_matches(ls, &pt, rt_info_target(dev), name, m, who);
  ls_free(ls);
  arena_free(a);
  return same;
}

/* Text read from the database as it may be printed: a byte that is not
 * printable ASCII written as \xNN, and at most 300 bytes of it shown. */
static const char *printable(Arena *a, const char *s) {
  StrBuf sb;
  sb_init(&sb);
  size_t n = 0;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++, n++) {
    if (n == 300) {
      sb_puts(&sb, "...");
      break;
    }
    if (*c >= 0x20 && *c < 0x7f) sb_putc(&sb, (char)*c);
    else sb_printf(&sb, "\\x%02x", *c);
  }
  const char *r = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return r;
}

/* Whether a record read back from the database is a point of l on dev:
 * its strategy one convgen has and its point that strategy's choices and
 * parameters, in l's space (anyone can write anything into the candidates
 * table with sqlite3); false with why. A record of other kernels than this
 * convgen makes for it gets tune_record_matches' warning. */
static bool record_usable(Arena *a, const Layer *l, const char *name, const DbMeasurement *m, const RtDeviceInfo *dev,
                          Diag *why) {
  const Strategy *st = st_strategy(m->strategy);
  if (!st) return diag_error(why, "no strategy of that name");
  LayerSpace *ls = point_space(a, st, l, name, m->point, dev, why);
  LsPoint pt;
  bool ok = ls && ls_parse_point(ls, a, m->point, &pt, why);
  if (ok && m->kernel_hash) tune_record_matches(ls, &pt, rt_info_target(dev), name, m, "convgen");
  ls_free(ls);
  return ok;
}

enum { BEST_DAMAGED_MAX = 1000 };   // damaged records passed over, at most, before a layer's best

int tune_print_best(Db *db, int64_t device, const RtDeviceInfo *dev, const Layer *layers, const char *const *names,
                    int nlayers) {
  Arena *a = arena_new();
  int found = 0, wl = 5;
  for (int i = 0; i < nlayers; i++) wl = (int)strlen(names[i]) > wl ? (int)strlen(names[i]) : wl;
  printf("%-*s  %-8s %12s %10s %9s %9s  %s\n", wl, "layer", "strategy", "time (us)", "GFLOP/s", "error", "measured",
         "point");
  DbBest *bs = ARENA_ARRAY(a, DbBest, BEST_DAMAGED_MAX + 1);
  for (int i = 0; i < nlayers; i++) {
    Diag d = {0};
    int64_t lid = db_find_layer(db, &layers[i], &d);
    // the fastest record that is a point of the layer: a damaged one (its
    // strategy or point not convgen's) is passed over with a warning
    int nb = lid > 0 ? db_best_n(db, a, lid, device, BEST_DAMAGED_MAX + 1, bs) : 0, k = 0;
    for (; k < nb; k++) {
      Diag why = {0};
      if (record_usable(a, &layers[i], names[i], &bs[k].m, dev, &why)) break;
      fflush(stdout);
      fprintf(stderr, "convgen: warning: %s: a damaged record passed over (strategy '%s', point '%s'): %s\n",
              names[i], printable(a, bs[k].m.strategy), printable(a, bs[k].m.point), printable(a, why.msg));
    }
    if (k < nb) {
      const DbBest b = bs[k];
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

/* Rank 0: records what the other ranks sent (all that is there; with wait,
 * until every one of them is done). false with a Diag on a database error. */
static bool drain(const Team *t, Db *db, const int64_t *layer_ids, bool wait, int *done, Diag *d) {
  Arena *a = arena_new();
  bool ok = true;
  int li, from;
  int64_t device;
  DbMeasurement m;
  while (ok && (!wait || *done < t->size - 1) && team_recv(t, a, wait, &li, &device, &m, &from)) {
    bool fresh;
    if (li < 0) (*done)++;
    else ok = db_record(db, layer_ids[li], device, &m, &fresh, d);
  }
  arena_free(a);
  return ok;
}

/* The search's seed for a layer: --seed and the layer's shape (not its row
 * id, which differs between databases), so a command walks the same
 * candidates whatever the database. */
enum { TUNE_CUTOFF_FLOOR_MS = 1 };   // candidates whose checked run is faster are always timed

static uint64_t layer_seed(const TuneOptions *o, const Layer *l) {
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  uint64_t h = cg_hash_str(sb_str(&sb));
  sb_free(&sb);
  uint64_t state = h ^ o->seed;
  return cg_splitmix64(&state);
}

/* The seed of a layer's inputs, one for every candidate of the layer in a
 * tune: a worker then computes the float64 reference once for them all
 * (conv/refcache.h), and each candidate is still checked on its own fresh,
 * NaN-poisoned output (docs/tune.md). From --seed and the layer's shape, like
 * the search's, so a tune run again draws the same inputs; below 2^63, so
 * `convgen run --seed` takes it back. */
static uint64_t data_seed(const TuneOptions *o, const Layer *l) {
  uint64_t state = layer_seed(o, l) ^ 0x64617461u;   // "data": not the search's stream
  uint64_t s = cg_splitmix64(&state) >> 1;
  return s ? s : 1;   // 0 would be a seed from the clock (measure.h)
}

/* One worker and the candidate it measures. */
typedef struct Slot {
  Worker *w;
  Cand c;
  int64_t i;               // the candidate's place in this layer's walk
  DbMeasurement m;
} Slot;

/* What one layer's walk shares with its slots. */
typedef struct Walk {
  const TuneOptions *o;
  const Team *team;
  Db *db;
  const int64_t *layer_ids;
  int64_t device;
  int li;                  // the layer
  Progress *pr;
  Search *se;
  Arena *a;
  const char *who, *name;
  const char *lock;        // the workers' device lock (NULL: none)
  char *lost;              // why a worker could not start again ("": no slot lost)
  int64_t n;               // candidates to walk
  int64_t measured, correct, slow, retried;
  int64_t changed, unknown;  // measured again: their kernels changed / were not known (--remeasure-unknown)
  Diag *d;
} Walk;

/* --retry-faults AGE: a crash or a hang recorded before this tune began
 * (start, Unix seconds), and at least AGE seconds before it, is measured
 * again, and its new result replaces it (db_record). A record this tune made
 * is never retried by it, so each fault is measured again once per tune at
 * most: a candidate that always crashes costs one worker per tune. */
static bool retry(const TuneOptions *o, Db *db, int64_t layer, int64_t device, const char *st, const char *point,
                  int64_t start) {
  int64_t at;
  return o->retry_faults && db_fault(db, layer, device, st, point, &at) && at < start && start - at >= o->retry_age_s;
}

/* Whether a recorded candidate is measured again for its kernels: the
 * record's kernel hash (NULL: not known) differs from the hash of the
 * kernels this convgen makes for it, or is not known and
 * --remeasure-unknown says so. A point that does not compile here (the
 * search lowered it, so it should) keeps its record. */
static bool kernels_changed(Walk *wk, const Cand *c, const char *recorded_hash) {
  if (!recorded_hash) {
    wk->unknown += wk->o->remeasure_unknown;
    return wk->o->remeasure_unknown;
  }
  char now[MEAS_HASH_LEN + 1];
  Diag d = {0};
  bool changed = tune_kernel_hash(search_space(wk->se, c->strategy), &c->pt, wk->o->target, now, &d) &&
                 strcmp(now, recorded_hash) != 0;
  wk->changed += changed;
  return changed;
}

enum { RESTART_TRIES = 5 };   // a worker that cannot start is tried again after 1, 2, 4 and 8 s

/* A fresh worker in the slot after a crash or a hang, tried again with
 * backoff: a driver can take seconds to give the device back after its
 * process was killed (on the H200 the next worker found no NVIDIA device).
 * When every try fails the slot is left without a worker and wk->lost says
 * why; the other slots go on. */
static void restart(Walk *wk, Slot *sl) {
  Diag d = {0};
  double t0 = cg_now_s();
  for (int k = 0; k < RESTART_TRIES; k++) {
    if (k > 0) nanosleep(&(struct timespec){1 << (k - 1), 0}, NULL);
    d = (Diag){0};
    if (k == 0 ? worker_restart(&sl->w, &d) : (sl->w = worker_start(wk->o->target, wk->o->device, wk->lock, &d)) != NULL) {
      if (k > 0) fprintf(stderr, "%s%s: a worker started again (try %d)\n", wk->who, wk->name, k + 1);
      return;
    }
    fprintf(stderr, "%s%s: a worker could not start: %s%s\n", wk->who, wk->name, d.msg,
            k + 1 < RESTART_TRIES ? arena_printf(wk->a, "; trying again in %d s", 1 << k) : "");
  }
  snprintf(wk->lost, TUNE_LOST_CAP, "%s (%d tries over %.0f s)", d.msg, RESTART_TRIES, cg_now_s() - t0);
}

/* A finished candidate: recorded (rank 0; the others send it), fed back to
 * the search, shown; a worker that crashed or hung is replaced (restart).
 * false with a Diag on a database error. */
static bool finish(Walk *wk, Slot *sl) {
  DbMeasurement *m = &sl->m;
  bool fresh;
  // a worker that made no kernel (a crash before its build, a hang in it, a
  // point it refused): the record keeps the hash of the kernels the candidate
  // has here, so it too is measured again when they change
  char here[MEAS_HASH_LEN + 1];
  Diag hd = {0};
  if (!m->kernel_hash && tune_kernel_hash(search_space(wk->se, sl->c.strategy), &sl->c.pt, wk->o->target, here, &hd))
    m->kernel_hash = arena_strdup(wk->a, here);
  if (wk->team->rank == 0 && !db_record(wk->db, wk->layer_ids[wk->li], wk->device, m, &fresh, wk->d)) return false;
  if (wk->team->rank != 0) team_send(wk->team, wk->li, wk->device, m);   // the writer records it
  bool ok = strcmp(m->status, "ok") == 0;
  search_result(wk->se, sl->c.id, ok ? m->median_us : INFINITY);
  wk->pr->measured++, wk->measured++, wk->correct += ok || strcmp(m->status, "slow") == 0,
      wk->slow += strcmp(m->status, "slow") == 0;
  if (ok && m->median_us < wk->pr->best_us) wk->pr->best_us = m->median_us, wk->pr->best_st = m->strategy;
  Arena *a = wk->a;
  const char *what = ok ? arena_printf(a, "%s %s: %.1f us", m->strategy, m->point, m->median_us)
                        : arena_printf(a, "%s %s: %s: %s", m->strategy, m->point, m->status, m->reason);
  progress(wk->pr, arena_printf(a, "%s%s", wk->who, wk->name), sl->i + 1, wk->n, what);
  if (!worker_alive(sl->w)) restart(wk, sl);   // after a crash or a hang
  return true;
}

int tune_jobs(const RtDeviceInfo *dev) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return !dev->is_gpu || cpus < 1 ? 1 : cpus > TUNE_AUTO_JOBS ? TUNE_AUTO_JOBS : (int)cpus;
}

/* What a tune holds for its whole run, across layers. */
typedef struct Tuner {
  const TuneOptions *o;
  const Team *team;
  RtDeviceInfo info;       // the device's limits, for the spaces
  int jobs;
  char lock[4096];         // the workers' device lock, /dev/fd/N (with jobs > 1)
  int lock_fd;
  Slot slots[TUNE_MAX_JOBS];
  Db *db;
  int64_t *ids;            // [0] ok, [1 + r] rank r's device, then the layers
  int64_t device;          // this rank's
  int64_t twin;            // --warm-from: the same GPU's device under that target (0: none)
  const int64_t *layer_ids;
  char who[32];            // "rank 2: " under mpirun, else ""
  int mine;                // this rank's layers
  char lost[TUNE_LOST_CAP];   // why a worker could not start again ("": none)
  int64_t started;         // wall clock, as the records' measured_at (--retry-faults)
  char owner[300];         // the claims this tune makes (db_claim): host:pid ...
  double claim_ttl_s;      // ... for longer than a candidate can take
  Progress pr;
  int done;                // ranks done (rank 0's drain)
} Tuner;

/* The device's limits, the workers (with --jobs sharing a lock file,
 * unlinked at once: the workers inherit its descriptor and open it as
 * /dev/fd/N, so nothing is left behind however the tune ends), the
 * database and its rows (rank 0 makes every row the others need; they read
 * it only). 0, or 2 with d set and everything released. */
static int tuner_start(Tuner *t, const Layer *layers, int nlayers, Diag *d) {
  const TuneOptions *o = t->o;
  const Team *team = t->team;
  // the device's limits first (no second context: the workers hold the
  // device): a selector that matches none is the user's error, and a worker
  // that cannot open the device selected then is the device's
  bool have = rt_select_info_target(o->target, o->device, &t->info, d);
  t->jobs = o->jobs > 0 ? o->jobs : have ? tune_jobs(&t->info) : 1;
  const char *tmp = getenv("TMPDIR");
  snprintf(t->lock, sizeof t->lock, "%s/convgen-device-lock.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  t->lock_fd = -1;
  if (t->jobs > 1) {
    if ((t->lock_fd = mkstemp(t->lock)) < 0)
      return diag_error(d, "cannot make the device lock %s: %s", t->lock, strerror(errno)), 2;
    unlink(t->lock);
    snprintf(t->lock, sizeof t->lock, "/dev/fd/%d", t->lock_fd);
  }
  for (int j = 0; j < t->jobs && have; j++)
    have = (t->slots[j].w = worker_start(o->target, o->device, t->lock_fd >= 0 ? t->lock : NULL, d)) != NULL;
  int fail = team_min(team, have ? 1 : 0) == 0;
  RtDeviceInfo *all = have || team->mpi ? team_gather_devices(team, &t->info) : NULL;
  int nids = 1 + team->size + nlayers;
  int64_t *ids = t->ids = calloc((size_t)nids, sizeof *ids);
  if (!ids) cg_die("out of memory");
  if (team->rank == 0 && !fail && (t->db = db_open(o->db_path, d))) {
    ids[0] = 1;
    for (int r = 0; r < team->size && ids[0] > 0; r++) ids[0] = (ids[1 + r] = db_device(t->db, &all[r], d)) > 0;
    for (int li = 0; li < nlayers && ids[0] > 0; li++)
      ids[0] = (ids[1 + team->size + li] = db_layer(t->db, &layers[li], d)) > 0;
  }
  team_bcast_ids(team, ids, nids);
  if (ids[0] > 0 && team->rank != 0 && !(t->db = db_open_readonly(o->db_path, d))) fail = 1;
  fail = team_min(team, fail ? 0 : ids[0] > 0) == 0;
  free(all);
  if (fail) {
    if (!d->set) diag_error(d, "rank %d: another rank could not start", team->rank);
    for (int j = 0; j < t->jobs; j++) worker_stop(t->slots[j].w);
    if (t->lock_fd >= 0) close(t->lock_fd);
    db_close(t->db);
    free(ids);
    return 2;
  }
  t->device = ids[1 + team->rank];
  t->layer_ids = ids + 1 + team->size;
  if (o->warm_from && (t->twin = db_find_device_twin(t->db, &t->info, strcmp(o->warm_from, "cuda") == 0, d)) == 0)
    fprintf(stderr, "tune: %s: no records of %s under --target %s to warm-start from\n", o->db_path, t->info.name,
            o->warm_from);
  if (t->twin < 0) t->twin = 0;   // a failed query: no warm start from it
  if (team->size > 1) snprintf(t->who, sizeof t->who, "rank %d: ", team->rank);
  for (int li = team->rank; li < nlayers; li += team->size) t->mine++;
  char workers[80] = "";
  if (t->jobs > 1) snprintf(workers, sizeof workers, ", %d workers (building at once, measuring one at a time)", t->jobs);
  fprintf(stderr, "tune: %s%d layer%s on %s, database %s%s\n", t->who, t->mine, t->mine == 1 ? "" : "s", t->info.name,
          o->db_path, workers);
  t->started = (int64_t)time(NULL);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  snprintf(t->owner, sizeof t->owner, "%s:%ld", host, (long)getpid());
  t->claim_ttl_s = (o->build_timeout_s > 0 ? o->build_timeout_s : o->timeout_s) + o->timeout_s + 60;
  t->pr = (Progress){o, cg_now_s(), 0, 0, o->budget > 0 ? o->budget * t->mine : 0, INFINITY, NULL, false};
  return 0;
}

/* One layer's walk: the Walk its slots share, and what the walk's loop keeps. */
typedef struct LayerWalk {
  Walk wk;
  const Layer *l;
  int64_t lid;
  const char *spec;        // the layer's plain form, as workers take it
  int64_t i;               // candidates walked
  int64_t skipped, elsewhere;   // recorded before; being measured by another tune
  bool proposing;
  int64_t room;            // new candidates the layer may still get (--budget); -1: no limit
  bool full;               // the walk ended there: the layer has --budget candidates recorded
} LayerWalk;

/* Gives the idle worker of sl the layer's next candidate not measured
 * before: recorded ones are fed back to the search instead (unless retried
 * or their kernels changed), one another tune is measuring is passed over.
 * 0, or 2 with the Diag (the database, a worker that cannot be sent to). */
static int fill_slot(Tuner *t, LayerWalk *lw, Slot *sl) {
  const TuneOptions *o = t->o;
  Walk *wk = &lw->wk;
  Arena *a = wk->a;
  Diag *d = wk->d;
  while (sl->w && !worker_busy(sl->w) && lw->proposing && lw->i < wk->n) {
    Cand c;
    if (!search_next(wk->se, &c)) {   // the spaces are used up
      lw->proposing = false;
      return 0;
    }
    const char *st = o->strategies[c.strategy]->name;
    t->pr.done++;
    int64_t k = lw->i++;
    double recorded;
    const char *recorded_hash;
    const char *aliases[1 << ST_MAX_CHOICES];   // as earlier versions may have written the point
    int nal = ls_point_aliases(o->strategies[c.strategy], a, c.point, aliases, 1 << ST_MAX_CHOICES);
    bool before = false;
    int q = 0;
    for (; q < nal && !(before = db_result(t->db, a, lw->lid, t->device, st, aliases[q], &recorded, &recorded_hash)); q++) {}
    if (before && retry(o, t->db, lw->lid, t->device, st, aliases[q], t->started)) before = false, wk->retried++;
    else if (before && kernels_changed(wk, &c, recorded_hash)) before = false;
    if (before) {   // measured before: its result, not again
      lw->skipped++;
      search_result(wk->se, c.id, recorded);
      continue;
    }
    // --budget counts the layer's candidates recorded before too: once it
    // has that many, no new one (a tune run again with --jobs proposes others
    // than it measured, results having come back in another order)
    if (q == nal && lw->room == 0) {
      lw->full = true, lw->proposing = false;
      return 0;
    }
    // measured again, the new result replaces the record under the text it was found by
    const char *text = q < nal ? aliases[q] : c.point;
    DbClaim claim = t->team->rank == 0 ? db_claim(t->db, lw->lid, t->device, st, text, t->owner, t->claim_ttl_s, q < nal, d)
                                       : DB_CLAIMED;   // (the other ranks read; their layers are theirs)
    if (claim == DB_CLAIM_FAILED) return 2;
    if (claim == DB_CLAIM_RECORDED) {   // another tune recorded it since the lookup
      lw->skipped++;
      if (db_result(t->db, a, lw->lid, t->device, st, text, &recorded, &recorded_hash)) search_result(wk->se, c.id, recorded);
      continue;
    }
    if (claim == DB_CLAIMED_ELSEWHERE) {   // another tune is measuring it now
      lw->elsewhere++;
      continue;
    }
    if (q == nal && lw->room > 0) lw->room--;
    sl->c = c, sl->i = k;
    sl->m = (DbMeasurement){.strategy = st, .point = text};
    sl->m.search = o->search == SEARCH_RANDOM ? "random" : arena_printf(a, "%s/%s", search_name(o->search), c.how);
    // a first run also pays for cold caches and the launch: no cutoff below TUNE_CUTOFF_FLOOR_MS
    double cutoff_ms = o->cutoff > 0 && isfinite(t->pr.best_us) ? fmax(o->cutoff * t->pr.best_us * 1e-3, TUNE_CUTOFF_FLOOR_MS) : 0;
    if (!worker_send(sl->w, a, lw->spec, st, c.point, data_seed(o, lw->l), cutoff_ms,
                     o->build_timeout_s > 0 ? o->build_timeout_s : o->timeout_s, o->timeout_s, d))
      return 2;
    return 0;
  }
  return 0;
}

/* Waits (0.1 s at most: the clock, the other ranks) for a worker to say
 * something, and takes every result there is. 0 (*idle set when nothing is
 * in flight), or 2 with the Diag. A slot whose worker could not start again
 * stays empty; with none left the tune stops. */
static int take_results(Tuner *t, LayerWalk *lw, bool *idle, bool *stopped) {
  struct pollfd fds[TUNE_MAX_JOBS];
  int nf = 0;
  for (int j = 0; j < t->jobs; j++)
    if (worker_busy(t->slots[j].w)) fds[nf++] = (struct pollfd){worker_fd(t->slots[j].w), POLLIN, 0};
  if ((*idle = nf == 0)) return 0;   // nothing in flight and nothing more to propose
  poll(fds, (nfds_t)nf, 100);
  for (int j = 0; j < t->jobs; j++)
    if (worker_busy(t->slots[j].w) && worker_done(t->slots[j].w, lw->wk.a, &t->slots[j].m) && !finish(&lw->wk, &t->slots[j]))
      return 2;
  bool any = false;
  for (int j = 0; j < t->jobs; j++) any = any || t->slots[j].w;
  if (!any) *stopped = true, lw->proposing = false;
  return 0;
}

/* The line that ends a layer's walk. */
static void layer_summary(const Tuner *t, const LayerWalk *lw) {
  const Walk *wk = &lw->wk;
  Arena *a = wk->a;
  fprintf(stderr, "%s%s: %lld measured now (%lld correct%s%s%s%s)%s%s%s\n", t->who, wk->name, (long long)wk->measured,
          (long long)wk->correct, wk->slow ? arena_printf(a, ", %lld of them slow: not timed", (long long)wk->slow) : "",
          wk->retried ? arena_printf(a, ", %lld of them crashes or hangs retried", (long long)wk->retried) : "",
          wk->changed ? arena_printf(a, ", %lld of them again: their kernels changed", (long long)wk->changed) : "",
          wk->unknown ? arena_printf(a, ", %lld of them again: their kernels were not known", (long long)wk->unknown)
                      : "",
          lw->skipped ? arena_printf(a, ", %lld recorded before", (long long)lw->skipped) : "",
          lw->elsewhere ? arena_printf(a, ", %lld being measured by another tune", (long long)lw->elsewhere) : "",
          lw->full ? arena_printf(a, "; it has its --budget of %lld candidates recorded", (long long)t->o->budget) : "");
}

/* A layer's default point (default_point.h; only the space's check, no
 * compile here) is measured first: the point infer and export run for it
 * untuned, so that a short tune never leaves a layer slower than it ran
 * before (a tune of 1 s a layer would otherwise keep its first random
 * kernel that passed). After the same GPU's records under the other
 * target, before --transfer's. For a layer with a correct record only
 * when the point is recorded (it is passed over: a tune run again proposes
 * what it proposed before), so that a layer tuned before spends none of
 * its --budget on it; not for --search random, a uniform sample of the
 * space. */
static void default_first(const TuneOptions *o, Tuner *t, Arena *a, int64_t layer, const Layer *l, Search *se,
                          const char *name) {
  if (o->search == SEARCH_RANDOM) return;
  DpPoint p;
  Diag dd = {0};   // none: the search goes on from its own candidates
  int64_t all = 0, ok = 0;
  db_counts(t->db, layer, t->device, &all, &ok);
  if (!dp_default_point(a, l, name, &t->info, NULL, &p, NULL, &dd) ||
      (ok > 0 && !db_measured(t->db, layer, t->device, p.strategy, p.point)))
    return;
  if (search_prime(se, strategy_index(o, p.strategy), p.point, "default") && ok == 0)
    fprintf(stderr, "%s: its default point (%s %s) measured first\n", name, p.strategy, p.point);
}

enum { TRANSFER_LAYERS = 6 };

/* --transfer N: for a layer with no correct record on the device yet, the N
 * fastest records of each of the TRANSFER_LAYERS other layers tuned on the
 * device most like it, measured first where their points are points of
 * this layer's spaces (search_prime, how "transfer"): a layer tuned after
 * others of its network starts from the tiles that won there. A layer
 * with records starts from its own (--warm-start), and a tune run again
 * proposes what it proposed before. Says how many on standard error. */
static void transfer(const TuneOptions *o, Db *db, Arena *a, int64_t layer, int64_t device, const Layer *l, Search *se,
                     const char *name) {
  int64_t all = 0, ok = 0;
  if (o->transfer <= 0) return;
  db_counts(db, layer, device, &all, &ok);
  if (ok > 0) return;
  int64_t ids[TRANSFER_LAYERS];
  int n = tn_nearest_layers(db, a, device, layer, l, TRANSFER_LAYERS, ids, NULL);
  DbBest *b = ARENA_ARRAY(a, DbBest, (size_t)o->transfer);
  int primed = 0, tried = 0, from = 0;
  for (int i = 0; i < n; i++) {
    int m = db_best_n(db, a, ids[i], device, o->transfer, b), here = 0;
    for (int k = 0; k < m; k++) here += search_prime(se, strategy_index(o, b[k].m.strategy), b[k].m.point, "transfer");
    primed += here, tried += m, from += here > 0;
  }
  if (n > 0) fprintf(stderr, "%s: %d of %d records of %d similar layers measured first (--transfer)\n", name, primed, tried, from);
}

/* A layer with no correct kernel on the device keeps its walk going past its
 * share of --time (and past --time) until its first correct one, for at most
 * this many seconds more: a tune of a whole network whose earlier layers
 * overran (candidates in flight when their share ended) leaves none of its
 * layers without a kernel. */
enum { TUNE_FIRST_KERNEL_S = 10 };

/* One layer (li of layers): its search, then until its share of the time or
 * the budget is spent, every idle worker given a candidate and every result
 * taken. 0, or 2 with the Diag; *stopped when the whole tune must stop (no
 * worker left). Once --time is spent, only a layer without a correct kernel
 * is walked (TUNE_FIRST_KERNEL_S). */
static int tune_layer(Tuner *t, const Layer *layers, const char *const *names, int li, int left, bool *stopped,
                      Diag *d) {
  const TuneOptions *o = t->o;
  const Layer *l = &layers[li];
  bool time_spent = o->time_s > 0 && cg_now_s() - t->pr.start >= o->time_s;
  if (time_spent) {   // only a layer without a correct kernel goes on
    int64_t all = 0, ok = 0;
    db_counts(t->db, t->layer_ids[li], t->device, &all, &ok);
    if (ok > 0) return 0;
  }
  Arena *a = arena_new();
  StrBuf spec;
  sb_init(&spec);
  layer_format(&spec, l);
  // a time limit: this rank's layers share what is left
  double t0 = cg_now_s();
  double until = o->time_s > 0 ? t0 + (o->time_s - (t0 - t->pr.start)) / left : INFINITY;
  int rc = 0;
  Search *se = search_new(a, o->search, o->strategies, o->nstrategies, l, &t->info, o->ndomains, o->domains, o->budget,
                          layer_seed(o, l), d);
  if (!se) {
    rc = 2;
  } else {
    int64_t lid = t->layer_ids[li];
    int refused = 0;   // no strategy searched takes the layer (dw alone on a dense one): say why
    for (int i = 0; i < o->nstrategies; i++) refused += search_space(se, i)->refused != NULL;
    for (int i = 0; i < o->nstrategies && refused == o->nstrategies; i++)
      fprintf(stderr, "%s%s: strategy %s does not take it: %s\n", t->who, names[li], o->strategies[i]->name,
              search_space(se, i)->refused);
    warm_start(o, t->db, a, lid, t->device, t->twin, se, names[li]);
    default_first(o, t, a, lid, l, se, names[li]);
    transfer(o, t->db, a, lid, t->device, l, se, names[li]);
    DbBest b;
    t->pr.best_us = db_best(t->db, a, lid, t->device, &b) ? b.m.median_us : INFINITY;
    t->pr.best_st = t->pr.best_us < INFINITY ? b.m.strategy : NULL;
    LayerWalk lw = {{o, t->team, t->db, t->layer_ids, t->device, li, &t->pr, se, a, t->who, names[li],
                     t->lock_fd >= 0 ? t->lock : NULL, t->lost, o->budget > 0 ? o->budget : 100000, 0, 0, 0, 0, 0, 0, d},
                    l, lid, sb_str(&spec), 0, 0, 0, true, -1, false};
    if (o->budget > 0) {   // the layer's candidates of the strategies searched, recorded before
      lw.room = o->budget;
      for (int i = 0; i < o->nstrategies; i++) lw.room -= db_recorded(t->db, lid, t->device, o->strategies[i]->name);
      if (lw.room < 0) lw.room = 0;
    }
    for (;;) {
      if (t->team->rank == 0 && !drain(t->team, t->db, t->layer_ids, false, &t->done, d)) {
        rc = 2;
        break;
      }
      double now = cg_now_s();
      bool first = !isfinite(t->pr.best_us) && now < fmax(until, t0) + TUNE_FIRST_KERNEL_S;   // none correct yet
      if (o->time_s > 0 && now - t->pr.start >= o->time_s && !first) lw.proposing = false;   // --time is spent
      if ((now >= until && !first) || lw.i >= lw.wk.n) lw.proposing = false;   // this layer's share is spent
      for (int j = 0; j < t->jobs && lw.proposing && rc == 0; j++) rc = fill_slot(t, &lw, &t->slots[j]);
      bool idle = false;
      if (rc != 0 || (rc = take_results(t, &lw, &idle, stopped)) != 0 || idle) break;
    }
    search_free(se);
    if (o->live) end_line(&t->pr);
    layer_summary(t, &lw);
  }
  sb_free(&spec);
  arena_free(a);
  return rc;
}

/* The workers stopped, the other ranks' last results recorded, this tune's
 * unfinished claims released, the table of what is recorded printed (also
 * when the device is lost), everything closed. The tune's exit status. */
static int tuner_finish(Tuner *t, int rc, const Layer *layers, const char *const *names, int nlayers, Diag *d) {
  const Team *team = t->team;
  for (int j = 0; j < t->jobs; j++) worker_stop(t->slots[j].w);
  if (t->lock_fd >= 0) close(t->lock_fd);
  if (team->rank != 0) team_send_done(team);
  else if (!drain(team, t->db, t->layer_ids, true, &t->done, d)) rc = 2;   // the others' last results
  if (team->rank == 0) db_release_claims(t->db, t->owner);   // those of candidates left unmeasured
  if ((rc == 0 || *t->lost) && team->rank == 0 && !t->o->no_table) {
    printf("best kernels on %s:\n", t->info.name);
    int found = tune_print_best(t->db, t->device, &t->info, layers, names, nlayers);
    if (found < nlayers && rc == 0) rc = 1;
  }
  if (*t->lost && rc != 2) {
    rc = 2;
    diag_device(d, "%sthe device is lost: %s; the tune stopped, and every result so far is recorded (the same "
               "command goes on from them)", t->who, t->lost);
  }
  db_close(t->db);
  free(t->ids);
  return rc;
}

int tune_run(const TuneOptions *o, const Team *team, const Layer *layers, const char *const *names, int nlayers,
             Diag *d) {
  Tuner *t = calloc(1, sizeof *t);
  if (!t) cg_die("out of memory");
  t->o = o, t->team = team;
  int rc = tuner_start(t, layers, nlayers, d);
  if (rc == 0) {
    bool stopped = false;
    int left = t->mine;
    for (int li = team->rank; li < nlayers && !stopped && rc == 0; li += team->size, left--)
      rc = tune_layer(t, layers, names, li, left, &stopped, d);
    rc = tuner_finish(t, rc, layers, names, nlayers, d);
  }
  free(t);
  return rc;
}
