/* check.c: the second stage of the space: lowering each point.
 *
 * Some limits are not simple expressions of the parameters: a kernel's local
 * memory, its ND-range after the lowering chose it, a barrier that not every
 * work-item reaches, an illegal mapping, the code-size cap. They are checked
 * by doing the work: bind every size (problem sizes and the point's values)
 * and compile the text through the pipeline up to lower (compile.h), then compare each kernel's local memory
 * and work-group with the device and each buffer with its largest allocation.
 * A point that fails is an ordinary result with the reason (docs/design.md,
 * "Errors", the second kind), grouped by the reason with its numbers taken out.
 *
 * Lowering a large unrolled point can take seconds and gigabytes, and a
 * broken invariant aborts, so by default each point is lowered in a child
 * process with a memory and a time limit, several at once; a child that runs
 * out of either is a rejected point with that reason, never a dead tuner.
 */
#include "codegen/codegen.h"
#include "compile/compile.h"
#include "space/space.h"

#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

SpaceCheckOptions space_check_defaults(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  SpaceCheckOptions o = {.jobs = cpus < 1 ? 1 : cpus > 16 ? 16 : (int)cpus, .mem_limit_mb = 2048, .time_limit_s = 60};
  return o;
}

/* ---- One point ------------------------------------------------------------------ */

/* A local array's bytes as the device lays it out: a vector of 3 takes the
 * room of one of 4. */
static uint64_t mem_bytes(const Mem *m) {
  const Type *t = m->storage;
  uint64_t elem = (uint64_t)ty_bytes(t, 1);
  if (t->kind == TY_VEC && t->width == 3) elem = elem / 3 * 4;
  return (uint64_t)m->count * elem;
}

static const char *kernel_limits(Arena *a, const RtDeviceInfo *dv, const LKernel *k) {
  uint64_t local = 0;
  for (int i = 0; i < k->nlocals; i++) local += mem_bytes(k->locals[i]);
  if (local > dv->local_mem)
    return arena_printf(a, "kernel %s uses %llu bytes of local memory; the device has %llu", k->name,
                        (unsigned long long)local, (unsigned long long)dv->local_mem);
  if (!k->uses_groups) return NULL;
  uint64_t wg = 1;
  for (int d = 0; d < k->work_dim; d++) {
    if (k->local[d] > dv->max_wi_sizes[d])
      return arena_printf(a, "kernel %s has %zu work-items in dimension %d; the device allows %zu", k->name,
                          k->local[d], d, dv->max_wi_sizes[d]);
    wg *= k->local[d];
  }
  if (wg > dv->max_wg_size)
    return arena_printf(a, "kernel %s has work-groups of %llu work-items; the device allows %zu", k->name,
                        (unsigned long long)wg, dv->max_wg_size);
  return NULL;
}

static const char *device_limits(Arena *a, const RtDeviceInfo *dv, const LProgram *lp) {
  for (int i = 0; i < lp->nkernels; i++) {
    const char *why = kernel_limits(a, dv, lp->kernels[i]);
    if (why) return why;
  }
  for (int i = 0; i < lp->nbuffers; i++)
    if (mem_bytes(lp->buffers[i]) > dv->max_alloc)
      return arena_printf(a, "buffer '%s' needs %llu bytes; the device allocates at most %llu", lp->buffers[i]->name,
                          (unsigned long long)mem_bytes(lp->buffers[i]), (unsigned long long)dv->max_alloc);
  return NULL;
}

static LProgram *lower_point(Space *s, Arena *a, const int64_t *vals, Diag *d) {
  int n = s->in.nbind + s->nparams;
  const char **names = ARENA_ARRAY(a, const char *, n + 1);
  int64_t *v = ARENA_ARRAY(a, int64_t, n + 1);
  for (int i = 0; i < s->in.nbind; i++) names[i] = s->in.bnames[i], v[i] = s->in.bvals[i];
  for (int i = 0; i < s->nparams; i++) names[s->in.nbind + i] = s->params[i].name, v[s->in.nbind + i] = vals[i];
  CpInput in = {s->in.file, s->in.text, n, names, v};
  // for the device's language when the space has one: CUDA's lowering is what runs there
  CpOptions o = {.through = CP_LOWER, .target = s->in.dev ? cg_dialect(rt_info_target(&s->dev)) : NULL};
  CpResult r;
  return cp_compile(a, &in, &o, &r, d) ? r.lp : NULL;
}

