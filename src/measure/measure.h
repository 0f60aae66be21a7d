/* measure.h: the measurement protocol for a lowered program (docs/design.md section 5),
 * the same for tests, the tuner and benchmarks.
 *
 * Correct before timed. One meas_run:
 *   1. fresh random inputs (uniform in [-1, 1) from a seed; small integers for
 *      int inputs), one flat array per program input;
 *   2. every global buffer of the LProgram allocated; inputs written; the output
 *      and every temporary poisoned with NaN, so an element no kernel writes is
 *      caught;
 *   3. the source (cg_emit through CG_OPENCL, or a given one) built; a kernel
 *      whose work-group is larger than its build allows (registers) stops here
 *      (over-limit); then every kernel launched once, in order, with its
 *      ND-range;
 *   4. the output read and compared with the float64 reference interpreter
 *      (ir_eval): relative L2 error ||out - ref|| / ||ref|| (the absolute L2 norm
 *      when ||ref|| is 0); any NaN or Inf anywhere in the output fails;
 *   5. only when correct: warm-up runs, then timed batches. A run is every
 *      kernel in order but those run once (MeasOptions.fixed_inputs: a
 *      kernel of a layer's weights alone, Winograd's filter transform, which
 *      a network runs when it loads its weights; a library called with the
 *      weights each time, as cuDNN is, does it in every call, so a
 *      comparison with one says so); a batch is R runs queued back to back, and its time
 *      per run is the device span from the start of its first kernel to the
 *      end of its last, divided by R (gaps between kernels count: a user
 *      waits for them). The result is the median over the batches, with the
 *      spread. A batch is queued whole behind a hold before the device starts
 *      it (rt_span_hold), so its time is the device's, not the host's rate of
 *      queueing, with no events between its launches (rt_span_replay:
 *      under CUDA a graph captured and replayed, as cuDNN's row in bench
 *      is; under OpenCL an event on the first launch and a marker after the
 *      last), and each kernel's own time comes from one more batch with an
 *      event for every launch. This is the one protocol of every method `convgen bench` times
 *      (the baselines follow it through meas_reps and their own device
 *      timestamps), so that times are comparable.
 * Every failure (build, launch, allocation, reference, wrong answer) comes back
 * as a status with a reason; nothing here prints, exits or crashes on a bad
 * candidate. A wrong result never carries a time.
 */
#ifndef CONVGEN_MEASURE_H
#define CONVGEN_MEASURE_H

#include "lower/lower.h"
#include "rt/rt.h"

#define MEAS_MIN_RUNS 10   // the protocol's floor on timed batches
#define MEAS_BATCH_MS 2.0  // R by default: a batch spans about this much device time ...
#define MEAS_MIN_REPS 1    // ... with at least this many runs (a run of 2 ms or more is its own batch) ...
#define MEAS_MAX_REPS 200  // ... and at most this many

/* R, the runs of a batch: asked when asked > 0, else chosen from the time of
 * one run (run_ms, the checked run's) so that a batch spans MEAS_BATCH_MS. */
int meas_reps(double run_ms, int asked);

typedef enum MeasStatus {
  MEAS_OK,                // correct, and timed
  MEAS_WRONG,             // ran, but the output differs from the reference (or has NaN/Inf)
  MEAS_BUILD_FAILED,      // the emitted source did not build (reason: the build log)
  MEAS_LAUNCH_FAILED,     // a launch, a copy or a device-side fault failed
  MEAS_REFERENCE_FAILED,  // the interpreter could not evaluate the program
  MEAS_SETUP_FAILED,      // inputs or buffers could not be made (symbolic sizes, over the max allocation)
  MEAS_OVER_LIMIT,        // built, but a kernel's work-group is larger than the build allows (registers)
  MEAS_SLOW,              // correct, but its checked run was slower than the cutoff: not timed
} MeasStatus;

const char *meas_status_name(MeasStatus s);   // "ok", "wrong", "build-failed", ...

