/* worker.c: the tuner's measuring child and its watchdog (worker.h). */
#include "tune/worker.h"

#include "conv/program.h"
#include "conv/refcache.h"
#include "measure/measure.h"
#include "space/layer_space.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WORKER_START_S = 120, LINE_MAX_BYTES = 8192 };

struct Worker {
  pid_t pid;
  int to, from;           // pipes: requests to the worker, replies from it
  char buf[LINE_MAX_BYTES];
  size_t len;             // bytes in buf
  char *sel;
  const char *target;     // --target ("opencl", "cuda"; NULL: OpenCL), a static string
  char *lock;             // the device lock it shares with other workers (NULL: none)
  // the candidate in flight
  bool busy, send_failed;
  uint64_t seed;
  int build_timeout_s;    // for the build (and the reference), up to "built"
  int timeout_s;          // for the check and the timing, from "measuring"
  bool measuring;         // it said "measuring": the watchdog is the run's
  double deadline;        // of the watchdog (INFINITY while it waits for the device)
};

/* ---- The parent's side ----------------------------------------------------------- */

/* The next line from the worker within timeout_s: 1 a line (in line, without
 * the newline), 0 end of file, -1 the time ran out. timeout_s 0: only what
 * the worker has said already, without waiting (-1: no whole line yet). */
