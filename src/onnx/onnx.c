/* onnx.c: reading an ONNX model (onnx.h). The file is unpacked by the code
 * protoc-c generates from onnx.proto (the Makefile does it when protobuf-c
 * is there: CONVGEN_ONNX), then copied into an OnnxModel of our own, every
 * tensor's shape inferred node by node in graph order (ONNX keeps its nodes
 * topologically sorted), each node by the shape rule of its operator's row
 * in the operator table (ops.c; the rules are shapes.c's, reading the node
 * through load.h). An operator not in the table, and what a rule does not
 * claim, are refused with the node, the operator and the reason; then the
 * convolutions take what fusion folds into them. */
#include "onnx/onnx.h"
#include "onnx/rows.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef CONVGEN_ONNX
#include "onnx/load.h"
#endif

bool onnx_in_half(const OnnxModel *m) { return m->half_inputs > 0; }

int64_t onnx_elems(const OnnxValue *v) {
  int64_t n;
  return onnx_dims_elems(v->dims, v->rank, &n) ? n : -1;
}

bool onnx_dims_elems(const int64_t *dims, int rank, int64_t *n) {
  *n = 1;
  if (rank < 0 || rank > ONNX_MAX_RANK) return false;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0 || dims[i] > ONNX_MAX_DIM || __builtin_mul_overflow(*n, dims[i], n)) return false;
  return *n <= ONNX_MAX_ELEMS;
}

/* ---- The listing (no protobuf needed) ---- */

static void put_shape(StrBuf *sb, const OnnxValue *v) {
  if (v->rank == 0) sb_puts(sb, "scalar");
  for (int i = 0; i < v->rank; i++) sb_printf(sb, "%s%lld", i ? "x" : "", (long long)v->dims[i]);
}

void onnx_print(StrBuf *sb, const OnnxModel *m) {
  sb_printf(sb, "model %s: ONNX IR version %lld, opset %lld%s%s\n", m->path, (long long)m->ir_version,
            (long long)m->opset, m->producer[0] ? ", made by " : "", m->producer);
  for (int i = 0; i < m->ninputs; i++) {
    sb_printf(sb, "input   %s: ", m->values[m->inputs[i]].name);
    put_shape(sb, &m->values[m->inputs[i]]);
    sb_putc(sb, '\n');
  }
  for (int i = 0; i < m->nbound; i++) {
    sb_printf(sb, "input   %s: ", m->bound[i].name);
    put_shape(sb, &m->values[m->bound[i].value]);
    sb_printf(sb, " (%s), bound as a constant from %s\n", m->bound[i].type, m->bound[i].file);
  }
  for (int i = 0; i < m->noutputs; i++) {
    sb_printf(sb, "output  %s: ", m->values[m->outputs[i]].name);
    put_shape(sb, &m->values[m->outputs[i]]);
    sb_putc(sb, '\n');
  }
  if (m->widened)
    sb_printf(sb, "float16 %d tensor%s (initializers, constants, inputs) read as float32, exactly; %s\n", m->widened,
              m->widened == 1 ? "" : "s",
              onnx_in_half(m) ? "run in fp16, as it is (--precision fp32: in fp32)" : "its inputs float32: run in fp32");
  int convs = 0;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    sb_printf(sb, "%4d  %-18s %-28s ", i, n->op, n->name);
    if (n->fused_into >= 0) {
      sb_printf(sb, "fused into node %d%s%s\n", n->fused_into, n->from ? "  " : "", n->from ? n->from : "");
      continue;
    }
    for (int k = 0; k < n->nout; k++) {
      if (n->out[k] < 0) continue;
      if (k) sb_puts(sb, ", ");
      put_shape(sb, &m->values[n->out[k]]);
    }
    if (n->is_conv) {
      convs++;
      StrBuf spec;
      sb_init(&spec);
      layer_format(&spec, &n->layer);
      sb_printf(sb, "  layer %s", sb_str(&spec));
      sb_free(&spec);
      for (int j = 0; j < m->nnodes; j++)   // (before it: the Mul of its input's scale)
        if (m->nodes[j].fused_into == i) {
          sb_printf(sb, " +%s", m->nodes[j].op);
          if (m->nodes[j].def->residual && n->residual >= 0)
            sb_printf(sb, " (residual '%s')", m->values[n->residual].name);
          if (j < i && n->scale >= 0) sb_printf(sb, " (scale '%s')", m->values[n->scale].name);
        }
      if (n->from) sb_printf(sb, "  %s", n->from);
    } else {
      if (n->detail && n->detail[0]) sb_printf(sb, "  %s", n->detail);
      if (n->from) sb_printf(sb, "  %s", n->from);
    }
    for (int j = 0, first = 1; !n->is_conv && j < i; j++)   // a chain's members, a Transpose read through
      if (m->nodes[j].fused_into == i) sb_printf(sb, "%s +%s", first ? "  computing" : "", m->nodes[j].op), first = 0;
    sb_putc(sb, '\n');
  }
  Arena *a = arena_new();
  int distinct = onnx_layers(m, a, NULL, NULL, 0);
  arena_free(a);
  sb_printf(sb, "convolutions: %d (%d distinct layer%s); nodes: %d\n", convs, distinct, distinct == 1 ? "" : "s",
            m->nnodes);
}

int onnx_layers(const OnnxModel *m, Arena *a, Layer *out, const char **names, int max) {
  int n = 0;
  Layer *seen = ARENA_ARRAY(a, Layer, (size_t)m->nnodes + 1);
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *nd = &m->nodes[i];
    if (!nd->is_conv) continue;
    bool dup = false;
    for (int j = 0; j < n && !dup; j++) dup = layer_equal(&seen[j], &nd->layer);
    if (dup) continue;
    if (n < max) {
      out[n] = nd->layer;
      names[n] = arena_printf(a, "%s:%s", m->path, nd->name);
    }
    seen[n++] = nd->layer;
  }
  return n;
}

OnnxModel *onnx_load(Arena *a, const char *path, int nbind, const char *const *binds, Diag *d) {
  return onnx_load_inputs(a, path, nbind, binds, 0, NULL, d);
}

#ifndef CONVGEN_ONNX

bool onnx_available(void) { return false; }

static bool no_reader(const char *path, Diag *d) {
  return diag_error(d, "%s: this convgen was built without an ONNX reader: install protobuf-c-compiler, "
                    "libprotobuf-c-dev and libonnx-dev (scripts/setup.sh does) and build it again", path);
}

OnnxModel *onnx_load_inputs(Arena *a, const char *path, int nbind, const char *const *binds, int nfiles,
                            const char *const *files, Diag *d) {
  (void)a, (void)nbind, (void)binds, (void)nfiles, (void)files;
  return no_reader(path, d), NULL;
}

bool onnx_tensor_read(Arena *a, const char *path, OnnxTensor *t, Diag *d) {
  (void)a, (void)t;
  return no_reader(path, d);
}

bool onnx_tensor_write(const char *path, const OnnxTensor *t, Diag *d) {
  (void)t;
  return no_reader(path, d);
}

#else

bool onnx_available(void) { return true; }

/* ---- Loading ---- */