bool space_lower_point(Space *s, Arena *a, const int64_t *vals, Diag *d) { return lower_point(s, a, vals, d) != NULL; }

const char *space_check_point(Space *s, Arena *a, const int64_t *vals) {
  Diag d = {0};
  LProgram *lp = lower_point(s, a, vals, &d);
  if (!lp) return arena_strdup(a, d.msg);
  return s->in.dev ? device_limits(a, &s->dev, lp) : NULL;
}

/* ---- Points in child processes ---------------------------------------------------- */

typedef struct Job {
  pid_t pid;     // 0: the slot is free
  int fd;        // the child's stderr, on which it also writes its verdict
  size_t point;  // index in the batch
  StrBuf out;
} Job;

static long vm_size_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmSize:", 7) == 0) kb = strtol(line + 7, NULL, 10);
  if (f) fclose(f);
  return kb;
}

/* In the child: the limits count from what the process already maps. */
static void set_limits(const SpaceCheckOptions *o) {
  long kb = vm_size_kb();
  if (o->mem_limit_mb > 0 && kb > 0 && !CG_UNDER_ASAN) {
    rlim_t bytes = (rlim_t)kb * 1024 + (rlim_t)o->mem_limit_mb * 1024 * 1024;
    struct rlimit rl = {bytes, bytes};
    setrlimit(RLIMIT_AS, &rl);
  }
  if (o->time_limit_s > 0) alarm((unsigned)o->time_limit_s);
}

/* A child's exit status: its verdict written, the write failed, or it ran
 * out of the memory its limit allows (cg_out_of_memory). */
enum { CHILD_DONE = 0, CHILD_WRITE_FAILED = 3, CHILD_OUT_OF_MEMORY = 4 };

static _Noreturn void child(Space *s, const SpaceCheckOptions *o, const int64_t *vals, int fd) {
  dup2(fd, 2);
  set_limits(o);
  cg_exit_on_out_of_memory(CHILD_OUT_OF_MEMORY);
  Arena *a = arena_new();
  const char *why = space_check_point(s, a, vals);
  char msg[1200];
  int n = why ? snprintf(msg, sizeof msg, "NO %s\n", why) : snprintf(msg, sizeof msg, "OK\n");
  if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
  ssize_t w = write(fd, msg, (size_t)n);
  _exit(w == n ? CHILD_DONE : CHILD_WRITE_FAILED);
}

static bool start(Space *s, const SpaceCheckOptions *o, Job *j, size_t point, const int64_t *vals) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    child(s, o, vals, fds[1]);
  }
  close(fds[1]);
  *j = (Job){pid, fds[0], point, {0}};
  sb_init(&j->out);
  return true;
}

/* The verdict of a child that has ended: NULL when the point passes. */
static const char *verdict(Arena *a, const SpaceCheckOptions *o, Job *j, int status) {
  const char *out = sb_str(&j->out);
  bool done = WIFEXITED(status) && WEXITSTATUS(status) == CHILD_DONE;
  if (done && strncmp(out, "OK\n", 3) == 0) return NULL;
  if (done && strncmp(out, "NO ", 3) == 0) return arena_strndup(a, out + 3, strcspn(out + 3, "\n"));
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return arena_printf(a, "lowering took more than %d s", o->time_limit_s);
  if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OUT_OF_MEMORY)
    return arena_printf(a, "lowering needs more than %lld MiB of memory", (long long)o->mem_limit_mb);
  if (WIFSIGNALED(status))
    return arena_printf(a, "lowering crashed (signal %d): %.*s", WTERMSIG(status), (int)strcspn(out, "\n"), out);
  return arena_printf(a, "lowering failed (exit status %d): %.*s", WEXITSTATUS(status), (int)strcspn(out, "\n"), out);
}

