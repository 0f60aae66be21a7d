/* run.c: `convgen bench`'s loop (docs/design.md section 9). First every layer
 * gets a tuned kernel (a layer the database has none for is tuned briefly,
 * and the user is told); then, on one device in one process, per layer:
 * fresh inputs and their float64 convolution, and each method in turn. The
 * report (report.c) and the plot (plot.c) come last. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "conv/program.h"
#include "conv/reference.h"
#include "measure/measure.h"
#include "space/layer_space.h"
#include "tune/tune.h"

const char *const bench_method_names[BENCH_METHODS] = {"convgen", "naive", "clblast", "cudnn"};

/* Device bytes of a lowered program: its inputs by name, its output, and its
 * temporaries (partial sums, copies) as the extra. */
static void memory_of(const LProgram *lp, BenchMemory *mem) {
  int temps = 0;
  for (int i = 0; i < lp->nbuffers; i++) {
    const Mem *m = lp->buffers[i];
    uint64_t bytes = (uint64_t)lw_mem_bytes(m);
    if (m->role == MR_OUTPUT) {
      mem->output += bytes;
    } else if (m->role == MR_INPUT) {
      const char *name = lp->prog->inputs[m->input_index]->name;
      if (strcmp(name, "weights") == 0) mem->weights += bytes;
      else if (strcmp(name, "bias") == 0) mem->bias += bytes;
      else mem->input += bytes;
    } else if (m->role == MR_TEMP) {
      mem->extra += bytes;
      temps++;
    }
  }
  if (temps) snprintf(mem->extra_what, sizeof mem->extra_what, "%d temporar%s (partial sums, copies)", temps,
                      temps == 1 ? "y" : "ies");
}

/* One convgen program (a strategy at a point) through the protocol of
 * measure.h: its own fresh inputs, checked against the float64 convolution,
 * then timed with device events. */
static void measure_point(Arena *a, RtDevice *dev, const LayerSpace *ls, const LsPoint *pt, uint64_t seed,
                          BenchRefCache *refs, const BenchOptions *o, BenchResult *r) {
  Diag d = {0};
  CpResult cr;   // lowered for the device's language; meas_run emits it
  if (!ls_lower(ls, a, pt, rt_target(dev), &cr, &d)) {
    snprintf(r->why, sizeof r->why, "%s does not compile: %s", r->detail, d.msg);
    return;
  }
  memory_of(cr.lp, &r->mem);
  MeasOptions mo = meas_defaults();
  mo.seed = seed;
  mo.warmup = o->warmup;
  mo.runs = o->runs;
  mo.reps = o->reps;
  mo.tol = o->tol;
  mo.host_paced = o->host_paced;
  mo.fixed_inputs = conv_fixed_inputs(cr.lp->prog);   // the filter transform once, as a network runs it
  mo.reference = bench_cached_reference;
  mo.reference_ctx = refs;
  MeasResult m = meas_run(a, dev, cr.lp, &mo);
  r->ran = m.status == MEAS_OK || m.status == MEAS_WRONG;
  r->error = m.error;
  r->correct = m.status == MEAS_OK;
  if (!r->correct) {
    snprintf(r->why, sizeof r->why, "%s: %s", meas_status_name(m.status), m.reason);
    return;
  }
  r->us = (RtStats){m.ms.median * 1e3, m.ms.min * 1e3, m.ms.max * 1e3, m.ms.spread, m.ms.n};
  r->reps = m.reps;
}

/* The name a layer's spaces give in their messages: the layer's name, else
 * its plain form. */
