/* server.c: convgen-server, the device end of remote measurement
 * (docs/remote.md). It runs where convgen itself cannot be built (a board
 * with an OpenCL driver and a C compiler, say) and serves that machine's
 * OpenCL device over TCP to convgen's remote backend (src/rt/rt_remote.c):
 * each request of the protocol (src/rt/wire.h) is one call of the runtime
 * (rt.h) on its device.
 *
 * The parent process only listens: it never touches OpenCL, so that each
 * connection's child, forked per client, opens the device afresh in a
 * process of its own (a driver's threads do not survive a fork). A client
 * thus gets its own context, and a kernel that crashes kills only its
 * child. Invariant: whatever a peer sends (an unknown opcode or id, a
 * malformed or oversize message), the server answers with an error or
 * closes that connection; it never crashes or allocates without bound.
 */
#define _GNU_SOURCE   // POLLRDHUP (Linux): a client gone while its request runs
#include "rt/rt.h"
#include "rt/wire.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char help[] =
    "NAME\n"
    "    convgen-server - serve this machine's OpenCL device to convgen over TCP\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen-server [--port P] [--bind ADDR] [--device SEL] [--once] [-v]\n"
    "\n"
    "DESCRIPTION\n"
    "    Listens for convgen's remote backend: every convgen command that takes\n"
    "    --device then uses this machine's device as 'HOST:PORT' (convgen run,\n"
    "    tune, best, bench, infer, export; docs/remote.md). Kernels are built\n"
    "    here from the OpenCL C convgen sends, and run and timed on the device\n"
    "    here; only the requests, the data and the times cross the network, so\n"
    "    the times are the device's own. Records that tune makes through the\n"
    "    server are the device's, as if made on this machine.\n"
    "\n"
    "    Each connection is served by a child process that opens the device\n"
    "    for it (its own OpenCL context) and ends when the client disconnects;\n"
    "    a kernel that crashes ends only that child, and so does a client that\n"
    "    hangs up while its request runs (a kernel that never ends). When ready\n"
    "    it prints one line to stderr:\n"
    "        convgen-server: serving DEVICE on ADDR:PORT\n"
    "\n"
    "    SECURITY: the server has no authentication, and it builds and runs\n"
    "    any OpenCL C a client sends it. It binds 127.0.0.1 by default; binding\n"
    "    another address (--bind 0.0.0.0) exposes that service to everyone who\n"
    "    can reach the port. Reach it from elsewhere through an SSH tunnel\n"
    "    (ssh -L 9190:127.0.0.1:9190 board) or on a network you trust.\n"
    "\n"
    "OPTIONS\n"
    "    --port P\n"
    "        The TCP port (default 9190; 0: one the system chooses, named in\n"
    "        the ready line).\n"
    "    --bind ADDR\n"
    "        The address to listen on (default 127.0.0.1; ::1 for IPv6 loopback;\n"
    "        see SECURITY above before binding any other).\n"
    "    --device SEL\n"
    "        The device to serve: an index or a part of its platform, vendor or\n"
    "        name, as convgen's --device (default $CONVGEN_DEVICE, else the\n"
    "        first GPU, else the first device).\n"
    "    --once\n"
    "        Serve one connection, then exit (for tests and one-off runs).\n"
    "    -v, --verbose\n"
    "        Log each connection, and each request that fails, to stderr.\n"
    "    -h, --help\n"
    "        Print this help and exit.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 after --help, when --once has served its connection, or when stopped\n"
    "    by SIGTERM or SIGINT (which end every session it serves); 1 no such\n"
    "    device, or the address cannot be listened on; 2 a usage error.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen-server --device pocl\n"
    "    convgen run vgg16.conv3_2 --strategy s2 --random 7 --device 127.0.0.1:9190\n"
    "    convgen-server --bind 0.0.0.0 --port 9190 -v    # a trusted network only\n"
    "    convgen tune resnet50.layer1.0.conv2 --budget 50 --device board.local:9190\n";

