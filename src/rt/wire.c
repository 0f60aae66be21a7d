/* wire.c: the remote protocol's encoding and framing (wire.h).
 *
 * Integers go out byte by byte, least significant first, so the format is
 * the same whatever the host's byte order; a reader never trusts a length
 * from the peer beyond what it holds (the payload's bytes) or may hold
 * (WIRE_MAX_PAYLOAD).
 */
#include "rt/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

const char *wire_op_name(uint32_t op) {
  switch (op) {
#define X(name, code) \
  case code:          \
    return #name;
    WIRE_OPS(X)
#undef X
  }
  return "unknown";
}

/* ---- writing ---- */

void wire_init(WireBuf *b) { *b = (WireBuf){0}; }

void wire_free(WireBuf *b) {
  free(b->data);
  wire_init(b);
}

static void reserve(WireBuf *b, size_t n) {
  if (b->len + n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n) cap *= 2;
  b->data = realloc(b->data, cap);
  if (!b->data) cg_die("out of memory (%zu bytes)", cap);
  b->cap = cap;
}

void wire_u64(WireBuf *b, uint64_t v) {
  reserve(b, 8);
  for (int i = 0; i < 8; i++) b->data[b->len++] = (unsigned char)(v >> (8 * i));
}

void wire_f64(WireBuf *b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  wire_u64(b, bits);
}

