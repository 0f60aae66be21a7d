/* refcache.h: the float64 reference convolution of the inputs a measurement
 * drew, kept for the next measurement that draws the same ones, so that a
 * layer's reference is computed once, not once per kernel measured on it.
 *
 * conv_cached_reference is a MeasOptions.reference (measure.h) whose ctx is
 * a ConvRefCache, zeroed, with its layer set. A lookup whose inputs equal the
 * cached ones (compared in full) copies the cached reference out; any other
 * computes the reference of its inputs (conv_reference) and keeps it in
 * place of the old one. conv_ref_cache_free releases what is kept.
 */
#ifndef CONVGEN_REFCACHE_H
#define CONVGEN_REFCACHE_H

#include "conv/layer.h"

typedef struct ConvRefCache {
  const Layer *layer;  // the layer of the inputs (set by the caller)
  float *in[3];        // the inputs of the last computation (x, weights, bias; NULL when none yet)
  double *ref;         // their convolution
} ConvRefCache;

bool conv_cached_reference(void *ctx, const float *const *inputs, double *out, Diag *d);
void conv_ref_cache_free(ConvRefCache *c);

#endif