bool ld_error(Load *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ld_error(Load *L, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_error(L->d, "%s: node %s (%s): %s", L->m->path, L->node->name, L->node->op, msg);
}

static uint64_t name_hash(const char *s) {   // FNV-1a
  uint64_t h = UINT64_C(14695981039346656037);
  for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
  return h;
}

/* Where name's value index is in L->slots, or the empty slot it would take:
 * a table, so that reading a graph of N nodes is not N^2 string compares. */
static int *slot_of(Load *L, const char *name) {
  size_t mask = (size_t)L->nslots - 1, i = (size_t)name_hash(name) & mask;
  while (L->slots[i] >= 0 && strcmp(L->m->values[L->slots[i]].name, name) != 0) i = (i + 1) & mask;
  return &L->slots[i];
}

static void grow_slots(Load *L) {
  L->nslots = L->nslots ? 2 * L->nslots : 256;
  L->slots = ARENA_ARRAY(L->a, int, (size_t)L->nslots);
  for (int i = 0; i < L->nslots; i++) L->slots[i] = -1;
  for (int v = 0; v < L->m->nvalues; v++) *slot_of(L, L->m->values[v].name) = v;
}

/* The value named name (made when missing); -1 for "" (an absent optional input). */
int ld_value_of(Load *L, const char *name) {
  if (!name || !name[0]) return -1;
  OnnxModel *m = L->m;
  if (2 * (m->nvalues + 1) > L->nslots) grow_slots(L);
  int *slot = slot_of(L, name);
  if (*slot >= 0) return *slot;
  *slot = m->nvalues;
  if (m->nvalues == L->cap) {
    int cap = L->cap ? 2 * L->cap : 64;   // the arrays moved to bigger ones (indices stay)
    OnnxValue *v = ARENA_ARRAY(L->a, OnnxValue, (size_t)cap);
    bool *k = ARENA_ARRAY(L->a, bool, (size_t)cap);
    const Onnx__TensorProto **t = ARENA_ARRAY(L->a, const Onnx__TensorProto *, (size_t)cap);
    if (m->nvalues) {   // (memcpy from the NULL of no array yet is undefined, even of 0 bytes)
      memcpy(v, m->values, sizeof *v * (size_t)m->nvalues);
      memcpy(k, L->known, sizeof *k * (size_t)m->nvalues);
      memcpy(t, L->init, sizeof *t * (size_t)m->nvalues);
    }
    m->values = v, L->known = k, L->init = t, L->cap = cap;
  }
  m->values[m->nvalues] = (OnnxValue){.name = arena_strdup(L->a, name)};
  L->known[m->nvalues] = false, L->init[m->nvalues] = NULL;
  return m->nvalues++;
}

/* The slot of name in L->names, or the empty one it would take. */
static const char **name_slot(Load *L, const char *name) {
  size_t mask = L->nnames - 1, i = (size_t)name_hash(name) & mask;
  while (L->names[i] && strcmp(L->names[i], name) != 0) i = (i + 1) & mask;
  return &L->names[i];
}

/* L->names: every name of the graph's inputs, initializers, outputs and
 * node outputs, once, so that a rewrite's value takes none a later node
 * defines (a graph is read node by node: those are not values yet). */
static void graph_names(Load *L) {
  const Onnx__GraphProto *g = L->g;
  size_t n = g->n_input + g->n_initializer + g->n_output;
  for (size_t i = 0; i < g->n_node; i++) n += g->node[i]->n_output;
  L->nnames = 16;
  while (L->nnames < 2 * n) L->nnames *= 2;
  L->names = ARENA_ARRAY(L->a, const char *, L->nnames);
  for (size_t i = 0; i < g->n_input; i++) *name_slot(L, g->input[i]->name ? g->input[i]->name : "") = g->input[i]->name;
  for (size_t i = 0; i < g->n_output; i++) *name_slot(L, g->output[i]->name ? g->output[i]->name : "") = g->output[i]->name;
  for (size_t i = 0; i < g->n_initializer; i++)
    *name_slot(L, g->initializer[i]->name ? g->initializer[i]->name : "") = g->initializer[i]->name;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t k = 0; k < g->node[i]->n_output; k++) *name_slot(L, g->node[i]->output[k]) = g->node[i]->output[k];
}

int ld_new_value(Load *L, const char *name) {
  if (!L->names) graph_names(L);
  const char *cand = name;
  for (int k = 2;; k++) {
    if (2 * (L->m->nvalues + 1) > L->nslots) grow_slots(L);
    if (*slot_of(L, cand) < 0 && !*name_slot(L, cand)) return ld_value_of(L, cand);
    cand = arena_printf(L->a, "%s#%d", name, k);
  }
}

OnnxNode *ld_rewrite(Load *L, int count) {
  OnnxModel *m = L->m;
  int at = (int)(L->node - m->nodes);
  if (at != m->nnodes - 1 || count < 1 || m->nnodes + count - 1 > L->cap_nodes)
    cg_die("ld_rewrite: node %s made into %d nodes, past the %d made room for (its row's more_nodes)", L->node->name,
           count, L->cap_nodes);
  for (int k = 1; k < count; k++) m->nodes[at + k] = m->nodes[at], L->proto[at + k] = L->proto[at];
  m->nnodes += count - 1;
  L->node = &m->nodes[at + count - 1];
  return &m->nodes[at];
}

/* ---- Attributes ---- */

const Onnx__AttributeProto *ld_attr(const Onnx__NodeProto *n, const char *name) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0) return n->attribute[i];
  return NULL;
}

int64_t ld_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def) {
  const Onnx__AttributeProto *a = ld_attr(n, name);
  return a && a->has_i ? a->i : def;
}

float ld_attr_float(const Onnx__NodeProto *n, const char *name, float def) {
  const Onnx__AttributeProto *a = ld_attr(n, name);
  return a && a->has_f ? a->f : def;
}

/* An ints attribute into out (at most max): its count, or -1 when absent. */
int ld_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int max) {
  const Onnx__AttributeProto *a = ld_attr(n, name);
  if (!a) return -1;
  int k = (int)(a->n_ints < (size_t)max ? a->n_ints : (size_t)max);
  for (int i = 0; i < k; i++) out[i] = a->ints[i];
  return (int)a->n_ints;
}

const char *ld_attr_string(Arena *ar, const Onnx__NodeProto *n, const char *name, const char *def) {
  const Onnx__AttributeProto *a = ld_attr(n, name);
  if (!a || !a->has_s) return def;
  return arena_printf(ar, "%.*s", (int)a->s.len, (const char *)a->s.data);
}

/* ---- Initializer data ---- */


/* Element i of an int64 initializer (data type 7). */
bool ld_init_i64(const Onnx__TensorProto *t, int64_t i, int64_t *out) {
  if (!t || !t->has_data_type || t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT64) return false;
  if (t->n_int64_data > (size_t)i) return *out = t->int64_data[i], true;
  if (t->has_raw_data && t->raw_data.len >= (size_t)(i + 1) * 8) {
    const uint8_t *p = t->raw_data.data + i * 8;
    uint64_t u = 0;
    for (int b = 7; b >= 0; b--) u = u << 8 | p[b];   // little endian
    return *out = (int64_t)u, true;
  }
  return false;
}

/* A float initializer's element 0 (data type 1; a float16 one's, data type
 * 10, as the float it is). */
