/* plan.c: the device buffers of a network's run by liveness (plan.h). */
#include "net/plan.h"
#include "onnx/ops.h"

#include <stdlib.h>
#include <string.h>

bool net_is_view(const OnnxNode *n) { return n->def->role == ROLE_VIEW; }

int net_written(const OnnxModel *m, int i) {
  int out = m->nodes[i].out[0];
  for (int j = i + 1; j < m->nnodes; j++)
    if (m->nodes[j].fused_into == i) out = m->nodes[j].out[0];
  return out;
}

/* The smallest free buffer that holds bytes; else the largest free one,
 * grown to bytes (cheaper than a new buffer beside it); else a new one. */
static int take_buffer(Arena *a, NetPlan *p, bool *free_, int64_t bytes) {
  int fit = -1, largest = -1;
  for (int b = 0; b < p->nbuffers; b++) {
    if (!free_[b]) continue;
    if (p->buffer_bytes[b] >= bytes && (fit < 0 || p->buffer_bytes[b] < p->buffer_bytes[fit])) fit = b;
    if (largest < 0 || p->buffer_bytes[b] > p->buffer_bytes[largest]) largest = b;
  }
  int b = fit >= 0 ? fit : largest;
  if (b < 0) {
    p->buffer_bytes = arena_extend(a, p->buffer_bytes, (size_t)p->nbuffers, sizeof *p->buffer_bytes);
    b = p->nbuffers++;
    p->buffer_bytes[b] = 0;
  }
  if (p->buffer_bytes[b] < bytes) p->buffer_bytes[b] = bytes;
  free_[b] = false;
  return b;
}

typedef struct Sized {
  int64_t bytes;
  int v;
} Sized;

/* The largest first; the earlier value first among equals. */
static int larger_first(const void *x, const void *y) {
  const Sized *u = x, *v = y;
  if (u->bytes != v->bytes) return u->bytes > v->bytes ? -1 : 1;
  return u->v - v->v;
}

/* The plan again by size (the greedy-by-size assignment of shared objects
 * that TFLite's GPU delegate plans with): the values, the largest first,
 * each into the smallest buffer so far none of whose values lives while it
 * does, else a buffer of its own; kept when its buffers take fewer bytes
 * than the walk's. The walk in node order fills a buffer freed early with a
 * small value and grows another for a large one (SqueezeNet: its first
 * layer's output buffer, 3.2 MB, taken by a 0.8 MB value while a second
 * grows to 1.5 MB for a Concat's). */
static void by_size(Arena *a, const OnnxModel *m, const ElemType *et, NetPlan *p) {
  int nv = m->nvalues, n = 0, nb = 0;
  Sized *order = ARENA_ARRAY(a, Sized, (size_t)nv + 1);
  for (int v = 0; v < nv; v++)
    if (p->buffer[v] >= 0 && p->source[v] == v) order[n++] = (Sized){elem_bytes(et, onnx_elems(&m->values[v])), v};
  qsort(order, (size_t)n, sizeof *order, larger_first);
  int *at = ARENA_ARRAY(a, int, (size_t)n + 1), *first = ARENA_ARRAY(a, int, (size_t)n + 1);
  int *next = ARENA_ARRAY(a, int, (size_t)n + 1);   // each buffer's values: first[b], then next[k], as order's k
  int64_t *size = ARENA_ARRAY(a, int64_t, (size_t)n + 1), total = 0;
  for (int k = 0; k < n; k++) {
    int v = order[k].v, best = -1;
    for (int b = 0; b < nb; b++) {
      bool clash = false;
      for (int j = first[b]; j >= 0 && !clash; j = next[j]) {
        int u = order[j].v;
        clash = !(p->last_use[u] < p->made_by[v] || p->last_use[v] < p->made_by[u]);
      }
      if (!clash && (best < 0 || size[b] < size[best])) best = b;
    }
    if (best < 0) best = nb++, first[best] = -1, size[best] = order[k].bytes, total += order[k].bytes;
    at[k] = best, next[k] = first[best], first[best] = k;
  }
  if (total >= p->planned_bytes) return;
  for (int k = 0; k < n; k++) p->buffer[order[k].v] = at[k];
  p->nbuffers = nb;
  p->buffer_bytes = size;
  p->planned_bytes = total;
}

/* Whether Concat node i may be joined at all: its output made by it, its
 * inputs slices of consecutive elements (every dimension before the axis 1);
 * its elements after the axis into *inner. */
