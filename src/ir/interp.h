/* interp.h: the reference interpreter, the oracle every generated kernel is
 * checked against. It evaluates any well-typed program on the CPU in float64.
 *
 * Host data is flat: an array type is stored row-major over its base values,
 * and a vector contributes its components in order ([float4]N is 4N floats).
 */
#ifndef CONVGEN_INTERP_H
#define CONVGEN_INTERP_H

#include "ir/ir.h"

/* Evaluate the program (types inferred, all sizes concrete) on the given
 * inputs (one flat float array per program input) and write the flat output.
 * The host holds every input as fp32 values whatever its element type
 * (util/elem.h; an int input too, as small whole floats): fp32 is the one
 * element type so far, and a narrower one's values are fp32 values too.
 * With nsample > 0 only the output positions in sample[] are computed, into
 * out[sample[i]] (the rest of out is left alone); this keeps checks of large
 * problems affordable. Returns false with a Diag on an evaluation fault. */
bool ir_eval(const Program *p, const float *const *inputs, double *out, int64_t nsample, const int64_t *sample,
             Diag *d);

/* The number of flat base values of a concrete type (vectors count their
 * components); -1 when a size is not a constant. */
int64_t ir_flat_count(const Type *t);

#endif
