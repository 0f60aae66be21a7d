/* test_plan.c: the device memory plan of a network's run (src/net/plan.c),
 * on the small models the suite keeps (tests/onnx): no two values whose
 * lives overlap share a buffer, each buffer holds what it is given, a view
 * reads its source's buffer, values that die make room for later ones, and
 * a buffer is free at a node (for its temporaries) when none of its values
 * lives there, and a joined Concat's inputs are its output's slices. */
#include "test.h"

#include "net/plan.h"

/* Where value v starts to live: the node that writes it, -1 for a graph input. */
static int born(const NetPlan *p, int v) { return p->made_by[v]; }

/* A joined Concat's inputs are its output's consecutive slices, each at a
 * multiple of NET_JOIN_ALIGN elements, in the buffer of its root (its
 * output's source: itself; the last Concat of its family, whose first
 * elements it is; or the Concat of a block it is an input of, at its
 * offset there); the root lives from the first input's node, which alone
 * poisons (the whole root). */
static void check_joined(const OnnxModel *m, const NetPlan *p) {
  for (int i = 0; i < m->nnodes; i++) {
    if (!p->joined[i]) continue;
    const OnnxNode *n = &m->nodes[i];
    int out = p->source[n->out[0]];
    CHECK(p->buffer[n->out[0]] == p->buffer[out] && p->source[out] == out);
    int64_t at = p->offset[n->out[0]];
    for (int k = 0; k < n->nin; k++) {
      int v = n->in[k];
      CHECK(p->source[v] == out && p->offset[v] == at && at % NET_JOIN_ALIGN == 0);
      CHECK(p->buffer[v] == p->buffer[out] && p->made_by[out] <= p->made_by[v] && p->made_by[v] < i);
      CHECK(net_plan_poisoned(p, m, p->made_by[v]) ==
            (p->made_by[v] == p->made_by[out] ? onnx_elems(&m->values[out]) : 0));
      at += onnx_elems(&m->values[v]);
    }
    CHECK(at == p->offset[n->out[0]] + onnx_elems(&m->values[n->out[0]]) && at <= onnx_elems(&m->values[out]));
  }
}

static void check_plan(Arena *a, const char *path) {
  Diag d = {0};
  OnnxModel *m = onnx_load(a, path, 0, NULL, &d);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "%s\n", d.msg);
    return;
  }
  NetPlan p;
  net_plan(a, m, elem_fp32(), &p);
  int planned = 0;
  for (int v = 0; v < m->nvalues; v++) {
    if (p.buffer[v] < 0 || p.source[v] != v) continue;
    planned++;
    CHECK(p.buffer_bytes[p.buffer[v]] >= onnx_elems(&m->values[v]) * (int64_t)sizeof(float));
    CHECK(p.last_use[v] >= born(&p, v));
    for (int u = 0; u < v; u++) {
      if (p.buffer[u] != p.buffer[v] || p.source[u] != u) continue;
      bool apart = p.last_use[u] < born(&p, v) || p.last_use[v] < born(&p, u);
      if (!apart) fprintf(stderr, "%s: %s and %s share buffer %d while both live\n", path, m->values[u].name,
                          m->values[v].name, p.buffer[v]);
      CHECK(apart);
    }
  }
  CHECK(planned > 0 && p.nbuffers > 0);
  // a buffer is free at node i (its temporaries may go there) exactly when none of its values lives at i:
  // never one that i reads or writes
  int free_seen = 0;
  for (int i = 0; i < m->nnodes; i++)
    for (int b = 0; b < p.nbuffers; b++) {
      bool live = false;
      for (int v = 0; v < m->nvalues; v++)
        live |= p.buffer[v] == b && p.source[v] == v && born(&p, v) <= i && i <= p.last_use[v];
      CHECK(net_plan_free_at(&p, m, b, i) == !live);
      free_seen += !live;
      const OnnxNode *n = &m->nodes[i];
      if (n->fused_into >= 0 || net_is_view(n) || p.joined[i]) continue;
      if (b == p.buffer[net_written(m, i)]) CHECK(!net_plan_free_at(&p, m, b, i));
      for (int k = 0; k < n->nin; k++)
        if (n->in[k] >= 0 && p.buffer[n->in[k]] == b) CHECK(!net_plan_free_at(&p, m, b, i));
    }
  CHECK(free_seen > 0);
  for (int i = 0; i < m->nnodes; i++) {   // a view's output is its input's elements
    const OnnxNode *n = &m->nodes[i];
    if (net_is_view(n) && n->fused_into < 0) CHECK(p.buffer[n->out[0]] == p.buffer[n->in[0]]);
  }
  for (int k = 0; k < m->noutputs; k++) CHECK(p.buffer[m->outputs[k]] >= 0 && p.last_use[p.source[m->outputs[k]]] == m->nnodes);
  check_joined(m, &p);
  CHECK(p.planned_bytes <= p.tensor_bytes && p.planned_bytes > 0 && p.weights_bytes > 0);
  fprintf(stderr, "%s: %d values in %d buffers, %lld bytes planned of %lld, weights %lld\n", path, planned, p.nbuffers,
          (long long)p.planned_bytes, (long long)p.tensor_bytes, (long long)p.weights_bytes);
}

