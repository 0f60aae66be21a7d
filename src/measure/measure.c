/* measure.c: runs a lowered program on a device under the measurement protocol
 * of docs/design.md section 5 and says whether it is correct and how long it takes.
 *
 * It sits at the end of the pipeline: lw_lower -> cg_emit -> here (rt_build,
 * rt_launch, ir_eval). Invariant: a time is only ever reported for a run whose
 * output matched the float64 reference, and every way a candidate can fail is a
 * status with a reason in the result, so the tuner can record it and move on.
 * Host memory is heap (inputs and outputs can be large); the few small things
 * the caller keeps (per-kernel statistics, the source) go into its arena.
 */
#include "measure/measure.h"

#include "codegen/codegen.h"
#include "ir/interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *status_names[] = {
    [MEAS_OK] = "ok",
    [MEAS_WRONG] = "wrong",
    [MEAS_BUILD_FAILED] = "build-failed",
    [MEAS_LAUNCH_FAILED] = "launch-failed",
    [MEAS_REFERENCE_FAILED] = "reference-failed",
    [MEAS_SETUP_FAILED] = "setup-failed",
    [MEAS_OVER_LIMIT] = "over-limit",
    [MEAS_SLOW] = "slow",
};

const char *meas_status_name(MeasStatus s) {
  if ((unsigned)s < sizeof status_names / sizeof *status_names) return status_names[s];
  return "unknown";
}

int meas_reps(double run_ms, int asked) {
  if (asked > 0) return asked;
  double r = run_ms > 0 ? ceil(MEAS_BATCH_MS / run_ms) : MEAS_MAX_REPS;
  return r < MEAS_MIN_REPS ? MEAS_MIN_REPS : r > MEAS_MAX_REPS ? MEAS_MAX_REPS : (int)r;
}

MeasOptions meas_defaults(void) {
  return (MeasOptions){.seed = 0, .sample = 0, .warmup = 3, .runs = MEAS_MIN_RUNS, .tol = 0};
}

double meas_tolerance_types(const ElemType *stored, const ElemType *computed) {
  cg_assert(computed->kind == ELEM_FP32);   // sums in another type need their length's term
  return 1e-4 + (stored->kind != computed->kind ? stored->roundoff : 0);
}

double meas_tolerance(const Program *p) {
  const ElemType *et = ty_elem(p->out_type ? p->out_type : p->body->type);
  if (!et) et = elem_fp32();   // an int output: as it always was
  return meas_tolerance_types(et, elem_type(et->acc)) + (ir_calls(p->body, P_MMA_TF32) ? MEAS_TF32_TOL : 0);
}

bool meas_is_kernel_hash(const char *s) {
  return strlen(s) == MEAS_HASH_LEN && strspn(s, "0123456789abcdef") == MEAS_HASH_LEN;
}

void meas_kernel_hash(const LProgram *lp, const MeasOptions *o, char out[MEAS_HASH_LEN + 1]) {
  MeasOptions defaults = meas_defaults();
  if (!o) o = &defaults;
  const Dialect *dl = o->target ? cg_dialect(o->target) : &CG_OPENCL;
  cg_assert(dl);
  char *emitted = o->source ? NULL : cg_emit(lp, dl, o->header);
  const char *src = o->source ? o->source : emitted;
  char buf[1024];
  const char *options = rt_build_options(o->build_options, buf, sizeof buf);
  char *launch = cg_manifest_json(lp, "", 0, NULL, NULL);
  // each text with its terminating 0, so that no two splits of one text hash alike
  uint64_t h = cg_hash_bytes(CG_FNV_OFFSET, src, strlen(src) + 1);
  h = cg_hash_bytes(h, options, strlen(options) + 1);
  h = cg_hash_bytes(h, launch, strlen(launch) + 1);
  for (int k = 0; k < lp->nkernels; k++)   // a kernel run once times otherwise than the same kernel run every run
    if (o->fixed_inputs && lw_kernel_prepares(lp, k, o->fixed_inputs)) h = cg_hash_bytes(h, "once", 5), h ^= (uint64_t)k;
  snprintf(out, MEAS_HASH_LEN + 1, "%016llx", (unsigned long long)h);
  free(launch);
  free(emitted);
}