static const char *space_name(Arena *a, const Layer *l) {
  if (l->name[0]) return l->name;
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* One record of the layer on this device, measured here. */
static void measure_record(Arena *a, RtDevice *dev, const Layer *l, const DbBest *best, uint64_t seed,
                           BenchRefCache *refs, const BenchOptions *o, BenchResult *r) {
  Diag d = {0};
  snprintf(r->detail, sizeof r->detail, "%s %s", best->m.strategy, best->m.point);
  const Strategy *st = st_strategy(best->m.strategy);
  LayerSpace *ls = st ? ls_new(a, st, l, space_name(a, l), 0, NULL, rt_info(dev), &d) : NULL;
  LsPoint pt;
  if (!ls || !ls_parse_point(ls, a, best->m.point, &pt, &d)) {
    snprintf(r->why, sizeof r->why, "the recorded %s no longer fits its space: %s", r->detail,
             st ? d.msg : "unknown strategy");
  } else {
    // a record of other kernels than these: a warning, and timed here as they are now
    tune_record_matches(ls, &pt, rt_info_target(rt_info(dev)), space_name(a, l), &best->m, "convgen bench");
    measure_point(a, dev, ls, &pt, seed, refs, o, r);
  }
  ls_free(ls);
}

/* convgen: the BENCH_FINALISTS best records of the layer on this device, each
 * measured here, the fastest correct one kept. A record's time comes from
 * the lease that measured it, and two machines of one kind (or one machine
 * on two days) differ by several per cent, so the best on record is not
 * always the best here. */
static void bench_convgen(Arena *a, RtDevice *dev, const Layer *l, const DbBest *best, int nbest, uint64_t seed,
                          BenchRefCache *refs, const BenchOptions *o, BenchResult *r) {
  BenchResult *t = calloc((size_t)nbest, sizeof *t);
  if (!t) cg_die("out of memory");
  int pick = -1;
  for (int i = 0; i < nbest; i++) {
    t[i] = *r;
    measure_record(a, dev, l, &best[i], seed, refs, o, &t[i]);
    if (nbest > 1)
      fprintf(stderr, "           convgen record %d (%.1f us on record): %s\n", i + 1, best[i].m.median_us,
              t[i].ran && t[i].correct ? arena_printf(a, "%.1f us here, %s", t[i].us.median, t[i].detail) : t[i].why);
    if (t[i].ran && t[i].correct && (pick < 0 || t[i].us.median < t[pick].us.median)) pick = i;
  }
  *r = t[pick >= 0 ? pick : 0];
  if (pick >= 0 && nbest > 1) {
    char detail[sizeof r->detail];
    snprintf(detail, sizeof detail, "%.200s (record %d of the %d best on record)", r->detail, pick + 1, nbest);
    snprintf(r->detail, sizeof r->detail, "%s", detail);
  }
  free(t);
}

/* naive: the direct strategy, one work-item per output, each summing its
 * window; its space has a single point. */
static void bench_naive(Arena *a, RtDevice *dev, const Layer *l, uint64_t seed, BenchRefCache *refs,
                        const BenchOptions *o, BenchResult *r) {
  Diag d = {0};
  LayerSpace *ls = ls_new(a, st_strategy("direct"), l, space_name(a, l), 0, NULL, rt_info(dev), &d);
  LsPoint pt;
  if (!ls) snprintf(r->why, sizeof r->why, "the direct strategy: %s", d.msg);
  else if (ls_sample(ls, seed, 1, &pt) != 1) snprintf(r->why, sizeof r->why, "the direct strategy has no valid point");
  else {
    snprintf(r->detail, sizeof r->detail, "direct %s", ls_point_text(ls, a, &pt));
    measure_point(a, dev, ls, &pt, seed, refs, o, r);
  }
  ls_free(ls);
}

/* A method's line on standard error as a layer is measured; why a method
 * did not run is said once while it stays the same from layer to layer
 * (last: what was said), the table says it for each. */
static void progress(const BenchResult *r, char last[sizeof r->why]) {
  if (r->ran && r->correct)
    fprintf(stderr, "  %-8s %10.1f us  (error %.1e)\n", r->method, r->us.median, r->error);
  else if (r->ran || !r->why[0] || strcmp(last, r->why) != 0)
    fprintf(stderr, "  %-8s %s\n", r->method, r->why[0] ? r->why : "not run");
  snprintf(last, sizeof r->why, "%s", r->ran ? "" : r->why);
}

/* Tunes, briefly, the layers the database has no correct kernel for on this
 * device; false (d set) when the database cannot be used. The database is
 * only read unless some layer needs tuning (a read-only one then serves). */
static bool tune_missing(const BenchSetup *s, const RtDeviceInfo *info, const Layer *layers,
                         const char *const *names, int n, Diag *d) {
  Layer todo[n > 0 ? n : 1];
  const char *todo_names[n > 0 ? n : 1];
  int ntodo = 0;
  Db *db = access(s->db_path, F_OK) == 0 ? db_open_readonly(s->db_path, d) : NULL;
  if (!db && d->set) return false;
  Arena *da = arena_new();
  const char *other = NULL;
  int64_t dev = db ? db_find_device_or_like(db, da, info, &other, d) : 0;
  arena_free(da);
  if (dev < 0) return db_close(db), false;
  for (int i = 0; i < n; i++) {
    Arena *a = arena_new();
    DbBest b;
    int64_t lid = dev > 0 ? db_find_layer(db, &layers[i], d) : 0;
    if (lid <= 0 || !db_best(db, a, lid, dev, &b)) todo[ntodo] = layers[i], todo_names[ntodo++] = names[i];
    arena_free(a);
  }
  db_close(db);
  if (ntodo == 0) return true;
  for (int i = 0; i < ntodo; i++)
    fprintf(stderr, "convgen bench: %s has no tuned kernel on %s in %s: tuning it briefly (%lld candidates; "
                    "convgen tune searches longer)\n",
            todo_names[i], info->name, s->db_path, (long long)s->tune_budget);
  fprintf(stderr, "convgen bench: note: %d of %d layer%s had no record on %s (%s) in %s and %s tuned briefly; `convgen "
                  "tune` with bench's arguments and --db %s%s tunes them longer\n",
          ntodo, n, n == 1 ? "" : "s", info->name, s->target ? s->target : "opencl", s->db_path,
          ntodo == 1 ? "is" : "are", s->db_path, s->target && strcmp(s->target, "cuda") == 0 ? " --target cuda" : "");
  TuneOptions to = {.device = s->device, .target = s->target, .db_path = s->db_path, .budget = s->tune_budget, .timeout_s = 120,
                    .seed = 1, .search = SEARCH_EVOLVE, .cutoff = 10, .no_table = true};
  int ns;
  const Strategy *all = st_strategies(&ns);
  for (int i = 0; i < ns && to.nstrategies < TUNE_MAX_STRATEGIES; i++) to.strategies[to.nstrategies++] = &all[i];
  Team team = {.rank = 0, .size = 1};
  return tune_run(&to, &team, todo, todo_names, ntodo, d) != 2;
}

/* The BENCH_FINALISTS best records of each layer, best[i * BENCH_FINALISTS
 * ...], nbest[i] of them (0: none). */
static bool read_best(Arena *a, const char *path, const RtDeviceInfo *info, const Layer *layers, int n,
                      DbBest *best, int *nbest, Diag *d) {
  Db *db = db_open_readonly(path, d);
  if (!db) return false;
  const char *other = NULL;
  int64_t dev = db_find_device_or_like(db, a, info, &other, d);
  if (dev > 0 && other)
    fprintf(stderr, "convgen bench: warning: %s: nothing recorded on %s under driver %s; timing the records made "
                    "under driver %s\n", path, info->name, info->driver, other);
  for (int i = 0; i < n; i++) {
    int64_t lid = dev > 0 ? db_find_layer(db, &layers[i], d) : 0;
    nbest[i] = lid > 0 ? db_best_n(db, a, lid, dev, BENCH_FINALISTS, &best[(size_t)i * BENCH_FINALISTS]) : 0;
  }
  db_close(db);
  return dev >= 0;
}

/* The folder a file is to be written into must exist and be writable: checked
 * before the first measurement, not found out after the last. */
static bool can_write(const char *path, const char *opt, Diag *d) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
  if (access(dir, W_OK) != 0) return diag_error(d, "%s %s: cannot write into %s: %s", opt, path, dir, strerror(errno));
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return diag_error(d, "%s %s: is a folder", opt, path);
  return true;
}

