/* test_ops.c: the operator table (src/onnx/ops.c): every operator import
 * lists has a row, and each row is whole for its role: a shape rule (in a
 * convgen with the ONNX reader), a program exactly when infer computes
 * something (not a convolution, a view or a constant), an activation and a
 * residual only on elementwise rows; and every node of the suite's models
 * keeps its row, which fusion and the buffer plan read. */
#include "test.h"

#include "onnx/ops.h"

#include <stdlib.h>

static void check_row(const OpDef *op) {
  bool computes = op->role != ROLE_CONV && op->role != ROLE_VIEW && op->role != ROLE_CONSTANT;
  if (onnx_available()) CHECK(op->shape != NULL);
  CHECK((op->program != NULL) == computes);
  CHECK(!op->refusal || op->program);
  CHECK(!op->act || op->role == ROLE_ELEMENTWISE);
  CHECK(!op->residual || op->role == ROLE_ELEMENTWISE);
  CHECK(!op->fixes_inputs || computes);
  CHECK((op->more_nodes > 0) == (op->rewrite != NULL));
  if ((op->program != NULL) != computes) fprintf(stderr, "  row %s\n", op->name);
}

/* ConvTranspose's rewrite (convtranspose.c): weights_input.onnx's node (W a
 * graph input, stride 2) becomes its weights' node, its zeros' node and a
 * Conv reading both; cases.onnx's ct5 (group 2, W an initializer) a Conv
 * whose W' holds W's kernels reversed, its channel axes swapped per group. */
static void check_convtranspose(void) {
  Arena *a = arena_new();
  Diag d = {0};
  OnnxModel *m = onnx_load(a, "tests/onnx/convtranspose/weights_input.onnx", 0, NULL, &d);
  CHECK(m && m->nnodes == 3);
  if (m && m->nnodes == 3) {
    const OnnxNode *w = &m->nodes[0], *z = &m->nodes[1], *c = &m->nodes[2];
    CHECK(w->def == op_def("ConvTranspose") && z->def == op_def("ConvTranspose") && c->def == op_def("Conv"));
    CHECK(c->is_conv && c->in[0] == z->out[0] && c->in[1] == w->out[0] && c->layer.groups == 2);
    CHECK(z->in[0] == m->inputs[0] && w->in[0] == m->inputs[1] && c->from != NULL);
  }
  m = onnx_load(a, "tests/onnx/convtranspose/cases.onnx", 0, NULL, &d);
  const OnnxNode *c = NULL;
  const OnnxValue *w = NULL;
  for (int i = 0; m && i < m->nnodes; i++)
    if (strcmp(m->nodes[i].name, "ct5") == 0) c = &m->nodes[i];
  for (int v = 0; m && v < m->nvalues; v++)
    if (strcmp(m->values[v].name, "w5") == 0) w = &m->values[v];
  CHECK(c && w && c->is_conv && w->data);
  if (c && w && w->data) {
    const OnnxValue *f = &m->values[c->in[1]];   // W [4, 3, 3, 3] of 2 groups: W' [6, 2, 3, 3]
    CHECK(f->initializer && f->data && f->rank == 4 && f->dims[0] == 6 && f->dims[1] == 2);
    for (int o = 0; f->data && o < 6; o++)
      for (int ci = 0; ci < 2; ci++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) {
            int cin = o / 3 * 2 + ci, m3 = o % 3;
            CHECK(f->data[((o * 2 + ci) * 3 + i) * 3 + j] == w->data[((cin * 3 + m3) * 3 + 2 - i) * 3 + 2 - j]);
          }
  }
  arena_free(a);
}

int main(void) {
  // every operator listed has its row, in the list's order
  char *list = strdup(onnx_operators());   // (strtok writes into it; any length of the table)
  int rows = 0;
  for (char *name = strtok(list, ", "); name; name = strtok(NULL, ", ")) {
    const OpDef *op = op_def(name);
    CHECK(op != NULL);
    if (!op) continue;
    CHECK_STR(op->name, name);
    check_row(op);
    rows++;
  }
  free(list);
  CHECK(rows >= 20);
  CHECK(op_def("LRN") == NULL);
  CHECK(op_def("ConvTranspose")->role == ROLE_LAYOUT && op_def("ConvTranspose")->more_nodes > 0);
  CHECK(op_def("") == NULL);
  CHECK(op_def("Conv")->role == ROLE_CONV);
  CHECK(op_def("BatchNormalization")->role == ROLE_AFFINE);
  CHECK(op_def("Reshape")->role == ROLE_VIEW && (op_def("Reshape")->import_inputs & 2u));
  CHECK(op_def("Add")->residual && !op_def("Relu")->residual);

  // a model's nodes keep their rows (tiny.onnx: one of every block)
  if (onnx_available()) {
    Arena *a = arena_new();
    Diag d = {0};
    OnnxModel *m = onnx_load(a, "tests/onnx/tiny.onnx", 0, NULL, &d);
    CHECK(m != NULL);
    for (int i = 0; m && i < m->nnodes; i++) {
      CHECK(m->nodes[i].def == op_def(m->nodes[i].op));
      CHECK(m->nodes[i].def->role != ROLE_CONSTANT);   // a Constant is an initializer, not a node
    }
    arena_free(a);
  }
  if (onnx_available()) check_convtranspose();
  TEST_MAIN_END();
}