bool ld_init_f32(const Onnx__TensorProto *t, float *out) {
  if (t && t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {
    if (t->n_int32_data > 0) return *out = elem_f16_to_f32((uint16_t)t->int32_data[0]), true;
    if (t->has_raw_data && t->raw_data.len >= 2)
      return *out = elem_f16_to_f32((uint16_t)(t->raw_data.data[0] | t->raw_data.data[1] << 8)), true;
    return false;
  }
  if (!t || !t->has_data_type || t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) return false;
  if (t->n_float_data > 0) return *out = t->float_data[0], true;
  if (t->has_raw_data && t->raw_data.len >= 4) {
    uint32_t u = (uint32_t)t->raw_data.data[0] | (uint32_t)t->raw_data.data[1] << 8 |
                 (uint32_t)t->raw_data.data[2] << 16 | (uint32_t)t->raw_data.data[3] << 24;
    memcpy(out, &u, sizeof *out);
    return true;
  }
  return false;
}

/* Every element of a float tensor (data type 1) into out[n]; false when it
 * is another type or holds another count. */
bool ld_tensor_floats(const Onnx__TensorProto *t, float *out, int64_t n) {
  if (!t->has_data_type || t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) return false;
  if (t->n_float_data) {
    if ((int64_t)t->n_float_data != n) return false;
    memcpy(out, t->float_data, sizeof *out * (size_t)n);
    return true;
  }
  if (!t->has_raw_data || (int64_t)t->raw_data.len != 4 * n) return n == 0;
  cg_floats_from_le(t->raw_data.data, n, out);
  return true;
}

/* A float16 tensor (data type 10) as the float32 tensor of the same values
 * (every half is a float exactly), a copy made in a; t itself when it is of
 * another type; NULL when it does not hold its n elements (int32_data, a
 * value's 16 bits each, or raw_data, 2 bytes each, little endian). A model
 * in float16 is read so and computed in fp32. */
static const Onnx__TensorProto *widen_half(Arena *a, const Onnx__TensorProto *t, int64_t n) {
  if (!t->has_data_type || t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) return t;
  bool from_ints = t->n_int32_data > 0;
  if (from_ints ? (int64_t)t->n_int32_data != n : (t->has_raw_data ? (int64_t)t->raw_data.len != 2 * n : n != 0))
    return NULL;
  Onnx__TensorProto *w = ARENA_NEW(a, Onnx__TensorProto);
  *w = *t;
  w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  w->n_int32_data = 0, w->int32_data = NULL, w->has_raw_data = false, w->raw_data.len = 0, w->raw_data.data = NULL;
  w->n_float_data = (size_t)n, w->float_data = ARENA_ARRAY(a, float, (size_t)n + 1);
  for (int64_t i = 0; i < n; i++) {
    uint16_t h = from_ints ? (uint16_t)t->int32_data[i]
                           : (uint16_t)(t->raw_data.data[2 * i] | t->raw_data.data[2 * i + 1] << 8);
    w->float_data[i] = elem_f16_to_f32(h);
  }
  return w;
}

/* ---- Shapes ---- */

OnnxValue *ld_in(Load *L, int k) { return &L->m->values[L->node->in[k]]; }

void ld_put_dims(StrBuf *sb, int rank, const int64_t *dims) {
  if (rank == 0) sb_puts(sb, "scalar");
  for (int i = 0; i < rank; i++) sb_printf(sb, "%s%lld", i ? "x" : "", (long long)dims[i]);
}

/* Output k's shape, within the bounds every value keeps (ONNX_MAX_DIM,
 * ONNX_MAX_ELEMS): a rule computes it in 64 bits from inputs within them,
 * and a shape past them is the model's error, not a size that wraps later. */
bool ld_set_out(Load *L, int k, int rank, const int64_t *dims) {
  if (k >= L->node->nout || L->node->out[k] < 0) return true;
  int64_t n;
  if (!onnx_dims_elems(dims, rank, &n)) {
    StrBuf sb;
    sb_init(&sb);
    ld_put_dims(&sb, rank, dims);
    ld_error(L, "output '%s' would have the shape %s, past what convgen takes (each dimension 0 to %lld, at most "
               "%lld elements)", L->m->values[L->node->out[k]].name, sb_str(&sb), (long long)ONNX_MAX_DIM,
               (long long)ONNX_MAX_ELEMS);
    sb_free(&sb);
    return false;
  }
  OnnxValue *v = &L->m->values[L->node->out[k]];
  v->rank = rank;
  memcpy(v->dims, dims, sizeof *dims * (size_t)rank);
  L->known[L->node->out[k]] = true;
  return true;
}

bool ld_has_input(Load *L, int k) { return L->node->nin > k && L->node->in[k] >= 0; }

bool ld_need_inputs(Load *L, int lo, int hi) {
  int n = L->node->nin;
  while (n > 0 && L->node->in[n - 1] < 0) n--;   // trailing absent optional inputs
  if (n < lo || n > hi) {
    if (lo == hi) return ld_error(L, "takes %d input%s, has %d", lo, lo == 1 ? "" : "s", n);
    return ld_error(L, "takes %d to %d inputs, has %d", lo, hi, n);
  }
  for (int k = 0; k < lo; k++)   // (a required input named "": no value to read)
    if (L->node->in[k] < 0) return ld_error(L, "input %d, which it needs, is absent", k);
  return true;
}

bool ld_need_rank(Load *L, int k, int rank, const char *what) {
  if (ld_in(L, k)->rank == rank) return true;
  return ld_error(L, "%s must have rank %d (got %d: %s)", what, rank, ld_in(L, k)->rank, ld_in(L, k)->name);
}

bool ld_need_init(Load *L, int k, const char *what) {
  if (L->node->in[k] >= 0 && L->init[L->node->in[k]]) return true;
  return ld_error(L, "%s ('%s') must be an initializer of the model (a constant): the output's shape depends on "
                    "its values", what, L->node->in[k] >= 0 ? ld_in(L, k)->name : "");
}

/* ---- Fusion ---- */

/* Who reads and who makes each value, counted once for the whole graph
 * (fusion asks for every convolution: a walk of the graph each time was
 * quadratic in its size). */
typedef struct Uses {
  int *readers;   // [value]: node inputs and graph outputs that read it
  int *reader;    // [value]: the last node that reads it (the only one when readers is 1), or -1
  int *first;     // [value]: the first node that reads it, or -1
  int *maker;     // [value]: the node that makes it, or -1 (a graph input or an initializer)
} Uses;

static Uses uses_of(Arena *a, const OnnxModel *m) {
  Uses u = {ARENA_ARRAY(a, int, (size_t)m->nvalues + 1), ARENA_ARRAY(a, int, (size_t)m->nvalues + 1),
            ARENA_ARRAY(a, int, (size_t)m->nvalues + 1), ARENA_ARRAY(a, int, (size_t)m->nvalues + 1)};
  for (int v = 0; v < m->nvalues; v++) u.readers[v] = 0, u.reader[v] = u.first[v] = u.maker[v] = -1;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    for (int k = 0; k < n->nin; k++)
      if (n->in[k] >= 0) {
        u.readers[n->in[k]]++, u.reader[n->in[k]] = i;
        if (u.first[n->in[k]] < 0) u.first[n->in[k]] = i;
      }
    for (int k = 0; k < n->nout; k++)
      if (n->out[k] >= 0) u.maker[n->out[k]] = i;
  }
  for (int i = 0; i < m->noutputs; i++) u.readers[m->outputs[i]]++;
  return u;
}

/* The one node reading value v, at any of its inputs, or -1 (none,
 * several, or a graph output). */
static int sole_reader(const Uses *u, int v) { return u->readers[v] == 1 ? u->reader[v] : -1; }

/* The one node reading value v, when it reads it as its first input, or -1. */
static int only_reader(const OnnxModel *m, const Uses *u, int v) {
  int i = sole_reader(u, v);
  return i >= 0 && m->nodes[i].in[0] == v ? i : -1;
}

/* ---- Activations: the node in hand (L->node, L->np) as a layer's act, the
 * operator table's act column ---- */

bool act_relu(Load *L, Layer *l) { return (void)L, l->act = ACT_RELU, true; }
bool act_sigmoid(Load *L, Layer *l) { return (void)L, l->act = ACT_SIGMOID, true; }
bool act_hardswish(Load *L, Layer *l) { return (void)L, l->act = ACT_HARDSWISH, true; }

/* LeakyRelu: fmax(x, alpha x) is its function only for alpha in (0, 1). */
bool act_leaky(Load *L, Layer *l) {
  float alpha = ld_attr_float(L->np, "alpha", 0.01f);
  if (!(alpha > 0 && alpha < 1)) return false;
  return l->act = ACT_LEAKY, l->act_a = alpha, true;
}

/* HardSigmoid: max(0, min(1, alpha x + beta)), alpha and beta within the
 * bounds a layer's act takes. */
bool act_hardsigmoid(Load *L, Layer *l) {
  float alpha = ld_attr_float(L->np, "alpha", 0.2f), beta = ld_attr_float(L->np, "beta", 0.5f);
  if (!(fabsf(alpha) <= LAYER_ACT_MAX && fabsf(beta) <= LAYER_ACT_MAX)) return false;   // (NaN: not fused)
  return l->act = ACT_HARDSIGMOID, l->act_a = alpha, l->act_b = beta, true;
}

/* Clip: its bounds attributes (opset < 11) or constant inputs; a bound
 * computed at run time is not fused. */
bool act_clip(Load *L, Layer *l) {
  const OnnxNode *n = L->node;
  float lo = ld_attr_float(L->np, "min", -3.4028235e38f), hi = ld_attr_float(L->np, "max", 3.4028235e38f);   // opset < 11
  if (n->nin > 1 && n->in[1] >= 0 && !ld_init_f32(L->init[n->in[1]], &lo)) return false;   // not a constant: not fused
  if (n->nin > 2 && n->in[2] >= 0 && !ld_init_f32(L->init[n->in[2]], &hi)) return false;
  if (lo == 0 && hi == 6) return l->act = ACT_RELU6, true;
  if (!(lo < hi) || lo < -LAYER_ACT_MAX || hi > LAYER_ACT_MAX) return false;
  return l->act = ACT_CLIP, l->act_a = lo, l->act_b = hi, true;
}

static bool shapes_equal(const OnnxValue *a, const OnnxValue *b) {
  return a->rank == b->rank && memcmp(a->dims, b->dims, sizeof *a->dims * (size_t)a->rank) == 0;
}

/* Node j, an Add that alone reads value v (the convolution i's output),
 * whose other input is a value of the Add's shape (no broadcast) made
 * before node i (or an input or initializer of the graph): that other
 * input, the residual i can add; else -1. Every strategy of a layer takes
 * residual=1 or refuses it with a reason, and direct, infer's kernel when a
 * layer is not tuned, takes every one: so the fused layer always runs. */
static int residual_of(const OnnxModel *m, const Uses *u, int i, int j, int v) {
  const OnnxNode *add = &m->nodes[j];
  if (!add->def->residual || add->nin != 2 || add->in[0] < 0 || add->in[1] < 0 || add->in[0] == add->in[1])
    return -1;
  int other = add->in[0] == v ? add->in[1] : add->in[0];
  if (!shapes_equal(&m->values[other], &m->values[add->out[0]]) || !shapes_equal(&m->values[v], &m->values[add->out[0]]))
    return -1;
  return u->maker[other] < i ? other : -1;
}

/* x * gate(x): value v read by exactly two nodes, a gate (an activation:
 * Sigmoid, or HardSigmoid with alpha 1/6 and beta 1/2) and a Mul of v and
 * the gate's output, which feeds nothing else. The Mul node, or -1; *gate
 * the gate node and *act the activation the two make: SiLU (EfficientNet,
 * RegNetY) or HardSwish (MobileNet V3 as older exporters write it). */