static int read_line(Worker *w, double timeout_s, char *line, size_t cap) {
  double end = cg_now_s() + timeout_s;
  for (;;) {
    char *nl = memchr(w->buf, '\n', w->len);
    if (nl) {
      size_t n = (size_t)(nl - w->buf);
      size_t k = n < cap - 1 ? n : cap - 1;
      memcpy(line, w->buf, k);
      line[k] = 0;
      memmove(w->buf, nl + 1, w->len - n - 1);
      w->len -= n + 1;
      return 1;
    }
    if (w->len == sizeof w->buf) w->len = 0;   // a line longer than any reply: drop it
    double left = end - cg_now_s();
    if (left <= 0 && timeout_s > 0) return -1;
    struct pollfd p = {w->from, POLLIN, 0};
    int r = poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return -1;
    ssize_t got = read(w->from, w->buf + w->len, sizeof w->buf - w->len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    w->len += (size_t)got;
  }
}

static void kill_worker(Worker *w) {
  if (w->pid > 0) kill(w->pid, SIGKILL);
}

/* Why the worker ended: "killed by signal 11 (Segmentation fault)", "exit status 3". */
static const char *ended(Arena *a, Worker *w) {
  // already reaped: with pid 0, waitpid would take any child and kill(0, ...)
  // the tune's whole process group (round 19's tune on the H200 died so)
  if (w->pid <= 0) return "the worker ended";
  int st = 0;
  pid_t r = 0;
  for (int i = 0; i < 100 && (r = waitpid(w->pid, &st, WNOHANG)) == 0; i++)   // up to 2 s to exit by itself
    nanosleep(&(struct timespec){0, 20000000}, NULL);
  if (r == 0) {
    kill(w->pid, SIGKILL);
    r = waitpid(w->pid, &st, 0);
  }
  w->pid = 0;
  if (r < 0) return "the worker ended";
  if (WIFSIGNALED(st)) return arena_printf(a, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  return arena_printf(a, "exit status %d", WEXITSTATUS(st));
}

void worker_stop(Worker *w) {
  if (!w) return;
  if (w->to >= 0) close(w->to);
  if (w->pid > 0) {   // end of file on its input ends it; a hung one is killed
    int st;
    for (int i = 0; i < 50 && waitpid(w->pid, &st, WNOHANG) == 0; i++) nanosleep(&(struct timespec){0, 20000000}, NULL);
    if (waitpid(w->pid, &st, WNOHANG) == 0) {
      kill(w->pid, SIGKILL);
      waitpid(w->pid, &st, 0);
    }
  }
  if (w->from >= 0) close(w->from);
  free(w->sel);
  free(w->lock);
  free(w);
}

Worker *worker_start(const char *target, const char *sel, const char *lock, Diag *d) {
  int req[2], rep[2];
  if (pipe(req) != 0) return diag_device(d, "cannot start a worker: pipe: %s", strerror(errno)), NULL;
  if (pipe(rep) != 0) {
    close(req[0]), close(req[1]);
    return diag_device(d, "cannot start a worker: pipe: %s", strerror(errno)), NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(req[0]), close(req[1]), close(rep[0]), close(rep[1]);
    return diag_device(d, "cannot start a worker: fork: %s", strerror(errno)), NULL;
  }
  if (pid == 0) {   // the child: only async-signal-safe calls until exec
    prctl(PR_SET_PDEATHSIG, SIGKILL);   // the tuner killed (kill -9): its worker goes too
    if (getppid() == 1) _exit(127);     // ... even when that happened before prctl
    dup2(req[0], 0);
    dup2(rep[1], 1);
    if (!getenv("CONVGEN_WORKER_STDERR")) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 2);
    }
    close(req[0]), close(req[1]), close(rep[0]), close(rep[1]);
    char *argv[9] = {"convgen", "worker"}, **arg = argv + 2;
    if (target) *arg++ = "--target", *arg++ = (char *)target;
    if (sel) *arg++ = "--device", *arg++ = (char *)sel;
    if (lock) *arg++ = "--lock", *arg++ = (char *)lock;
    *arg = NULL;
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  close(req[0]), close(rep[1]);
  // the parent's ends are not for the workers started after this one: a
  // worker holding another's request pipe would keep it from ever seeing
  // the end of its input
  fcntl(req[1], F_SETFD, FD_CLOEXEC);
  fcntl(rep[0], F_SETFD, FD_CLOEXEC);
  signal(SIGPIPE, SIG_IGN);   // a dead worker's pipe is an error return, not a signal
  Worker *w = calloc(1, sizeof *w);
  if (!w) cg_die("out of memory");
  w->pid = pid, w->to = req[1], w->from = rep[0], w->sel = sel ? strdup(sel) : NULL, w->target = target;
  w->lock = lock ? strdup(lock) : NULL;
  char line[LINE_MAX_BYTES];
  int r = read_line(w, WORKER_START_S, line, sizeof line);
  if (r == 1 && strncmp(line, "ready\t", 6) == 0) return w;
  Arena *a = arena_new();
  if (r == 1 && strncmp(line, "error\t", 6) == 0) diag_device(d, "%s", line + 6);
  else if (r == 1) diag_device(d, "the worker did not start: it said '%.200s'", line);
  else if (r == 0) diag_device(d, "the worker did not start: %s", (kill_worker(w), ended(a, w)));
  else diag_device(d, "the worker did not open the device within %d s", WORKER_START_S);
  arena_free(a);
  kill_worker(w);
  worker_stop(w);
  return NULL;
}

static double field_num(const char *s) { return *s ? strtod(s, NULL) : NAN; }

/* The reply's kernel hash: MEAS_HASH_LEN hex digits, else none (NULL). */
static const char *field_hash(Arena *a, const char *s) {
  return meas_is_kernel_hash(s) ? arena_strdup(a, s) : NULL;
}

bool worker_send(Worker *w, Arena *a, const char *layer, const char *strategy, const char *point, uint64_t seed,
                 double cutoff_ms, int build_timeout_s, int timeout_s, Diag *d) {
  if (!w) return diag_error(d, "no worker"), false;
  char *req = arena_printf(a, "%s\t%s\t%s\t%llu\t%.6f\n", layer, strategy, point, (unsigned long long)seed, cutoff_ms);
  size_t n = strlen(req), off = 0;
  while (off < n) {
    ssize_t k = write(w->to, req + off, n - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    off += (size_t)k;
  }
  w->busy = true;
  w->send_failed = off < n;   // a dead worker: its candidate is a crash
  w->seed = seed;
  w->build_timeout_s = build_timeout_s;
  w->timeout_s = timeout_s;
  w->measuring = false;
  w->deadline = cg_now_s() + build_timeout_s;
  return true;
}

int worker_fd(const Worker *w) { return w->from; }

bool worker_busy(const Worker *w) { return w && w->busy; }

bool worker_done(Worker *w, Arena *a, DbMeasurement *m) {
  m->error = m->median_us = m->min_us = m->max_us = m->spread = NAN;
  m->runs = 0;
  m->seed = w->seed;
  m->kernel_hash = NULL;
  char line[LINE_MAX_BYTES];
  int r = 0;
  while (!w->send_failed) {   // the reply; any other line (a driver talking on stdout) is skipped
    r = read_line(w, 0, line, sizeof line);
    if (r == 1 && strcmp(line, "built") == 0) {
      w->deadline = INFINITY;   // waiting for the device: the watchdog of the worker that holds it bounds that
      continue;
    }
    if (r == 1 && strcmp(line, "measuring") == 0) {
      w->deadline = cg_now_s() + w->timeout_s;
      w->measuring = true;
      continue;
    }
    if (r != 1 || strncmp(line, "result\t", 7) == 0) break;
  }
  if (r == -1 && cg_now_s() < w->deadline) return false;
  w->busy = false;
  if (r == 1) {   // the fields (a short line leaves the last ones empty), the reason the rest of the line
    enum { NF = 9 };
    char *f[NF] = {0}, *s = line + 7;
    for (int i = 0; i < NF; i++) {
      f[i] = s;
      char *tab = i < NF - 1 ? strchr(s, '\t') : NULL;
      if (tab) *tab = 0, s = tab + 1;
      else s = s + strlen(s);
    }
    m->status = arena_strdup(a, f[0]);
    m->error = field_num(f[1]);
    m->median_us = field_num(f[2]), m->min_us = field_num(f[3]), m->max_us = field_num(f[4]);
    m->spread = field_num(f[5]);
    m->runs = atoi(f[6]);
    m->kernel_hash = field_hash(a, f[7]);
    m->reason = arena_strdup(a, f[8]);
  } else if (r == -1) {
    kill_worker(w);
    ended(a, w);
    m->status = "hang";
    m->reason = w->measuring ? arena_printf(a, "no result within %d s of its check and timing (--timeout); the worker "
                                            "was killed", w->timeout_s)
                             : arena_printf(a, "not built within %d s (--build-timeout); the worker was killed",
                                            w->build_timeout_s);
  } else {
    m->status = "crash";
    // the pipe ended: the worker is gone or going; kill it so that waiting cannot block
    m->reason = arena_printf(a, "the worker died while measuring it: %s", w->pid > 0 ? ended(a, w) : "ended");
  }
  return true;
}

bool worker_restart(Worker **wp, Diag *d) {
  char *sel = *wp && (*wp)->sel ? strdup((*wp)->sel) : NULL, *lock = *wp && (*wp)->lock ? strdup((*wp)->lock) : NULL;
  const char *target = *wp ? (*wp)->target : NULL;   // a static string (rt_target_known's)
  if (*wp) kill_worker(*wp);
  worker_stop(*wp);
  *wp = worker_start(target, sel, lock, d);
  free(sel);
  free(lock);
  return *wp != NULL;
}

bool worker_alive(const Worker *w) { return w && w->pid > 0; }

/* ---- The worker's side ------------------------------------------------------------ */

/* Tabs and newlines would break the reply's fields. */
static void flatten(char *s) {
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

/* The reply line; kernel_hash "" when no kernel was made. */
static void reply(const char *status, const MeasResult *r, const char *kernel_hash, const char *reason) {
  char why[2048];
  snprintf(why, sizeof why, "%s", reason);
  flatten(why);
  bool timed = r && r->status == MEAS_OK;
  printf("result\t%s\t", status);
  if (r && isfinite(r->error)) printf("%.6g", r->error);
  if (timed)
    printf("\t%.3f\t%.3f\t%.3f\t%.4f\t%d\t", r->ms.median * 1e3, r->ms.min * 1e3, r->ms.max * 1e3, r->ms.spread,
           r->runs);
  else
    printf("\t\t\t\t\t0\t");
  printf("%s\t%s\n", kernel_hash, why);
  fflush(stdout);
}

typedef struct Cache {
  char *key;         // "LAYER\tSTRATEGY" of ls
  Arena *a;
  Layer layer;
  LayerSpace *ls;
} Cache;

static const char *cache_get(Cache *c, const char *layer, const char *strategy, const RtDeviceInfo *dev) {
  size_t n = strlen(layer) + strlen(strategy) + 2;
  char *key = malloc(n);
  if (!key) cg_die("out of memory");
  snprintf(key, n, "%s\t%s", layer, strategy);
  if (c->key && strcmp(c->key, key) == 0) return free(key), NULL;
  ls_free(c->ls);
  if (c->a) arena_free(c->a);
  free(c->key);
  memset(c, 0, sizeof *c);
  c->a = arena_new();
  static char msg[1100];
  Diag d = {0};
  const Strategy *st = st_strategy(strategy);
  if (!st) return free(key), snprintf(msg, sizeof msg, "unknown strategy '%s'", strategy), msg;
  if (!layer_parse(layer, &c->layer, &d) ||
      !(c->ls = ls_new(c->a, st, &c->layer, arena_printf(c->a, "%s (strategy %s)", layer, strategy), 0, NULL, dev, &d))) {
    free(key);
    return snprintf(msg, sizeof msg, "%s", d.msg), msg;
  }
  c->key = key;   // only a usable space is cached
  return NULL;
}

/* CONVGEN_FAULT=crash:S,hang:T,hold:U: every candidate of strategy S crashes
 * the worker, every one of T never answers (before its build is done), every
 * one of U never answers once it is built and has the device (holding the
 * lock, with --jobs) -- how the suite tests the watchdog. */
static void inject_fault(const char *strategy, bool holding) {
  const char *f = getenv("CONVGEN_FAULT");
  for (const char *p = f; p && *p;) {
    const char *colon = strchr(p, ':'), *end = strchr(p, ',');
    size_t n = colon ? (size_t)((end ? end : p + strlen(p)) - colon - 1) : 0;
    bool match = colon && n == strlen(strategy) && strncmp(colon + 1, strategy, n) == 0;
    if (match && !holding && strncmp(p, "crash:", 6) == 0) signal(SIGSEGV, SIG_DFL), raise(SIGSEGV);
    if (match && strncmp(p, holding ? "hold:" : "hang:", 5) == 0)
      for (;;) pause();
    p = end ? end + 1 : NULL;
  }
}

/* CONVGEN_FAULT=lost:FILE: a device that goes away after a worker is
 * killed, as NVIDIA's did on the H200 after a compiler hang, for the suite.
 * FILE holds "K N": of the workers that start, the first K open the device
 * and the N after them find none (N < 0: none ever again); each start takes
 * one and writes the file back (one worker starts at a time in a serial
 * tune, which is what the suite runs). */
static bool fault_lost(void) {
  size_t n = 0;
  const char *p = cg_fault_arg("lost", &n);
  char path[4096];
  if (!p || n >= sizeof path) return false;
  memcpy(path, p, n), path[n] = 0;
  long k = 0, m = 0;
  FILE *fp = fopen(path, "r");
  if (!fp) return false;
  int got = fscanf(fp, "%ld %ld", &k, &m);
  fclose(fp);
  if (got != 2) return false;
  bool lost = k <= 0 && m != 0;
  if (k > 0) k--;
  else if (m > 0) m--;
  if ((fp = fopen(path, "w"))) fprintf(fp, "%ld %ld\n", k, m), fclose(fp);
  return lost;
}

/* A worker that has built its candidate says so ("built": the watchdog's
 * build limit is over), then, with a device lock, takes the lock (the others
 * may be building meanwhile, never measuring), and says "measuring" (the
 * watchdog's run limit starts); the lock is given back when the measurement
 * ends. */
typedef struct Turn {
  int fd;                 // the lock file (-1: none, one worker)
  const char *strategy;   // of the candidate (CONVGEN_FAULT=hold:S)
} Turn;

static bool device_turn(void *ctx, bool begin, char *why, size_t cap) {
  Turn *t = ctx;
  struct flock l = {.l_type = begin ? F_WRLCK : F_UNLCK, .l_whence = SEEK_SET};   // the whole file; a dead holder's goes with it
  if (!begin) return t->fd < 0 || fcntl(t->fd, F_SETLK, &l) == 0;
  printf("built\n");
  fflush(stdout);
  int r = 0;
  while (t->fd >= 0 && (r = fcntl(t->fd, F_SETLKW, &l)) != 0 && errno == EINTR) {}
  if (r != 0) return snprintf(why, cap, "the device lock: %s", strerror(errno)), false;
  printf("measuring\n");
  fflush(stdout);
  inject_fault(t->strategy, true);
  return true;
}

int worker_main(const char *target, const char *sel, const char *lock) {
  Diag d = {0};
  int lock_fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
  if (lock && lock_fd < 0) {
    printf("error\tcannot open the device lock %s: %s\n", lock, strerror(errno));
    return 4;   // convgen's exit status of a device failure (src/cli/main.c)
  }
  RtDevice *dev = fault_lost() ? (diag_error(&d, "no OpenCL device %s%s%s (CONVGEN_FAULT=lost)", sel ? "matches '" : "found",
                                              sel ? sel : "", sel ? "'" : ""),
                                   NULL)
                                : rt_open_target(target, sel, &d);
  if (!dev) {
    flatten(d.msg);
    printf("error\t%s\n", d.msg);
    if (lock_fd >= 0) close(lock_fd);
    return 4;
  }
  printf("ready\t%s\n", rt_info(dev)->name);
  fflush(stdout);
  Cache cache = {0};
  // The inputs and float64 reference of the layer last measured: the
  // candidates of a layer come with one data seed, so only the first of each
  // layer computes its reference. One layer's data at a time: a miss frees the
  // old before it computes the new (conv/refcache.h).
  ConvRefCache refs = {0};
  Arena *a = arena_new();
  char *line = NULL;
  size_t cap = 0;
  int status = 0;
  while (getline(&line, &cap, stdin) > 0) {
    line[strcspn(line, "\n")] = 0;
    char *f[5] = {0}, *s = line;
    int nf = 0;
    for (; nf < 5 && s; nf++) {
      f[nf] = s;
      s = strchr(s, '\t');
      if (s) *s++ = 0;
    }
    if (nf < 4) {
      reply("setup-failed", NULL, "", "a request needs LAYER, STRATEGY, POINT and SEED separated by tabs");
      continue;
    }
    inject_fault(f[1], false);
    const char *why = cache_get(&cache, f[0], f[1], rt_info(dev));
    if (why) {
      reply("setup-failed", NULL, "", why);
      continue;
    }
    ArenaMark mark = arena_mark(a);
    LsPoint p;
    d = (Diag){0};
    if (!ls_parse_point(cache.ls, a, f[2], &p, &d)) {   // a text that names no point, or a point the space refuses
      reply(d.kind == DIAG_REJECT ? "rejected" : "setup-failed", NULL, "", d.msg);
      arena_reset(a, mark);
      continue;
    }
    CpResult cr;   // lowered for the device's language; meas_run emits it
    if (!ls_lower(cache.ls, a, &p, rt_target(dev), &cr, &d)) {   // a point of the space whose program does not lower: whatever refused it, the point is rejected
      reply("rejected", NULL, "", d.msg);
      arena_reset(a, mark);
      continue;
    }
    MeasOptions o = meas_defaults();
    o.seed = strtoull(f[3], NULL, 10);
    o.cutoff_ms = f[4] ? strtod(f[4], NULL) : 0;
    o.target = rt_target(dev);
    o.fixed_inputs = conv_fixed_inputs(cr.lp->prog);   // the filter transform once, as a network runs it
    o.reference = conv_cached_reference;
    o.reference_ctx = &refs;
    refs.layer = &cache.layer;
    Turn turn = {lock_fd, f[1]};
    o.device_turn = device_turn, o.device_turn_ctx = &turn;   // the watchdog's two limits, a lock or not
    char hash[MEAS_HASH_LEN + 1];   // of what meas_run builds: tune_kernel_hash makes the same without a device
    meas_kernel_hash(cr.lp, &o, hash);
    int64_t computed = refs.misses, reused = refs.hits;
    MeasResult r = meas_run(a, dev, cr.lp, &o);
    if (rt_device_lost(dev)) {   // (a remote device's connection): no result, the worker ends as a crashed one does
      fprintf(stderr, "worker: %s\n", r.reason);
      status = 4;
      break;
    }
    if (refs.misses > computed || refs.hits > reused)   // what CONVGEN_WORKER_STDERR shows (tests/cli/tune.sh)
      fprintf(stderr, "worker: reference %s (%s, seed %s)\n", refs.misses > computed ? "computed" : "reused", f[0], f[3]);
    reply(meas_status_name(r.status), &r, hash, r.reason);
    arena_reset(a, mark);
  }
  free(line);
  conv_ref_cache_free(&refs);
  ls_free(cache.ls);
  if (cache.a) arena_free(cache.a);
  free(cache.key);
  arena_free(a);
  rt_close(dev);
  if (lock_fd >= 0) close(lock_fd);
  return status;
}
