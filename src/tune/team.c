/* team.c: the MPI side of tuning (team.h). Built with Open MPI when the
 * Makefile finds mpicc; with CONVGEN_NO_MPI every function is that of a
 * team of one. */
#include "tune/team.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CONVGEN_NO_MPI
#include <mpi.h>
#endif

enum { TAG_RESULT = 1, TAG_DONE = 2, MSG_MAX = 8192 };

#ifdef CONVGEN_NO_MPI

bool team_available(void) { return false; }
void team_init(Team *t, int *argc, char ***argv) {
  (void)argc, (void)argv;
  *t = (Team){0, 1, false};
}
void team_finish(Team *t) { (void)t; }
RtDeviceInfo *team_gather_devices(const Team *t, const RtDeviceInfo *mine) {
  (void)t;
  RtDeviceInfo *all = malloc(sizeof *all);
  if (!all) cg_die("out of memory");
  *all = *mine;
  return all;
}
void team_bcast_ids(const Team *t, int64_t *ids, int n) { (void)t, (void)ids, (void)n; }
int team_min(const Team *t, int v) { return (void)t, v; }
void team_send(const Team *t, int li, int64_t device, const DbMeasurement *m) { (void)t, (void)li, (void)device, (void)m; }
void team_send_done(const Team *t) { (void)t; }
bool team_recv(const Team *t, Arena *a, bool wait, int *li, int64_t *device, DbMeasurement *m, int *from) {
  (void)t, (void)a, (void)wait, (void)li, (void)device, (void)m, (void)from;
  return false;
}

#else

bool team_available(void) { return true; }

void team_init(Team *t, int *argc, char ***argv) {
  *t = (Team){0, 1, false};
  // only under mpirun: a plain run must not need an MPI runtime
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t->size);
  t->mpi = true;
}

void team_finish(Team *t) {
  if (t->mpi) MPI_Finalize();
  t->mpi = false;
}

RtDeviceInfo *team_gather_devices(const Team *t, const RtDeviceInfo *mine) {
  RtDeviceInfo *all = t->rank == 0 ? calloc((size_t)t->size, sizeof *all) : NULL;
  if (t->rank == 0 && !all) cg_die("out of memory");
  if (!t->mpi) return *all = *mine, all;
  // the same program on every rank: the struct's bytes mean the same
  MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

void team_bcast_ids(const Team *t, int64_t *ids, int n) {
  if (t->mpi) MPI_Bcast(ids, n, MPI_INT64_T, 0, MPI_COMM_WORLD);
}

int team_min(const Team *t, int v) {
  int r = v;
  if (t->mpi) MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return r;
}

static void flat(StrBuf *sb, const char *s) {
  for (; s && *s; s++) sb_putc(sb, *s == '\t' || *s == '\n' ? ' ' : *s);
}

void team_send(const Team *t, int li, int64_t device, const DbMeasurement *m) {
  if (!t->mpi) return;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%d\t%lld\t", li, (long long)device);
  flat(&sb, m->strategy), sb_putc(&sb, '\t');
  flat(&sb, m->point), sb_putc(&sb, '\t');
  flat(&sb, m->status);
  sb_printf(&sb, "\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%d\t%llu\t", m->error, m->median_us, m->min_us, m->max_us, m->spread,
            m->runs, (unsigned long long)m->seed);
  flat(&sb, m->search), sb_putc(&sb, '\t');
  flat(&sb, m->kernel_hash), sb_putc(&sb, '\t');   // "" when not known
  flat(&sb, m->reason);
  if (sb.len >= MSG_MAX) sb.data[MSG_MAX - 1] = 0, sb.len = MSG_MAX - 1;
  MPI_Send(sb_str(&sb), (int)sb.len + 1, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
  sb_free(&sb);
}

void team_send_done(const Team *t) {
  if (t->mpi && t->rank != 0) MPI_Send("done", 5, MPI_CHAR, 0, TAG_DONE, MPI_COMM_WORLD);
}

static double num(const char *s) { return strcmp(s, "nan") == 0 || strcmp(s, "inf") == 0 ? NAN : strtod(s, NULL); }

bool team_recv(const Team *t, Arena *a, bool wait, int *li, int64_t *device, DbMeasurement *m, int *from) {
  if (!t->mpi || t->size == 1) return false;
  MPI_Status st;
  int flag = 1;
  if (wait) MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  else MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return false;
  char *buf = ARENA_ARRAY(a, char, MSG_MAX);
  MPI_Recv(buf, MSG_MAX, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  buf[MSG_MAX - 1] = 0;
  *from = st.MPI_SOURCE;
  if (st.MPI_TAG == TAG_DONE) return *li = -1, true;
  char *f[15] = {0}, *s = buf;
  for (int i = 0; i < 15; i++) {
    f[i] = s;
    char *tab = i < 14 ? strchr(s, '\t') : NULL;
    if (tab) *tab = 0, s = tab + 1;
    else s += strlen(s);
  }
  *li = atoi(f[0]);
  *device = strtoll(f[1], NULL, 10);
  *m = (DbMeasurement){.strategy = f[2], .point = f[3], .status = f[4], .error = num(f[5]), .median_us = num(f[6]),
                       .min_us = num(f[7]), .max_us = num(f[8]), .spread = num(f[9]), .runs = atoi(f[10]),
                       .seed = strtoull(f[11], NULL, 10), .search = f[12], .kernel_hash = *f[13] ? f[13] : NULL,
                       .reason = f[14]};
  return true;
}

#endif