typedef struct Options {
  const char *port;     // "9190"
  const char *bind;     // "127.0.0.1"
  const char *device;   // NULL: $CONVGEN_DEVICE, else the default device
  bool once;
  bool verbose;
} Options;

static bool verbose;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "convgen-server[%d]: ", (int)getpid());
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* ---- one connection's objects ---- */

/* Objects by id: index id - 1; a freed one's slot is NULL, and ids are
 * never reused, so a stale id is an error rather than another object. */
typedef struct Table {
  void **v;
  size_t n, cap;
} Table;

static uint64_t table_add(Table *t, void *p) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->v = realloc(t->v, t->cap * sizeof *t->v);
    if (!t->v) cg_die("out of memory");
  }
  t->v[t->n++] = p;
  return t->n;
}

static void *table_get(const Table *t, uint64_t id) { return id >= 1 && id <= t->n ? t->v[id - 1] : NULL; }

typedef struct Span {
  RtSpan *s;
  bool held;            // held or replayed, not finished or cleared yet: rt_span_hold wants it empty and not held
} Span;

typedef struct Session {
  int fd;
  const char *sel;
  RtDevice *dev;        // opened at HELLO
  Table programs, buffers, spans;
  WireBuf in, out;      // the request, the reply being written
} Session;

static void session_free(Session *s) {
  for (size_t i = 0; i < s->spans.n; i++) {
    Span *sp = s->spans.v[i];
    if (sp) rt_span_free(sp->s), free(sp);
  }
  for (size_t i = 0; i < s->programs.n; i++) rt_program_free(s->programs.v[i]);
  for (size_t i = 0; i < s->buffers.n; i++) rt_buffer_free(s->buffers.v[i]);
  free(s->programs.v), free(s->buffers.v), free(s->spans.v);
  rt_close(s->dev);
  wire_free(&s->in), wire_free(&s->out);
}

/* ---- replies ---- */

static WireBuf *reply(Session *s) {
  s->out.len = 0;
  return &s->out;
}

static bool failf(Session *s, WireOp op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The reply s->out, status 0. False when the client cannot be written to. */
static bool ok(Session *s) {
  Diag d = {0};
  if (s->out.len > WIRE_MAX_PAYLOAD)   // (a READ of a buffer over the limit): an error, so the client is not left waiting
    return failf(s, (WireOp)0, "convgen-server: a reply of %zu bytes is over the protocol's limit of %u bytes", s->out.len,
                 WIRE_MAX_PAYLOAD);
  return wire_send(s->fd, 0, &s->out, &d) || (logf_("reply lost: %s", d.msg), false);
}

/* An error reply: status 1 + the Diag's kind, so the client's Diag has the
 * kind it would have had here. */
static bool fail(Session *s, WireOp op, const Diag *d) {
  logf_("%s failed: %s", wire_op_name(op), d->msg);
  WireBuf *b = reply(s);
  wire_bytes(b, d->msg, strlen(d->msg));
  Diag io = {0};
  return wire_send(s->fd, 1 + (uint32_t)d->kind, b, &io);
}

static bool failf(Session *s, WireOp op, const char *fmt, ...) {
  Diag d = {.set = true, .kind = DIAG_DEVICE};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d.msg, sizeof d.msg, fmt, ap);
  va_end(ap);
  return fail(s, op, &d);
}

static bool malformed(Session *s, WireOp op) {
  return failf(s, op, "convgen-server: a malformed %s request (its fields do not parse)", op ? wire_op_name(op) : "");
}

/* ---- the requests ---- */

static bool do_hello(Session *s, WireReader *r) {
  uint64_t version = wire_get_u64(r);
  char *theirs = wire_get_str(r);
  bool parsed = wire_ok(r);
  char who[160];
  snprintf(who, sizeof who, "%s", theirs ? theirs : "?");
  free(theirs);
  if (!parsed) return malformed(s, WIRE_HELLO);
  if (version != WIRE_VERSION)
    return failf(s, WIRE_HELLO, "protocol version mismatch: the client (convgen %s) speaks version %llu, "
                 "this convgen-server (%s) version %d: run the same convgen on both sides",
                 who, (unsigned long long)version, cg_version(), WIRE_VERSION);
  if (s->dev) return failf(s, WIRE_HELLO, "convgen-server: HELLO said twice");
  Diag d = {0};
  s->dev = rt_open(s->sel, &d);
  if (!s->dev) return fail(s, WIRE_HELLO, &d);
  logf_("client convgen %s: serving %s", who, rt_info(s->dev)->name);
  WireBuf *b = reply(s);
  wire_u64(b, WIRE_VERSION);
  wire_str(b, cg_version());
  wire_info(b, rt_info(s->dev));
  return ok(s);
}

