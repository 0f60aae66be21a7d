/* refcache.h: the float64 reference convolution of the inputs a measurement
 * drew, kept for the next measurement that draws the same ones, so that a
 * layer's reference is computed once, not once per kernel measured on it:
 * convgen bench's methods share one per layer, and a tuner's worker keeps the
 * one of the layer it last measured for the next candidate of that layer
 * (tune.c draws every candidate of a layer from one data seed).
 *
 * conv_cached_reference is a MeasOptions.reference (measure.h) whose ctx is
 * a ConvRefCache, zeroed, with its layer set (the caller may point it at
 * another layer between lookups). A lookup is a hit when the cache holds the
 * reference of that layer's shape (layer_equal) and of inputs equal to the
 * lookup's, compared in full: the reference is then copied out. Any other
 * lookup computes the reference of its inputs (conv_reference) and keeps it,
 * with a copy of the inputs, in place of the old one, which is freed first.
 * So the cache holds one layer's data: its inputs and its reference, 4 bytes
 * an input, weight, bias, residual and scale value and 8 an output value.
 */
#ifndef CONVGEN_REFCACHE_H
#define CONVGEN_REFCACHE_H

#include "conv/reference.h"

typedef struct ConvRefCache {
  const Layer *layer;     // the layer of the next lookup (set by the caller)
  Layer of;               // the layer of the data kept (when ref is not NULL)
  float *in[CONV_REF_INPUTS];   // the inputs of the last computation (x, weights, bias, residual, scale; NULL when
                                // none yet or the layer has none)
  double *ref;            // their convolution
  int64_t hits, misses;   // lookups answered from the cache / computed
} ConvRefCache;

bool conv_cached_reference(void *ctx, const float *const *inputs, double *out, Diag *d);
/* Frees the data kept; the layer pointer and the counts stay. */
void conv_ref_cache_free(ConvRefCache *c);

#endif
