/* team.h: tuning scale-out over MPI ranks (docs/design.md section 10).
 *
 * `mpirun -np N convgen tune ...` starts N tuners; they share the layers
 * (rank r tunes layers r, r + N, ...), each on its own device, and rank 0 is
 * the only one that writes the database: the others send it every
 * measurement as a message, and read the database only to replay what is
 * recorded. Rank 0 makes the device and layer rows before anyone starts, so
 * the others only look them up. Without mpirun (or in a build without MPI)
 * there is one rank and nothing is sent.
 *
 * Messages are lines of text: a measurement is
 *   LAYER_INDEX \t DEVICE_ID \t STRATEGY \t POINT \t STATUS \t ERROR \t MEDIAN \t MIN \t MAX \t SPREAD \t RUNS
 *   \t SEED \t SEARCH \t REASON
 * and a rank that has finished sends "done".
 */
#ifndef CONVGEN_TUNE_TEAM_H
#define CONVGEN_TUNE_TEAM_H

#include "tune/db.h"

typedef struct Team {
  int rank, size;
  bool mpi;            // MPI was initialised
} Team;

/* Joins the team when launched by mpirun (MPI_Init), else a team of one. */
void team_init(Team *t, int *argc, char ***argv);
void team_finish(Team *t);
bool team_available(void);   // built with MPI
/* Every rank's device information gathered at rank 0 (all[size]); others get NULL. */
RtDeviceInfo *team_gather_devices(const Team *t, const RtDeviceInfo *mine);
/* Rank 0's ids broadcast to all (n values). */
void team_bcast_ids(const Team *t, int64_t *ids, int n);
/* The smallest of every rank's v (to agree on a failure). */
int team_min(const Team *t, int v);

/* A rank other than 0: a measurement of layer li to the writer; then done. */
void team_send(const Team *t, int li, int64_t device, const DbMeasurement *m);
void team_send_done(const Team *t);
/* Rank 0: the next message, waiting for one when wait is true; false when
 * there is none (or none will come: every other rank is done). *li < 0 for a
 * "done". Strings in the arena. */
bool team_recv(const Team *t, Arena *a, bool wait, int *li, int64_t *device, DbMeasurement *m, int *from);

#endif