/* Reads from the running children until one ends; returns its slot. */
static int wait_one(Job *jobs, int njobs) {
  struct pollfd pf[64];
  int slot[64], n = 0;
  for (int i = 0; i < njobs && n < 64; i++)
    if (jobs[i].pid) pf[n] = (struct pollfd){jobs[i].fd, POLLIN, 0}, slot[n++] = i;
  for (;;) {
    if (poll(pf, (nfds_t)n, -1) < 0) continue;
    for (int k = 0; k < n; k++) {
      if (!pf[k].revents) continue;
      char buf[4096];
      ssize_t r = read(pf[k].fd, buf, sizeof buf);
      if (r > 0 && jobs[slot[k]].out.len < 65536) sb_printf(&jobs[slot[k]].out, "%.*s", (int)r, buf);
      if (r <= 0) return slot[k];
    }
  }
}

static void finish(Arena *a, const SpaceCheckOptions *o, Job *j, const char **why) {
  int status = 0;
  while (waitpid(j->pid, &status, 0) < 0) {}
  close(j->fd);
  why[j->point] = verdict(a, o, j, status);
  sb_free(&j->out);
  j->pid = 0;
}

static void progress(const SpaceCheckOptions *o, uint64_t *done, uint64_t total) {
  ++*done;
  if (o->progress) o->progress(o->ctx, *done, total);
}

/* A point lowered in this process, in an arena of its own. */
static const char *check_here(Space *s, Arena *a, const int64_t *vals) {
  Arena *pa = arena_new();
  const char *why = space_check_point(s, pa, vals);
  why = why ? arena_strdup(a, why) : NULL;
  arena_free(pa);
  return why;
}

/* why[i] for each of the n points of pts: NULL, or the reason it fails. */
static void check_batch(Space *s, const SpaceCheckOptions *o, Arena *a, size_t n, const int64_t *pts,
                        const char **why, uint64_t *done, uint64_t total) {
  int njobs = o->jobs > 64 ? 64 : o->jobs;
  for (size_t i = 0; njobs <= 0 && i < n; i++) {
    why[i] = check_here(s, a, pts + i * (size_t)s->nparams);
    progress(o, done, total);
  }
  if (njobs <= 0) return;
  Job jobs[64] = {{0}};
  size_t next = 0;
  int running = 0;
  while (next < n || running) {
    for (int i = 0; i < njobs && next < n; i++) {
      if (jobs[i].pid) continue;
      const int64_t *vals = pts + next * (size_t)s->nparams;
      if (start(s, o, &jobs[i], next, vals)) running++;
      else why[next] = check_here(s, a, vals), progress(o, done, total);   // no process: here
      next++;
    }
    if (!running) continue;
    finish(a, o, &jobs[wait_one(jobs, njobs)], why);
    running--;
    progress(o, done, total);
  }
}

/* ---- Tally ------------------------------------------------------------------------------ */

/* The reason without the file, the position and the numbers: "kernel kN uses N bytes ...". */
static const char *reason_key(Arena *a, const Space *s, const char *why) {
  size_t fl = strlen(s->in.file);
  if (strncmp(why, s->in.file, fl) == 0 && why[fl] == ':') why += fl + 1;
  while (isdigit((unsigned char)*why) || *why == ':') why++;
  while (*why == ' ') why++;
  StrBuf sb;
  sb_init(&sb);
  for (const char *q = why; *q; q++) {
    if (isdigit((unsigned char)*q) && (q == why || !isdigit((unsigned char)q[-1]))) sb_putc(&sb, 'N');
    if (!isdigit((unsigned char)*q)) sb_putc(&sb, *q);
  }
  const char *key = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return key;
}

static void tally(Space *s, SpaceCheck *out, const char *why, const int64_t *vals) {
  out->checked++;
  if (!why) {
    out->passed++;
    return;
  }
  const char *key = reason_key(s->a, s, why);
  for (int i = 0; i < out->nreasons; i++)
    if (strcmp(out->reasons[i].key, key) == 0) {
      out->reasons[i].count++;
      return;
    }
  int64_t *pt = ARENA_ARRAY(s->a, int64_t, s->nparams + 1);
  memcpy(pt, vals, sizeof *pt * (size_t)s->nparams);
  SpaceReason *r = arena_extend(s->a, out->reasons, (size_t)out->nreasons, sizeof *r);
  r[out->nreasons++] = (SpaceReason){key, arena_strdup(s->a, why), pt, 1};
  out->reasons = r;
}