/* The object id names in table t (kind "program", ...), or NULL after an error reply. */
static void *lookup(Session *s, WireOp op, const Table *t, uint64_t id, const char *kind, bool *replied) {
  void *p = table_get(t, id);
  if (!p) *replied = failf(s, op, "convgen-server: no %s of id %llu", kind, (unsigned long long)id);
  return p;
}

static bool do_build(Session *s, WireReader *r) {
  char *source = wire_get_str(r), *options = wire_get_str(r);
  bool sent = true;
  if (!wire_ok(r)) {
    sent = malformed(s, WIRE_BUILD);
  } else {
    Diag d = {0};
    RtProgram *p = rt_build(s->dev, source, *options ? options : NULL, &d);
    if (!p) {
      sent = fail(s, WIRE_BUILD, &d);
    } else {
      wire_u64(reply(s), table_add(&s->programs, p));
      sent = ok(s);
    }
  }
  free(source), free(options);
  return sent;
}

static bool do_free(Session *s, WireOp op, WireReader *r) {
  uint64_t id = wire_get_u64(r);
  if (!wire_ok(r)) return malformed(s, op);
  Table *t = op == WIRE_PROGRAM_FREE ? &s->programs : op == WIRE_BUFFER_FREE ? &s->buffers : &s->spans;
  bool sent = false;
  void *p = lookup(s, op, t, id, op == WIRE_PROGRAM_FREE ? "program" : op == WIRE_BUFFER_FREE ? "buffer" : "span", &sent);
  if (!p) return sent;
  if (op == WIRE_PROGRAM_FREE) rt_program_free(p);
  if (op == WIRE_BUFFER_FREE) rt_buffer_free(p);
  if (op == WIRE_SPAN_FREE) rt_span_free(((Span *)p)->s), free(p);
  t->v[id - 1] = NULL;
  reply(s);
  return ok(s);
}

static bool do_alloc(Session *s, WireReader *r) {
  uint64_t bytes = wire_get_u64(r);
  if (!wire_ok(r)) return malformed(s, WIRE_ALLOC);
  if (bytes > SIZE_MAX) return failf(s, WIRE_ALLOC, "convgen-server: %llu bytes are more than this host can address",
                                     (unsigned long long)bytes);
  Diag d = {0};
  RtBuffer *b = rt_alloc(s->dev, (size_t)bytes, &d);
  if (!b) return fail(s, WIRE_ALLOC, &d);
  wire_u64(reply(s), table_add(&s->buffers, b));
  return ok(s);
}

/* WRITE, READ and FILL_NAN: a buffer and what to do to it. */
static bool do_data(Session *s, WireOp op, WireReader *r) {
  uint64_t id = wire_get_u64(r), a = 0, n = 0;
  const void *src = NULL;
  size_t len = 0;
  if (op == WIRE_WRITE) src = wire_get_bytes(r, &len);
  if (op == WIRE_READ) n = wire_get_u64(r);
  if (op == WIRE_FILL_NAN) a = wire_get_u64(r), n = wire_get_u64(r);
  if (!wire_ok(r)) return malformed(s, op);
  bool sent = false;
  RtBuffer *b = lookup(s, op, &s->buffers, id, "buffer", &sent);
  if (!b) return sent;
  if (op != WIRE_WRITE && n > rt_buffer_size(b))   // before anything is allocated for it
    return failf(s, op, "%s: %llu bytes do not fit a buffer of %zu bytes", wire_op_name(op), (unsigned long long)n,
                 rt_buffer_size(b));
  if (op == WIRE_FILL_NAN && a >= ELEM_COUNT) return failf(s, op, "convgen-server: no element type %llu", (unsigned long long)a);
  Diag d = {0};
  WireBuf *out = reply(s);
  bool done;
  if (op == WIRE_WRITE) {
    done = rt_write(s->dev, b, src, len, &d);
  } else if (op == WIRE_FILL_NAN) {
    done = rt_poison(s->dev, b, elem_type((ElemKind)a), (size_t)n, &d);
  } else {
    void *dst = malloc(n ? (size_t)n : 1);
    if (!dst) cg_die("out of memory");
    done = rt_read(s->dev, b, dst, (size_t)n, &d);
    if (done) wire_bytes(out, dst, (size_t)n);
    free(dst);
  }
  return done ? ok(s) : fail(s, op, &d);
}