static int gated(const OnnxModel *m, const Uses *u, int v, int *gate, LayerAct *act) {
  const OpDef *mul = op_def("Mul");
  if (!mul || u->readers[v] != 2) return -1;
  int g = u->first[v], k = u->reader[v];
  if (m->nodes[g].def == mul) g = u->reader[v], k = u->first[v];
  const OnnxNode *gn = &m->nodes[g], *kn = &m->nodes[k];
  if (kn->def != mul || kn->nin != 2 || !gn->has_act || gn->nout < 1 || gn->in[0] != v) return -1;
  int s = gn->out[0];
  if (s < 0 || u->readers[s] != 1 || u->reader[s] != k || !((kn->in[0] == v && kn->in[1] == s) || (kn->in[0] == s && kn->in[1] == v)))
    return -1;
  const Layer *a = &gn->act;
  if (a->act == ACT_SIGMOID) *act = ACT_SILU;
  else if (a->act == ACT_HARDSIGMOID && fabsf(a->act_a - 1.0f / 6) < 1e-6f && a->act_b == 0.5f) *act = ACT_HARDSWISH;
  else return -1;
  *gate = g;
  return k;
}

/* Each convolution takes the BatchNormalization, then the residual Add,
 * then the activation that alone read its output, or x * gate(x) (folded
 * into its bias, its residual and its act). */
static void fuse(OnnxModel *m, const Uses *u) {
  for (int i = 0; i < m->nnodes; i++) {
    OnnxNode *c = &m->nodes[i];
    if (!c->is_conv) continue;
    int v = c->out[0], j = only_reader(m, u, v);
    if (j >= 0 && m->nodes[j].def->role == ROLE_AFFINE && !c->a_weights) {   // folded into the weights and the bias
      m->nodes[j].fused_into = i, c->layer.bias = true;
      v = m->nodes[j].out[0], j = only_reader(m, u, v);
    }
    int add = sole_reader(u, v), res = add >= 0 ? residual_of(m, u, i, add, v) : -1;
    if (res >= 0) {
      Layer l = c->layer;
      l.residual = true;
      Diag d = {0};
      if (layer_check(&l, &d)) {
        m->nodes[add].fused_into = i, c->layer = l, c->residual = res;
        v = m->nodes[add].out[0], j = only_reader(m, u, v);
      }
    }
    int gate = -1, mul = -1;
    LayerAct act = ACT_NONE;
    if (j >= 0 && m->nodes[j].has_act) {   // the activation read_graph found the node to be
      Layer l = c->layer;
      l.act = m->nodes[j].act.act, l.act_a = m->nodes[j].act.act_a, l.act_b = m->nodes[j].act.act_b;
      Diag d = {0};
      if (layer_check(&l, &d)) m->nodes[j].fused_into = i, c->layer = l;
    } else if (c->layer.act == ACT_NONE && (mul = gated(m, u, v, &gate, &act)) >= 0) {
      Layer l = c->layer;
      l.act = act, l.act_a = l.act_b = 0;
      Diag d = {0};
      if (layer_check(&l, &d)) m->nodes[gate].fused_into = m->nodes[mul].fused_into = i, c->layer = l;
    }
  }
}

/* Value s, [n][c][1][1], the per-channel scale of v, [n][c][h][w]. */
static bool channel_scale_of(const OnnxValue *s, const OnnxValue *v) {
  return s->rank == 4 && v->rank == 4 && s->dims[0] == v->dims[0] && s->dims[1] == v->dims[1] && s->dims[2] == 1 &&
         s->dims[3] == 1;
}

/* A squeeze-excite block's scale: a Mul of x and s, s a per-channel scale
 * of x made by a node ([n][c][1][1], not a constant), whose output one
 * dense convolution alone reads, as its input (not a MatMul run as a
 * convolution), joins that convolution as scale=1: the convolution reads x
 * and s and scales each product's input as it makes it (docs/conv.md), and
 * the scaled copy is never stored. Every strategy takes scale=1 or refuses
 * it with a reason (direct every layer), so the fused layer always runs.
 * After the other fusions: a Mul a chain computes stays in its chain. */
static void fuse_scales(OnnxModel *m, const Uses *u) {
  const OpDef *mul = op_def("Mul");
  for (int i = 0; mul && i < m->nnodes; i++) {
    OnnxNode *c = &m->nodes[i];
    int v = c->nin > 0 ? c->in[0] : -1, j = v >= 0 ? u->maker[v] : -1;
    if (!c->is_conv || c->a_weights || c->layer.scale || c->fused_into >= 0 || j < 0 || sole_reader(u, v) != i)
      continue;
    OnnxNode *k = &m->nodes[j];
    if (k->def != mul || k->nin != 2 || k->fused_into >= 0 || k->nchain || k->in[0] < 0 || k->in[1] < 0) continue;
    int s = -1, x = -1;
    for (int t = 0; t < 2 && s < 0; t++)
      if (channel_scale_of(&m->values[k->in[t]], &m->values[v]) && !m->values[k->in[t]].initializer &&
          shapes_equal(&m->values[k->in[1 - t]], &m->values[v]))
        s = k->in[t], x = k->in[1 - t];
    if (s < 0) continue;
    Layer l = c->layer;
    l.scale = true;
    Diag d = {0};
    if (!layer_check(&l, &d)) continue;   // a grouped convolution: the Mul runs alone
    c->layer = l, c->in[0] = x, c->scale = s, k->fused_into = i;
  }
}

/* Whether every read of value v is by root or a member of its chain (no
 * graph output, no other node). */
static bool read_in_chain(const OnnxModel *m, const Uses *u, const OnnxNode *root, int v) {
  int reads = 0;
  for (int k = -1; k < root->nchain; k++) {
    const OnnxNode *r = k < 0 ? root : &m->nodes[root->chain[k]];
    for (int s = 0; s < r->nin; s++) reads += r->in[s] == v;
  }
  return reads == u->readers[v];
}

/* Each elementwise node whose output only elementwise nodes of one chain
 * read is computed inside that chain's kernel (DNNFusion's one-to-one
 * chains, and values a chain reads twice, such as GELU's x): the value is
 * never stored, the chain's program computes it from the values it is
 * made of, where each reader reads it. Walked from the last node back, so
 * that a chain's members all join its last node (its root, the one that
 * stores); a member joins when its function is known at import
 * (ew_chain_member: a Transpose too, whose input the root then reads
 * through a transpose), infer would run it alone (no refusal), and the
 * chain stays one program (ew_chain_leaves: at most OP_MAX_INPUTS values
 * read, the fields of a zip) of at most CHAIN_MAX_MEMBERS members. Not
 * fused: a value that a graph output or a node outside the chain reads,
 * or a convolution's tail (fuse took those first). */
enum { CHAIN_MAX_MEMBERS = 32 };   // a chain's members at most: its checks are quadratic in them, and a
                                   // kernel's one expression stays short (20,000 Relus in a row import in linear time)
static void fuse_chains(Arena *a, OnnxModel *m, const Uses *u) {
  ChainLeaf leaves[OP_MAX_INPUTS + 1];
  for (int i = m->nnodes - 1; i >= 0; i--) {
    OnnxNode *p = &m->nodes[i];
    if (p->fused_into >= 0 || !ew_chain_member(p) || op_refusal(a, m, p)) continue;
    int c = u->reader[p->out[0]];   // the last node that reads it
    if (c < 0 || !ew_chain_member(&m->nodes[c])) continue;
    int root = m->nodes[c].fused_into >= 0 ? m->nodes[c].fused_into : c;
    OnnxNode *r = &m->nodes[root];
    if (!ew_chainable(r) || r->fused_into >= 0 || r->nchain >= CHAIN_MAX_MEMBERS ||
        (root == c && op_refusal(a, m, r)) || !read_in_chain(m, u, r, p->out[0]))
      continue;
    int *members = arena_extend(a, r->chain, (size_t)r->nchain, sizeof *members);
    members[r->nchain] = i;
    const int *was = r->chain;
    r->chain = members, r->nchain++;
    if (ew_chain_leaves(m, r, leaves, OP_MAX_INPUTS) < 0) {
      r->chain = was, r->nchain--;
      continue;
    }
    p->fused_into = root;
  }
}

/* A Transpose whose output only one node reads, as its first input, and
 * whose row reads through it (OpDef.reads_transposed: LayerNormalization
 * after ConvNeXt's transpose to channels-last), is fused into it: the
 * reader's program reads the Transpose's input through the transpose
 * (op_rows_input), and the transposed copy is never stored. */
static void fuse_transposes(Arena *a, OnnxModel *m, const Uses *u) {
  for (int i = 0; i < m->nnodes; i++) {
    OnnxNode *p = &m->nodes[i];
    if (p->fused_into >= 0 || strcmp(p->op, "Transpose") != 0 || !p->layout || op_refusal(a, m, p)) continue;
    int c = only_reader(m, u, p->out[0]);
    if (c < 0) continue;
    const OnnxNode *r = &m->nodes[c];
    if (r->def->reads_transposed && r->fused_into < 0 && !r->is_conv && !r->nchain && !op_refusal(a, m, r))
      p->fused_into = c;
  }
}

