/* rt_remote.c: a device on another machine, served by convgen-server over
 * TCP (--device HOST:PORT; docs/remote.md). The remote target of the
 * runtime (rt_impl.h): every entry point is one request and its reply
 * (wire.h), and the server runs it with the same runtime on its device.
 *
 * Its target is "opencl": the server builds OpenCL C, so the kernels are
 * written in that dialect, and the device's limits and names are the remote
 * device's own, so tuning records made through a server are keyed as records
 * made on that device. Programs, buffers and spans are u64 ids the server
 * chose. Invariant: a connection that fails once (an error, a timeout, the
 * server gone) is closed for good, and every later call fails with a Diag
 * naming HOST:PORT, never a hang or a crash; objects made through it can
 * still be freed (each holds a reference to the connection). Requests
 * from several threads (builds.c builds programs in parallel) take turns:
 * one request and its reply at a time, under the connection's lock.
 */
#include "rt/rt_impl.h"
#include "rt/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum { REMOTE_TIMEOUT_S = 120 };   // a reply's longest wait, unless $CONVGEN_REMOTE_TIMEOUT says otherwise

typedef struct Conn {
  pthread_mutex_t mu;  // held from a request's sending to its reply's end
  int fd;              // -1 once lost or closed
  int refs;            // the device, and each program, buffer and span made through it
  char where[300];     // "HOST:PORT", for messages
  char lost[400];      // why the connection went ("": it works)
} Conn;

/* One request and its reply: out is written by the caller, then call()
 * fills in and r (which reads in); call_end frees both. */
typedef struct Call {
  Conn *c;
  WireOp op;
  WireBuf out, in;
  WireReader r;
} Call;

typedef struct RemoteProg {
  Conn *conn;
  uint64_t id;
  char **names;        // kernel names a span's launches point to (live as long as the program)
  int nnames;
} RemoteProg;

typedef struct RemoteSpan {
  Conn *conn;
  uint64_t id;
} RemoteSpan;

static const RtBackend REMOTE_BACKEND;

/* ---- the selector ---- */

/* HOST:PORT (PORT 1..65535, all digits; HOST non-empty, no blanks, no ':'
 * unless written [IPV6]): host and port into host[hcap] and port[6]. */
bool rt_remote_selector(const char *sel, char *host, size_t hcap, char port[6]) {
  const char *colon = sel ? strrchr(sel, ':') : NULL;
  if (!colon || colon == sel || !colon[1] || strlen(colon + 1) > 5) return false;
  for (const char *c = colon + 1; *c; c++)
    if (*c < '0' || *c > '9') return false;
  long p = strtol(colon + 1, NULL, 10);
  if (p < 1 || p > 65535) return false;
  const char *h = sel;
  size_t n = (size_t)(colon - sel);
  if (*h == '[') {   // [IPV6]
    if (n < 3 || h[n - 1] != ']') return false;
    h++, n -= 2;
  } else if (memchr(h, ':', n)) {
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if (h[i] == ' ' || h[i] == '\t' || h[i] == '[' || h[i] == ']') return false;
  if (n + 1 > hcap) return false;
  memcpy(host, h, n);
  host[n] = 0;
  snprintf(port, 6, "%ld", p);
  return true;
}

/* ---- the connection ---- */

static bool timeout_of(double *s, Diag *d) {
  const char *env = getenv("CONVGEN_REMOTE_TIMEOUT");
  *s = REMOTE_TIMEOUT_S;
  if (!env || !*env) return true;
  char *end;
  *s = strtod(env, &end);
  if (*end || !(*s > 0) || *s > 1e6)
    return diag_error(d, "$CONVGEN_REMOTE_TIMEOUT '%s' is not a number of seconds (over 0)", env);
  return true;
}

/* connect() on fd within timeout_s; false with errno set. */
static bool connect_within(int fd, const struct sockaddr *addr, socklen_t len, double timeout_s) {
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int r = connect(fd, addr, len);
  if (r < 0 && errno == EINPROGRESS) {
    struct pollfd pf = {.fd = fd, .events = POLLOUT};
    r = poll(&pf, 1, (int)(timeout_s * 1000));
    if (r == 0) errno = ETIMEDOUT;
    int err = 0;
    socklen_t el = sizeof err;
    if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err) errno = err;
    r = r > 0 && err == 0 ? 0 : -1;
  }
  fcntl(fd, F_SETFL, flags);
  return r == 0;
}

