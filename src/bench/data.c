/* data.c: one layer's data for the baselines (bench.h): inputs drawn from a
 * seed, uniform in [-1, 1), and their float64 convolution, made here or
 * taken from the reference cache (conv/refcache.h) that computed it once for
 * the layer's convgen kernels. */
#include <stdlib.h>

#include "bench/bench.h"
#include "conv/reference.h"

static void *alloc_or_die(int64_t n, size_t size) {
  void *p = malloc((size_t)(n ? n : 1) * size);
  if (!p) cg_die("out of memory (%lld x %zu bytes)", (long long)n, size);
  return p;
}

/* n values, each one of the layer's element type (rounded to half for an
 * fp16 layer: what every method reads from memory). */
static float *random_floats(int64_t n, const ElemType *et, uint64_t *state) {
  float *v = alloc_or_die(n, sizeof *v);
  for (int64_t i = 0; i < n; i++) {
    v[i] = (float)((double)(cg_splitmix64(state) >> 11) * 0x1p-53 * 2.0 - 1.0);
    if (elem_is_storage(et)) v[i] = (float)elem_round(et, v[i]);
  }
  return v;
}

/* A layer's data with its element counts and no arrays yet. */
static BenchData data_shape(const Layer *l) {
  BenchData bd = {.layer = l};
  bd.nx = layer_elems(l, LAYER_INPUT);
  bd.nw = layer_elems(l, LAYER_WEIGHTS);
  bd.nb = layer_elems(l, LAYER_BIAS);   // 0 without bias
  bd.nr = layer_elems(l, LAYER_RESIDUAL);   // 0 without residual
  bd.ns = layer_elems(l, LAYER_SCALE);   // 0 without scale
  bd.ny = layer_elems(l, LAYER_OUTPUT);
  return bd;
}

BenchData bench_data_new(const Layer *l, uint64_t seed) {
  BenchData bd = data_shape(l);
  uint64_t state = seed;
  const ElemType *et = layer_elem(l);
  bd.x = random_floats(bd.nx, et, &state);
  bd.w = random_floats(bd.nw, et, &state);
  bd.b = l->bias ? random_floats(bd.nb, et, &state) : NULL;
  bd.r = l->residual ? random_floats(bd.nr, et, &state) : NULL;
  bd.s = l->scale ? random_floats(bd.ns, et, &state) : NULL;
  double *ref = alloc_or_die(bd.ny, sizeof *ref);
  conv_reference_of(l, (const float *const[CONV_REF_INPUTS]){bd.x, bd.w, bd.b, bd.r, bd.s}, ref);
  bd.ref = ref;
  return bd;
}

void bench_data_free(BenchData *bd) {
  free((void *)bd->x);
  free((void *)bd->w);
  free((void *)bd->b);
  free((void *)bd->r);
  free((void *)bd->s);
  free((void *)bd->ref);
  *bd = (BenchData){0};
}

bool bench_data_from_cache(BenchRefCache *c, BenchData *out) {
  if (!c->ref) return false;
  *out = data_shape(c->layer);
  out->x = c->in[0], out->w = c->in[1], out->b = c->in[2], out->r = c->in[3], out->s = c->in[4], out->ref = c->ref;
  *c = (BenchRefCache){.layer = c->layer};
  return true;
}

