/* wire.h: the protocol between convgen's remote backend (rt_remote.c) and
 * convgen-server (src/server/server.c), shared by both (docs/remote.md).
 *
 * A message is a frame: a little-endian u32 head, a u32 payload length, the
 * payload. A request's head is its opcode (WireOp); each request gets one
 * reply whose head is a status, 0 ok, else an error whose payload is the
 * message. Payload fields are little-endian u64 integers, f64 (IEEE
 * binary64, its bits as a u64) and byte strings (a u64 length, the bytes;
 * no NUL). Every length read from a socket is bounded: a frame over
 * WIRE_MAX_PAYLOAD is refused before anything is allocated for it, and a
 * field that runs past its payload makes the reader bad, never an
 * out-of-bounds read.
 */
#ifndef CONVGEN_WIRE_H
#define CONVGEN_WIRE_H

#include "rt/rt.h"

#include <stddef.h>
#include <stdint.h>

enum { WIRE_VERSION = 1 };   // HELLO's protocol version; both sides refuse another
enum { WIRE_DEFAULT_PORT = 9190 };
/* The largest payload either side accepts: a 256 MiB buffer with its fields. */
#define WIRE_MAX_PAYLOAD ((uint32_t)(256u << 20) + 4096u)

/* The requests: opcode, name; the comment says the request's fields -> the reply's. */
#define WIRE_OPS(X)                                                                   \
  X(HELLO, 1)          /* version, convgen's version -> version, server's version, info */ \
  X(BUILD, 2)          /* source, options -> program id (error: the build log) */     \
  X(PROGRAM_FREE, 3)   /* program id -> */                                           \
  X(ALLOC, 4)          /* bytes -> buffer id */                                      \
  X(BUFFER_FREE, 5)    /* buffer id -> */                                            \
  X(WRITE, 6)          /* buffer id, bytes (a string) -> */                          \
  X(READ, 7)           /* buffer id, n -> bytes (a string) */                        \
  X(FILL_NAN, 8)       /* buffer id, element kind, bytes -> */                       \
  X(KERNEL_WG_MAX, 9)  /* program id, kernel name -> size */                         \
  X(SPAN_NEW, 10)      /* -> span id */                                              \
  X(ENQUEUE, 11)       /* program, name, span, nargs, args, work_dim, global, local */ \
  X(HOLD, 12)          /* span id -> */                                              \
  X(REPLAY, 13)        /* span id -> */                                              \
  X(FINISH, 14)        /* span id -> total ms, n, each launch's ms */                \
  X(DONE, 15)          /* span id -> launches finished */                            \
  X(SPAN_CLEAR, 16)    /* span id -> */                                              \
  X(SPAN_FREE, 17)     /* span id -> */

typedef enum WireOp {
#define X(name, code) WIRE_##name = code,
  WIRE_OPS(X)
#undef X
} WireOp;

const char *wire_op_name(uint32_t op);   // "BUILD"; "unknown" for a code that is none

/* ENQUEUE's argument kinds: each argument is a kind, then a buffer id, the
 * scalar's bytes (a string) or the __local array's size. */
enum { WIRE_ARG_BUFFER = 0, WIRE_ARG_SCALAR = 1, WIRE_ARG_LOCAL = 2 };
enum { WIRE_MAX_ARGS = 256, WIRE_MAX_SCALAR = 256 };

/* A payload being written (heap; grows). */
typedef struct WireBuf {
  unsigned char *data;
  size_t len, cap;
} WireBuf;

void wire_init(WireBuf *b);
void wire_free(WireBuf *b);
void wire_u64(WireBuf *b, uint64_t v);
void wire_f64(WireBuf *b, double v);
void wire_bytes(WireBuf *b, const void *p, size_t n);
void wire_str(WireBuf *b, const char *s);   // NULL: the empty string
/* Every field of info, one by one (never the struct's bytes: the peer may be
 * another architecture). */
void wire_info(WireBuf *b, const RtDeviceInfo *info);

/* A payload being read: each get past the end (or a string longer than what
 * is left) sets bad and returns 0/NULL, and every later get does the same. */
typedef struct WireReader {
  const unsigned char *p;
  size_t len, off;
  bool bad;
} WireReader;

WireReader wire_reader(const void *p, size_t len);
uint64_t wire_get_u64(WireReader *r);
double wire_get_f64(WireReader *r);
const void *wire_get_bytes(WireReader *r, size_t *n);   // points into the payload
char *wire_get_str(WireReader *r);                      // a heap copy, NUL-terminated; NULL when bad
void wire_get_info(WireReader *r, RtDeviceInfo *info);  // strings truncated to their fields
bool wire_ok(const WireReader *r);                      // not bad, and the whole payload read

/* Frames on a socket. wire_send writes head, length and payload (NULL: an
 * empty one) with MSG_NOSIGNAL: a closed peer is an error, not a SIGPIPE. */
bool wire_send(int fd, uint32_t head, const WireBuf *payload, Diag *d);
bool wire_send_error(int fd, const char *msg, Diag *d);   // a reply of status 1 carrying msg
typedef enum WireRecv {
  WIRE_RECV_OK,
  WIRE_RECV_CLOSED,    // the peer closed the connection between frames
  WIRE_RECV_BROKEN,    // an error, a timeout, or a frame cut short
  WIRE_RECV_TOO_BIG,   // a length over WIRE_MAX_PAYLOAD: refused, nothing read of it
} WireRecv;
/* One frame into *head and payload (its old contents replaced); d says why
 * when it is not WIRE_RECV_OK. */
WireRecv wire_recv(int fd, uint32_t *head, WireBuf *payload, Diag *d);

#endif