/* An AveragePool that alone reads a pointwise convolution's output (1x1,
 * stride 1, no padding, one group, no activation: DenseNet's transitions,
 * BN -> ReLU -> 1x1 -> AveragePool 2x2) runs before it, on the
 * convolution's input: each output pixel of such a convolution is one
 * linear map of its input pixel plus the bias, so the average of the maps
 * is the map of the average, and the convolution then computes on the
 * pooled plane (a 2x2 window: a quarter of the products), its full-size
 * output never stored. The pool has no padding or dilation and is not
 * ceil_mode (each window whole), and the two nodes are neighbours in graph
 * order (nothing else between them to reorder); before fusion, which then
 * sees the pool and the convolution in their new order. */
static bool pool_before_pointwise(Load *L, Uses *u) {
  OnnxModel *m = L->m;
  bool swapped = false;
  for (int i = 0; i + 1 < m->nnodes; i++) {
    OnnxNode *c = &m->nodes[i], *p = &m->nodes[i + 1];
    const Layer *l = &c->layer;
    const OnnxWindow *w = &p->win;
    if (strcmp(c->op, "Conv") != 0 || !c->is_conv || strcmp(p->op, "AveragePool") != 0 || p->in[0] != c->out[0] ||
        sole_reader(u, c->out[0]) != i + 1 || l->kh != 1 || l->kw != 1 || l->stride_h != 1 || l->stride_w != 1 || l->pad_h ||
        l->pad_w || l->pad_dh || l->pad_dw || layer_groups(l) != 1 || l->act != ACT_NONE || l->residual || l->scale)
      continue;
    if (w->pads[0] || w->pads[1] || w->pads[2] || w->pads[3] || w->dil[0] != 1 || w->dil[1] != 1 || w->ceil_mode)
      continue;
    const OnnxValue *y = &m->values[p->out[0]];
    int pooled = ld_new_value(L, arena_printf(L->a, "%s:pooled", c->name));
    if (pooled < 0) return false;
    OnnxNode conv = *c, pool = *p;
    pool.in = ARENA_ARRAY(L->a, int, 1), pool.out = ARENA_ARRAY(L->a, int, 1);
    pool.in[0] = c->in[0], pool.out[0] = pooled;
    conv.in = ARENA_ARRAY(L->a, int, (size_t)c->nin), conv.out = ARENA_ARRAY(L->a, int, 1);
    memcpy(conv.in, c->in, sizeof *c->in * (size_t)c->nin);
    conv.in[0] = pooled, conv.out[0] = p->out[0];
    conv.layer.h = (int)y->dims[2], conv.layer.w = (int)y->dims[3];
    Diag d = {0};
    if (!layer_check(&conv.layer, &d)) continue;   // (a 1x1 layer on a smaller plane: never refused)
    conv.from = arena_printf(L->a, "run after %s, which followed it (the average of a 1x1 convolution is the 1x1 "
                             "convolution of the average)", p->name);
    const Onnx__NodeProto *pp = L->proto[i + 1];
    L->proto[i + 1] = L->proto[i], L->proto[i] = pp;
    m->nodes[i] = pool, m->nodes[i + 1] = conv;
    L->node = &m->nodes[i];
    int64_t dims[4] = {y->dims[0], m->values[pool.in[0]].dims[1], y->dims[2], y->dims[3]};
    if (!ld_set_out(L, 0, 4, dims)) return false;
    swapped = true;
    i++;
  }
  if (swapped) *u = uses_of(L->a, m);   // (the two nodes' places, and the pooled value)
  return true;
}

/* ---- The model ---- */

/* A graph input's shape: its dims, a binding's where one names it. */
static bool input_shape(Load *L, const Onnx__ValueInfoProto *vi, int v, int nbind, const char *const *binds,
                        bool *bound) {
  OnnxValue *val = &L->m->values[v];
  const char *path = L->m->path;
  if (L->known[v]) return diag_error(L->d, "%s: input '%s' is listed twice", path, vi->name);
  for (int b = 0; b < nbind; b++) {
    const char *eq = strchr(binds[b], '=');
    if (!eq || strncmp(binds[b], vi->name, (size_t)(eq - binds[b])) != 0 || vi->name[eq - binds[b]]) continue;
    bound[b] = true;
    int r = 0;
    for (const char *s = eq + 1; *s;) {
      char *end;
      errno = 0;
      long long dv = strtoll(s, &end, 10);
      if (end == s || dv < 1 || r == ONNX_MAX_RANK || (*end && (*end != 'x' || !end[1])))   // (a trailing x too)
        return diag_error(L->d, "--shape %s: expected NAME=D1xD2x... with positive dimensions", binds[b]);
      if (dv > ONNX_MAX_DIM || errno == ERANGE)   // (4294967298 was read as 2 further on)
        return diag_error(L->d, "--shape %s: a dimension past %lld", binds[b], (long long)ONNX_MAX_DIM);
      val->dims[r++] = dv;
      s = *end ? end + 1 : end;
    }
    if (r == 0) return diag_error(L->d, "--shape %s: expected NAME=D1xD2x... with positive dimensions", binds[b]);
    int64_t n;
    if (!onnx_dims_elems(val->dims, r, &n))
      return diag_error(L->d, "--shape %s: more than %lld elements", binds[b], (long long)ONNX_MAX_ELEMS);
    val->rank = r;
    L->known[v] = true;
    return true;
  }
  const Onnx__TypeProto *t = vi->type;
  if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type || !t->tensor_type->shape)
    return diag_error(L->d, "%s: input '%s' has no tensor shape: give it with --shape %s=D1xD2x...", path, vi->name,
                      vi->name);
  const Onnx__TensorShapeProto *s = t->tensor_type->shape;
  if (s->n_dim > ONNX_MAX_RANK) return diag_error(L->d, "%s: input '%s' has rank %zu", path, vi->name, s->n_dim);
  val->rank = (int)s->n_dim;
  for (size_t i = 0; i < s->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *dm = s->dim[i];
    if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || dm->dim_value < 1)
      return diag_error(L->d, "%s: input '%s' has a dimension without a value (%s): give its shape with --shape "
                        "%s=D1xD2x...", path, vi->name,
                        dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? dm->dim_param : "?",
                        vi->name);
    if (dm->dim_value > ONNX_MAX_DIM)
      return diag_error(L->d, "%s: input '%s' has a dimension of %lld, more than %lld", path, vi->name,
                        (long long)dm->dim_value, (long long)ONNX_MAX_DIM);
    val->dims[i] = dm->dim_value;
  }
  int64_t n;
  if (!onnx_dims_elems(val->dims, val->rank, &n))
    return diag_error(L->d, "%s: input '%s' has more than %lld elements", path, vi->name, (long long)ONNX_MAX_ELEMS);
  L->known[v] = true;
  return true;
}

/* The TensorProto in the file at path (an --input or --expect file),
 * unpacked: free it with onnx__tensor_proto__free_unpacked. NULL when the
 * file cannot be read (*unread set, with why) or protobuf cannot read it
 * as a TensorProto (*unread not set); each caller names the file its way. */
static Onnx__TensorProto *tensor_file(const char *path, Diag *unread) {
  size_t len = 0;
  char *bytes = file_read_capped(path, ONNX_MAX_FILE_BYTES, ONNX_MAX_STREAM_BYTES, &len, unread);
  if (!bytes) return NULL;
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, (const uint8_t *)bytes);
  free(bytes);
  return tp;
}

/* A graph input's declared element type; 1 (float32) when it declares none. */
static int tensor_elem_type(const Onnx__ValueInfoProto *vi) {
  const Onnx__TypeProto *ty = vi->type;
  if (ty && ty->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && ty->tensor_type && ty->tensor_type->has_elem_type)
    return (int)ty->tensor_type->elem_type;
  return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
}

/* The elements of tensor tp, of integer data type 7 (int64) or 6 (int32),
 * as int64 into out[n]; false when it does not hold n of them. */
static bool tensor_ints(const Onnx__TensorProto *tp, int64_t *out, int64_t n) {
  bool i64 = tp->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  size_t size = i64 ? 8 : 4, given = i64 ? tp->n_int64_data : tp->n_int32_data;
  if (given) {
    if ((int64_t)given != n) return false;
    for (int64_t i = 0; i < n; i++) out[i] = i64 ? tp->int64_data[i] : tp->int32_data[i];
    return true;
  }
  if (!tp->has_raw_data) return n == 0;
  if ((uint64_t)tp->raw_data.len != size * (uint64_t)n) return false;
  for (int64_t i = 0; i < n; i++) {   // little endian, whatever the host's order
    const uint8_t *p = tp->raw_data.data + (size_t)i * size;
    uint64_t u = 0;
    for (int b = (int)size - 1; b >= 0; b--) u = u << 8 | p[b];
    out[i] = i64 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
  }
  return true;
}