/* The CSV and the plot, both or neither: the CSV goes to a temporary first
 * and takes its name only once the plot is written. */
static bool write_outputs(const BenchSetup *s, const Layer *layers, const char *const *names, int n,
                          const BenchResult *res, const char *device_name, Diag *d) {
  char csv_tmp[4200] = "";
  char *csv = s->csv ? bench_csv(layers, names, n, res) : NULL;
  // a device or FIFO (/dev/null, /dev/stdout) is written once, last: a
  // temporary renamed over it would replace the device
  struct stat st;
  bool special = s->csv && stat(s->csv, &st) == 0 && !S_ISREG(st.st_mode);
  if (s->csv && !special) {
    snprintf(csv_tmp, sizeof csv_tmp, "%s.part", s->csv);
    bool ok = file_write(csv_tmp, csv, strlen(csv), d);
    if (!ok) return free(csv), false;
  }
  if (s->plot) {
    Layer named[n];
    for (int i = 0; i < n; i++) {
      named[i] = layers[i];
      snprintf(named[i].name, sizeof named[i].name, "%s", names[i]);
    }
    char title[256];
    snprintf(title, sizeof title, "convgen bench on %s", device_name);
    if (!bench_plot_svg(s->plot, title, named, n, res, BENCH_METHODS, d)) {
      if (csv_tmp[0]) remove(csv_tmp);
      free(csv);
      return false;
    }
    fprintf(stderr, "convgen bench: wrote %s\n", s->plot);
  }
  bool ok = true;
  if (special) {
    ok = file_write(s->csv, csv, strlen(csv), d);
  } else if (s->csv && rename(csv_tmp, s->csv) != 0) {
    ok = diag_error(d, "%s: cannot write: %s", s->csv, strerror(errno));
    remove(csv_tmp);
  }
  free(csv);
  if (ok && s->csv) fprintf(stderr, "convgen bench: wrote %s\n", s->csv);
  return ok;
}

