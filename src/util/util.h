/* util.h: the few things every module needs.
 *
 * Arena: a bump allocator; everything made while compiling one program (or one
 * tuning candidate) lives in one arena and is freed in one call.
 * Diag: an error returned as a value, never printed from inside the library:
 * a message naming the place and the problem, and its kind (docs/design.md,
 * "Errors"): bad input, a rejected point, or a failed device.
 * cg_die: a broken invariant (a bug): prints file and line and aborts; it is
 * never a Diag.
 */
#ifndef CONVGEN_UTIL_H
#define CONVGEN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;   // newest chunk first
  size_t used;        // bytes used in head
  size_t total;       // bytes handed out over the arena's life
  size_t live;        // bytes handed out and not released by arena_reset
} Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);              // zeroed, 16-byte aligned
char *arena_strdup(Arena *a, const char *s);
/* n zeroed elements of size bytes on the heap (at least one byte; the caller
 * frees them); out of memory is cg_die. */
void *cg_calloc(size_t n, size_t size);
/* A copy of s on the heap (the caller frees it), NULL for NULL; out of
 * memory is cg_die. For what outlives an arena: a device's names, a build's
 * source. */
char *cg_strdup(const char *s);

/* The suite's fault injection: in $CONVGEN_FAULT (comma-separated
 * KIND:ARG entries, docs/cli.md), the argument of the first entry of kind
 * (its text up to the next comma, *len its length), or NULL when there is
 * none. */
const char *cg_fault_arg(const char *kind, size_t *len);
/* A copy of the n-element array old (may be NULL when n is 0) with room for
 * one more element of the given size: how the growing lists of nodes are made. */
void *arena_extend(Arena *a, const void *old, size_t n, size_t size);
/* Mark and reset: everything allocated after arena_mark is released by
 * arena_reset (for per-element scratch work in the interpreter). */
typedef struct ArenaMark {
  ArenaChunk *head;  // head chunk at the mark
  size_t used;       // bytes used in it
  size_t live;       // the arena's live bytes at the mark
} ArenaMark;
ArenaMark arena_mark(Arena *a);
void arena_reset(Arena *a, ArenaMark m);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Growable string buffer (heap-backed; sb_free releases it). */
typedef struct StrBuf {
  char *data;   // always NUL-terminated when cap > 0
  size_t len;   // bytes before the NUL
  size_t cap;   // allocated bytes
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
const char *sb_str(StrBuf *sb);   // "" for an empty buffer

/* Whether needle occurs in hay, ignoring ASCII case (an empty needle always does). */
bool cg_contains_nocase(const char *hay, const char *needle);
/* A float literal as the IR's text form and OpenCL C both write it: fp32's
 * elem_literal (util/elem.h), 9 significant digits (exact for float), always
 * a '.' or an exponent, then 'f'. */
void sb_float_literal(StrBuf *sb, double v);
char *sb_take(StrBuf *sb);        // hands the heap string to the caller

/* The next value of a splitmix64 generator whose state is *state (what every
 * seeded random choice in convgen uses, so that a seed means the same everywhere). */
uint64_t cg_splitmix64(uint64_t *state);
/* FNV-1a (64 bits) continued over n more bytes from h: one hash of several
 * texts in turn, starting from CG_FNV_OFFSET, FNV's offset basis. */
#define CG_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t cg_hash_bytes(uint64_t h, const void *p, size_t n);
/* A stable hash of a string (the same on every run and machine): FNV-1a's
 * steps from another start, 1469598103934665603 (FNV's offset basis a digit
 * short), kept as it is because the tuner's seeds come from it. */
uint64_t cg_hash_str(const char *s);
/* Seconds on a monotonic clock (for time limits and rates). */
double cg_now_s(void);
/* n floats as float32 little-endian bytes (out[4 n]: the files convgen
 * reads and writes), and back, whatever the host's byte order. */
void cg_floats_to_le(const float *v, int64_t n, unsigned char *out);
void cg_floats_from_le(const unsigned char *in, int64_t n, float *out);

/* "0.2.0 (commit)": the version and the commit this build came from. */
const char *cg_version(void);

/* What an error is, set by the function that records it (docs/design.md,
 * "Errors"). The fourth kind, a broken invariant, is never a value: cg_die. */
typedef enum DiagKind {
  DIAG_USER,     // bad input: a malformed program, layer spec, point, option or file (diag_error)
  DIAG_REJECT,   // a well-formed point or program that a constraint, a legality rule or a device
                 // limit refuses (diag_reject): in a search, an ordinary result with its reason
  DIAG_DEVICE,   // the device, its driver or the machine under it failed: a build, a launch, a
                 // device that cannot be opened or is lost (diag_device)
} DiagKind;

/* An error as a value. Functions that can fail take a Diag* and return
 * false/NULL; the first error wins (later ones are ignored, kind and all). */
typedef struct Diag {
  bool set;        // an error has been recorded
  DiagKind kind;   // what it is (when set)
  char msg[1024];  // "file:line:col: message" or just "message"
} Diag;

bool diag_error(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   // DIAG_USER; returns false
bool diag_reject(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));  // DIAG_REJECT; returns false
bool diag_device(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));  // DIAG_DEVICE; returns false
const char *diag_kind_name(DiagKind k);   // "user", "rejected", "device"