static bool do_wg_max(Session *s, WireReader *r) {
  uint64_t id = wire_get_u64(r);
  char *name = wire_get_str(r);
  bool sent = false;
  RtProgram *p = wire_ok(r) ? lookup(s, WIRE_KERNEL_WG_MAX, &s->programs, id, "program", &sent) : NULL;
  if (!wire_ok(r)) sent = malformed(s, WIRE_KERNEL_WG_MAX);
  if (p) {
    Diag d = {0};
    size_t v = rt_kernel_wg_max(s->dev, p, name, &d);
    if (d.set) {
      sent = fail(s, WIRE_KERNEL_WG_MAX, &d);
    } else {
      wire_u64(reply(s), v);
      sent = ok(s);
    }
  }
  free(name);
  return sent;
}

static bool do_span_new(Session *s, WireReader *r) {
  if (!wire_ok(r)) return malformed(s, WIRE_SPAN_NEW);
  Span *sp = cg_calloc(1, sizeof *sp);
  sp->s = rt_span_new();
  wire_u64(reply(s), table_add(&s->spans, sp));
  return ok(s);
}

/* ENQUEUE's arguments into args[]: false (and bad set) when one does not
 * parse, names no buffer, or is out of bounds. */
static bool get_args(Session *s, WireReader *r, int nargs, RtArg *args, char *why, size_t cap) {
  for (int i = 0; i < nargs; i++) {
    uint64_t kind = wire_get_u64(r);
    args[i] = (RtArg){0};
    if (kind == WIRE_ARG_BUFFER) {
      uint64_t id = wire_get_u64(r);
      if (!r->bad && !(args[i].buf = table_get(&s->buffers, id)))
        return snprintf(why, cap, "argument %d: no buffer of id %llu", i, (unsigned long long)id), false;
    } else if (kind == WIRE_ARG_SCALAR) {
      args[i].value = wire_get_bytes(r, &args[i].size);
      if (!r->bad && (args[i].size == 0 || args[i].size > WIRE_MAX_SCALAR))
        return snprintf(why, cap, "argument %d: a scalar of %zu bytes", i, args[i].size), false;
    } else if (kind == WIRE_ARG_LOCAL) {
      args[i].size = (size_t)wire_get_u64(r);
    } else {
      return snprintf(why, cap, "argument %d: no argument kind %llu", i, (unsigned long long)kind), false;
    }
    if (r->bad) return snprintf(why, cap, "argument %d does not parse", i), false;
  }
  return true;
}

