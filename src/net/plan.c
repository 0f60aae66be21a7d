/* plan.c: the device buffers of a network's run by liveness (plan.h). */
#include "net/plan.h"
#include "onnx/ops.h"

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

void net_plan(Arena *a, const OnnxModel *m, const ElemType *et, NetPlan *p) {
  int nv = m->nvalues;
  *p = (NetPlan){0};
  p->source = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->buffer = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->made_by = ARENA_ARRAY(a, int, (size_t)nv + 1);
  p->last_use = ARENA_ARRAY(a, int, (size_t)nv + 1);
  for (int v = 0; v < nv; v++) p->source[v] = v, p->buffer[v] = p->made_by[v] = p->last_use[v] = -1;
  // what each node reads (a view's readers read its source) and writes
  bool *weight = ARENA_ARRAY(a, bool, (size_t)nv + 1);
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
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
    if (n->fused_into >= 0 || net_is_view(n)) continue;
    int w = net_written(m, i);
    if (p->last_use[w] < i) {   // read by no one: written, then freed (an earlier list it was on is walked)
      next[w] = dying[i], dying[i] = w;
      p->last_use[w] = i;
    }
    p->buffer[w] = take_buffer(a, p, free_, elem_bytes(et, onnx_elems(&m->values[w])));
    for (int v = dying[i]; v >= 0; v = next[v])
      if (p->last_use[v] == i && p->buffer[v] >= 0 && p->source[v] == v) free_[p->buffer[v]] = true;
  }
  for (int v = 0; v < nv; v++) {
    if (p->buffer[v] >= 0) p->tensor_bytes += elem_bytes(et, onnx_elems(&m->values[v]));
    if (p->source[v] != v) p->buffer[v] = p->buffer[p->source[v]];
  }
  for (int b = 0; b < p->nbuffers; b++) p->planned_bytes += p->buffer_bytes[b];
}

bool net_plan_free_at(const NetPlan *p, const OnnxModel *m, int b, int i) {
  for (int v = 0; v < m->nvalues; v++) {
    if (p->buffer[v] != b || p->source[v] != v) continue;
    int from = p->made_by[v];   // -1: a graph input, there from the start
    if (from <= i && i <= p->last_use[v]) return false;
  }
  return true;
}