void wire_bytes(WireBuf *b, const void *p, size_t n) {
  wire_u64(b, n);
  if (n == 0) return;
  reserve(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

void wire_str(WireBuf *b, const char *s) { wire_bytes(b, s ? s : "", s ? strlen(s) : 0); }

void wire_info(WireBuf *b, const RtDeviceInfo *v) {
  wire_u64(b, (uint64_t)(int64_t)v->index);
  wire_str(b, v->platform), wire_str(b, v->name), wire_str(b, v->vendor);
  wire_str(b, v->driver), wire_str(b, v->version), wire_str(b, v->c_version);
  wire_u64(b, v->is_gpu), wire_u64(b, v->compute_units), wire_u64(b, v->max_wg_size);
  for (int i = 0; i < 3; i++) wire_u64(b, v->max_wi_sizes[i]);
  wire_u64(b, v->local_mem), wire_u64(b, v->global_mem), wire_u64(b, v->max_alloc);
  wire_u64(b, v->clock_mhz);
  wire_str(b, v->extensions), wire_str(b, v->platform_vendor);
  wire_u64(b, v->is_cpu), wire_u64(b, v->pref_float_width);
  wire_str(b, v->profile);
}

/* ---- reading ---- */

WireReader wire_reader(const void *p, size_t len) { return (WireReader){.p = p, .len = len}; }

/* The next n bytes, or NULL (and bad) when fewer are left. */
static const unsigned char *take(WireReader *r, size_t n) {
  if (r->bad || n > r->len - r->off) {
    r->bad = true;
    return NULL;
  }
  const unsigned char *at = r->p + r->off;
  r->off += n;
  return at;
}

uint64_t wire_get_u64(WireReader *r) {
  const unsigned char *at = take(r, 8);
  uint64_t v = 0;
  for (int i = 0; at && i < 8; i++) v |= (uint64_t)at[i] << (8 * i);
  return v;
}

double wire_get_f64(WireReader *r) {
  uint64_t bits = wire_get_u64(r);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

const void *wire_get_bytes(WireReader *r, size_t *n) {
  uint64_t len = wire_get_u64(r);
  *n = 0;
  if (r->bad || len > r->len - r->off) {   // checked before the cast: a u64 from the peer
    r->bad = true;
    return NULL;
  }
  *n = (size_t)len;
  return take(r, (size_t)len);
}

char *wire_get_str(WireReader *r) {
  size_t n;
  const void *p = wire_get_bytes(r, &n);
  if (!p) return NULL;
  char *s = malloc(n + 1);
  if (!s) cg_die("out of memory (%zu bytes)", n + 1);
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}

static void get_field(WireReader *r, char *dst, size_t cap) {
  size_t n;
  const char *p = wire_get_bytes(r, &n);
  if (!p) n = 0;
  if (n >= cap) n = cap - 1;
  if (n) memcpy(dst, p, n);
  dst[n] = 0;
}

void wire_get_info(WireReader *r, RtDeviceInfo *v) {
  memset(v, 0, sizeof *v);
  v->index = (int)(int64_t)wire_get_u64(r);
  get_field(r, v->platform, sizeof v->platform), get_field(r, v->name, sizeof v->name);
  get_field(r, v->vendor, sizeof v->vendor), get_field(r, v->driver, sizeof v->driver);
  get_field(r, v->version, sizeof v->version), get_field(r, v->c_version, sizeof v->c_version);
  v->is_gpu = wire_get_u64(r) != 0;
  v->compute_units = (unsigned)wire_get_u64(r);
  v->max_wg_size = (size_t)wire_get_u64(r);
  for (int i = 0; i < 3; i++) v->max_wi_sizes[i] = (size_t)wire_get_u64(r);
  v->local_mem = wire_get_u64(r), v->global_mem = wire_get_u64(r), v->max_alloc = wire_get_u64(r);
  v->clock_mhz = (unsigned)wire_get_u64(r);
  get_field(r, v->extensions, sizeof v->extensions), get_field(r, v->platform_vendor, sizeof v->platform_vendor);
  v->is_cpu = wire_get_u64(r) != 0;
  v->pref_float_width = (unsigned)wire_get_u64(r);
  get_field(r, v->profile, sizeof v->profile);
}

bool wire_ok(const WireReader *r) { return !r->bad && r->off == r->len; }

/* ---- frames ---- */

static bool send_all(int fd, const void *p, size_t n, Diag *d) {
  const unsigned char *at = p;
  while (n > 0) {
    ssize_t k = send(fd, at, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return diag_device(d, "send: %s", k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? "timed out" : strerror(errno));
    at += k, n -= (size_t)k;
  }
  return true;
}

bool wire_send(int fd, uint32_t head, const WireBuf *payload, Diag *d) {
  size_t len = payload ? payload->len : 0;
  if (len > WIRE_MAX_PAYLOAD)
    return diag_error(d, "a message of %zu bytes is over the protocol's limit of %u bytes", len, WIRE_MAX_PAYLOAD);
  unsigned char hdr[8];
  for (int i = 0; i < 4; i++) hdr[i] = (unsigned char)(head >> (8 * i)), hdr[4 + i] = (unsigned char)(len >> (8 * i));
  return send_all(fd, hdr, sizeof hdr, d) && (len == 0 || send_all(fd, payload->data, len, d));
}

bool wire_send_error(int fd, const char *msg, Diag *d) {
  WireBuf b;
  wire_init(&b);
  wire_bytes(&b, msg, strlen(msg));
  bool ok = wire_send(fd, 1, &b, d);
  wire_free(&b);
  return ok;
}

/* n bytes into p: 0 read, the count read before the peer closed, or -1. */
static ssize_t recv_all(int fd, void *p, size_t n) {
  unsigned char *at = p;
  size_t got = 0;
  while (got < n) {
    ssize_t k = recv(fd, at + got, n - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) break;
    got += (size_t)k;
  }
  return (ssize_t)got;
}

static WireRecv broken(Diag *d, const char *what) {
  bool timeout = errno == EAGAIN || errno == EWOULDBLOCK;
  diag_device(d, "%s: %s", what, timeout ? "timed out" : strerror(errno));
  return WIRE_RECV_BROKEN;
}

WireRecv wire_recv(int fd, uint32_t *head, WireBuf *payload, Diag *d) {
  unsigned char hdr[8];
  payload->len = 0;
  errno = 0;
  ssize_t k = recv_all(fd, hdr, sizeof hdr);
  if (k == 0) return diag_device(d, "the peer closed the connection"), WIRE_RECV_CLOSED;
  if (k < 0) return broken(d, "recv");
  if (k < (ssize_t)sizeof hdr) return diag_device(d, "a frame cut short (%zd of 8 header bytes)", k), WIRE_RECV_BROKEN;
  uint32_t len = 0;
  *head = 0;
  for (int i = 0; i < 4; i++) *head |= (uint32_t)hdr[i] << (8 * i), len |= (uint32_t)hdr[4 + i] << (8 * i);
  if (len > WIRE_MAX_PAYLOAD) {
    diag_device(d, "a message of %u bytes is over the protocol's limit of %u bytes", len, WIRE_MAX_PAYLOAD);
    return WIRE_RECV_TOO_BIG;
  }
  reserve(payload, len);
  k = recv_all(fd, payload->data, len);
  if (k < 0) return broken(d, "recv");
  if ((size_t)k < len) return diag_device(d, "a frame cut short (%zd of %u bytes)", k, len), WIRE_RECV_BROKEN;
  payload->len = len;
  return WIRE_RECV_OK;
}