static bool joins_slices(const OnnxModel *m, const NetPlan *p, int i, int64_t *inner) {
  const OnnxNode *n = &m->nodes[i];
  if (!n->def->joins || n->fused_into >= 0 || p->made_by[n->out[0]] != i) return false;
  const OnnxValue *o = &m->values[n->out[0]];
  int64_t outer = 1;
  *inner = 1;
  for (int k = 0; k < o->rank; k++) {
    if (k < n->axis) outer *= o->dims[k];
    if (k > n->axis) *inner *= o->dims[k];
  }
  return outer == 1;
}

/* Whether Concat b's inputs begin with all of a's, along the same axis. */
static bool extends(const OnnxModel *m, int a, int b) {
  const OnnxNode *x = &m->nodes[a], *y = &m->nodes[b];
  if (x->axis != y->axis || x->nin > y->nin) return false;
  for (int k = 0; k < x->nin; k++)
    if (x->in[k] != y->in[k]) return false;
  return true;
}

/* Whether node i (with the nodes fused into it, which may come before it:
 * a squeeze-excite's Mul, a chain's members; first[i], then next[j])
 * reads a value that will be in the buffer of a family's root: one of the
 * family's outputs (fam's; a view of one) or of the root's inputs (a
 * slice of a Concat joined into one of them). The kernels that write a
 * slice of that buffer must read none of it: no two arguments of a kernel
 * are one buffer. */
static bool reads_family(const OnnxModel *m, const NetPlan *p, const int *first, const int *next, int i, const int *fam,
                         int nfam) {
  const OnnxNode *root = &m->nodes[fam[nfam - 1]];
  for (int j = i; j >= 0; j = j == i ? first[i] : next[j]) {
    const OnnxNode *n = &m->nodes[j];
    for (int k = 0; k < n->nin; k++) {
      int s = n->in[k] >= 0 ? p->source[n->in[k]] : -1;
      for (int f = 0; s >= 0 && f < nfam; f++)
        if (s == m->nodes[fam[f]].out[0]) return true;
      for (int r = 0; s >= 0 && r < root->nin; r++)
        if (s == root->in[r]) return true;
    }
  }
  return false;
}

/* Joins a family of Concats (plan.h): fam[0..nfam), in graph order, each
 * one's inputs the first of the last one's (the root; DenseNet's block
 * concatenates every feature so far at each layer: [x0], [x0, x1], ...),
 * when each input is made by a node that runs kernels, or is a Concat
 * joined before (Inception's Concat inside its block's), is read by the
 * family's Concats alone (each once), is no graph output and no output of
 * the family, starts at a multiple of NET_JOIN_ALIGN elements, and no node
 * that writes into the buffer reads the family's outputs. Each input's
 * source becomes the root's output, at its offset; every other output of
 * the family is the root's from element 0 on (its readers read the first
 * elements of the root's buffer); the root's output lives from the first
 * input's node on. A joined Concat's input's own slices (its source) are
 * moved by join_concats at the end. */
static void join_family(const OnnxModel *m, NetPlan *p, const int *nreaders, const int *first, const int *next,
                        bool *joined_out, const int *fam, int nfam, int64_t inner) {
  const OnnxNode *root = &m->nodes[fam[nfam - 1]];
  int out = root->out[0], from = fam[nfam - 1], last = -1;
  int64_t off = 0;
  for (int k = 0; k < root->nin; k++) {
    int v = root->in[k], readers = 0;
    if (v < 0 || m->values[v].initializer || p->source[v] != v || p->last_use[v] == m->nnodes) return;
    for (int f = 0; f < nfam; f++) {
      readers += k < m->nodes[fam[f]].nin;
      if (m->nodes[fam[f]].out[0] == v) return;   // (Concat(a, b, Concat(a, b)): written by none)
    }
    int by = p->made_by[v];
    if (nreaders[v] != readers || by < 0 || p->joined[by] || off % NET_JOIN_ALIGN != 0) return;
    for (int f = 0; f < nfam; f++)   // made before the first Concat that reads it
      if (k < m->nodes[fam[f]].nin && by >= fam[f]) return;
    // the nodes that write it: its maker, or those of a joined Concat's slices (joined_out[v]: the values
    // whose source it is)
    for (int u = 0; joined_out[v] && u < m->nvalues; u++)
      if (u != v && p->source[u] == v && p->made_by[u] >= 0 && !p->joined[p->made_by[u]] &&
          reads_family(m, p, first, next, p->made_by[u], fam, nfam))
        return;
    if (!joined_out[v] && reads_family(m, p, first, next, by, fam, nfam)) return;
    off += m->values[v].dims[root->axis] * inner;
  }
  off = 0;
  for (int k = 0; k < root->nin; k++) {
    int v = root->in[k], by = p->made_by[v];
    p->source[v] = out, p->offset[v] = off;
    off += m->values[v].dims[root->axis] * inner;
    if (by < from) from = by;
    if (by > last) last = by;
  }
  for (int f = 0; f < nfam; f++) {
    int o = m->nodes[fam[f]].out[0];
    p->joined[fam[f]] = true;
    if (o == out) continue;
    if (p->last_use[o] > p->last_use[out]) p->last_use[out] = p->last_use[o];
    p->source[o] = out, p->offset[o] = 0;
  }
  p->made_by[out] = from;
  if (p->last_use[out] < last) p->last_use[out] = last;
  joined_out[out] = true;
}

