/* db.h: the tuning database (docs/design.md section 8), a SQLite file.
 *
 * What the tuner measures is kept for next time: devices (by a fingerprint of
 * what identifies the hardware and driver), layers (by their canonical plain
 * form), candidates (a strategy and a point of its space on a layer) and
 * measurements (one per candidate and device: the status with its reason, the
 * error against the reference, the times, and where it came from). Every
 * measurement is committed as it is made, so a tune killed at any moment
 * loses at most the candidate in flight, and running it again skips what is
 * recorded. Each measurement keeps the hash of the kernels it measured
 * (meas_kernel_hash), so that a record of kernels the compiler no longer
 * makes is known (tune measures it again). The schema is in docs/tune.md
 * and in db.c (SCHEMA).
 */
#ifndef CONVGEN_TUNE_DB_H
#define CONVGEN_TUNE_DB_H

#include "conv/layer.h"
#include "rt/rt.h"
#include "util/util.h"

typedef struct Db Db;

/* Opens (creating it, and its folder, when missing) the database at path;
 * NULL with a Diag when it cannot be opened, is not a convgen database, or
 * has a newer schema. A database of schema version 1 is migrated to 2 in
 * place, in one transaction (a line on standard error says so; when it
 * fails the file is left as it was). */
Db *db_open(const char *path, Diag *d);
/* Opens an existing database for reading only (best, export, bench, the other
 * ranks of a team), also in a folder the reader cannot write; NULL with a
 * Diag when it is empty, not a convgen database, or has a newer schema. A
 * file of schema version 1 is read as it is (every kernel hash not known). */
Db *db_open_readonly(const char *path, Diag *d);
void db_close(Db *db);
/* The default path: $CONVGEN_DB, else $XDG_DATA_HOME/convgen/tune.db, else
 * $HOME/.local/share/convgen/tune.db (heap string); NULL when none of the
 * three is set. */
char *db_default_path(void);

/* The device's row (made on first use); -1 with a Diag on a database error. */
int64_t db_device(Db *db, const RtDeviceInfo *dev, Diag *d);
/* The fingerprint that identifies a device across runs. */
const char *db_fingerprint(Arena *a, const RtDeviceInfo *dev);
/* The layer's row (made on first use). */
int64_t db_layer(Db *db, const Layer *l, Diag *d);
/* Look-ups only (for readers): the row's id, 0 when there is none, -1 on error. */
int64_t db_find_device(Db *db, const RtDeviceInfo *dev, Diag *d);
int64_t db_find_layer(Db *db, const Layer *l, Diag *d);
/* As db_find_device; when the device has no row, the row of the same
 * hardware (platform, vendor, name, compute units and limits) under another
 * driver, the one with the most correct records, with *other_driver set to
 * that driver (in a); NULL when the row is the device's own. A kernel
 * measured under one driver is a fair guess under another, not a fact:
 * callers say so. */
int64_t db_find_device_or_like(Db *db, Arena *a, const RtDeviceInfo *dev, const char **other_driver, Diag *d);

/* One measurement of a candidate. */
typedef struct DbMeasurement {
  const char *strategy;
  const char *point;       // "LK=1 LH=1 LW=1 RK=8 RW=4": choices then parameters
  const char *status;      // meas_status_name, "rejected" / "setup-failed" from the worker, or "crash" / "hang" from the watchdog
  const char *reason;      // "" when ok
  double error;            // relative L2 error; NAN when none
  double median_us, min_us, max_us, spread;
  int runs;
  uint64_t seed;           // of the inputs
  const char *search;      // how the candidate was chosen: "random", ...
  const char *kernel_hash; // meas_kernel_hash of the kernels measured (16 hex digits); NULL: not known
} DbMeasurement;

/* Records m for (layer, device), in one transaction; false with a Diag on a
 * database error. A candidate already measured on the device is left as it
 * was (*fresh = false), unless that measurement is a crash or a hang (tune
 * --retry-faults) or was of other kernels than m's, or of kernels not known
 * (m->kernel_hash set and the record's another or NULL): m replaces it, in
 * the same statement. */
bool db_record(Db *db, int64_t layer, int64_t device, const DbMeasurement *m, bool *fresh, Diag *d);
/* Whether (layer, strategy, point) has a measurement on the device. */
bool db_measured(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point);
/* The same, and *median_us gets its time (INFINITY when it is not correct),
 * *kernel_hash the hash of the kernels it measured (in a; NULL: not known). */
bool db_result(Db *db, Arena *a, int64_t layer, int64_t device, const char *strategy, const char *point,
               double *median_us, const char **kernel_hash);
/* Whether (layer, strategy, point)'s measurement on the device is a fault of
 * the watchdog's (crash or hang), and *measured_at its time (Unix seconds):
 * what tune --retry-faults measures again. */
bool db_fault(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point, int64_t *measured_at);
/* How many measurements (layer, device) has, and how many of them are ok. */
void db_counts(Db *db, int64_t layer, int64_t device, int64_t *all, int64_t *ok);
/* How many candidates of strategy the layer has recorded on the device
 * (any status): what --budget counts (tune.c). */
int64_t db_recorded(Db *db, int64_t layer, int64_t device, const char *strategy);

/* The fastest correct measurement of (layer, device); false when none. The
 * strings are in the arena. */
typedef struct DbBest {
  DbMeasurement m;
  int64_t measured;        // measurements of the layer on the device
  const char *measured_at;
} DbBest;
bool db_best(Db *db, Arena *a, int64_t layer, int64_t device, DbBest *out);

/* Claims: two tunes on one database measure each candidate once. Before a
 * tune measures a candidate it claims it for ttl_s seconds (longer than the
 * candidate can take); a claim of another owner that has not expired means
 * another tune is measuring it (skip it), a recorded measurement that the
 * candidate is done (unless recorded_ok: a fault being retried). A claim of
 * a process of this host that no longer runs is void at once (a tune killed
 * mid-candidate); one of another host when it expires. db_record ends the
 * claim; db_release_claims ends a tune's unfinished ones. */
typedef enum DbClaim { DB_CLAIMED, DB_CLAIMED_ELSEWHERE, DB_CLAIM_RECORDED, DB_CLAIM_FAILED } DbClaim;
DbClaim db_claim(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point, const char *owner,
                 double ttl_s, bool recorded_ok, Diag *d);
void db_release_claims(Db *db, const char *owner);
/* The n fastest correct candidates of the layer on the device (each once, by
 * its fastest measurement), fastest first, into out[0 .. n); returns how
 * many there are (0 .. n). */
int db_best_n(Db *db, Arena *a, int64_t layer, int64_t device, int n, DbBest *out);
/* The layers other than `except` with correct records on device: their ids
 * and specs (the canonical plain form, in a), at most max, in the order they
 * were first stored; returns how many. */
int db_tuned_layers(Db *db, Arena *a, int64_t device, int64_t except, int64_t *ids, const char **specs, int max);
/* The same GPU as dev (its name) under the other target: a device whose
 * platform is "CUDA" when cuda, another otherwise; the one with the most
 * correct records. 0 when there is none, -1 with a Diag on error. */
int64_t db_find_device_twin(Db *db, const RtDeviceInfo *dev, bool cuda, Diag *d);

#endif
