/* tune.h: `convgen tune`, the search for the fastest correct kernels of
 * layers on a device (docs/design.md sections 7 and 8).
 *
 * For each layer, a search (search.h: random, the baseline, or evolve)
 * proposes candidates from the spaces of the chosen strategies. Its sequence
 * is fixed by the seed and the results, so a tune run again with the same
 * options walks the same candidates, taking the results the database already
 * has instead of measuring them again: a killed tune resumes where it
 * stopped. Each candidate is measured by a worker process under a watchdog
 * (worker.h) with the protocol of measure.h and recorded at once (db.h).
 */
#ifndef CONVGEN_TUNE_H
#define CONVGEN_TUNE_H

#include "measure/measure.h"
#include "rewrite/strategy.h"
#include "tune/db.h"
#include "tune/search.h"
#include "tune/team.h"

enum { TUNE_MAX_STRATEGIES = 8, TUNE_MAX_JOBS = 64, TUNE_LOST_CAP = 1200 };   // TUNE_MAX_JOBS: the bound of --jobs
enum { TUNE_AUTO_JOBS = 16 };   // --jobs's default on a GPU: the online CPUs, at most this many

enum { TUNE_TRANSFER_DEFAULT = 3 };   // tune --transfer's default: records per similar layer

typedef struct TuneOptions {
  const char *device;          // --device (NULL: the default)
  const char *target;          // --target: "opencl" (NULL) or "cuda", the runtime and the kernels' language
  const char *db_path;         // --db
  int nstrategies;
  const Strategy *strategies[TUNE_MAX_STRATEGIES];
  int64_t budget;              // candidates per layer (counting those already recorded); 0: none
  double time_s;               // wall-clock limit for the whole run; 0: none
  int timeout_s;               // per candidate's check and timing, before the worker is killed
  int build_timeout_s;         // per candidate's build (and reference), before the worker is killed (0: timeout_s)
  int jobs;                    // workers building candidates at once, one measuring at a time (0: tune_jobs's choice)
  bool retry_faults;           // measure again a crash or hang recorded before this tune ...
  int64_t retry_age_s;         // ... at least this many seconds before it (--retry-faults AGE)
  bool remeasure_unknown;      // measure again a record whose kernels are not known (made before convgen kept their hash)
  double cutoff;               // > 0: a candidate whose checked run is this many times slower than the best is not timed
  uint64_t seed;               // of the search
  int ndomains;
  const SpaceDomain *domains;  // --param: the search's spaces restricted (search_new)
  int warm_start;              // --warm-start N: the N fastest records of a layer seed its search (0: none)
  const char *warm_from;       // --warm-from TARGET: the same GPU's records under that target measured first
  int transfer;                // --transfer N: the N fastest records of each similar layer measured first (0: none)
  SearchKind search;           // random (the baseline) or evolve
  bool live;                   // a live progress line (standard error is a terminal)
  bool no_table;               // leave out the closing table (a caller that reports itself: bench)
} TuneOptions;

/* Workers by default: on a GPU, where the OpenCL compiler on the host takes
 * longer than a measurement, one per online CPU (at most TUNE_AUTO_JOBS);
 * on a CPU device one, since builds beside it would disturb its timing. */
int tune_jobs(const RtDeviceInfo *dev);

/* Tunes each layer (names[i] is how the user called it); with a team of
 * several ranks, rank r tunes layers r, r + size, ... and rank 0 records
 * everything (team.h). Prints progress on standard error and (rank 0) the
 * table of the best kernel per layer on standard output. Returns 0 when every
 * layer has a correct kernel, 1 when some has none, 2 (with d) when the
 * database or the device cannot be used: d's kind says which (DIAG_DEVICE
 * for a device that cannot be opened or is lost). */
int tune_run(const TuneOptions *o, const Team *team, const Layer *layers, const char *const *names, int nlayers,
             Diag *d);

/* The table of the best record per layer (convgen best); returns how many
 * layers have one. A record of other kernels than this convgen makes for
 * it on a device of limits dev gets a warning (tune_record_current). */
int tune_print_best(Db *db, int64_t device, const RtDeviceInfo *dev, const Layer *layers, const char *const *names,
                    int nlayers);

/* The hash of the kernels a worker builds for point pt of ls
 * (meas_kernel_hash of its lowering, built as measure.h builds it), made
 * here without a device: what a record of the point made now keeps. A
 * lowering and an emission of the point. False with the Diag when the
 * point does not compile. */
bool tune_kernel_hash(const LayerSpace *ls, const LsPoint *pt, const char *target, char out[MEAS_HASH_LEN + 1],
                      Diag *d);

/* Whether record m of a layer (called name), the point pt of ls, was
 * measured with the kernels this convgen makes for it. False, after a
 * warning on standard error (who: "convgen", "convgen bench") naming the
 * layer, the point and both hashes, when it was not; true when it was or
 * when that is not known (a record made before convgen kept the hash, a
 * point that no longer compiles: the caller finds that out itself). */
bool tune_record_matches(const LayerSpace *ls, const LsPoint *pt, const char *target, const char *name,
                         const DbMeasurement *m, const char *who);
/* The same for record m of layer l on a device of limits dev, for a caller
 * without the point's space: it derives the point's variant alone (the
 * cost of `convgen gen LAYER --strategy S -p ...` without the writing). */
bool tune_record_current(const Layer *l, const char *name, const DbMeasurement *m, const RtDeviceInfo *dev,
                         const char *who);

#endif
