/* plan_bytes.c: the activations' plan (src/net/plan.c) of an ONNX model,
 * as infer would make it in fp32, without running anything:
 *
 *     cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Isrc plan_bytes.c build/libconvgen.a -o plan_bytes \
 *        -lOpenCL -lsqlite3 -lm -lpthread -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi -lprotobuf-c
 *     ./plan_bytes MODEL.onnx
 *
 * from a build of the commit to look at (it uses only what plan.h had
 * before the joined Concats, so it builds against older commits too). */
#include "net/plan.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: plan_bytes MODEL.onnx\n"), 2;
  Arena *a = arena_new();
  Diag d = {0};
  OnnxModel *m = onnx_load(a, argv[1], 0, NULL, &d);
  if (!m) return fprintf(stderr, "%s\n", d.msg), 1;
  NetPlan p;
  net_plan(a, m, elem_fp32(), &p);
  printf("%s: %d nodes, activations %lld bytes in %d buffers (each its own: %lld), weights %lld\n", argv[1], m->nnodes,
         (long long)p.planned_bytes, p.nbuffers, (long long)p.tensor_bytes, (long long)p.weights_bytes);
  arena_free(a);
  return 0;
}