/* One measurement in flight: what must be released at the end. */
typedef struct Run {
  Arena *a;
  RtDevice *dev;
  const LProgram *lp;
  const MeasOptions *o;
  MeasResult *r;
  uint64_t rng;          // splitmix64 state
  float **inputs;        // per program input: flat host values, as the interpreter reads them
  RtBuffer **bufs;       // per lp->buffers entry
  int out;               // index of the output in lp->buffers
  RtArg **args;          // per kernel: its arguments
  RtProgram *prog;
  float *got;            // the output read back (as floats)
  double *want;          // the reference
  int64_t *pos, npos;    // the output positions checked (pos NULL: all npos of them)
  bool turn;             // device_turn was taken
  double check_ms;       // the checked run's time (sum of its kernels' times)
  RtSpan *span;          // the launches of the batch in flight (the checked run is one)
  bool *once;            // per kernel: run in the checked run only (MeasOptions.fixed_inputs)
  int *timed, ntimed;    // the kernels of a timed run, in order: those not once
  RtBuffer *const *given_bufs;   // meas_bind: the inputs' device buffers, the caller's, as are
  RtBuffer *given_out;           // the output's and the program (prog)
  RtBuffer *const *given_temps;  // meas_bind: the temporaries' buffers, the caller's (NULL: its own)
} Run;

static bool fail(Run *run, MeasStatus s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(Run *run, MeasStatus s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(run->r->reason, sizeof run->r->reason, fmt, ap);
  va_end(ap);
  run->r->status = s;
  return false;
}

/* ---- inputs ----------------------------------------------------------------- */

/* Uniform in [-1, 1) with 24 random bits, so every value is an exact float. */
static float uniform(uint64_t *s) { return (float)((double)(cg_splitmix64(s) >> 40) * 0x1p-23 - 1.0); }

static uint64_t clock_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  uint64_t seed = cg_splitmix64(&s) & 0xffffffffffffull;   // short enough to retype
  return seed ? seed : 1;
}

/* Random host values for every program input: floats in [-1, 1), each a value
 * of the input's storage type (rounded to nearest even into half, so the
 * reference computes from what the device reads), and for int inputs small
 * integers in [-8, 8) (held as floats for the interpreter). */
static bool make_inputs(Run *run) {
  const Program *p = run->lp->prog;
  run->inputs = cg_calloc((size_t)p->ninputs, sizeof *run->inputs);
  for (int k = 0; k < p->ninputs; k++) {
    int64_t n = ir_flat_count(p->inputs[k]->type);
    if (n < 0)
      return fail(run, MEAS_SETUP_FAILED, "input '%s' has a symbolic size (%s); bind every size",
                  p->inputs[k]->name, ty_str(run->a, p->inputs[k]->type));
    bool is_int = ty_base(p->inputs[k]->type)->kind == TY_INT;
    const ElemType *et = ty_elem(p->inputs[k]->type);
    bool round = et && elem_is_storage(et);
    float *v = cg_calloc((size_t)n, sizeof *v);
    for (int64_t i = 0; i < n; i++) {
      v[i] = is_int ? (float)(int)(cg_splitmix64(&run->rng) % 16) - 8 : uniform(&run->rng);
      if (round) v[i] = (float)elem_round(et, v[i]);
    }
    run->inputs[k] = v;
  }
  return true;
}

/* ---- buffers ------------------------------------------------------------------ */

/* The element type a buffer's values are poisoned as: its own, fp32 for an int
 * buffer (as it always was: the NaN's bits). */
static const ElemType *poison_elem(const Mem *m) {
  const ElemType *et = ty_elem(m->storage);
  return et ? et : elem_fp32();
}

/* Writes an input in its buffer's storage type (int buffers get the values as
 * ints, half buffers as halves). The host holds fp32 values. */