/* Graph input vi (value v, of integer type: int64 or int32) as a constant:
 * the tensor in file, of vi's type and of the shape vi declares (a
 * dimension without a value takes any), made an int64 initializer in the
 * arena (the folds and the import_inputs rules read int64). */
static bool bind_input(Load *L, const Onnx__ValueInfoProto *vi, int v, const char *file) {
  const char *path = L->m->path;
  int type = tensor_elem_type(vi);
  const char *tname = type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? "int64" : "int32";
  if (L->known[v]) return diag_error(L->d, "%s: input '%s' is listed twice", path, vi->name);
  Diag rd = {0};
  Onnx__TensorProto *tp = tensor_file(file, &rd);
  if (!tp && rd.set) return diag_error(L->d, "--input for input '%s': %s", vi->name, rd.msg);
  if (!tp)
    return diag_error(L->d, "%s: not a tensor file: protobuf cannot read it as a TensorProto (the --input of input "
                      "'%s')", file, vi->name);
  int got = tp->has_data_type ? tp->data_type : 0;
  bool ok = true;
  int64_t n = 0;
  if (got != type)
    ok = diag_error(L->d, "%s: a tensor of data type %d, for input '%s', which is %s (data type %d)", file, got,
                    vi->name, tname, type);
  else if (tp->n_dims > ONNX_MAX_RANK || !onnx_dims_elems(tp->dims, (int)tp->n_dims, &n))
    ok = diag_error(L->d, "%s: a tensor of rank %zu or more than %lld elements, for input '%s'", file, tp->n_dims,
                    (long long)ONNX_MAX_ELEMS, vi->name);
  else if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    ok = diag_error(L->d, "%s: the tensor keeps its data in an external file, which is not read", file);
  const Onnx__TensorShapeProto *sh = vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                                     vi->type->tensor_type ? vi->type->tensor_type->shape : NULL;
  bool differ = sh && sh->n_dim != tp->n_dims;
  for (size_t k = 0; ok && sh && !differ && k < sh->n_dim; k++)
    differ = sh->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
             sh->dim[k]->dim_value != tp->dims[k];
  if (ok && differ) {
    StrBuf sb;
    sb_init(&sb);
    ld_put_dims(&sb, (int)tp->n_dims, tp->dims);
    sb_puts(&sb, ", declared ");
    for (size_t k = 0; k < sh->n_dim; k++) {
      const Onnx__TensorShapeProto__Dimension *dm = sh->dim[k];
      if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        sb_printf(&sb, "%s%lld", k ? "x" : "", (long long)dm->dim_value);
      else sb_printf(&sb, "%s?", k ? "x" : "");
    }
    if (!sh->n_dim) sb_puts(&sb, "scalar");
    ok = diag_error(L->d, "%s: the tensor's shape is not input '%s''s: %s", file, vi->name, sb_str(&sb));
    sb_free(&sb);
  }
  Onnx__TensorProto *t = ARENA_NEW(L->a, Onnx__TensorProto);
  if (ok) {   // the copy the model keeps: its elements as int64, in the arena
    onnx__tensor_proto__init(t);
    t->name = arena_strdup(L->a, vi->name);
    t->n_dims = tp->n_dims, t->dims = ARENA_ARRAY(L->a, int64_t, tp->n_dims + 1);
    for (size_t k = 0; k < tp->n_dims; k++) t->dims[k] = tp->dims[k];
    t->has_data_type = true, t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    t->n_int64_data = (size_t)n, t->int64_data = ARENA_ARRAY(L->a, int64_t, (size_t)n + 1);
    if (!tensor_ints(tp, t->int64_data, n))
      ok = diag_error(L->d, "%s: not an %s tensor of its %lld elements, for input '%s'", file, tname, (long long)n,
                      vi->name);
  }
  onnx__tensor_proto__free_unpacked(tp, NULL);
  return ok && ld_add_initializer(L, v, t, vi->name);
}

/* t, whose data is in an external file (ONNX's external data: the keys
 * location, offset and length; torch.onnx's dynamo exporter writes every
 * initializer so, into MODEL.onnx.data), as a copy holding that data as its
 * raw_data, n elements of bytes each; NULL with the error. The location is a
 * path relative to the model's folder that does not leave it (no absolute
 * path, no ".."), and the span lies within the file. */
static const Onnx__TensorProto *external_data(Load *L, const Onnx__TensorProto *t, const char *what, int64_t n,
                                              size_t bytes) {
  const char *path = L->m->path, *loc = NULL;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = t->external_data[i]->key ? t->external_data[i]->key : "";
    const char *val = t->external_data[i]->value ? t->external_data[i]->value : "";
    char *end;
    errno = 0;
    if (strcmp(k, "location") == 0) loc = val;
    else if (strcmp(k, "offset") == 0 || strcmp(k, "length") == 0) {
      long long x = strtoll(val, &end, 10);
      if (!val[0] || *end || errno || x < 0)
        return diag_error(L->d, "%s: initializer '%s': external data %s '%s' is not a number", path, what, k, val), NULL;
      *(strcmp(k, "offset") == 0 ? &offset : &length) = x;
    }
  }
  if (!loc || !loc[0] || loc[0] == '/' || strstr(loc, ".."))
    return diag_error(L->d, "%s: initializer '%s': external data needs a location inside the model's folder (got "
                      "'%s')", path, what, loc ? loc : ""), NULL;
  uint64_t want = (uint64_t)n * bytes;
  if (length >= 0 && (uint64_t)length != want)
    return diag_error(L->d, "%s: initializer '%s': external data of %lld bytes for the %llu its shape holds", path,
                      what, (long long)length, (unsigned long long)want), NULL;
  const char *slash = strrchr(path, '/');
  const char *file = arena_printf(L->a, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, loc);
  FILE *f = fopen(file, "rb");
  if (!f) return diag_error(L->d, "%s: initializer '%s': %s: %s", path, what, file, strerror(errno)), NULL;
  struct stat st;
  bool ok = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)offset <= (uint64_t)st.st_size &&
            want <= (uint64_t)st.st_size - (uint64_t)offset;
  uint8_t *data = ok ? arena_alloc(L->a, (size_t)want + 1) : NULL;
  ok = ok && fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(data, 1, (size_t)want, f) == (size_t)want;
  fclose(f);
  if (!ok)
    return diag_error(L->d, "%s: initializer '%s': %s does not hold its %llu bytes at offset %lld", path, what, file,
                      (unsigned long long)want, (long long)offset), NULL;
  Onnx__TensorProto *c = ARENA_NEW(L->a, Onnx__TensorProto);
  *c = *t;
  c->has_data_location = false, c->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
  c->n_external_data = 0, c->external_data = NULL, c->n_float_data = 0, c->n_int64_data = 0;
  c->has_raw_data = true, c->raw_data.len = (size_t)want, c->raw_data.data = data;
  return c;
}

/* Value v as the constant tensor t (an initializer, or a Constant node's
 * value; what names it in messages). */
bool ld_add_initializer(Load *L, int v, const Onnx__TensorProto *t, const char *what) {
  OnnxModel *m = L->m;
  if (L->known[v])   // ONNX's graphs are in SSA form; a second definition was read at the first's size
    return diag_error(L->d, "%s: '%s' is defined twice (a name is given one value in an ONNX graph)", m->path, what);
  if (t->n_dims > ONNX_MAX_RANK) return diag_error(L->d, "%s: initializer '%s' has rank %zu", m->path, what, t->n_dims);
  int64_t n;
  if (!onnx_dims_elems(t->dims, (int)t->n_dims, &n)) {
    StrBuf sb;
    sb_init(&sb);
    ld_put_dims(&sb, (int)t->n_dims, t->dims);
    diag_error(L->d, "%s: initializer '%s' has the shape %s: each dimension must be 0 to %lld and the elements at most "
               "%lld", m->path, what, sb_str(&sb), (long long)ONNX_MAX_DIM, (long long)ONNX_MAX_ELEMS);
    sb_free(&sb);
    return false;
  }
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
    bool f32 = t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
         i64 = t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
         f16 = t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    if (f32 || i64 || f16) {   // (the data of other types is never read: their values have none)
      if (!(t = external_data(L, t, what, n, f32 ? 4 : f16 ? 2 : 8))) return false;
    }
  }
  const Onnx__TensorProto *wide = widen_half(L->a, t, n);
  if (!wide)
    return diag_error(L->d, "%s: initializer '%s' does not hold the %lld float16 values of its shape", m->path, what,
                      (long long)n);
  if (wide != t) m->widened++;
  t = wide;
  OnnxValue *val = &m->values[v];
  val->initializer = true, val->rank = (int)t->n_dims;
  for (size_t k = 0; k < t->n_dims; k++) val->dims[k] = t->dims[k];
  L->known[v] = true, L->init[v] = t;
  if (t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
    // the data is there before its room is made: a shape of 2^31 floats
    // without them was 8 GB allocated and zeroed, then refused
    bool held = t->n_float_data ? (int64_t)t->n_float_data == n
                                : (t->has_raw_data ? (uint64_t)t->raw_data.len == 4 * (uint64_t)n : n == 0);
    if (!held)
      return diag_error(L->d, "%s: initializer '%s' does not hold the %lld floats of its shape", m->path, what,
                        (long long)n);
    float *f = ARENA_ARRAY(L->a, float, (size_t)n + 1);
    if (!ld_tensor_floats(t, f, n))
      return diag_error(L->d, "%s: initializer '%s' does not hold the %lld floats of its shape", m->path, what,
                        (long long)n);
    val->data = f;
  }
  return true;
}