static void set_options(int fd, double timeout_s) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);   // requests are small and answered one by one
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  struct timeval tv = {.tv_sec = (time_t)timeout_s, .tv_usec = (suseconds_t)((timeout_s - (double)(time_t)timeout_s) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A socket connected to host:port (IPv4 or IPv6), or -1 with a Diag. */
static int dial(const char *host, const char *port, const char *where, Diag *d) {
  double timeout_s;
  if (!timeout_of(&timeout_s, d)) return -1;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
  int g = getaddrinfo(host, port, &hints, &res);
  if (g != 0) return diag_device(d, "remote device %s: cannot resolve '%s': %s", where, host, gai_strerror(g)), -1;
  int fd = -1, err = 0;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && !connect_within(fd, a->ai_addr, a->ai_addrlen, timeout_s)) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0)
    return diag_device(d, "remote device %s: cannot connect: %s (is convgen-server running there?)", where,
                       strerror(err ? err : ECONNREFUSED)),
           -1;
  set_options(fd, timeout_s);
  return fd;
}

static void conn_ref(Conn *c) {
  pthread_mutex_lock(&c->mu);
  c->refs++;
  pthread_mutex_unlock(&c->mu);
}

static void conn_unref(Conn *c) {
  pthread_mutex_lock(&c->mu);
  int left = --c->refs;
  pthread_mutex_unlock(&c->mu);
  if (left > 0) return;
  if (c->fd >= 0) close(c->fd);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

static bool conn_lost(Conn *c, Diag *d) {
  return diag_device(d, "remote device %s: the connection was lost (%s)", c->where, c->lost);
}

/* The transport failed: the connection is closed for good. */
static bool lose(Conn *c, const Diag *why, Diag *d) {
  snprintf(c->lost, sizeof c->lost, "%.300s", why->msg[0] ? why->msg : "no reason given");
  close(c->fd);
  c->fd = -1;
  return conn_lost(c, d);
}

static WireBuf *call_begin(Call *k, Conn *c, WireOp op) {
  *k = (Call){.c = c, .op = op};
  return &k->out;
}

static void call_end(Call *k) { wire_free(&k->out), wire_free(&k->in); }

/* A reply that is not what the request's reply must be: the peer is not a
 * convgen-server of this protocol, and the connection cannot be trusted. */
static bool malformed(Call *k, Diag *d) {
  pthread_mutex_lock(&k->c->mu);
  Diag why = {0};
  diag_device(&why, "a malformed reply to %s", wire_op_name(k->op));
  if (k->c->fd >= 0) lose(k->c, &why, d);
  else conn_lost(k->c, d);
  pthread_mutex_unlock(&k->c->mu);
  return false;
}

/* The server's error reply of the given status as a Diag of the kind it
 * had there (status 1 + its kind; another: DIAG_DEVICE). */
static bool server_error(uint32_t status, WireReader *r, Diag *d) {
  size_t n;
  const char *msg = wire_get_bytes(r, &n);
  int len = msg ? (int)(n < 4096 ? n : 4096) : 0;
  if (!msg) msg = "(the server gave no reason)", len = (int)strlen(msg);
  if (status == 1 + DIAG_USER) return diag_error(d, "%.*s", len, msg);
  if (status == 1 + DIAG_REJECT) return diag_reject(d, "%.*s", len, msg);
  return diag_device(d, "%.*s", len, msg);
}

/* Sends k's request and waits for its reply: true with k->r reading the
 * reply's payload, or false with a Diag: the server's message, or the
 * connection lost. */
static bool call(Call *k, Diag *d) {
  Conn *c = k->c;
  if (k->out.len > WIRE_MAX_PAYLOAD)
    return diag_error(d, "remote device %s: %s of %zu bytes is over the protocol's limit of %u bytes", c->where,
                      wire_op_name(k->op), k->out.len, WIRE_MAX_PAYLOAD);
  pthread_mutex_lock(&c->mu);
  Diag io = {0};
  uint32_t status = 0;
  bool sent = c->fd >= 0 ? wire_send(c->fd, k->op, &k->out, &io) && wire_recv(c->fd, &status, &k->in, &io) == WIRE_RECV_OK
                         : conn_lost(c, d);
  if (!sent && c->fd >= 0) lose(c, &io, d);
  pthread_mutex_unlock(&c->mu);
  if (!sent) return false;
  k->r = wire_reader(k->in.data, k->in.len);
  return status == 0 || server_error(status, &k->r, d);
}

/* A request whose reply carries nothing. */
static bool call_void(Call *k, Diag *d) {
  bool done = call(k, d) && (wire_ok(&k->r) || malformed(k, d));
  call_end(k);
  return done;
}

/* A request whose reply is one u64 (an id, a size, a count). */
static bool call_u64(Call *k, uint64_t *v, Diag *d) {
  bool done = call(k, d);
  if (done) *v = wire_get_u64(&k->r);
  done = done && (wire_ok(&k->r) || malformed(k, d));
  call_end(k);
  return done;
}

/* An object's id freed on the server, when the connection still works. */
static void free_remote(Conn *c, WireOp op, uint64_t id) {
  Call k;
  Diag ignored = {0};
  wire_u64(call_begin(&k, c, op), id);
  call_void(&k, &ignored);
}

/* ---- the device ---- */

/* HELLO: the protocol's version and ours; the server's device into info. */
static bool hello(Conn *c, RtDeviceInfo *info, Diag *d) {
  Call k;
  WireBuf *b = call_begin(&k, c, WIRE_HELLO);
  wire_u64(b, WIRE_VERSION);
  wire_str(b, cg_version());
  bool done = call(&k, d);
  uint64_t version = done ? wire_get_u64(&k.r) : 0;
  if (done && !k.r.bad && version != WIRE_VERSION)
    done = diag_device(d, "remote device %s: the server speaks protocol version %llu, this convgen %d (run the "
                       "same convgen on both sides)", c->where, (unsigned long long)version, WIRE_VERSION);
  if (done) {
    free(wire_get_str(&k.r));   // the server's convgen version: informative only
    wire_get_info(&k.r, info);
    done = wire_ok(&k.r) || malformed(&k, d);
  }
  call_end(&k);
  return done;
}

static Conn *conn_open(const char *sel, RtDeviceInfo *info, Diag *d) {
  char host[256], port[6];
  if (!rt_remote_selector(sel, host, sizeof host, port)) return diag_error(d, "'%s' is not HOST:PORT", sel), NULL;
  Conn *c = cg_calloc(1, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  c->refs = 1;
  snprintf(c->where, sizeof c->where, "%s", sel);
  c->fd = dial(host, port, c->where, d);
  if (c->fd < 0 || !hello(c, info, d)) {
    conn_unref(c);
    return NULL;
  }
  return c;
}

bool rt_remote_select_info(const char *sel, RtDeviceInfo *out, Diag *d) {
  Conn *c = conn_open(sel, out, d);
  if (c) conn_unref(c);
  return c != NULL;
}

RtDevice *rt_remote_open(const char *sel, Diag *d) {
  RtDevice *dev = cg_calloc(1, sizeof *dev);
  Conn *c = conn_open(sel, &dev->info, d);
  if (!c) return free(dev), NULL;
  dev->be = &REMOTE_BACKEND, dev->impl = c;
  return dev;
}

static void remote_close(RtDevice *dev) {
  Conn *c = dev->impl;
  pthread_mutex_lock(&c->mu);
  if (c->fd >= 0) shutdown(c->fd, SHUT_RDWR);   // the server's child sees the end and frees everything
  pthread_mutex_unlock(&c->mu);
  conn_unref(c);
  free(dev);
}

/* ---- programs ---- */

static RtProgram *remote_build(RtDevice *dev, const char *source, const char *options, Diag *d) {
  Conn *c = dev->impl;
  Call k;
  WireBuf *b = call_begin(&k, c, WIRE_BUILD);
  wire_str(b, source);
  wire_str(b, options);
  uint64_t id;
  if (!call_u64(&k, &id, d)) return NULL;
  RtProgram *p = cg_calloc(1, sizeof *p);
  RemoteProg *rp = cg_calloc(1, sizeof *rp);
  rp->conn = c, rp->id = id;
  conn_ref(c);
  p->dev = dev, p->be = &REMOTE_BACKEND, p->impl = rp;
  return p;
}

static void remote_program_free(RtProgram *p) {
  RemoteProg *rp = p->impl;
  free_remote(rp->conn, WIRE_PROGRAM_FREE, rp->id);
  for (int i = 0; i < rp->nnames; i++) free(rp->names[i]);
  free(rp->names);
  conn_unref(rp->conn);
  free(rp);
  free(p);
}

/* name, kept by the program: what a span's launch names. (A program's
 * launches are queued from one thread, as rt.c's kernel cache wants.) */
static const char *intern(RemoteProg *rp, const char *name) {
  for (int i = 0; i < rp->nnames; i++)
    if (strcmp(rp->names[i], name) == 0) return rp->names[i];
  rp->names = realloc(rp->names, (size_t)(rp->nnames + 1) * sizeof *rp->names);
  if (!rp->names) cg_die("out of memory");
  return rp->names[rp->nnames++] = cg_strdup(name);
}

static size_t remote_kernel_wg_max(RtDevice *dev, RtProgram *p, const char *name, Diag *d) {
  Call k;
  WireBuf *b = call_begin(&k, dev->impl, WIRE_KERNEL_WG_MAX);
  wire_u64(b, ((RemoteProg *)p->impl)->id);
  wire_str(b, name);
  uint64_t v = 0;
  return call_u64(&k, &v, d) ? (size_t)v : 0;
}

/* ---- buffers ---- */

static RtBuffer *remote_alloc(RtDevice *dev, size_t bytes, Diag *d) {
  Conn *c = dev->impl;
  Call k;
  wire_u64(call_begin(&k, c, WIRE_ALLOC), bytes);
  uint64_t id;
  if (!call_u64(&k, &id, d)) return NULL;
  RtBuffer *b = cg_calloc(1, sizeof *b);
  b->be = &REMOTE_BACKEND, b->addr = id, b->size = bytes, b->impl = c;
  conn_ref(c);
  return b;
}

static void remote_buffer_free(RtBuffer *b) {
  free_remote(b->impl, WIRE_BUFFER_FREE, b->addr);
  conn_unref(b->impl);
  free(b);
}

static bool remote_write(RtDevice *dev, RtBuffer *b, const void *src, size_t bytes, Diag *d) {
  Call k;
  WireBuf *w = call_begin(&k, dev->impl, WIRE_WRITE);
  wire_u64(w, b->addr);
  wire_bytes(w, src, bytes);
  return call_void(&k, d);
}

static bool remote_read(RtDevice *dev, RtBuffer *b, void *dst, size_t bytes, Diag *d) {
  Call k;
  WireBuf *w = call_begin(&k, dev->impl, WIRE_READ);
  wire_u64(w, b->addr);
  wire_u64(w, bytes);
  bool done = call(&k, d);
  if (done) {
    size_t n;
    const void *p = wire_get_bytes(&k.r, &n);
    done = (wire_ok(&k.r) && n == bytes) || malformed(&k, d);
    if (done) memcpy(dst, p, n);
  }
  call_end(&k);
  return done;
}

static bool remote_fill_nan(RtDevice *dev, RtBuffer *b, const ElemType *et, size_t bytes, Diag *d) {
  Call k;
  WireBuf *w = call_begin(&k, dev->impl, WIRE_FILL_NAN);
  wire_u64(w, b->addr);
  wire_u64(w, (uint64_t)et->kind);
  wire_u64(w, bytes);
  return call_void(&k, d);
}

/* ---- spans ---- */

/* s's span on the server, made on its first use. */
static RemoteSpan *span_of(Conn *c, RtSpan *s, Diag *d) {
  if (s->impl) return s->impl;
  Call k;
  call_begin(&k, c, WIRE_SPAN_NEW);
  uint64_t id;
  if (!call_u64(&k, &id, d)) return NULL;
  RemoteSpan *rs = cg_calloc(1, sizeof *rs);
  rs->conn = c, rs->id = id;
  conn_ref(c);
  return s->impl = rs;
}

/* A request that names s's span alone (HOLD, REPLAY). */
static bool span_call(RtDevice *dev, RtSpan *s, WireOp op, Diag *d) {
  RemoteSpan *rs = span_of(dev->impl, s, d);
  if (!rs) return false;
  Call k;
  wire_u64(call_begin(&k, dev->impl, op), rs->id);
  return call_void(&k, d);
}

static bool remote_hold(RtDevice *dev, RtSpan *s, Diag *d) { return span_call(dev, s, WIRE_HOLD, d); }
static bool remote_replay(RtDevice *dev, RtSpan *s, Diag *d) { return span_call(dev, s, WIRE_REPLAY, d); }

static void put_args(WireBuf *b, int nargs, const RtArg *args) {
  wire_u64(b, (uint64_t)nargs);
  for (int i = 0; i < nargs; i++) {
    const RtArg *a = &args[i];
    if (a->buf) {
      wire_u64(b, WIRE_ARG_BUFFER), wire_u64(b, a->buf->addr);
    } else if (a->value) {
      wire_u64(b, WIRE_ARG_SCALAR), wire_bytes(b, a->value, a->size);
    } else {
      wire_u64(b, WIRE_ARG_LOCAL), wire_u64(b, a->size);
    }
  }
}

static bool remote_enqueue(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args, int work_dim,
                           const size_t *global, const size_t *local, RtSpan *s, Diag *d) {
  if (work_dim < 1 || work_dim > 3) return diag_error(d, "kernel '%s': work_dim %d (must be 1, 2 or 3)", name, work_dim);
  if (nargs < 0 || nargs > WIRE_MAX_ARGS) return diag_error(d, "kernel '%s': %d arguments", name, nargs);
  RemoteSpan *rs = span_of(dev->impl, s, d);
  if (!rs) return false;
  RemoteProg *rp = p->impl;
  Call k;
  WireBuf *b = call_begin(&k, dev->impl, WIRE_ENQUEUE);
  wire_u64(b, rp->id), wire_str(b, name), wire_u64(b, rs->id);
  put_args(b, nargs, args);
  wire_u64(b, (uint64_t)work_dim);
  for (int i = 0; i < work_dim; i++) wire_u64(b, global[i]);
  wire_u64(b, local != NULL);
  for (int i = 0; local && i < work_dim; i++) wire_u64(b, local[i]);
  if (!call_void(&k, d)) return false;
  rt_span_push(s, NULL, intern(rp, name));
  return true;
}

/* FINISH's reply: the span's time, then each of its n launches' own. */
static bool read_times(Call *k, RtSpan *s, double *ms, Diag *d) {
  double total = wire_get_f64(&k->r);
  uint64_t n = wire_get_u64(&k->r);
  if (k->r.bad || n != (uint64_t)rt_span_count(s)) return malformed(k, d);
  for (int i = 0; i < (int)n; i++) s->ms[i] = wire_get_f64(&k->r);
  if (!wire_ok(&k->r)) return malformed(k, d);
  *ms = total;
  return true;
}

static bool remote_finish(RtDevice *dev, RtSpan *s, double *ms, Diag *d) {
  if (!s->impl) return true;   // nothing was ever queued
  Call k;
  wire_u64(call_begin(&k, dev->impl, WIRE_FINISH), ((RemoteSpan *)s->impl)->id);
  bool done = call(&k, d) && read_times(&k, s, ms, d);
  call_end(&k);
  return done;
}

static int remote_done(RtDevice *dev, const RtSpan *s) {
  if (!s->impl) return 0;
  Call k;
  wire_u64(call_begin(&k, dev->impl, WIRE_DONE), ((const RemoteSpan *)s->impl)->id);
  uint64_t n = 0;
  Diag ignored = {0};
  return call_u64(&k, &n, &ignored) && n <= (uint64_t)rt_span_count(s) ? (int)n : 0;
}

static void remote_span_clear(RtSpan *s) {
  RemoteSpan *rs = s->impl;
  if (rs) free_remote(rs->conn, WIRE_SPAN_CLEAR, rs->id);
}

static void remote_span_free(RtSpan *s) {
  RemoteSpan *rs = s->impl;
  if (!rs) return;
  free_remote(rs->conn, WIRE_SPAN_FREE, rs->id);
  conn_unref(rs->conn);
  free(rs);
  s->impl = NULL;
}

static bool remote_lost(const RtDevice *dev) {
  Conn *c = dev->impl;
  pthread_mutex_lock(&c->mu);
  bool lost = c->fd < 0;
  pthread_mutex_unlock(&c->mu);
  return lost;
}

static const RtBackend REMOTE_BACKEND = {
    .target = "opencl",
    .close = remote_close,
    .build = remote_build,
    .program_free = remote_program_free,
    .alloc = remote_alloc,
    .buffer_free = remote_buffer_free,
    .write = remote_write,
    .read = remote_read,
    .fill_nan = remote_fill_nan,
    .kernel_wg_max = remote_kernel_wg_max,
    .enqueue = remote_enqueue,
    .hold = remote_hold,
    .replay = remote_replay,
    .finish = remote_finish,
    .done = remote_done,
    .span_clear = remote_span_clear,
    .span_free = remote_span_free,
    .lost = remote_lost,
};