static bool write_input(Run *run, const Mem *m, RtBuffer *b, const float *v, int64_t n) {
  Diag d = {0};
  bool ok;
  size_t bytes = (size_t)lw_mem_bytes(m);
  if (ty_base(m->storage)->kind == TY_INT) {
    int32_t *iv = cg_calloc((size_t)n, sizeof *iv);
    for (int64_t i = 0; i < n; i++) iv[i] = (int32_t)v[i];
    ok = rt_write(run->dev, b, iv, bytes, &d);
    free(iv);
  } else {   // fp32, or half rounded to nearest even, as the interpreter binds it
    cg_assert(elem_bytes(ty_elem(m->storage), n) == (int64_t)bytes);
    ok = rt_write_values(run->dev, b, ty_elem(m->storage), v, n, &d);
  }
  return ok || fail(run, MEAS_LAUNCH_FAILED, "writing input '%s': %s", m->name, d.msg);
}

static bool alloc_buffers(Run *run) {
  const LProgram *lp = run->lp;
  const Program *p = lp->prog;
  run->bufs = cg_calloc((size_t)lp->nbuffers, sizeof *run->bufs);
  run->out = -1;
  int ntemps = 0;
  for (int i = 0; i < lp->nbuffers; i++) {
    const Mem *m = lp->buffers[i];
    int64_t n = lw_mem_values(m), bytes = lw_mem_bytes(m);
    Diag d = {0};
    if (n <= 0) return fail(run, MEAS_SETUP_FAILED, "buffer '%s' has %lld values", m->name, (long long)n);
    if (m->role == MR_OUTPUT) bytes += lp->out_base * (bytes / n);   // a slice: the buffer's elements before it too
    if (run->given_out && (m->role == MR_INPUT || m->role == MR_OUTPUT)) {   // the caller's: an input holds its values
      if (m->role == MR_INPUT && (m->input_index < 0 || m->input_index >= p->ninputs))
        return fail(run, MEAS_SETUP_FAILED, "buffer '%s' names input %d of %d", m->name, m->input_index, p->ninputs);
      if (m->role == MR_OUTPUT && run->out >= 0)
        return fail(run, MEAS_SETUP_FAILED, "two output buffers ('%s', '%s')", lp->buffers[run->out]->name, m->name);
      if (m->role == MR_OUTPUT) run->out = i;
      run->bufs[i] = m->role == MR_INPUT ? run->given_bufs[m->input_index] : run->given_out;
      if (rt_buffer_size(run->bufs[i]) < (size_t)bytes)   // a buffer shared with other values: no write past it
        return fail(run, MEAS_SETUP_FAILED, "buffer '%s' needs %lld bytes, the one given holds %zu", m->name,
                    (long long)bytes, rt_buffer_size(run->bufs[i]));
      continue;
    }
    if (run->given_temps) {   // a temporary of the caller's (shared with other programs): its contents are garbage
      RtBuffer *t = run->given_temps[ntemps++];
      if (rt_buffer_size(t) < (size_t)bytes)
        return fail(run, MEAS_SETUP_FAILED, "temporary '%s' needs %lld bytes, the one given holds %zu", m->name,
                    (long long)bytes, rt_buffer_size(t));
      run->bufs[i] = t;
      continue;
    }
    if (!(run->bufs[i] = rt_alloc(run->dev, (size_t)bytes, &d)))
      return fail(run, MEAS_SETUP_FAILED, "buffer '%s' (%lld bytes): %s", m->name, (long long)bytes, d.msg);
    if (m->role == MR_INPUT) {
      int k = m->input_index;
      if (k < 0 || k >= p->ninputs)
        return fail(run, MEAS_SETUP_FAILED, "buffer '%s' names input %d of %d", m->name, k, p->ninputs);
      int64_t want = ir_flat_count(p->inputs[k]->type);
      if (want != n)
        return fail(run, MEAS_SETUP_FAILED, "buffer '%s' holds %lld values but input '%s' has %lld",
                    m->name, (long long)n, p->inputs[k]->name, (long long)want);
      if (!write_input(run, m, run->bufs[i], run->inputs[k], n)) return false;
      continue;
    }
    if (m->role == MR_OUTPUT) {
      if (run->out >= 0) return fail(run, MEAS_SETUP_FAILED, "two output buffers ('%s', '%s')",
                                     lp->buffers[run->out]->name, m->name);
      run->out = i;
    }
    // Output and temporaries start as NaN: whatever no kernel writes shows up.
    if (!rt_poison(run->dev, run->bufs[i], poison_elem(m), (size_t)bytes, &d))
      return fail(run, MEAS_LAUNCH_FAILED, "poisoning buffer '%s': %s", m->name, d.msg);
  }
  if (run->out < 0) return fail(run, MEAS_SETUP_FAILED, "the lowered program has no output buffer");
  int64_t outs = ir_flat_count(p->body->type);
  if (outs != lw_mem_values(lp->buffers[run->out]))
    return fail(run, MEAS_SETUP_FAILED, "output buffer '%s' holds %lld values but the program's output %s has %lld",
                lp->buffers[run->out]->name, (long long)lw_mem_values(lp->buffers[run->out]),
                ty_str(run->a, p->body->type), (long long)outs);
  run->r->outputs = outs;
  return true;
}