static bool graph_output(const Onnx__GraphProto *g, const char *name) {
  for (size_t i = 0; i < g->n_output; i++)
    if (g->output[i]->name && strcmp(g->output[i]->name, name) == 0) return true;
  return false;
}

static bool read_graph(Load *L, const Onnx__GraphProto *g, int nbind, const char *const *binds, int nfiles,
                       const char *const *files) {
  OnnxModel *m = L->m;
  Arena *a = L->a;
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto *t = g->initializer[i];
    if (!t->name || !t->name[0]) return diag_error(L->d, "%s: initializer %zu has no name", m->path, i);
    if (!ld_add_initializer(L, ld_value_of(L, t->name), t, t->name)) return false;
  }
  bool *bound = ARENA_ARRAY(a, bool, (size_t)nbind + 1);
  for (int b = 0; b < nbind; b++) {   // each binding names an input: said before any input's own error
    const char *eq = strchr(binds[b], '=');
    size_t len = eq ? (size_t)(eq - binds[b]) : strlen(binds[b]);
    bool found = false;
    for (size_t i = 0; i < g->n_input && !found; i++)
      found = g->input[i]->name && strlen(g->input[i]->name) == len && strncmp(g->input[i]->name, binds[b], len) == 0;
    if (!found) return diag_error(L->d, "--shape %s: the graph has no input of that name", binds[b]);
  }
  m->inputs = ARENA_ARRAY(a, int, g->n_input + 1);
  m->input_file = ARENA_ARRAY(a, int, g->n_input + 1);
  OnnxBound *bnd = ARENA_ARRAY(a, OnnxBound, g->n_input + 1);
  m->bound = bnd;
  int place = 0;   // among the graph's inputs, initializers excluded: the --input file's index
  for (size_t i = 0; i < g->n_input && nfiles; i++) {   // the files are every input's, first
    int v = ld_value_of(L, g->input[i]->name);
    place += v >= 0 && !m->values[v].initializer;
  }
  if (nfiles && nfiles != place)
    return diag_error(L->d, "%s has %d input%s; %d --input given (in the graph's order, initializers excluded)",
                      m->path, place, place == 1 ? "" : "s", nfiles);
  place = 0;
  for (size_t i = 0; i < g->n_input; i++) {
    int v = ld_value_of(L, g->input[i]->name);
    if (v < 0) return diag_error(L->d, "%s: graph input %zu has no name", m->path, i);
    if (m->values[v].initializer) continue;   // an initializer listed as an input too (older exporters)
    int type = tensor_elem_type(g->input[i]);
    if (type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32) {
      if (place >= nfiles)   // (none given: --input files are all the inputs' or none)
        return diag_error(L->d, "%s: input '%s' has element type %s (%d): convgen takes an integer input as a "
                          "constant, its values given with --input FILE.pb (the graph's input %d, initializers "
                          "excluded)", m->path, g->input[i]->name,
                          type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? "int64" : "int32", type, place);
      if (!bind_input(L, g->input[i], v, files[place])) return false;
      bnd[m->nbound++] = (OnnxBound){.name = m->values[v].name, .file = arena_strdup(a, files[place]),
                                     .type = type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? "int64" : "int32",
                                     .value = v};
      place++;
      continue;
    }
    if (type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) m->widened++, m->half_inputs++;   // read as float32
    else if (type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)   // (an int64 input ran nothing, exit 0)
      return diag_error(L->d, "%s: input '%s' has element type %d; convgen runs models of float32 and float16 inputs "
                        "(types 1 and 10) and takes int64 and int32 ones as constants (--input)", m->path,
                        g->input[i]->name, type);
    if (!input_shape(L, g->input[i], v, nbind, binds, bound)) return false;
    m->values[v].graph_input = true;
    m->input_file[m->ninputs] = place++;
    m->inputs[m->ninputs++] = v;
  }
  for (int b = 0; b < nbind; b++)
    if (!bound[b]) return diag_error(L->d, "--shape %s: that input is an initializer (a constant), not bound", binds[b]);
  size_t cap = g->n_node + 1;   // room for a node per output of a per_output row (Split), a rewrite's nodes
  for (size_t i = 0; i < g->n_node; i++) {
    const OpDef *d = g->node[i]->op_type ? op_def(g->node[i]->op_type) : NULL;
    cap += g->node[i]->n_output > 1 ? g->node[i]->n_output - 1 : 0;
    cap += d ? (size_t)d->more_nodes : 0;
  }
  m->nodes = ARENA_ARRAY(a, OnnxNode, cap);
  // [node]: its NodeProto (Constant nodes are not kept: node i is not always g->node[i])
  const Onnx__NodeProto **proto = L->proto = ARENA_ARRAY(a, const Onnx__NodeProto *, cap);
  L->cap_nodes = (int)cap, L->g = g;
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *np = proto[m->nnodes] = g->node[i];
    OnnxNode *n = &m->nodes[m->nnodes++];
    *n = (OnnxNode){.name = np->name && np->name[0] ? arena_strdup(a, np->name) : arena_printf(a, "#%zu", i),
                    .op = arena_strdup(a, np->op_type ? np->op_type : ""), .fused_into = -1, .residual = -1, .scale = -1,
                    .detail = ""};
    L->np = np, L->node = n;
    if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0)
      return ld_error(L, "operator domain '%s' is not claimed (only the default, ai.onnx)", np->domain);
    n->nin = (int)np->n_input, n->nout = (int)np->n_output;
    n->in = ARENA_ARRAY(a, int, np->n_input + 1);
    n->out = ARENA_ARRAY(a, int, np->n_output + 1);
    for (size_t k = 0; k < np->n_input; k++) {
      n->in[k] = ld_value_of(L, np->input[k]);
      if (n->in[k] >= 0 && !L->known[n->in[k]])
        return ld_error(L, "input '%s' is made by no node before it, nor is it an input or initializer of the graph",
                          np->input[k]);
    }
    for (size_t k = 0; k < np->n_output; k++) {   // ONNX's graphs are SSA: each name defined once
      int v = n->out[k] = ld_value_of(L, np->output[k]);
      bool twice = v >= 0 && L->known[v];
      for (size_t j = 0; j < k && !twice; j++) twice = v >= 0 && n->out[j] == v;
      if (twice)
        return ld_error(L, "output '%s' is already defined (an input or initializer of the graph, or another node's "
                          "output): a name is given one value in an ONNX graph", np->output[k]);
    }
    // shape arithmetic on int64 constants (Add, Mul, Concat... of fold.c's
    // own table), folded before any row: those rows compute floats
    int folded = fold_int64(L);
    if (folded < 0) return false;
    if (folded) {
      m->nnodes--;
      continue;
    }
    if (!(n->def = op_def(n->op))) return ld_error(L, "operator not supported (convgen takes %s)", onnx_operators());
    if (n->def->role == ROLE_CONSTANT && !n->def->fold) {   // an initializer, not a node
      if (!n->def->shape(L)) return false;
      m->nnodes--;
      continue;
    }
    // an Identity of an initializer is that initializer under another name:
    // torch's exporter shares equal weights so (VGG-16's zero biases), and a
    // Gemm runs as a convolution only with its C an initializer
    if (strcmp(n->op, "Identity") == 0 && n->nin == 1 && n->in[0] >= 0 && L->init[n->in[0]] && n->nout == 1 &&
        n->out[0] >= 0 && !graph_output(g, np->output[0])) {
      if (!ld_add_initializer(L, n->out[0], L->init[n->in[0]], m->values[n->out[0]].name)) return false;
      m->nnodes--;
      continue;
    }
    const OpDef *row = n->def;
    if (!row->shape(L)) return false;
    if (row->more_nodes) continue;   // rewritten by its rule: its nodes made, their outputs' shapes set
    // a fold: the outputs computed here as initializers when every input is
    // a constant (always for a ROLE_CONSTANT row, whose fold says what it
    // needs), and the node not kept (fold.c)
    bool constant = n->def->fold != NULL;
    for (int k = 0; k < n->nin && constant && n->def->role != ROLE_CONSTANT; k++)
      constant = n->in[k] < 0 || L->init[n->in[k]];
    if (constant) {
      if (!n->def->fold(L)) return false;
      m->nnodes--;
    } else if (n->def->per_output && n->nout > 1) {   // one node per output, its layout the k-th (Split)
      OnnxNode whole = *n;
      m->nnodes--;
      for (int k = 0; k < whole.nout; k++) {
        if (whole.out[k] < 0) continue;
        OnnxNode *o = &m->nodes[m->nnodes];
        proto[m->nnodes++] = np;
        *o = whole;
        o->name = arena_printf(a, "%s:%d", whole.name, k);
        o->out = ARENA_ARRAY(a, int, 1);
        o->out[0] = whole.out[k], o->nout = 1, o->layout = &whole.layout[k];
      }
    }
  }
  if (g->n_output == 0) return diag_error(L->d, "%s: the graph has no outputs: there is nothing to compute", m->path);
  m->outputs = ARENA_ARRAY(a, int, g->n_output + 1);
  for (size_t i = 0; i < g->n_output; i++) {
    const Onnx__ValueInfoProto *vi = g->output[i];
    int v = ld_value_of(L, vi->name);
    if (v < 0 || !L->known[v]) return diag_error(L->d, "%s: graph output '%s' is made by no node", m->path, vi->name);
    m->outputs[m->noutputs++] = v;
    // a shape the model declares is what the nodes make (a check on the model and on the rules above)
    const Onnx__TypeProto *t = vi->type;
    const Onnx__TensorShapeProto *sh = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type
                                           ? t->tensor_type->shape : NULL;
    bool differ = sh && (int)sh->n_dim != m->values[v].rank;
    for (size_t k = 0; sh && !differ && k < sh->n_dim; k++)
      differ = sh->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
               sh->dim[k]->dim_value != m->values[v].dims[k];
    if (differ) {
      StrBuf got;
      sb_init(&got);
      put_shape(&got, &m->values[v]);
      diag_error(L->d, "%s: graph output '%s' is declared with another shape than the nodes make (%s)", m->path,
                 vi->name, sb_str(&got));
      sb_free(&got);
      return false;
    }
  }
  Uses u = uses_of(a, m);
  if (!pool_before_pointwise(L, &u)) return false;
  for (int i = 0; i < m->nnodes; i++) {   // what running a node needs of its attributes
    OnnxNode *n = &m->nodes[i];
    n->eps = ld_attr_float(proto[i], "epsilon", 1e-5f);
    L->np = proto[i], L->node = n;
    n->has_act = n->def->act && n->def->act(L, &n->act);
    if (strcmp(n->op, "Dropout") == 0 && n->nout > 1 && n->out[1] >= 0 && u.readers[n->out[1]] > 0) {
      return ld_error(L, "its mask output '%s' is read (by a node or as a graph output): a boolean tensor, which "
                        "convgen does not compute (the output it takes is the first, the input passed through)",
                        m->values[n->out[1]].name);
    }
  }
  fuse(m, &u);
  fuse_chains(a, m, &u);
  fuse_transposes(a, m, &u);
  fuse_scales(m, &u);
  return true;
}

