/* util.c: arena, string buffer, diagnostics and file I/O (see util.h). */
#define _GNU_SOURCE
#include "util.h"
#include "util/elem.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ArenaChunk {
  ArenaChunk *next;  // older chunk
  size_t size;       // usable bytes in data
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) cg_out_of_memory(n);
  return p;
}

Arena *arena_new(void) {
  Arena *a = xmalloc(sizeof *a);
  memset(a, 0, sizeof *a);
  return a;
}

void arena_free(Arena *a) {
  if (!a) return;
  for (ArenaChunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->used + n > a->head->size) {
    size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    ArenaChunk *c = xmalloc(sizeof *c + size);
    c->next = a->head;
    c->size = size;
    a->head = c;
    a->used = 0;
  }
  void *p = a->head->data + a->used;
  a->used += n;
  a->total += n;
  a->live += n;
  memset(p, 0, n);
  return p;
}

ArenaMark arena_mark(Arena *a) {
  ArenaMark m = {a->head, a->used, a->live};
  return m;
}

void arena_reset(Arena *a, ArenaMark m) {
  while (a->head != m.head) {
    ArenaChunk *c = a->head;
    a->head = c->next;
    free(c);
  }
  a->used = m.used;
  a->live = m.live;
}

void *arena_extend(Arena *a, const void *old, size_t n, size_t size) {
  void *p = arena_alloc(a, (n + 1) * size);
  if (n) memcpy(p, old, n * size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

const char *cg_fault_arg(const char *kind, size_t *len) {
  char needle[64];   // "KIND:"
  snprintf(needle, sizeof needle, "%s:", kind);
  const char *f = getenv("CONVGEN_FAULT"), *p = f ? strstr(f, needle) : NULL;
  if (!p) return NULL;
  p += strlen(needle);
  *len = strcspn(p, ",");
  return p;
}

void *cg_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) cg_die("out of memory (%zu x %zu bytes)", n, size);
  return p;
}

char *cg_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (!c) cg_die("out of memory (%zu bytes)", n);
  return memcpy(c, s, n);
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  char *p = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return p;
}

void sb_init(StrBuf *sb) { memset(sb, 0, sizeof *sb); }
void sb_free(StrBuf *sb) {
  free(sb->data);
  sb_init(sb);
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *p = realloc(sb->data, cap);
  if (!p) cg_out_of_memory(cap);
  sb->data = p;
  sb->cap = cap;
}

void sb_putc(StrBuf *sb, char c) {
  sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = 0;
}