static void sort_reasons(SpaceCheck *out) {
  for (int i = 1; i < out->nreasons; i++)   // insertion sort: stable, and there are few
    for (int k = i; k > 0 && out->reasons[k].count > out->reasons[k - 1].count; k--) {
      SpaceReason t = out->reasons[k];
      out->reasons[k] = out->reasons[k - 1];
      out->reasons[k - 1] = t;
    }
}

/* ---- Whole spaces ------------------------------------------------------------------------- */

typedef struct Batch {
  Space *s;
  const SpaceCheckOptions *o;
  SpaceCheck *out;
  int64_t *pts;
  size_t n, cap;
  uint64_t done, total;
} Batch;

static void run_batch(Batch *b) {
  Arena *a = arena_new();
  const char **why = ARENA_ARRAY(a, const char *, b->n + 1);
  check_batch(b->s, b->o, a, b->n, b->pts, why, &b->done, b->total);
  for (size_t i = 0; i < b->n; i++) tally(b->s, b->out, why[i], b->pts + i * (size_t)b->s->nparams);
  arena_free(a);
  b->n = 0;
}

static bool add_point(void *ctx, const int64_t *vals) {
  Batch *b = ctx;
  memcpy(b->pts + b->n++ * (size_t)b->s->nparams, vals, sizeof *vals * (size_t)b->s->nparams);
  if (b->n == b->cap) run_batch(b);
  return true;
}

static Batch new_batch(Space *s, const SpaceCheckOptions *o, SpaceCheck *out, size_t cap, uint64_t total) {
  Batch b = {s, o, out, calloc(cap * (size_t)(s->nparams + 1), sizeof(int64_t)), 0, cap, 0, total};
  if (!b.pts) cg_die("out of memory");
  memset(out, 0, sizeof *out);
  return b;
}

bool space_check_all(Space *s, const SpaceCheckOptions *o, SpaceCheck *out, Diag *d) {
  bool exact;
  uint64_t total = space_count(s, &exact);
  Batch b = new_batch(s, o, out, o->jobs > 0 ? 16 * (size_t)o->jobs : 64, total);
  bool ok = space_foreach(s, add_point, &b);
  if (ok && b.n) run_batch(&b);
  free(b.pts);
  sort_reasons(out);
  if (!ok)
    return diag_error(d, "%s: %s%llu points are too many to lower one by one; sample some instead", s->in.file,
                      exact ? "" : "more than ", (unsigned long long)total);
  return true;
}

int space_sample_checked(Space *s, uint64_t seed, int n, int64_t *pts, const SpaceCheckOptions *o, SpaceCheck *out) {
  SpaceSampler *sm = space_sampler_new(s, seed);
  Batch b = new_batch(s, o, out, o->jobs > 0 ? (size_t)o->jobs : 1, 0);
  Arena *a = arena_new();
  const char **why = ARENA_ARRAY(a, const char *, b.cap + 1);
  int k = 0;
  bool more = true;
  while (k < n && more) {
    while (b.n < b.cap && (more = space_sampler_next(sm, b.pts + b.n * (size_t)s->nparams))) b.n++;
    check_batch(s, o, a, b.n, b.pts, why, &b.done, 0);
    for (size_t i = 0; i < b.n; i++) {
      const int64_t *vals = b.pts + i * (size_t)s->nparams;
      tally(s, out, why[i], vals);
      if (!why[i] && k < n) memcpy(pts + (size_t)k++ * (size_t)s->nparams, vals, sizeof *vals * (size_t)s->nparams);
    }
    b.n = 0;
  }
  arena_free(a);
  free(b.pts);
  space_sampler_free(sm);
  sort_reasons(out);
  return k;
}