/* The Concats joined (plan.h): each in a family of those whose inputs
 * begin with its own (one Concat alone is a family of one), found by its
 * first input, joined where the whole family can be; then each value's
 * source followed to the buffer's root (a view of a family's output, a
 * joined Concat's slice inside another's), its offsets added. */
static void join_concats(Arena *a, const OnnxModel *m, NetPlan *p, const int *nreaders) {
  int nn = m->nnodes, nv = m->nvalues;
  int *first = ARENA_ARRAY(a, int, (size_t)nn + 1), *next = ARENA_ARRAY(a, int, (size_t)nn + 1);
  int *cand = ARENA_ARRAY(a, int, (size_t)nn + 1), ncand = 0;
  int64_t *inner = ARENA_ARRAY(a, int64_t, (size_t)nn + 1);
  for (int i = 0; i < nn; i++) first[i] = next[i] = -1;
  for (int j = nn - 1; j >= 0; j--)
    if (m->nodes[j].fused_into >= 0) next[j] = first[m->nodes[j].fused_into], first[m->nodes[j].fused_into] = j;
  for (int i = 0; i < nn; i++)
    if (joins_slices(m, p, i, &inner[i])) cand[ncand++] = i;
  // families: the last (root so far) of the family of each first input
  int *root_of = ARENA_ARRAY(a, int, (size_t)nv + 1), *fam_of = ARENA_ARRAY(a, int, (size_t)nn + 1);
  int *nfam = ARENA_ARRAY(a, int, (size_t)nn + 1), *fams = ARENA_ARRAY(a, int, (size_t)ncand + 1);
  for (int v = 0; v < nv; v++) root_of[v] = -1;
  for (int c = 0; c < ncand; c++) {
    int j = cand[c], v = m->nodes[j].in[0], r = v >= 0 ? root_of[v] : -1;
    if (r >= 0 && inner[r] == inner[j] && extends(m, r, j)) {
      fam_of[j] = fam_of[r], nfam[fam_of[j]]++;
    } else {
      fam_of[j] = j, nfam[j] = 1;
    }
    if (v >= 0 && (r < 0 || fam_of[j] == fam_of[r])) root_of[v] = j;
  }
  // each family's members in order, then joined in the order of their roots (an inner Concat's before the
  // Concat of its block)
  int *at = ARENA_ARRAY(a, int, (size_t)nn + 1), n = 0;
  for (int c = 0; c < ncand; c++)
    if (fam_of[cand[c]] == cand[c]) at[cand[c]] = n, n += nfam[cand[c]], nfam[cand[c]] = 0;
  for (int c = 0; c < ncand; c++) {
    int f = fam_of[cand[c]];
    fams[at[f] + nfam[f]++] = cand[c];
  }
  bool *done = ARENA_ARRAY(a, bool, (size_t)nn + 1), *joined_out = ARENA_ARRAY(a, bool, (size_t)nv + 1);
  for (int c = 0; c < ncand; c++) {   // a family when its root comes: its members all made by then
    int f = fam_of[cand[c]];
    if (done[f] || fams[at[f] + nfam[f] - 1] != cand[c]) continue;
    done[f] = true;
    join_family(m, p, nreaders, first, next, joined_out, &fams[at[f]], nfam[f], inner[f]);
  }
  for (int v = 0; v < nv; v++) {
    int s = p->source[v];
    while (p->source[s] != s) {
      p->offset[v] += p->offset[s];
      s = p->source[s];
    }
    p->source[v] = s;
  }
}