static bool do_enqueue(Session *s, WireReader *r) {
  uint64_t pid = wire_get_u64(r);
  char *name = wire_get_str(r);
  uint64_t sid = wire_get_u64(r), nargs = wire_get_u64(r);
  char why[200] = "";
  RtArg args[WIRE_MAX_ARGS];
  bool parsed = !r->bad && nargs <= WIRE_MAX_ARGS && get_args(s, r, (int)nargs, args, why, sizeof why);
  uint64_t work_dim = parsed ? wire_get_u64(r) : 0;
  size_t global[3] = {0}, local[3] = {0};
  parsed = parsed && work_dim >= 1 && work_dim <= 3;
  for (uint64_t i = 0; parsed && i < work_dim; i++) global[i] = (size_t)wire_get_u64(r);
  bool has_local = parsed && wire_get_u64(r) != 0;
  for (uint64_t i = 0; has_local && i < work_dim; i++) local[i] = (size_t)wire_get_u64(r);
  bool sent = false;
  RtProgram *p = NULL;
  Span *sp = NULL;
  if (!parsed || !wire_ok(r))
    sent = why[0] ? failf(s, WIRE_ENQUEUE, "convgen-server: ENQUEUE: %s", why) : malformed(s, WIRE_ENQUEUE);
  else if ((p = lookup(s, WIRE_ENQUEUE, &s->programs, pid, "program", &sent)) &&
           (sp = lookup(s, WIRE_ENQUEUE, &s->spans, sid, "span", &sent))) {
    Diag d = {0};
    sent = rt_enqueue(s->dev, p, name, (int)nargs, args, (int)work_dim, global, has_local ? local : NULL, sp->s, &d)
               ? (reply(s), ok(s))
               : fail(s, WIRE_ENQUEUE, &d);
  }
  free(name);
  return sent;
}

/* HOLD, REPLAY, FINISH, DONE, SPAN_CLEAR: a span and what to do to it. */
static bool do_span(Session *s, WireOp op, WireReader *r) {
  uint64_t id = wire_get_u64(r);
  if (!wire_ok(r)) return malformed(s, op);
  bool sent = false;
  Span *sp = lookup(s, op, &s->spans, id, "span", &sent);
  if (!sp) return sent;
  Diag d = {0};
  WireBuf *b = reply(s);
  if (op == WIRE_HOLD || op == WIRE_REPLAY) {
    if (sp->held || rt_span_count(sp->s) != 0)
      return failf(s, op, "convgen-server: %s on a span that is not empty (clear it first)", wire_op_name(op));
    if (!(op == WIRE_HOLD ? rt_span_hold(s->dev, sp->s, &d) : rt_span_replay(s->dev, sp->s, &d)))
      return fail(s, op, &d);
    sp->held = true;
  } else if (op == WIRE_FINISH) {
    double ms = 0;
    sp->held = false;   // let go whatever happens
    if (!rt_span_finish(s->dev, sp->s, &ms, &d)) return fail(s, op, &d);
    wire_f64(b, ms);
    wire_u64(b, (uint64_t)rt_span_count(sp->s));
    for (int i = 0; i < rt_span_count(sp->s); i++) wire_f64(b, rt_span_launch_ms(sp->s, i));
  } else if (op == WIRE_DONE) {
    wire_u64(b, (uint64_t)rt_span_done(s->dev, sp->s));
  } else {
    rt_span_clear(sp->s);
    sp->held = false;
  }
  return ok(s);
}

/* One request answered; false when the connection is to end. */
static bool dispatch(Session *s, uint32_t op, WireReader *r) {
  if (strcmp(wire_op_name(op), "unknown") == 0)
    return failf(s, (WireOp)op, "convgen-server: unknown request %u (a newer convgen?)", op);
  if (op != WIRE_HELLO && !s->dev)
    return failf(s, (WireOp)op, "convgen-server: %s before HELLO", wire_op_name(op));
  switch (op) {
  case WIRE_HELLO: return do_hello(s, r);
  case WIRE_BUILD: return do_build(s, r);
  case WIRE_PROGRAM_FREE:
  case WIRE_BUFFER_FREE:
  case WIRE_SPAN_FREE: return do_free(s, (WireOp)op, r);
  case WIRE_ALLOC: return do_alloc(s, r);
  case WIRE_WRITE:
  case WIRE_READ:
  case WIRE_FILL_NAN: return do_data(s, (WireOp)op, r);
  case WIRE_KERNEL_WG_MAX: return do_wg_max(s, r);
  case WIRE_SPAN_NEW: return do_span_new(s, r);
  case WIRE_ENQUEUE: return do_enqueue(s, r);
  case WIRE_HOLD:
  case WIRE_REPLAY:
  case WIRE_FINISH:
  case WIRE_DONE:
  case WIRE_SPAN_CLEAR: return do_span(s, (WireOp)op, r);
  }
  return failf(s, (WireOp)op, "convgen-server: unknown request %u (a newer convgen?)", op);
}

