/* npy.c: numpy's .npy files as tensors (onnx.h's npy_*): what a user of
 * Python has at hand (np.save), read where a TensorProto file is (infer's
 * --input and --expect) and written for -o NAME.npy.
 *
 * The format (numpy's NEP 1): the magic "\x93NUMPY", a version byte pair
 * (1.0: a 2-byte header length; 2.0 and 3.0: 4 bytes), the length, then
 * a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
 * padded with spaces and a newline, then the elements in C order. Read:
 * float32, float16 or float64 ('<f4', '<f2', '<f8'; float16 widened exactly, float64 rounded to float32), C order,
 * rank at most ONNX_MAX_RANK. Written: version 1.0, '<f4'. */
#include "onnx/onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MAGIC[] = "\x93NUMPY";
enum { MAGIC_LEN = 6 };

bool npy_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char head[MAGIC_LEN];
  bool is = fread(head, 1, MAGIC_LEN, f) == MAGIC_LEN && memcmp(head, MAGIC, MAGIC_LEN) == 0;
  fclose(f);
  return is;
}

/* The value of key in the header dict h (after "'key':" and blanks), or NULL. */
static const char *dict_value(const char *h, const char *key) {
  char quoted[32];
  snprintf(quoted, sizeof quoted, "'%s'", key);
  const char *k = strstr(h, quoted);
  if (!k) return NULL;
  k += strlen(quoted);
  while (*k == ' ') k++;
  if (*k++ != ':') return NULL;
  while (*k == ' ') k++;
  return k;
}

/* The header dict's descr, fortran_order and shape into *t's rank and
 * dims, and the element size into *size; why not, or NULL. */
static const char *parse_header(const char *h, OnnxTensor *t, int *size) {
  const char *v = dict_value(h, "descr");
  if (!v) return "no 'descr' in its header";
  if (!strncmp(v, "'<f4'", 5)) *size = 4;
  else if (!strncmp(v, "'<f8'", 5)) *size = 8;
  else if (!strncmp(v, "'<f2'", 5)) *size = 2;
  else return "its elements are not little-endian float32, float16 or float64 (descr '<f4', '<f2' or '<f8')";
  v = dict_value(h, "fortran_order");
  if (!v) return "no 'fortran_order' in its header";
  if (strncmp(v, "False", 5) != 0) return "it is in Fortran order (save a C-ordered array: np.ascontiguousarray)";
  v = dict_value(h, "shape");
  if (!v || *v != '(') return "no 'shape' tuple in its header";
  t->rank = 0, t->n = 1;
  for (v++;;) {
    while (*v == ' ') v++;
    if (*v == ')') break;
    char *end;
    long long d = strtoll(v, &end, 10);
    if (end == v || d < 0 || d > ONNX_MAX_DIM) return "its shape is not a tuple of dimensions";
    if (t->rank == ONNX_MAX_RANK) return "its rank is past the largest an ONNX value takes here";
    t->dims[t->rank++] = d;
    if (!onnx_dims_elems(t->dims, t->rank, &t->n)) return "it holds too many elements";
    v = end;
    while (*v == ' ') v++;
    if (*v == ',') v++;
    else if (*v != ')') return "its shape is not a tuple of dimensions";
  }
  return NULL;
}

bool npy_read(Arena *a, const char *path, OnnxTensor *t, Diag *d) {
  size_t len = 0;
  Diag rd = {0};
  char *bytes = file_read_capped(path, ONNX_MAX_FILE_BYTES, ONNX_MAX_STREAM_BYTES, &len, &rd);
  if (!bytes) return diag_error(d, "%s", rd.msg);
  const unsigned char *u = (const unsigned char *)bytes;
  size_t hlen = 0, at = 0;
  const char *why = NULL;
  if (len < MAGIC_LEN + 4 || memcmp(bytes, MAGIC, MAGIC_LEN) != 0) why = "not a .npy file (its magic)";
  else if (u[6] == 1) hlen = (size_t)u[8] | (size_t)u[9] << 8, at = 10;
  else if ((u[6] == 2 || u[6] == 3) && len >= 12)
    hlen = (size_t)u[8] | (size_t)u[9] << 8 | (size_t)u[10] << 16 | (size_t)u[11] << 24, at = 12;
  else why = "a .npy version other than 1.0, 2.0 or 3.0";
  if (!why && hlen > len - at) why = "its header runs past the end of the file";
  *t = (OnnxTensor){.name = ""};
  int size = 4;
  if (!why) {
    char *h = malloc(hlen + 1);
    if (!h) cg_die("out of memory");
    memcpy(h, bytes + at, hlen);
    h[hlen] = 0;
    why = parse_header(h, t, &size);
    free(h);
  }
  size_t data = at + hlen;
  if (!why && (uint64_t)(len - data) != (uint64_t)t->n * (uint64_t)size)
    why = arena_printf(a, "%zu bytes of elements, not the %llu of its shape", len - data,
                       (unsigned long long)t->n * (unsigned long long)size);
  if (why) {
    free(bytes);
    return diag_error(d, "%s: %s", path, why);
  }
  t->data = ARENA_ARRAY(a, float, (size_t)t->n + 1);
  if (size == 4) cg_floats_from_le(u + data, t->n, t->data);
  for (int64_t i = 0; size == 2 && i < t->n; i++)   // float16: every half is a float exactly
    t->data[i] = elem_f16_to_f32((uint16_t)(u[data + 2 * (size_t)i] | u[data + 2 * (size_t)i + 1] << 8));
  for (int64_t i = 0; size == 8 && i < t->n; i++) {   // float64, little endian whatever the host, rounded
    const unsigned char *p = u + data + (size_t)i * 8;
    uint64_t bits = 0;
    for (int b = 7; b >= 0; b--) bits = bits << 8 | p[b];
    double v;
    memcpy(&v, &bits, sizeof v);
    t->data[i] = (float)v;
  }
  free(bytes);
  return true;
}

bool npy_write(const char *path, const OnnxTensor *t, Diag *d) {
  StrBuf h;
  sb_init(&h);
  sb_puts(&h, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
  for (int i = 0; i < t->rank; i++) sb_printf(&h, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
  if (t->rank == 1) sb_putc(&h, ',');   // Python's one-tuple
  sb_puts(&h, "), }");
  while ((MAGIC_LEN + 4 + h.len + 1) % 64) sb_putc(&h, ' ');   // the data 64-byte aligned, as numpy writes it
  sb_putc(&h, '\n');
  size_t n = MAGIC_LEN + 4 + h.len + (size_t)t->n * 4;
  unsigned char *buf = malloc(n + 1);
  if (!buf) cg_die("out of memory");
  memcpy(buf, MAGIC, MAGIC_LEN);
  buf[6] = 1, buf[7] = 0, buf[8] = (unsigned char)(h.len & 0xff), buf[9] = (unsigned char)(h.len >> 8);
  memcpy(buf + 10, sb_str(&h), h.len);
  cg_floats_to_le(t->data, t->n, buf + 10 + h.len);
  sb_free(&h);
  bool ok = file_write(path, (const char *)buf, n, d);
  free(buf);
  return ok;
}