void sb_puts(StrBuf *sb, const char *s) {
  size_t n = strlen(s);
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  char small[256];  // most pieces fit; only longer ones format twice
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  if (n < 0) cg_die("bad format string");
  sb_reserve(sb, (size_t)n);
  if ((size_t)n < sizeof small) memcpy(sb->data + sb->len, small, (size_t)n + 1);
  else vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

void sb_float_literal(StrBuf *sb, double v) { elem_literal(sb, elem_fp32(), v); }

const char *sb_str(StrBuf *sb) { return sb->data ? sb->data : ""; }

char *sb_take(StrBuf *sb) {
  char *p = sb->data ? sb->data : strdup("");
  if (!p) cg_out_of_memory(1);
  sb_init(sb);
  return p;
}

static bool diag_record(Diag *d, DiagKind kind, const char *fmt, va_list ap) {
  if (!d || d->set) return false;
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  d->set = true, d->kind = kind;
  return false;
}

bool diag_error(Diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_record(d, DIAG_USER, fmt, ap);
  va_end(ap);
  return false;
}

bool diag_reject(Diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_record(d, DIAG_REJECT, fmt, ap);
  va_end(ap);
  return false;
}

bool diag_device(Diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_record(d, DIAG_DEVICE, fmt, ap);
  va_end(ap);
  return false;
}

const char *diag_kind_name(DiagKind k) {
  static const char *const names[] = {[DIAG_USER] = "user", [DIAG_REJECT] = "rejected", [DIAG_DEVICE] = "device"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "unknown";
}

static int oom_status;   // cg_exit_on_out_of_memory's (0: cg_die)

void cg_exit_on_out_of_memory(int status) { oom_status = status; }

void cg_out_of_memory(size_t bytes) {
  if (oom_status) _exit(oom_status);   // a child under a memory limit: its parent reads the status
  cg_die("out of memory (%zu bytes)", bytes);
}

void cg_die_at(const char *file, int line, const char *fmt, ...) {
  fprintf(stderr, "convgen: internal error at %s:%d: ", file, line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

char *stream_read(FILE *f, const char *name, size_t max, size_t *len, Diag *d) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (n > max - sb.len) {
      sb_free(&sb);
      diag_error(d, "%s: more than %zu bytes; too large to read", name, max);
      return NULL;
    }
    sb_reserve(&sb, n);
    memcpy(sb.data + sb.len, buf, n);
    sb.len += n;
    sb.data[sb.len] = 0;
  }
  if (ferror(f)) {
    int err = errno;   // EISDIR for a folder
    sb_free(&sb);
    diag_error(d, "%s: read error: %s", name, strerror(err));
    return NULL;
  }
  if (len) *len = sb.len;
  return sb_take(&sb);
}

char *file_read_capped(const char *path, size_t max_file, size_t max_stream, size_t *len, Diag *d) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_error(d, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  size_t max = max_stream;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {   // its size known before it is read
    if ((uint64_t)st.st_size > max_file) {
      fclose(f);
      diag_error(d, "%s: %lld bytes, more than %zu; too large to read", path, (long long)st.st_size, max_file);
      return NULL;
    }
    max = max_file;
  }
  char *text = stream_read(f, path, max, len, d);
  fclose(f);
  return text;
}

char *file_read(const char *path, size_t *len, Diag *d) { return file_read_capped(path, SIZE_MAX, SIZE_MAX, len, d); }

/* Writes into path itself: what file_write does where a temporary beside
 * the target cannot replace it (a device, a FIFO, a socket). */
static bool write_in_place(const char *path, const char *data, size_t len, Diag *d) {
  FILE *f = fopen(path, "wb");
  if (!f) return diag_error(d, "%s: cannot write: %s", path, strerror(errno));
  bool ok = fwrite(data, 1, len, f) == len;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  if (!ok) diag_error(d, "%s: cannot write: %s", path, strerror(err));
  return ok;
}

bool file_write(const char *path, const char *data, size_t len, Diag *d) {
  // Only a regular file (or none) is replaced by renaming a temporary over
  // it: renamed over /dev/null, as root, the temporary became /dev/null. A
  // symbolic link is followed, so that the file it names is replaced, not
  // the link.
  struct stat st;
  char *real = NULL;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    real = realpath(path, NULL);   // NULL for a dangling link: then written through it, in place
    if (!real || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
      free(real);
      return write_in_place(path, data, len, d);
    }
  } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return diag_error(d, "%s: cannot write: it is a folder", path);
    return write_in_place(path, data, len, d);
  }
  const char *target = real ? real : path;
  StrBuf tmp;
  sb_init(&tmp);
  sb_printf(&tmp, "%s.tmp.%ld", target, (long)getpid());
  FILE *f = fopen(sb_str(&tmp), "wb");
  if (!f) {
    diag_error(d, "%s: cannot write: %s", path, strerror(errno));
    sb_free(&tmp);
    free(real);
    return false;
  }
  bool ok = fwrite(data, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(sb_str(&tmp), target) != 0) ok = false;
  if (!ok) {
    int err = errno;
    remove(sb_str(&tmp));
    diag_error(d, "%s: cannot write: %s", path, strerror(err));
  }
  sb_free(&tmp);
  free(real);
  return ok;
}

bool dir_make(const char *path, Diag *d) {
  char *dir = strdup(path);
  if (!dir) cg_die("out of memory");
  bool ok = true;
  for (char *p = dir + 1; ok && *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    ok = mkdir(dir, 0777) == 0 || errno == EEXIST;
    *p = '/';
  }
  ok = ok && (mkdir(dir, 0777) == 0 || errno == EEXIST);
  if (!ok) diag_error(d, "%s: cannot create the folder: %s", dir, strerror(errno));
  free(dir);
  return ok;
}

/* The files of folder path (one level: what dir_put writes), then path. */
static void remove_folder(const char *path) {
  DIR *dir = opendir(path);
  struct dirent *e;
  while (dir && (e = readdir(dir))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s/%s", path, e->d_name);
    remove(sb_str(&sb));
    sb_free(&sb);
  }
  if (dir) closedir(dir);
  rmdir(path);
}

/* The siblings .NAME.tmp.PID of folder dir (NAME its last component) that a
 * writer killed before dir_commit left behind: removed when no process PID
 * runs (kill(PID, 0) fails with ESRCH); another live writer's is kept. */