void net_plan(Arena *a, const OnnxModel *m, const ElemType *et, NetPlan *p) {
  int nv = m->nvalues;
  *p = (NetPlan){0};
  p->source = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->buffer = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->made_by = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->last_use = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->offset = ARENA_ARRAY(a, int64_t, (size_t)nv + 1);
  p->joined = ARENA_ARRAY(a, bool, (size_t)m->nnodes + 1);
  int *nreaders = ARENA_ARRAY(a, int, (size_t)nv + 1);   // the inputs of nodes that are each value
  for (int v = 0; v < nv; v++) p->source[v] = v, p->buffer[v] = p->made_by[v] = p->last_use[v] = -1;
  // what each node reads (a view's readers read its source) and writes
  bool *weight = ARENA_ARRAY(a, bool, (size_t)nv + 1);
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    for (int k = 0; k < n->nin; k++)
      if (n->in[k] >= 0) nreaders[n->in[k]]++;
    if (net_is_view(n) && n->fused_into < 0) {
      p->source[n->out[0]] = p->source[n->in[0]];
      continue;
    }
    int reader = n->fused_into >= 0 ? n->fused_into : i;   // a fused node's inputs are its convolution's to read
    for (int k = 0; k < n->nin; k++) {
      int v = n->in[k];
      if (v < 0) continue;
      if (m->values[v].initializer) {
        weight[v] = true;
        continue;
      }
      int s = p->source[v];
      if (p->last_use[s] < reader) p->last_use[s] = reader;
    }
    if (n->fused_into < 0) p->made_by[net_written(m, i)] = i;
  }
  for (int k = 0; k < m->noutputs; k++) p->last_use[p->source[m->outputs[k]]] = m->nnodes;
  // the graph's inputs too: a run repeated (infer --runs) reads them again
  for (int k = 0; k < m->ninputs; k++) p->last_use[m->inputs[k]] = m->nnodes;
  join_concats(a, m, p, nreaders);
  for (int v = 0; v < nv; v++)
    if (weight[v] && m->values[v].data) p->weights_bytes += elem_bytes(et, onnx_elems(&m->values[v]));
  // the walk: graph inputs first, then each node's output; freed after the last reader
  bool *free_ = ARENA_ARRAY(a, bool, (size_t)nv + 1);   // by buffer (at most one per value)
  for (int k = 0; k < m->ninputs; k++) {
    int v = m->inputs[k];
    p->buffer[v] = take_buffer(a, p, free_, elem_bytes(et, onnx_elems(&m->values[v])));
  }
  // the values each node reads last, as lists (dying[i], then next[v]): a
  // walk of every value after every node was quadratic in the graph's size
  int *dying = ARENA_ARRAY(a, int, (size_t)m->nnodes + 1), *next = ARENA_ARRAY(a, int, (size_t)nv + 1);
  for (int i = 0; i < m->nnodes; i++) dying[i] = -1;
  for (int v = nv - 1; v >= 0; v--)
    if (p->last_use[v] >= 0 && p->last_use[v] < m->nnodes) next[v] = dying[p->last_use[v]], dying[p->last_use[v]] = v;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0 || net_is_view(n) || p->joined[i]) continue;
    int w = net_written(m, i);
    if (p->source[w] != w) {   // a joined Concat's input: its output's buffer, taken by the first maker
      w = p->source[w];
      if (p->buffer[w] < 0) p->buffer[w] = take_buffer(a, p, free_, elem_bytes(et, onnx_elems(&m->values[w])));
    } else {
      if (p->last_use[w] < i) {   // read by no one: written, then freed (an earlier list it was on is walked)
        next[w] = dying[i], dying[i] = w;
        p->last_use[w] = i;
      }
      p->buffer[w] = take_buffer(a, p, free_, elem_bytes(et, onnx_elems(&m->values[w])));
    }
    for (int v = dying[i]; v >= 0; v = next[v])
      if (p->last_use[v] == i && p->buffer[v] >= 0 && p->source[v] == v) free_[p->buffer[v]] = true;
  }
  for (int b = 0; b < p->nbuffers; b++) p->planned_bytes += p->buffer_bytes[b];
  by_size(a, m, et, p);
  for (int v = 0; v < nv; v++) {
    if (p->buffer[v] >= 0) p->tensor_bytes += elem_bytes(et, onnx_elems(&m->values[v]));
    if (p->source[v] != v) p->buffer[v] = p->buffer[p->source[v]];
  }
}

int64_t net_plan_poisoned(const NetPlan *p, const OnnxModel *m, int i) {
  int w = net_written(m, i), s = p->source[w];
  if (s == w) return onnx_elems(&m->values[w]);
  return p->made_by[s] == i ? onnx_elems(&m->values[s]) : 0;
}

bool net_plan_free_at(const NetPlan *p, const OnnxModel *m, int b, int i) {
  for (int v = 0; v < m->nvalues; v++) {
    if (p->buffer[v] != b || p->source[v] != v) continue;
    int from = p->made_by[v];   // -1: a graph input, there from the start
    if (from <= i && i <= p->last_use[v]) return false;
  }
  return true;
}
