/* bench.h: `convgen bench` (docs/design.md section 9): the tuned convgen kernels
 * side by side with the baselines, in one process on one device.
 *
 * Methods, each measured with the protocol of docs/design.md section 5 (correct
 * before timed: fresh random inputs, output poisoned with NaN, relative L2
 * error against the float64 convolution at most 1e-4; then warm-up and at
 * least 10 timed runs with device timers, median and spread):
 *   convgen  the best kernels of the tuning database, the three best records
 *            of the layer each measured, the fastest kept (run.c)
 *   naive    the direct strategy: one work-item per output (run.c)
 *   clblast  im2col + GEMM through CLBlast, loaded at run time (clblast.c)
 *   cudnn    cuDNN's forward convolution through the CUDA driver, loaded at
 *            run time, NVIDIA devices only (cudnn.c)
 * A method that cannot run says why (BenchResult.why) and the others go on.
 */
#ifndef CONVGEN_BENCH_H
#define CONVGEN_BENCH_H

#include "conv/layer.h"
#include "conv/refcache.h"
#include "rt/rt.h"

/* One layer's data, the same for every baseline: inputs drawn from a seed,
 * and the float64 convolution of them (conv_reference). */
typedef struct BenchData {
  const Layer *layer;
  const float *x;      // input, NCHW: n*c*h*w
  const float *w;      // weights, KCRS: k*c*kh*kw
  const float *b;      // bias: k values; NULL when the layer has none
  const float *r;      // residual, NCHW: n*k*out_h*out_w; NULL when the layer has none
  const float *s;      // the input's scale, n*c; NULL when the layer has none (scale=1)
  const double *ref;   // the float64 convolution (bias, residual and activation as the layer says), NCHW
  int64_t nx, nw, nb, nr, ns, ny;   // element counts of x, w, b (0 without bias), r (0 without residual),
                                    // s (0 without scale), output
} BenchData;

/* Fresh inputs for l drawn from seed (uniform in [-1, 1)) and their float64
 * convolution; l must outlive the data. bench_data_free releases them. */
BenchData bench_data_new(const Layer *l, uint64_t seed);
void bench_data_free(BenchData *bd);

/* The float64 convolution of the inputs a measurement drew, kept for the next
 * one that draws the same (convgen's and the naive kernel's measurements draw
 * theirs from one seed), so that a layer's reference is computed once, not
 * per method: the cache of conv/refcache.h, under bench's names. */
typedef ConvRefCache BenchRefCache;
static inline bool bench_cached_reference(void *ctx, const float *const *inputs, double *out, Diag *d) {
  return conv_cached_reference(ctx, inputs, out, d);
}
static inline void bench_ref_cache_free(BenchRefCache *c) { conv_ref_cache_free(c); }

/* The cache's inputs and reference as data for the baselines, moved out of
 * the cache; false (nothing moved) when it holds none. */
bool bench_data_from_cache(BenchRefCache *c, BenchData *out);

/* Bytes a method allocates on the device for one layer. */
typedef struct BenchMemory {
  uint64_t input, weights, bias, output;   // input: the image's, and the residual's (residual=1)
  uint64_t extra;          // beyond the four above: padding copies, partial sums, im2col, workspace
  char extra_what[96];     // what extra is ("im2col 4.2 MB + GEMM out", "workspace", "partial sums")
} BenchMemory;

static inline uint64_t bench_memory_total(const BenchMemory *m) {
  return m->input + m->weights + m->bias + m->output + m->extra;
}

typedef struct BenchResult {
  char method[16];       // "convgen", "naive", "clblast", "cudnn"
  bool ran;              // false: why says why (library missing, not an NVIDIA device, ...)
  char why[1536];        // room for a detail and a Diag message
  char detail[256];      // how: the strategy and point, the cuDNN algorithm, ...
  bool correct;          // error <= tolerance and no NaN/Inf; a wrong result has no time
  double error;          // relative L2 error against BenchData.ref (NAN when not compared)
  RtStats us;            // device time per run in microseconds, over n batches (median, min, max, spread, n)
  int reps;              // runs per batch, back to back (measure.h's protocol)
  BenchMemory mem;
} BenchResult;

