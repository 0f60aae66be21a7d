/* builds.c: a pool of threads that build programs (builds.h).
 *
 * The jobs are kept in the order they were added; the threads take the
 * first one not started, so a caller that takes its tickets in order waits
 * least. Invariant: a job's fields other than done are written only by the
 * thread that builds it and read only after done is set under the lock.
 */
#include "rt/builds.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct BuildJob {
  char *source;
  RtProgram *prog;     // the build's program (NULL: failed, diag says why)
  Diag diag;
  bool done, taken;
} BuildJob;

struct RtBuilds {
  RtDevice *dev;
  char *options;       // NULL: rt_build's defaults
  pthread_mutex_t mu;
  pthread_cond_t queued, built;   // a job added (or stop), a job done
  BuildJob **jobs;     // [njobs], in the order added
  int njobs, cap, next;   // next: the first job no thread has started
  bool stop;
  pthread_t *threads;  // [nthreads]
  int nthreads;
  double waited_s, busy_s;
};

static void *grow(void *p, size_t bytes) {
  void *q = realloc(p, bytes);
  if (!q) cg_die("out of memory");
  return q;
}

int rt_build_threads(Diag *d) {
  const char *env = getenv("CONVGEN_BUILD_THREADS");
  if (env && *env) {
    char *end;
    long n = strtol(env, &end, 10);
    if (*end || n < 1 || n > RT_BUILD_THREADS_MAX)
      return diag_error(d, "CONVGEN_BUILD_THREADS='%s': not a number of build threads from 1 to %d", env,
                        RT_BUILD_THREADS_MAX), -1;
    return (int)n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > RT_BUILD_THREADS_MAX ? RT_BUILD_THREADS_MAX : (int)n;
}

static void build_job(RtBuilds *b, BuildJob *j) {
  double t = cg_now_s();
  j->prog = rt_build(b->dev, j->source, b->options, &j->diag);
  pthread_mutex_lock(&b->mu);
  b->busy_s += cg_now_s() - t;
  j->done = true;
  pthread_cond_broadcast(&b->built);
  pthread_mutex_unlock(&b->mu);
}

static void *builder(void *arg) {
  RtBuilds *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->stop && b->next == b->njobs) pthread_cond_wait(&b->queued, &b->mu);
    if (b->next == b->njobs) break;   // stopped, nothing left
    BuildJob *j = b->jobs[b->next++];
    pthread_mutex_unlock(&b->mu);
    build_job(b, j);
    pthread_mutex_lock(&b->mu);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

RtBuilds *rt_builds_new(RtDevice *dev, const char *options, int threads) {
  RtBuilds *b = calloc(1, sizeof *b);
  if (!b) cg_die("out of memory");
  b->dev = dev;
  b->options = cg_strdup(options);   // (NULL: rt_build's defaults)
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->queued, NULL);
  pthread_cond_init(&b->built, NULL);
  if (threads > 1) {
    b->threads = grow(NULL, sizeof *b->threads * (size_t)threads);
    for (int i = 0; i < threads; i++)   // fewer threads than asked is still a pool; none builds in take
      if (pthread_create(&b->threads[b->nthreads], NULL, builder, b) == 0) b->nthreads++;
  }
  return b;
}

int rt_builds_add(RtBuilds *b, const char *source) {
  BuildJob *j = calloc(1, sizeof *j);
  if (!j) cg_die("out of memory");
  j->source = cg_strdup(source);
  pthread_mutex_lock(&b->mu);
  if (b->njobs == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 16;
    b->jobs = grow(b->jobs, sizeof *b->jobs * (size_t)b->cap);
  }
  int ticket = b->njobs;
  b->jobs[b->njobs++] = j;
  pthread_cond_signal(&b->queued);
  pthread_mutex_unlock(&b->mu);
  return ticket;
}

RtProgram *rt_builds_take(RtBuilds *b, int ticket, Diag *d) {
  double t = cg_now_s();
  pthread_mutex_lock(&b->mu);
  BuildJob *j = ticket >= 0 && ticket < b->njobs ? b->jobs[ticket] : NULL;
  if (!j || j->taken) {
    pthread_mutex_unlock(&b->mu);
    return diag_error(d, "rt_builds_take: no build %d to take", ticket), NULL;
  }
  if (b->nthreads == 0 && !j->done && b->next <= ticket) {   // no pool: built here, the ones before it first
    while (b->next <= ticket) {
      BuildJob *first = b->jobs[b->next++];
      pthread_mutex_unlock(&b->mu);
      build_job(b, first);
      pthread_mutex_lock(&b->mu);
    }
  }
  while (!j->done) pthread_cond_wait(&b->built, &b->mu);
  j->taken = true;
  RtProgram *p = j->prog;
  j->prog = NULL;
  if (!p && d) *d = j->diag;
  b->waited_s += cg_now_s() - t;
  pthread_mutex_unlock(&b->mu);
  return p;
}

double rt_builds_waited_s(const RtBuilds *b) { return b->waited_s; }
double rt_builds_busy_s(const RtBuilds *b) { return b->busy_s; }
int rt_builds_count(const RtBuilds *b) { return b->njobs; }
int rt_builds_nthreads(const RtBuilds *b) { return b->nthreads; }

void rt_builds_free(RtBuilds *b) {
  if (!b) return;
  pthread_mutex_lock(&b->mu);
  b->stop = true;
  pthread_cond_broadcast(&b->queued);
  pthread_mutex_unlock(&b->mu);
  for (int i = 0; i < b->nthreads; i++) pthread_join(b->threads[i], NULL);
  for (int i = 0; i < b->njobs; i++) {   // without threads, jobs never taken were never built
    rt_program_free(b->jobs[i]->prog);
    free(b->jobs[i]->source);
    free(b->jobs[i]);
  }
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->queued);
  pthread_cond_destroy(&b->built);
  free(b->jobs);
  free(b->threads);
  free(b->options);
  free(b);
}