static void remove_stale_siblings(const char *dir) {
  const char *slash = strrchr(dir, '/');
  const char *name = slash ? slash + 1 : dir;
  char *up = slash ? strndup(dir, slash == dir ? 1 : (size_t)(slash - dir)) : strdup(".");
  if (!up) cg_die("out of memory");
  StrBuf prefix;
  sb_init(&prefix);
  sb_printf(&prefix, ".%s.tmp.", name);
  DIR *d = opendir(up);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, sb_str(&prefix), prefix.len) != 0) continue;
    const char *digits = e->d_name + prefix.len;
    char *end;
    errno = 0;
    long pid = strtol(digits, &end, 10);
    if (!isdigit((unsigned char)*digits) || *end || errno || pid <= 0 || (long)(pid_t)pid != pid) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;   // alive (or not ours to ask about)
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s/%s", up, e->d_name);
    struct stat st;
    if (lstat(sb_str(&sb), &st) == 0 && S_ISDIR(st.st_mode)) remove_folder(sb_str(&sb));
    sb_free(&sb);
  }
  if (d) closedir(d);
  sb_free(&prefix);
  free(up);
}

bool dir_begin(DirWrite *w, const char *dir, Diag *d) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  *w = (DirWrite){.dir = strndup(dir, n)};
  if (!w->dir) cg_die("out of memory");
  remove_stale_siblings(w->dir);   // of writers killed before their dir_commit
  struct stat st;
  w->fresh = stat(w->dir, &st) != 0;
  if (!w->fresh && !S_ISDIR(st.st_mode)) {
    diag_error(d, "%s: exists and is not a folder", w->dir);
    dir_abort(w);
    return false;
  }
  const char *slash = strrchr(w->dir, '/');
  int parent = slash ? (int)(slash - w->dir) : 0;   // the length of the folder above
  StrBuf sb;
  sb_init(&sb);
  if (w->fresh) sb_printf(&sb, "%.*s%s.%s.tmp.%ld", parent, w->dir, slash ? "/" : "", slash ? slash + 1 : w->dir,
                          (long)getpid());
  else sb_puts(&sb, w->dir);
  w->tmp = sb_take(&sb);
  bool ok = true;
  if (w->fresh && parent > 0) {
    char *up = strndup(w->dir, (size_t)parent);
    if (!up) cg_die("out of memory");
    ok = dir_make(up, d);
    free(up);
  }
  if (ok && w->fresh && mkdir(w->tmp, 0777) != 0)
    ok = diag_error(d, "%s: cannot create the folder: %s", w->dir, strerror(errno));
  if (!ok) dir_abort(w);
  return ok;
}

bool dir_put(DirWrite *w, const char *name, const char *data, size_t len, Diag *d) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s/%s", w->tmp, name);
  Diag wd = {0};
  bool ok = file_write(sb_str(&sb), data, len, &wd);
  sb_free(&sb);
  if (!ok) {   // named where it was meant to go, not in the sibling
    const char *why = strstr(wd.msg, ": cannot write: ");
    diag_error(d, "%s/%s%s", w->dir, name, why ? why : ": cannot write");
  }
  return ok;
}

bool dir_commit(DirWrite *w, Diag *d) {
  bool ok = !w->fresh || rename(w->tmp, w->dir) == 0;
  if (!ok) diag_error(d, "%s: cannot create the folder: %s", w->dir, strerror(errno));
  if (ok) w->fresh = false;   // nothing left to remove
  dir_abort(w);
  return ok;
}

void dir_abort(DirWrite *w) {
  if (w->fresh && w->tmp) remove_folder(w->tmp);
  free(w->dir);
  free(w->tmp);
  *w = (DirWrite){0};
}

uint64_t cg_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t cg_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;   // the 64-bit FNV prime
  return h;
}

uint64_t cg_hash_str(const char *s) { return cg_hash_bytes(1469598103934665603ull, s, strlen(s)); }

double cg_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void cg_floats_to_le(const float *v, int64_t n, unsigned char *out) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &v[i], sizeof u);
    for (int b = 0; b < 4; b++) out[4 * i + b] = (unsigned char)(u >> (8 * b));
  }
}

void cg_floats_from_le(const unsigned char *in, int64_t n, float *out) {
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *p = in + 4 * i;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    memcpy(&out[i], &u, sizeof u);
  }
}

bool cg_contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}