int main(void) {
  if (!onnx_available()) {
    printf("test_plan: this convgen has no ONNX reader: not checked\n");
    TEST_MAIN_END();
  }
  Arena *a = arena_new();
  check_plan(a, "tests/onnx/block.onnx");
  check_plan(a, "tests/onnx/tiny.onnx");
  // block.onnx's chain of convolutions: later values take the buffers of those that died
  Diag d = {0};
  OnnxModel *m = onnx_load(a, "tests/onnx/block.onnx", 0, NULL, &d);
  NetPlan p;
  if (m) net_plan(a, m, elem_fp32(), &p);
  CHECK(m && p.planned_bytes < p.tensor_bytes);
  // the plan by size (plan.c's by_size) where it takes fewer bytes than the walk in node order: an MBConv
  // block's 113168 bytes in 5 buffers where the walk took 125440 in 4, MobileNet V2's 200704 where 204800
  check_plan(a, "tests/onnx/blocks/mbconv.onnx");
  check_plan(a, "tests/onnx/mobilenet_v2.onnx");
  const char *sized[] = {"tests/onnx/blocks/mbconv.onnx", "tests/onnx/mobilenet_v2.onnx"};
  const int64_t most[] = {113168, 200704};
  for (int k = 0; k < 2; k++) {
    OnnxModel *mk = onnx_load(a, sized[k], 0, NULL, &d);
    if (mk) net_plan(a, mk, elem_fp32(), &p);
    CHECK(mk && p.planned_bytes <= most[k]);
  }
  // Concats joined where every input may be written into its slice (plan.h): fire.onnx's fire 1 and its mixed
  // branches; not fire 2's (its second slice at 972 elements) nor y's (g is read by its Sigmoid too);
  // shuffle.onnx's two units
  check_plan(a, "tests/onnx/blocks/fire.onnx");
  check_plan(a, "tests/onnx/blocks/shuffle.onnx");
  OnnxModel *fm = onnx_load(a, "tests/onnx/blocks/fire.onnx", 0, NULL, &d);
  if (fm) {
    net_plan(a, fm, elem_fp32(), &p);
    const char *joined[] = {"/features/features.3/Concat", "/mixed/Concat"}, *copied[] = {"/features/features.4/Concat", "/Concat"};
    for (int i = 0; i < fm->nnodes; i++)
      for (int k = 0; k < 2; k++) {
        if (!strcmp(fm->nodes[i].name, joined[k])) CHECK(p.joined[i]);
        if (!strcmp(fm->nodes[i].name, copied[k])) CHECK(!p.joined[i]);
      }
    int njoined = 0;
    for (int i = 0; i < fm->nnodes; i++) njoined += p.joined[i];
    CHECK(njoined == 2);
  }
  CHECK(fm != NULL);
  // dense.onnx's block: its four Concats one family, each the first elements of the block's
  check_plan(a, "tests/onnx/blocks/dense.onnx");
  OnnxModel *dm = onnx_load(a, "tests/onnx/blocks/dense.onnx", 0, NULL, &d);
  if (dm) {
    net_plan(a, dm, elem_fp32(), &p);
    int njoined = 0, root = -1;
    for (int i = 0; i < dm->nnodes; i++) {
      njoined += p.joined[i];
      if (!strcmp(dm->nodes[i].name, "/features/denseblock1/Concat")) root = dm->nodes[i].out[0];
    }
    CHECK(njoined == 4 && root >= 0);
    for (int i = 0; root >= 0 && i < dm->nnodes; i++)
      if (p.joined[i]) CHECK(p.source[dm->nodes[i].out[0]] == root);
  }
  CHECK(dm != NULL);
  // mixed.onnx: Inception's 1x3 and 3x1 Concat inside its block's, both joined (the inner one's slices at
  // 288 and 576 elements of the block's buffer); the head's family, whose root reads its other output, copies
  check_plan(a, "tests/onnx/blocks/mixed.onnx");
  OnnxModel *mm = onnx_load(a, "tests/onnx/blocks/mixed.onnx", 0, NULL, &d);
  if (mm) {
    net_plan(a, mm, elem_fp32(), &p);
    for (int i = 0; i < mm->nnodes; i++) {
      const OnnxNode *n = &mm->nodes[i];
      if (strcmp(n->op, "Concat") != 0) continue;
      CHECK(p.joined[i] == !strncmp(n->name, "/Mixed_7b/", 10));
      if (!strcmp(n->name, "/Mixed_7b/Concat")) CHECK(p.offset[n->in[0]] == 288 && p.offset[n->in[1]] == 576);
    }
  }
  CHECK(mm != NULL);
  arena_free(a);
  TEST_MAIN_END();
}
