/* worker.h: candidates measured in a child process with a watchdog.
 *
 * A candidate can take its process down (a driver crash, a kernel that never
 * ends, memory exhausted), so the tuner never runs one itself. It starts a
 * worker, `convgen worker --device SEL` (fork and exec of this same
 * program, so the child starts clean of any OpenCL state), which opens the
 * device once and then measures one candidate per request line:
 *
 *   request:  LAYER \t STRATEGY \t POINT \t SEED [\t CUTOFF_MS] \n
 *   progress: built \n, measuring \n   (the watchdog's build limit ends, its run limit starts)
 *   reply:    result \t STATUS \t ERROR \t MEDIAN_US \t MIN_US \t MAX_US \t SPREAD \t RUNS \t KERNEL_HASH \t REASON \n
 *
 * (POINT is "NAME=V NAME=V ...", the choices then the tuning parameters;
 * SEED, of the inputs, is one per layer in a tune; CUTOFF_MS > 0: a correct
 * candidate whose checked run took longer is not timed, status slow;
 * KERNEL_HASH is meas_kernel_hash of the kernels it built, empty when it
 * made none; REASON, last, is the rest of the line.) A
 * worker keeps the inputs and float64 reference of the layer and seed it
 * measured last (conv/refcache.h), for the next candidate of both.
 * A point that the worker's space refuses (a constraint, a domain, an
 * unusable variant, the lowering) is answered with status "rejected" and the
 * reason; a request it cannot read (no such layer or strategy, a text that
 * names no point) with "setup-failed"; neither is measured.
 * When no reply comes within the time limit (the build's until "built", the
 * run's from "measuring") the worker is killed and the
 * candidate recorded as "hang"; when the worker dies it is recorded as
 * "crash" with the signal or exit status. Either way the next request gets a
 * fresh worker.
 */
#ifndef CONVGEN_TUNE_WORKER_H
#define CONVGEN_TUNE_WORKER_H

#include "tune/db.h"

typedef struct Worker Worker;

/* Starts a worker on device sel (NULL: the default); NULL with a Diag
 * (DIAG_DEVICE: check the selector first, rt_select_info) when it cannot
 * start or cannot open the device. lock (NULL: none) is a file the
 * workers of one device share: each builds its candidate on its own, then
 * takes the lock to check and time it, so that several workers build at
 * once while only one uses the device (tune --jobs). */
Worker *worker_start(const char *target, const char *sel, const char *lock, Diag *d);
void worker_stop(Worker *w);
/* One candidate, in two halves so that several workers can be at work at
 * once: worker_send gives an idle worker its candidate and starts the
 * watchdog (build_timeout_s for the build and the reference, then timeout_s
 * from when it has the device for the check and timing; waiting for the
 * lock is not counted); false (with a Diag) only without a
 * worker. worker_done reads what the worker has said, without waiting: true
 * when the candidate is done, m filled (status, reason, error, times, runs
 * and the kernel hash, NULL when the worker made no kernel or did not
 * reply; strings in the arena), false while it is at work. Poll worker_fd to
 * know when to look. A hang (the worker is then killed) or a crash is a
 * result like any other: record it, then, when worker_alive says the worker
 * is gone, worker_restart. */
bool worker_send(Worker *w, Arena *a, const char *layer, const char *strategy, const char *point, uint64_t seed,
                 double cutoff_ms, int build_timeout_s, int timeout_s, Diag *d);
bool worker_done(Worker *w, Arena *a, DbMeasurement *m);
bool worker_busy(const Worker *w);
int worker_fd(const Worker *w);
bool worker_alive(const Worker *w);
/* A fresh worker on the same device in place of *w; false (with a Diag, *w
 * NULL) when it cannot start. */
bool worker_restart(Worker **w, Diag *d);

/* The worker side: reads requests on stdin until end of file, answers on
 * stdout ("built" once the candidate is built, "measuring" once it has the
 * device, holding the lock when there is one, then the result). Returns the process exit status. */
int worker_main(const char *target, const char *sel, const char *lock);

#endif