typedef struct BenchOptions {
  int warmup;            // untimed runs after the check (default 3)
  int runs;              // timed batches (default 20; at least 10)
  int reps;              // runs per batch, back to back (0: meas_reps's choice from the checked run)
  double tol;            // largest passing relative L2 error (0: meas_tolerance_types', 1e-4 for fp32)
  bool host_paced;       // --host-paced: OpenCL batches not held until queued whole (measure.h)
} BenchOptions;

/* Fills r->correct and r->error (relative L2, conv_rel_l2; NAN when out has
 * NaN or Inf) from out; false (with r->why set) when wrong. */
bool bench_check(BenchResult *r, const float *out, const BenchData *d, const BenchOptions *o);

/* The timed batches of the protocol (measure.h) for a baseline that times
 * its own batches: max(o->runs, MEAS_MIN_RUNS) calls of batch, each giving
 * one batch's time per run in microseconds (false: an error, which batch
 * records), their statistics in *us. */
bool bench_time_batches(const BenchOptions *o, bool (*batch)(void *ctx, double *us), void *ctx, RtStats *us);

/* The baselines. Each fills r (method, ran/why, correct/error, us, mem,
 * detail) and returns r->ran && r->correct. They never print or exit. */
bool bench_clblast(RtDevice *dev, const BenchData *d, const BenchOptions *o, BenchResult *r);
bool bench_cudnn(const RtDeviceInfo *info, const BenchData *d, const BenchOptions *o, BenchResult *r);

/* convgen's row: this many of a layer's best records are measured, the fastest kept. */
#define BENCH_FINALISTS 3

/* The methods, in the order of the table, the CSV and the plot. */
enum { BENCH_CONVGEN, BENCH_NAIVE, BENCH_CLBLAST, BENCH_CUDNN, BENCH_METHODS };
extern const char *const bench_method_names[BENCH_METHODS];

/* What `convgen bench` is asked (the command line, cli/main.c). */
typedef struct BenchSetup {
  const char *device;     // --device (NULL: the default)
  const char *target;     // --target: "opencl" (NULL) or "cuda": convgen's and the naive kernels' runtime
  const char *db_path;    // the tuning database
  int64_t tune_budget;    // candidates per layer when a layer has no tuned kernel yet
  uint64_t seed;          // of the inputs (each layer's own stream is drawn from it)
  const char *csv;        // --csv FILE (NULL: none)
  const char *plot;       // --plot FILE.svg (NULL: none)
  BenchOptions m;
} BenchSetup;

/* Runs every method on every layer, prints the table (standard output) and
 * progress (standard error), writes the CSV and the plot. Returns 0 when
 * convgen's kernel of every layer is correct, 1 when one is not (or none
 * could be had), 2 with d set when the device, the database or an output
 * file cannot be used. */
int bench_run(const BenchSetup *s, const Layer *layers, const char *const *names, int n, Diag *d);

/* The report of n layers x BENCH_METHODS results (res[i * BENCH_METHODS + j]). */
void bench_print_table(StrBuf *sb, const Layer *layers, const char *const *names, int n, const BenchResult *res);
void bench_print_summary(StrBuf *sb, int n, const BenchResult *res);
char *bench_csv(const Layer *layers, const char *const *names, int n, const BenchResult *res);   // heap
/* s as one CSV field (quoted when it holds a comma, a quote or a line end). */
void bench_csv_field(StrBuf *sb, const char *s);

/* The plot: an SVG of per-layer time (one bar per method, log scale) above
 * per-layer memory, from n layers x m methods of results (res[i * m + j] is
 * layer i, method j). Written to path through a temporary file and a rename,
 * so a failure leaves nothing half-written; false with d set on failure. */
bool bench_plot_svg(const char *path, const char *title, const Layer *layers, int n,
                    const BenchResult *res, int m, Diag *d);

#endif