int bench_run(const BenchSetup *s, const Layer *layers, const char *const *names, int n, Diag *d) {
  if ((s->csv && !can_write(s->csv, "--csv", d)) || (s->plot && !can_write(s->plot, "--plot", d))) return 2;
  RtDeviceInfo info;
  if (!rt_select_info_target(s->target, s->device, &info, d)) return 2;
  if (!tune_missing(s, &info, layers, names, n, d)) return 2;
  Arena *a = arena_new();
  DbBest *best = ARENA_ARRAY(a, DbBest, (size_t)n * BENCH_FINALISTS);
  int *nbest = ARENA_ARRAY(a, int, n);
  RtDevice *dev = read_best(a, s->db_path, &info, layers, n, best, nbest, d) ? rt_open_target(s->target, s->device, d) : NULL;
  if (!dev) return arena_free(a), 2;
  BenchResult *res = calloc((size_t)n * BENCH_METHODS, sizeof *res);
  if (!res) cg_die("out of memory");
  int bad = 0;
  char said[BENCH_METHODS][sizeof res->why] = {{0}};   // progress's
  for (int i = 0; i < n; i++) {
    fprintf(stderr, "[%d/%d] %s\n", i + 1, n, names[i]);
    uint64_t seed = s->seed ^ cg_hash_str(names[i]);
    BenchResult *r = &res[(size_t)i * BENCH_METHODS];
    for (int j = 0; j < BENCH_METHODS; j++) {
      snprintf(r[j].method, sizeof r[j].method, "%s", bench_method_names[j]);
      r[j].error = NAN;
    }
    ArenaMark mark = arena_mark(a);
    // one float64 reference per layer: convgen's and the naive kernel's
    // measurements draw the same inputs (one seed), and the baselines run on them
    BenchRefCache refs = {.layer = &layers[i]};
    if (nbest[i] > 0)
      bench_convgen(a, dev, &layers[i], &best[(size_t)i * BENCH_FINALISTS], nbest[i], seed, &refs, &s->m,
                    &r[BENCH_CONVGEN]);
    else snprintf(r[BENCH_CONVGEN].why, sizeof r[BENCH_CONVGEN].why, "no correct kernel was found by tuning");
    progress(&r[BENCH_CONVGEN], said[BENCH_CONVGEN]);
    bench_naive(a, dev, &layers[i], seed, &refs, &s->m, &r[BENCH_NAIVE]);
    progress(&r[BENCH_NAIVE], said[BENCH_NAIVE]);
    BenchData bd;
    if (!bench_data_from_cache(&refs, &bd)) bd = bench_data_new(&layers[i], seed);
    bench_ref_cache_free(&refs);
    // a baseline computes in the layer's precision or not at all (docs/design.md section 5)
    // nor with an input scale (scale=1): a library's convolution takes none, its caller runs a Mul first
    static const char NO_SCALE[] = "takes no input scale (scale=1: the Mul before the convolution, fused)";
    if (layers[i].scale) snprintf(r[BENCH_CLBLAST].why, sizeof r[BENCH_CLBLAST].why, "%s", NO_SCALE);
    else if (layer_elem(&layers[i]) == elem_fp32()) bench_clblast(dev, &bd, &s->m, &r[BENCH_CLBLAST]);   // tf32: exact
    else snprintf(r[BENCH_CLBLAST].why, sizeof r[BENCH_CLBLAST].why, "called in fp32 only, and this layer is %s",
                  layer_precision_name(layers[i].precision));
    if (layers[i].scale) snprintf(r[BENCH_CUDNN].why, sizeof r[BENCH_CUDNN].why, "%s", NO_SCALE);
    else bench_cudnn(&info, &bd, &s->m, &r[BENCH_CUDNN]);
    progress(&r[BENCH_CLBLAST], said[BENCH_CLBLAST]);
    progress(&r[BENCH_CUDNN], said[BENCH_CUDNN]);
    bench_data_free(&bd);
    arena_reset(a, mark);
    bad += !(r[BENCH_CONVGEN].ran && r[BENCH_CONVGEN].correct);
  }
  rt_close(dev);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "convgen bench on %s (%s, driver %s); %s\n", info.name, info.platform, info.driver, cg_version());
  bench_print_table(&sb, layers, names, n, res);
  bench_print_summary(&sb, n, res);
  fputs(sb_str(&sb), stdout);
  sb_free(&sb);
  bool written = write_outputs(s, layers, names, n, res, info.name, d);
  free(res);
  arena_free(a);
  if (!written) return 2;
  return bad ? 1 : 0;
}