typedef struct MeasOptions {
  uint64_t seed;              // input generator seed; 0: pick one from the clock (see MeasResult.seed)
  int64_t sample;             // 0: check every output; N: N random positions plus the first and last
  int warmup;                 // untimed runs before timing (default 3; 0 allowed)
  int runs;                   // timed batches (default 10; raised to MEAS_MIN_RUNS when lower)
  int reps;                   // runs per batch, back to back (0: meas_reps's choice)
  double tol;                 // largest passing error; 0 (the default): meas_tolerance's for the program
  bool check_only;            // stop after the check: no warm-up, no timing
  double cutoff_ms;           // > 0: a correct program whose checked run took longer is not timed (MEAS_SLOW)
  bool host_paced;            // batches start as they are queued (the protocol before round 24); by
                              // default each is held until queued whole (rt_span_hold)
  const char *header;         // header comment lines for cg_emit (may be NULL)
  const char *target;         // meas_kernel_hash's language: "opencl" (NULL) or "cuda"; meas_run emits in its device's
  const char *source;         // non-NULL: build this source instead of cg_emit's (compiled already, replays, tests)
  const char *build_options;  // passed to rt_build (may be NULL)
  /* Bit i: program input i keeps its values from run to run (a layer's
   * weights and bias). A kernel that computes from such inputs alone
   * (lw_kernel_prepares: Winograd's filter transform) runs in the checked
   * run only, as a network runs it once when its weights are loaded: the
   * timed runs leave it out, and its time is the checked run's
   * (MeasKernel.once). 0 (the default): every kernel runs every run. */
  uint64_t fixed_inputs;
  RtProgram *program;         // non-NULL: source built already (the caller's, neither built again nor freed)
  /* Non-NULL: the reference to check against instead of the interpreter (for
   * a convolution, the plain float64 convolution). It gets the flat inputs in
   * program-input order and fills every flat output; false with a Diag on
   * failure. ctx is passed through. */
  bool (*reference)(void *ctx, const float *const *inputs, double *out, Diag *d);
  void *reference_ctx;
  /* Non-NULL: called with begin true once the inputs, the build and the
   * reference are done, before anything touches the device (buffers, runs), and
   * with false when that is over (only after a true return): a caller that
   * shares the device with others building theirs takes its turn there
   * (tune --jobs). Returning false (with why) fails the measurement. */
  bool (*device_turn)(void *ctx, bool begin, char *why, size_t cap);
  void *device_turn_ctx;
} MeasOptions;

MeasOptions meas_defaults(void);

/* The largest relative L2 error against the float64 reference that a correct
 * output may have, from the element types it is computed and stored in (the
 * check's tolerance unless MeasOptions.tol gives one; docs/conv.md):
 *   1e-4 for sums computed in fp32 (the fp32 kernels' errors are under 1e-6
 *   on reductions of up to 4608 terms; the margin is for the cancellation a
 *   random sum can have), plus
 *   the unit roundoff of the output's storage type when that is narrower
 *   than the type it is computed in: each value is rounded to nearest once,
 *   a relative error of at most 2^-11 for fp16, so at most that in L2.
 * The inputs add nothing: measure draws them as values of their storage
 * type, so the reference computes from the values the device reads.
 * meas_tolerance_types takes the two types; meas_tolerance reads them off a
 * program (its output's declared element type, computed in its accumulation
 * type), and adds MEAS_TF32_TOL when it calls mmaTF32.
 *
 * MEAS_TF32_TOL: a TF32 product (precision=tf32) rounds each operand to 11
 * significant bits, a relative error of at most 2^-11 each, so a product's
 * is under 2^-10 and a sum's relative L2 about sqrt(2/3) 2^-11 (4e-4) for
 * random terms of either sign; the bound is 4 * 2^-11 (2e-3), and cuDNN's
 * and PyTorch's TF32 rows are checked against the same. */
#define MEAS_TF32_TOL (4 * 0x1p-11)
double meas_tolerance_types(const ElemType *stored, const ElemType *computed);
double meas_tolerance(const Program *p);

typedef struct MeasKernel {
  const char *name;     // LKernel.name
  RtStats ms;           // device time of this kernel per run, ms: over the runs of one more batch with an event
                        // on every launch (the timed batches have none between their launches); over the
                        // batches, each its mean, when they have them (--host-paced); a kernel run once
                        // (once), its checked run's launch
  bool once;            // run once, not in each run (MeasOptions.fixed_inputs): not in MeasResult.ms
} MeasKernel;