/* A request is being run: a kernel that never ends keeps its FINISH here. */
static atomic_bool running;

/* The client's watch: when it hangs up while a request runs (the tuner's
 * watchdog killed a worker whose kernel hangs), nobody waits for the answer,
 * and the device must not stay busy with that kernel for the next client:
 * the session's process ends. A client gone between requests is the serving
 * loop's to see. Linux only (POLLRDHUP); elsewhere the kernel runs on. */
static void *watch_client(void *arg) {
#ifdef POLLRDHUP
  struct pollfd pf = {.fd = *(int *)arg, .events = POLLRDHUP};
  while (poll(&pf, 1, -1) < 0 && errno == EINTR) {
  }
  if (atomic_load(&running)) {
    logf_("the client hung up during a request: this session ends");
    _exit(0);
  }
#endif
  (void)arg;
  return NULL;
}

/* Serves one client on fd until it disconnects or breaks the protocol. */
static void serve(int fd, const char *sel) {
  Session s = {.fd = fd, .sel = sel};
  pthread_t watch;
  bool watching = pthread_create(&watch, NULL, watch_client, &fd) == 0;
  for (;;) {
    uint32_t op = 0;
    Diag d = {0};
    WireRecv got = wire_recv(fd, &op, &s.in, &d);
    if (got == WIRE_RECV_TOO_BIG) {   // the rest of the stream cannot be trusted: answer, then end
      Diag io = {0};
      wire_send_error(fd, d.msg, &io);
    }
    if (got != WIRE_RECV_OK) {
      logf_("connection ends: %s", d.msg);
      break;
    }
    WireReader r = wire_reader(s.in.data, s.in.len);
    atomic_store(&running, true);
    bool more = dispatch(&s, op, &r);
    atomic_store(&running, false);
    if (!more) break;
  }
  shutdown(fd, SHUT_RDWR);   // (the watch returns, if it is still waiting)
  if (watching) pthread_join(watch, NULL);
  session_free(&s);
  close(fd);
}

/* ---- listening ---- */

/* The children serving connections now: killed with the server, so that
 * killing it ends every session it started (their clients see the
 * connection lost, as when the machine goes). */
typedef struct Kids {
  pid_t *pid;
  int n, cap;
} Kids;

static volatile sig_atomic_t stopping;   // SIGTERM or SIGINT came

static void on_signal(int sig) {
  if (sig != SIGCHLD) stopping = 1;   // SIGCHLD only wakes accept() up, to reap
}

static void reap(Kids *k) {
  pid_t pid;
  while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
    for (int i = 0; i < k->n; i++)
      if (k->pid[i] == pid) k->pid[i] = k->pid[--k->n];
}

static void add_kid(Kids *k, pid_t pid) {
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 16;
    k->pid = realloc(k->pid, (size_t)k->cap * sizeof *k->pid);
    if (!k->pid) cg_die("out of memory");
  }
  k->pid[k->n++] = pid;
}

/* Handlers without SA_RESTART, so that accept() returns to reap and to stop. */
static void catch_signals(void) {
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_NOCLDSTOP};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

/* A child's signals as a plain process has them. */
static void default_signals(void) {
  signal(SIGCHLD, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
}

/* A socket listening on addr:port; its port into bound[8]. -1 with a message. */
static int listen_on(const char *addr, const char *port, char *bound) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res = NULL;
  int g = getaddrinfo(addr, port, &hints, &res);
  if (g != 0) return fprintf(stderr, "convgen-server: cannot use address '%s': %s\n", addr, gai_strerror(g)), -1;
  int fd = -1, err = 0;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd >= 0 && (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 16) < 0)) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) return fprintf(stderr, "convgen-server: cannot listen on %s port %s: %s\n", addr, port, strerror(err)), -1;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char host[256];
  if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
      getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, bound, 8, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    snprintf(bound, 8, "%s", port);
  return fd;
}