_Noreturn void cg_die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define cg_die(...) cg_die_at(__FILE__, __LINE__, __VA_ARGS__)
#define cg_assert(c) ((c) ? (void)0 : cg_die("assertion failed: %s", #c))

/* CG_UNDER_ASAN: 1 in a build with AddressSanitizer (make SAN=1), whose
 * shadow memory makes address-space limits (RLIMIT_AS) meaningless. */
#if defined(__SANITIZE_ADDRESS__)
#define CG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CG_UNDER_ASAN 1
#endif
#endif
#ifndef CG_UNDER_ASAN
#define CG_UNDER_ASAN 0
#endif
/* Out of host memory (bytes asked): a cg_die, unless the process chose an
 * exit status for it with cg_exit_on_out_of_memory, as a child that lowers
 * one point under a memory limit does (space/check.c): there a point that
 * needs more than the limit is a rejected point, told from a crash by that
 * status. */
_Noreturn void cg_out_of_memory(size_t bytes);
void cg_exit_on_out_of_memory(int status);   // 0: back to cg_die

/* Whole-file I/O. file_write is atomic over a regular file (or a new one): it
 * writes a temporary beside the target and renames it, so an interrupted run
 * never leaves a half-written file. A device, FIFO or socket (/dev/null,
 * /dev/stdout) is written in place; a symbolic link is followed. */
char *file_read(const char *path, size_t *len, Diag *d);   // heap; caller frees
/* file_read with a cap: a regular file past max_file bytes refused by its
 * size before it is read, a stream (a pipe, a device: /dev/zero) read up to
 * max_stream, then refused. Heap; caller frees. */
char *file_read_capped(const char *path, size_t max_file, size_t max_stream, size_t *len, Diag *d);
/* At most max bytes of an open stream (named `name` in messages): more is an
 * error, so that a device like /dev/zero ends in a message. Heap; caller frees. */
char *stream_read(FILE *f, const char *name, size_t max, size_t *len, Diag *d);
bool file_write(const char *path, const char *data, size_t len, Diag *d);
/* mkdir -p: the folder and every missing folder above it. */
bool dir_make(const char *path, Diag *d);

/* Files written into a folder as one piece. dir_begin makes the folders above
 * it; a folder that does not exist yet is written as a hidden sibling that
 * dir_commit renames into place, so a failed write (a full disk) leaves no
 * half-made folder: dir_abort removes it. Into an existing folder each file
 * is replaced atomically (file_write). The sibling is .NAME.tmp.PID; one a
 * writer killed before dir_commit left (PID no longer running: kill(PID, 0)
 * fails with ESRCH) is removed by the next dir_begin of the same folder, a
 * live writer's is kept. */
typedef struct DirWrite {
  char *dir;    // the folder asked for, without trailing '/'
  char *tmp;    // where the files go: dir itself, or the sibling when dir is new
  bool fresh;   // dir did not exist
} DirWrite;
bool dir_begin(DirWrite *w, const char *dir, Diag *d);
bool dir_put(DirWrite *w, const char *name, const char *data, size_t len, Diag *d);
bool dir_commit(DirWrite *w, Diag *d);   // frees w, also when it fails (the sibling then removed)
void dir_abort(DirWrite *w);             // frees w

#endif