/* Kernel arguments are Mem pointers into lp->buffers; find each one's RtBuffer. */
static bool bind_args(Run *run) {
  const LProgram *lp = run->lp;
  run->args = cg_calloc((size_t)lp->nkernels, sizeof *run->args);
  for (int k = 0; k < lp->nkernels; k++) {
    const LKernel *lk = lp->kernels[k];
    run->args[k] = cg_calloc((size_t)lk->nargs, sizeof **run->args);
    for (int j = 0; j < lk->nargs; j++) {
      int i = 0;
      while (i < lp->nbuffers && lp->buffers[i] != lk->args[j]) i++;
      if (i == lp->nbuffers)
        return fail(run, MEAS_SETUP_FAILED, "kernel '%s' argument %d ('%s') is not a buffer of the program",
                    lk->name, j, lk->args[j] ? lk->args[j]->name : "(null)");
      run->args[k][j].buf = run->bufs[i];
    }
  }
  return true;
}

/* ---- running -------------------------------------------------------------------- */

static bool build(Run *run) {
  const MeasOptions *o = run->o;
  char *emitted = NULL;
  const char *src = o->source;
  if (!src) src = emitted = cg_emit(run->lp, cg_dialect(rt_target(run->dev)), o->header);   // the device's language
  run->r->source = src ? arena_strdup(run->a, src) : NULL;
  free(emitted);
  if (!run->r->source) return fail(run, MEAS_BUILD_FAILED, "the emitter produced no source");
  Diag d = {0};
  run->prog = o->program ? o->program : rt_build(run->dev, run->r->source, o->build_options, &d);
  if (!run->prog) return fail(run, MEAS_BUILD_FAILED, "%s", d.msg);
  // a limit only the build reveals: the work-group a kernel's registers allow
  for (int k = 0; k < run->lp->nkernels; k++) {
    const LKernel *lk = run->lp->kernels[k];
    size_t wg = 1, max = lk->uses_groups ? rt_kernel_wg_max(run->dev, run->prog, lk->name, &d) : 0;
    for (int i = 0; i < lk->work_dim; i++) wg *= lk->local[i];
    if (max && wg > max)
      return fail(run, MEAS_OVER_LIMIT, "kernel '%s': work-group size %zu exceeds the %zu its build allows "
                  "(CL_KERNEL_WORK_GROUP_SIZE: its registers or local memory)", lk->name, wg, max);
  }
  return true;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* The sorted, distinct positions to check: nsample random ones plus the first
 * and the last (edges are where index bugs live). *n gets their number. */
static int64_t *sample_positions(Run *run, int64_t total, int64_t *n) {
  int64_t want = run->o->sample;
  int64_t *pos = cg_calloc((size_t)want + 2, sizeof *pos);
  pos[0] = 0;
  pos[1] = total - 1;
  for (int64_t i = 0; i < want; i++) pos[i + 2] = (int64_t)(cg_splitmix64(&run->rng) % (uint64_t)total);
  qsort(pos, (size_t)want + 2, sizeof *pos, cmp_i64);
  int64_t k = 0;
  for (int64_t i = 0; i < want + 2; i++)
    if (k == 0 || pos[i] != pos[k - 1]) pos[k++] = pos[i];
  *n = k;
  return pos;
}

/* The output's values into run->got: from element lp->out_base of its
 * buffer on (a slice, LProgram.out_base), the elements before read and
 * dropped. */
static bool read_output(Run *run) {
  const Mem *m = run->lp->buffers[run->out];
  int64_t n = run->r->outputs, base = run->lp->out_base;
  Diag d = {0};
  run->got = cg_calloc((size_t)(n + base), sizeof *run->got);
  cg_assert(lw_mem_values(m) == n);   // the host reads fp32 values, or ints or halves it converts
  const ElemType *et = ty_elem(m->storage);
  bool ok = et && et->kind == ELEM_FP16
                ? rt_read_values(run->dev, run->bufs[run->out], et, run->got, n + base, &d)
                : rt_read(run->dev, run->bufs[run->out], run->got, (size_t)(lw_mem_bytes(m) / n * (n + base)), &d);
  if (!ok) return fail(run, MEAS_LAUNCH_FAILED, "reading output '%s': %s", m->name, d.msg);
  if (base) memmove(run->got, run->got + base, sizeof *run->got * (size_t)n);
  if (et && et->kind == ELEM_FP16) return true;
  if (ty_base(m->storage)->kind == TY_INT) {
    for (int64_t i = 0; i < n; i++) {
      int32_t v;
      memcpy(&v, &run->got[i], sizeof v);
      run->got[i] = (float)v;
    }
  }
  return true;
}

/* Compares got with the reference at the checked positions (all when pos is
 * NULL) and fills the result's error fields. */
static bool compare(Run *run, const int64_t *pos, int64_t npos) {
  MeasResult *r = run->r;
  for (int64_t i = 0; i < r->outputs; i++)
    if (!isfinite(run->got[i]) && r->nonfinite++ == 0) r->worst = i;
  if (r->nonfinite) {
    r->worst_got = run->got[r->worst];
    return fail(run, MEAS_WRONG, "%lld of %lld outputs are NaN or Inf (first at %lld): never written, or invalid",
                (long long)r->nonfinite, (long long)r->outputs, (long long)r->worst);
  }
  double diff2 = 0, ref2 = 0, worst = -1;
  for (int64_t s = 0; s < npos; s++) {
    int64_t i = pos ? pos[s] : s;
    double want = run->want[i], dd = run->got[i] - want;
    if (!isfinite(want))
      return fail(run, MEAS_REFERENCE_FAILED, "the reference is %g at output %lld (overflow or a division by zero "
                  "on these inputs)", want, (long long)i);
    diff2 += dd * dd;
    ref2 += want * want;
    if (fabs(dd) > worst) worst = fabs(dd), r->worst = i;
  }
  r->checked = npos;
  r->error_abs = ref2 == 0;
  r->error = r->error_abs ? sqrt(diff2) : sqrt(diff2) / sqrt(ref2);
  if (r->worst >= 0) r->worst_got = run->got[r->worst], r->worst_want = run->want[r->worst];
  if (r->error <= r->tol) return true;
  return fail(run, MEAS_WRONG, "%s L2 error %.3g exceeds the tolerance %.3g; largest difference at output %lld: "
              "got %.9g, want %.9g", r->error_abs ? "absolute" : "relative", r->error, r->tol,
              (long long)r->worst, r->worst_got, r->worst_want);
}

/* The reference for the inputs, at the positions to check: after the build
 * (a candidate that does not build needs none), before the device is used
 * (it takes the CPUs, not the device). */
static bool reference(Run *run) {
  int64_t total = ir_flat_count(run->lp->prog->body->type);
  if (total <= 0) return fail(run, MEAS_SETUP_FAILED, "the program's output has no fixed size");
  run->npos = total;
  if (run->o->sample > 0 && run->o->sample < total) run->pos = sample_positions(run, total, &run->npos);
  run->want = cg_calloc((size_t)total, sizeof *run->want);
  Diag d = {0};
  const float *const *in = (const float *const *)run->inputs;
  bool ok = run->o->reference ? run->o->reference(run->o->reference_ctx, in, run->want, &d)
                              : ir_eval(run->lp->prog, in, run->want, run->pos ? run->npos : 0, run->pos, &d);
  return ok || fail(run, MEAS_REFERENCE_FAILED, "reference: %s", d.msg);
}

/* The caller's turn on a shared device (MeasOptions.device_turn). */
static bool take_turn(Run *run) {
  if (!run->o->device_turn) return true;
  char why[512] = "";
  if (!run->o->device_turn(run->o->device_turn_ctx, true, why, sizeof why))
    return fail(run, MEAS_SETUP_FAILED, "no turn on the device: %s", why);
  run->turn = true;
  return true;
}

/* Queues n runs into span s without waiting: every kernel in order (all),
 * or those not run once (the warm-up's and the timed runs). */
static bool enqueue_runs(Run *run, RtSpan *s, int n, bool all) {
  const LProgram *lp = run->lp;
  for (int t = 0; t < n; t++)
    for (int k = 0; k < lp->nkernels; k++) {
      const LKernel *lk = lp->kernels[k];
      Diag d = {0};
      if (!all && run->once[k]) continue;
      if (!rt_enqueue(run->dev, run->prog, lk->name, lk->nargs, run->args[k], lk->work_dim, lk->global,
                      lk->uses_groups ? lk->local : NULL, s, &d))
        return fail(run, MEAS_LAUNCH_FAILED, "%s", d.msg);
    }
  return true;
}

/* n runs back to back; *ms gets the span of all of them. whole: replayed as
 * one where the target can (rt_span_replay: no launch times), else held.
 * all: every kernel (the checked run), else those not run once. */
static bool batch(Run *run, RtSpan *s, int n, bool whole, bool all, double *ms) {
  Diag d = {0};
  rt_span_clear(s);
  bool queued = run->o->host_paced || (whole ? rt_span_replay(run->dev, s, &d) : rt_span_hold(run->dev, s, &d));
  if (!queued) return fail(run, MEAS_LAUNCH_FAILED, "%s", d.msg);
  if (!enqueue_runs(run, s, n, all)) {
    rt_span_finish(run->dev, s, ms, &d);   // what was queued must finish before its buffers go
    return false;
  }
  return rt_span_finish(run->dev, s, ms, &d) || fail(run, MEAS_LAUNCH_FAILED, "%s", d.msg);
}

/* Which kernels run once (MeasOptions.fixed_inputs, lw_kernel_prepares) and
 * which make a timed run, in order; MeasResult's kernels say which. */
static void mark_once(Run *run) {
  const LProgram *lp = run->lp;
  run->once = ARENA_ARRAY(run->a, bool, lp->nkernels ? (size_t)lp->nkernels : 1);
  run->timed = ARENA_ARRAY(run->a, int, lp->nkernels ? (size_t)lp->nkernels : 1);
  run->ntimed = 0;
  for (int k = 0; k < lp->nkernels; k++) {
    run->once[k] = run->o->fixed_inputs && lw_kernel_prepares(lp, k, run->o->fixed_inputs);
    run->r->kernels[k].once = run->once[k];
    if (!run->once[k]) run->timed[run->ntimed++] = k;
  }
}

/* The checked run: every kernel once, the output compared; the time of a
 * run is that of the kernels not run once (run->check_ms), each kernel run
 * once has its launch's. */
static bool check(Run *run) {
  double span = 0;
  if (!batch(run, run->span, 1, false, true, &span) || !read_output(run)) return false;
  bool ok = compare(run, run->pos, run->npos);
  double sum = 0;
  for (int k = 0; k < rt_span_count(run->span); k++) {
    double launch = rt_span_launch_ms(run->span, k);
    if (run->once[k]) run->r->kernels[k].ms = rt_stats(&launch, 1);
    else sum += launch;
  }
  run->check_ms = sum;
  if (ok && run->o->cutoff_ms > 0 && sum > run->o->cutoff_ms)
    return fail(run, MEAS_SLOW, "correct, but its checked run took %.3f ms, over the cutoff of %.3f ms: not timed", sum,
                run->o->cutoff_ms);
  return ok;
}

/* Each kernel's time per run, from one more batch of reps runs with the
 * launches' own times: the samples are its runs (where the timed batches
 * were replayed whole and have none). */
static bool profile_kernels(Run *run, int reps) {
  int nk = run->ntimed;
  double span = 0;
  if (!batch(run, run->span, reps, false, false, &span)) return false;
  double *col = cg_calloc((size_t)reps, sizeof *col);
  for (int j = 0; j < nk; j++) {
    for (int t = 0; t < reps; t++) col[t] = rt_span_launch_ms(run->span, t * nk + j);
    run->r->kernels[run->timed[j]].ms = rt_stats(col, reps);
  }
  free(col);
  return true;
}

/* Warm-up, then the timed batches (measure.h, step 5); per-run and
 * per-kernel statistics over the batches. */
static bool time_runs(Run *run) {
  MeasResult *r = run->r;
  int nk = run->ntimed, runs = run->o->runs < MEAS_MIN_RUNS ? MEAS_MIN_RUNS : run->o->runs;
  int reps = meas_reps(run->check_ms, run->o->reps);
  double *ms = cg_calloc((size_t)nk * (size_t)runs, sizeof *ms), *total = cg_calloc((size_t)runs, sizeof *total);
  RtSpan *s = run->span;
  double span = 0;
  bool ok = run->o->warmup <= 0 || batch(run, s, run->o->warmup, true, false, &span);
  if (ok) r->warmup = run->o->warmup > 0 ? run->o->warmup : 0;
  for (int t = 0; t < runs && ok; t++) {
    ok = batch(run, s, reps, true, false, &span);
    total[t] = span / reps;
    for (int i = 0; ok && i < rt_span_count(s); i++) ms[(size_t)t * (size_t)nk + (size_t)(i % nk)] += rt_span_launch_ms(s, i) / reps;
  }
  if (ok) {
    r->runs = runs;
    r->reps = reps;
    r->ms = rt_stats(total, runs);
    double *col = cg_calloc((size_t)runs, sizeof *col);
    for (int j = 0; j < nk; j++) {
      for (int t = 0; t < runs; t++) col[t] = ms[(size_t)t * (size_t)nk + (size_t)j];
      r->kernels[run->timed[j]].ms = rt_stats(col, runs);
    }
    free(col);
    if (!rt_span_has_launch_times(s)) ok = profile_kernels(run, reps);
  }
  free(ms);
  free(total);
  return ok;
}

static void release(Run *run) {
  const LProgram *lp = run->lp;
  if (run->inputs) {
    for (int k = 0; k < lp->prog->ninputs; k++) free(run->inputs[k]);
    free(run->inputs);
  }
  if (run->bufs)
    for (int i = 0; i < lp->nbuffers; i++)
      if (lp->buffers[i]->role == MR_INPUT || lp->buffers[i]->role == MR_OUTPUT ? !run->given_out : !run->given_temps)
        rt_buffer_free(run->bufs[i]);
  free(run->bufs);
  if (run->args)
    for (int k = 0; k < lp->nkernels; k++) free(run->args[k]);
  free(run->args);
  rt_span_free(run->span);   // first: it names its launches by the program's kernel names
  if (!run->given_out && !run->o->program) rt_program_free(run->prog);   // meas_bind's and a given one are the caller's
  free(run->got);
  free(run->want);
  free(run->pos);
}

MeasResult meas_run(Arena *a, RtDevice *dev, const LProgram *lp, const MeasOptions *o) {
  MeasOptions defaults = meas_defaults();
  if (!o) o = &defaults;
  MeasResult r = {.status = MEAS_OK, .error = NAN, .worst = -1};
  r.seed = o->seed ? o->seed : clock_seed();
  r.tol = o->tol > 0 ? o->tol : meas_tolerance(lp->prog);
  r.nkernels = lp->nkernels;
  r.kernels = ARENA_ARRAY(a, MeasKernel, lp->nkernels ? lp->nkernels : 1);
  for (int k = 0; k < lp->nkernels; k++) r.kernels[k].name = lp->kernels[k]->name;
  Run run = {.a = a, .dev = dev, .lp = lp, .o = o, .r = &r, .rng = r.seed, .span = rt_span_new()};
  mark_once(&run);
  // Each step records its own failure in r; the chain stops at the first.
  // The device is used (buffers, runs) only after the build and within the
  // caller's turn, when it shares the device (tune --jobs).
  if (make_inputs(&run) && build(&run) && reference(&run) && take_turn(&run) && alloc_buffers(&run) &&
      bind_args(&run) && check(&run) && !o->check_only)
    time_runs(&run);
  release(&run);   // the device's buffers too, then the turn ends
  if (run.turn) o->device_turn(o->device_turn_ctx, false, NULL, 0);
  if (r.status != MEAS_OK) r.ms = (RtStats){0};
  return r;
}

struct MeasBound {
  Run run;
  MeasOptions o;
  MeasResult r;
  bool prepared;   // the kernels run once have run (the first meas_enqueue)
};

MeasBound *meas_bind(Arena *a, RtDevice *dev, const LProgram *lp, RtProgram *prog, RtBuffer *const *inputs,
                     RtBuffer *out, RtBuffer *const *temps, uint64_t fixed, Diag *d) {
  MeasBound *b = cg_calloc(1, sizeof *b);
  b->o = meas_defaults();
  b->o.fixed_inputs = fixed;
  b->r = (MeasResult){.status = MEAS_OK, .error = NAN, .worst = -1, .nkernels = lp->nkernels};
  b->r.kernels = ARENA_ARRAY(a, MeasKernel, lp->nkernels ? lp->nkernels : 1);
  for (int k = 0; k < lp->nkernels; k++) b->r.kernels[k].name = lp->kernels[k]->name;
  b->run = (Run){.a = a, .dev = dev, .lp = lp, .o = &b->o, .r = &b->r, .given_bufs = inputs, .given_out = out,
                 .given_temps = temps, .prog = prog};
  mark_once(&b->run);
  if (alloc_buffers(&b->run) && bind_args(&b->run)) return b;
  diag_error(d, "%s", b->r.reason);
  meas_unbind(b);
  return NULL;
}

bool meas_enqueue(MeasBound *b, RtSpan *s, Diag *d) {
  if (!enqueue_runs(&b->run, s, 1, !b->prepared)) return diag_error(d, "%s", b->r.reason);
  b->prepared = true;
  return true;
}

int meas_bound_kernels(const MeasBound *b) { return b->prepared ? b->run.ntimed : b->run.lp->nkernels; }

void meas_bound_replace(MeasBound *b, const RtBuffer *old, RtBuffer *now) {
  const LProgram *lp = b->run.lp;
  for (int i = 0; i < lp->nbuffers; i++)
    if (b->run.bufs[i] == old) b->run.bufs[i] = now;
  for (int k = 0; k < lp->nkernels; k++)
    for (int j = 0; j < lp->kernels[k]->nargs; j++)
      if (b->run.args[k][j].buf == old) b->run.args[k][j].buf = now;
}

void meas_unbind(MeasBound *b) {
  if (!b) return;
  release(&b->run);
  free(b);
}