/* The device's name, found in a child process so that this one never
 * starts a driver (its threads would not survive the forks to come); false
 * with the reason in name when there is no such device. */
static bool probe(const char *sel, char *name, size_t cap) {
  int p[2];
  if (pipe(p) < 0) return snprintf(name, cap, "pipe: %s", strerror(errno)), false;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    RtDeviceInfo info;
    Diag d = {0};
    bool found = rt_select_info(sel, &info, &d);
    dprintf(p[1], "%c%s", found ? '+' : '-', found ? info.name : d.msg);
    _exit(0);
  }
  close(p[1]);
  size_t n = 0;
  ssize_t k;
  char buf[1100];
  while (pid > 0 && n < sizeof buf - 1 && (k = read(p[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)k;
  buf[n] = 0;
  close(p[0]);
  if (pid > 0) waitpid(pid, NULL, 0);
  snprintf(name, cap, "%s", n ? buf + 1 : "the device probe failed");
  return n && buf[0] == '+';
}

static int usage(const char *fmt, const char *arg) {
  fprintf(stderr, "convgen-server: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nusage: convgen-server [--port P] [--bind ADDR] [--device SEL] [--once] [-v] (--help says more)\n");
  return 2;
}

static int parse(int argc, char **argv, Options *o) {
  *o = (Options){.port = "9190", .bind = "127.0.0.1"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool value = strcmp(a, "--port") == 0 || strcmp(a, "--bind") == 0 || strcmp(a, "--device") == 0;
    if (value && i + 1 >= argc) return usage("%s needs a value", a);
    if (strcmp(a, "--port") == 0) o->port = argv[++i];
    else if (strcmp(a, "--bind") == 0) o->bind = argv[++i];
    else if (strcmp(a, "--device") == 0) o->device = argv[++i];
    else if (strcmp(a, "--once") == 0) o->once = true;
    else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) o->verbose = true;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return fputs(help, stdout), -1;
    else return usage("unknown option '%s'", a);
  }
  char *end;
  long port = strtol(o->port, &end, 10);
  if (!*o->port || *end || port < 0 || port > 65535) return usage("--port '%s' is not a port (0..65535)", o->port);
  return 0;
}

/* Accepts connections until SIGTERM or SIGINT (or, with --once, serves
 * the first), then ends the sessions it started. */
static int run(const Options *o, int lfd) {
  Kids kids = {0};
  int status = 0;
  while (!stopping) {
    int fd = accept(lfd, NULL, NULL);
    int err = errno;
    reap(&kids);
    if (fd < 0) {
      if (err == EINTR || err == ECONNABORTED) continue;
      errno = err;
      perror("convgen-server: accept");
      status = 1;
      break;
    }
    logf_("a connection");
    if (o->once) {
      close(lfd);
      default_signals();
      serve(fd, o->device);
      return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(lfd);
      default_signals();
      serve(fd, o->device);
      _exit(0);
    }
    if (pid < 0) perror("convgen-server: fork");
    if (pid > 0) add_kid(&kids, pid);
    close(fd);
  }
  for (int i = 0; i < kids.n; i++) kill(kids.pid[i], SIGTERM);
  free(kids.pid);
  logf_("stopped");
  return status;
}

int main(int argc, char **argv) {
  Options o;
  int status = parse(argc, argv, &o);
  if (status) return status < 0 ? 0 : status;
  verbose = o.verbose;
  signal(SIGPIPE, SIG_IGN);   // a client gone mid-reply is an error of send, not the end of the server
  char name[1100], bound[8];
  if (!probe(o.device, name, sizeof name)) return fprintf(stderr, "convgen-server: %s\n", name), 1;
  catch_signals();
  int lfd = listen_on(o.bind, o.port, bound);
  if (lfd < 0) return 1;
  bool v6 = strchr(o.bind, ':') != NULL;
  fprintf(stderr, "convgen-server: serving %s on %s%s%s:%s\n", name, v6 ? "[" : "", o.bind, v6 ? "]" : "", bound);
  return run(&o, lfd);
}
