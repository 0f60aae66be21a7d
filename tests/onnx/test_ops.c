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
  if ((op->program != NULL) != computes) fprintf(stderr, "  row %s\n", op->name);
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
  CHECK(op_def("ConvTranspose") == NULL);
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
  TEST_MAIN_END();
}
