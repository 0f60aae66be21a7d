/* refcache.c: the reference cache (refcache.h). A hit needs the same layer
 * shape and every input equal to the cached ones, element for element, so a
 * cached reference is never one of other data, whatever seed the caller drew
 * its inputs from. */
#include "conv/refcache.h"

#include "conv/reference.h"

#include <stdlib.h>
#include <string.h>

static void *alloc_or_die(int64_t n, size_t size) {
  void *p = malloc((size_t)(n ? n : 1) * size);
  if (!p) cg_die("out of memory (%lld x %zu bytes)", (long long)n, size);
  return p;
}

bool conv_cached_reference(void *ctx, const float *const *inputs, double *out, Diag *d) {
  (void)d;
  ConvRefCache *c = ctx;
  const Layer *l = c->layer;
  int64_t n[CONV_REF_INPUTS] = {layer_elems(l, LAYER_INPUT), layer_elems(l, LAYER_WEIGHTS), layer_elems(l, LAYER_BIAS),
                                layer_elems(l, LAYER_RESIDUAL), layer_elems(l, LAYER_SCALE)};
  const float *given[CONV_REF_INPUTS];   // by tensor: the program's inputs are those the layer has, in order
  conv_ref_inputs(l, inputs, given);
  int64_t ny = layer_elems(l, LAYER_OUTPUT);
  bool hit = c->ref != NULL && layer_equal(&c->of, l);
  for (int i = 0; i < CONV_REF_INPUTS && hit; i++)
    hit = !n[i] || memcmp(c->in[i], given[i], (size_t)n[i] * sizeof(float)) == 0;
  if (hit) {
    c->hits++;
  } else {
    conv_ref_cache_free(c);   // before the new data: one layer's at a time
    c->misses++;
    c->of = *l;
    for (int i = 0; i < CONV_REF_INPUTS; i++)
      if (n[i]) c->in[i] = memcpy(alloc_or_die(n[i], sizeof(float)), given[i], (size_t)n[i] * sizeof(float));
    c->ref = alloc_or_die(ny, sizeof *c->ref);
    conv_reference_of(l, (const float *const *)c->in, c->ref);
  }
  memcpy(out, c->ref, (size_t)ny * sizeof *out);
  return true;
}

void conv_ref_cache_free(ConvRefCache *c) {
  for (int i = 0; i < CONV_REF_INPUTS; i++) free(c->in[i]);
  free(c->ref);
  *c = (ConvRefCache){.layer = c->layer, .hits = c->hits, .misses = c->misses};
}