OnnxModel *onnx_load_inputs(Arena *a, const char *path, int nbind, const char *const *binds, int nfiles,
                            const char *const *files, Diag *d) {
  size_t len = 0;
  Diag rd = {0};
  char *bytes = file_read_capped(path, ONNX_MAX_FILE_BYTES, ONNX_MAX_STREAM_BYTES, &len, &rd);
  if (!bytes) return diag_error(d, "%s", rd.msg), NULL;
  Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, (const uint8_t *)bytes);
  free(bytes);
  if (!mp)
    return diag_error(d, "%s: not an ONNX model: protobuf cannot read it as a ModelProto (a truncated file, or "
                      "another format)", path), NULL;
  OnnxModel *m = ARENA_NEW(a, OnnxModel);
  m->path = arena_strdup(a, path);
  m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
  for (size_t i = 0; i < mp->n_opset_import; i++)
    if (!mp->opset_import[i]->domain || !mp->opset_import[i]->domain[0] ||
        strcmp(mp->opset_import[i]->domain, "ai.onnx") == 0)
      m->opset = mp->opset_import[i]->version;
  m->producer = arena_printf(a, "%s%s%s", mp->producer_name ? mp->producer_name : "",
                             mp->producer_version && mp->producer_version[0] ? " " : "",
                             mp->producer_version ? mp->producer_version : "");
  bool ok = true;
  if (!mp->graph) ok = diag_error(d, "%s: the model has no graph", path);
  else if (m->ir_version < 3) ok = diag_error(d, "%s: ONNX IR version %lld: convgen reads 3 and later", path, (long long)m->ir_version);
  Load L = {.a = a, .d = d, .m = m};
  if (ok) ok = read_graph(&L, mp->graph, nbind, binds, nfiles, files);
  onnx__model_proto__free_unpacked(mp, NULL);
  return ok ? m : NULL;
}

/* ---- Tensor files ---- */

bool onnx_tensor_read(Arena *a, const char *path, OnnxTensor *t, Diag *d) {
  if (npy_file(path)) return npy_read(a, path, t, d);
  Diag rd = {0};
  Onnx__TensorProto *tp = tensor_file(path, &rd);
  if (!tp && rd.set) return diag_error(d, "%s", rd.msg);
  if (!tp)
    return diag_error(d, "%s: not a tensor file: protobuf cannot read it as a TensorProto, and it is not a .npy file "
                      "(its first bytes are not numpy's magic)", path);
  bool ok = true;
  *t = (OnnxTensor){.name = arena_strdup(a, tp->name ? tp->name : ""), .rank = (int)tp->n_dims, .n = 1};
  if (tp->n_dims > ONNX_MAX_RANK) ok = diag_error(d, "%s: a tensor of rank %zu", path, tp->n_dims);
  for (size_t i = 0; ok && i < tp->n_dims; i++) {
    if (tp->dims[i] < 0 || tp->dims[i] > ONNX_MAX_DIM) ok = diag_error(d, "%s: dimension %zu is %lld", path, i, (long long)tp->dims[i]);
    else t->dims[i] = tp->dims[i];
  }
  if (ok && !onnx_dims_elems(t->dims, t->rank, &t->n))   // (the product wrapped: 60 elements claimed 1.8e19)
    ok = diag_error(d, "%s: more than %lld elements", path, (long long)ONNX_MAX_ELEMS);
  if (ok && tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    ok = diag_error(d, "%s: the tensor keeps its data in an external file, which is not read", path);
  const Onnx__TensorProto *wide = ok ? widen_half(a, tp, t->n) : tp;   // float16: read as float32
  if (ok && !wide)
    ok = diag_error(d, "%s: not a float16 tensor of its %lld elements", path, (long long)t->n);
  bool held = ok && (wide->n_float_data ? (int64_t)wide->n_float_data == t->n
                                        : (wide->has_raw_data ? (uint64_t)wide->raw_data.len == 4 * (uint64_t)t->n
                                                              : t->n == 0));
  if (ok && !held)
    ok = diag_error(d, "%s: not a float32 tensor of its %lld elements (data type %d)", path, (long long)t->n,
                    tp->has_data_type ? tp->data_type : 0);
  if (ok) {
    t->data = ARENA_ARRAY(a, float, (size_t)t->n + 1);
    if (!ld_tensor_floats(wide, t->data, t->n))
      ok = diag_error(d, "%s: not a float32 tensor of its %lld elements (data type %d)", path, (long long)t->n,
                      tp->has_data_type ? tp->data_type : 0);
  }
  onnx__tensor_proto__free_unpacked(tp, NULL);
  return ok;
}

bool onnx_tensor_write(const char *path, const OnnxTensor *t, Diag *d) {
  size_t len = strlen(path);
  if (len > 4 && !strcmp(path + len - 4, ".npy")) return npy_write(path, t, d);
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  int64_t dims[ONNX_MAX_RANK];
  memcpy(dims, t->dims, sizeof dims);
  tp.n_dims = (size_t)t->rank, tp.dims = dims;
  tp.has_data_type = true, tp.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tp.name = (char *)t->name;
  uint8_t *raw = malloc((size_t)t->n * 4 + 1);
  if (!raw) cg_die("out of memory");
  cg_floats_to_le(t->data, t->n, raw);
  tp.has_raw_data = true, tp.raw_data.len = (size_t)t->n * 4, tp.raw_data.data = raw;
  size_t n = onnx__tensor_proto__get_packed_size(&tp);
  uint8_t *buf = malloc(n + 1);
  if (!buf) cg_die("out of memory");
  onnx__tensor_proto__pack(&tp, buf);
  bool ok = file_write(path, (const char *)buf, n, d);
  free(buf);
  free(raw);
  return ok;
}

#endif