typedef struct MeasResult {
  MeasStatus status;
  char reason[1024];    // why status is not MEAS_OK ("" when it is)
  uint64_t seed;        // the seed the inputs came from (reproduce with it)
  double error;         // relative L2 error (absolute when error_abs); NAN when no comparison was made
  double tol;           // the largest passing error the check took (MeasOptions.tol, else meas_tolerance's)
  bool error_abs;       // ||ref|| was 0, so error is ||out - ref||
  int64_t outputs;      // flat values in the output
  int64_t checked;      // of them compared with the reference
  int64_t nonfinite;    // NaN or Inf values in the output (all of it, not only the checked ones)
  int64_t worst;        // position of the largest |out - ref| among the checked ones, or of the
                        // first NaN/Inf (-1: none)
  double worst_got;     // out[worst]
  double worst_want;    // ref[worst]
  RtStats ms;           // per-run time (a batch's span / reps), over the batches, milliseconds; zeros
                        // unless MEAS_OK and timed
  int warmup, runs;     // what was actually done: warm-up runs, timed batches ...
  int reps;             // ... of this many runs each
  int nkernels;
  MeasKernel *kernels;  // per kernel, in launch order (in the caller's arena)
  const char *source;   // the source that was built (in the caller's arena; NULL if none was made)
} MeasResult;

/* What meas_run builds and launches for lp with options o (NULL: the
 * defaults), as one hash: FNV-1a (64 bits) over the source (o->source, else
 * cg_emit's with o->header), the options the driver gets
 * (rt_build_options of o->build_options) and the launch description
 * (cg_manifest_json: each kernel's ND-range and arguments, each buffer's
 * size), and, when some kernel runs once (o->fixed_inputs), which ones,
 * written as MEAS_HASH_LEN hex digits into out. Equal hashes, the
 * same kernels run the same way; a change in the compiler that alters any
 * of them alters the hash (the tuning database keeps it with each record,
 * docs/tune.md). No device is needed. */
#define MEAS_HASH_LEN 16
void meas_kernel_hash(const LProgram *lp, const MeasOptions *o, char out[MEAS_HASH_LEN + 1]);
/* Is s a hash as meas_kernel_hash writes it (MEAS_HASH_LEN lower-case hex digits)? */
bool meas_is_kernel_hash(const char *s);

/* Runs the protocol for lp on dev (o NULL: the defaults). lp's program must be
 * type-inferred with every size concrete. The result's kernels and source live
 * in arena a; device buffers and host arrays are released before it returns.
 * The outcome is the result's status, never a crash or an exit. */
MeasResult meas_run(Arena *a, RtDevice *dev, const LProgram *lp, const MeasOptions *o);

/* A program run many times among others, on the caller's device buffers (a
 * network's planned buffers, src/net): meas_bind binds every kernel's
 * arguments, program input k to inputs[k] (its flat count of floats at
 * least) and the output to out, and the temporaries (lp's buffers that are
 * neither input nor output, in their order) to temps[j] (each large enough;
 * the caller's, shared by programs that run one after another: no kernel
 * may expect what an earlier one left there, but for what a kernel run
 * once writes, which must be a buffer of its own) or, with temps NULL, to
 * temporaries of its own (poisoned); prog is lp's kernels built for dev,
 * the caller's, as the buffers are; the output is not poisoned. fixed:
 * MeasOptions.fixed_inputs, the inputs bound to constants (a layer's
 * weights): the kernels computed from them alone run in the first
 * meas_enqueue only. meas_enqueue queues its kernels, in order, into span s;
 * meas_bound_replace makes every argument that was the caller's buffer old
 * now (a shared temporary grown); meas_unbind frees what meas_bind made. */
typedef struct MeasBound MeasBound;
MeasBound *meas_bind(Arena *a, RtDevice *dev, const LProgram *lp, RtProgram *prog, RtBuffer *const *inputs,
                     RtBuffer *out, RtBuffer *const *temps, uint64_t fixed, Diag *d);
bool meas_enqueue(MeasBound *b, RtSpan *s, Diag *d);
int meas_bound_kernels(const MeasBound *b);   // the launches the next meas_enqueue queues
void meas_bound_replace(MeasBound *b, const RtBuffer *old, RtBuffer *now);
void meas_unbind(MeasBound *b);

#endif
