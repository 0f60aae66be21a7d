/* default_point.h: the point a layer runs when nothing tuned applies to it
 * (docs/tune.md, "Untuned layers"; issue 30, item 4). infer, export and
 * bench take a layer's own record, else the best point of a similar tuned
 * layer (nearest.h); a layer with neither (an empty database, a shape
 * nothing like any tuned one) runs the default point chosen here, and the
 * naive `direct` kernel only when no default point compiles.
 *
 * Nothing is measured: the point is chosen by stated rules from the
 * layer's shape and the device's limits, in two steps.
 *   1. The form (dp_forms): a strategy with every choice fixed, by the
 *      layer's kind: tc with its patch staged for a dense tf32 or fp16
 *      layer under CUDA (tensor cores), dw for a depthwise layer, s1 for a
 *      layer of one output pixel (a classifier), else s2 with its
 *      work-groups staging the input in local memory, one kernel and
 *      split-K side by side.
 *   2. The point of the form (dp_cost): every point of the form's space
 *      (or a seeded sample of a large one) scored by a static cost, the
 *      distance in powers of two from the sizes the recorded best points
 *      use (bench/results/2026-12-03-bench-h200-r33), plus a penalty for
 *      too few work-groups to fill the device; the cheapest point that
 *      lowers within the device's limits and compiles is taken.
 * The same layer, device and target give the same point every time.
 */
#ifndef CONVGEN_DEFAULT_POINT_H
#define CONVGEN_DEFAULT_POINT_H

#include "compile/compile.h"
#include "conv/layer.h"
#include "rt/rt.h"

/* A strategy with all its choices fixed. Forms of one rank compete by cost;
 * a later rank is tried only when no form of the earlier ones gave a point
 * (a fallback: s2 without staging, then with every map global). */
typedef struct DpForm {
  const char *strategy;   // "s2"
  const char *choices;    // every choice, "LK=2 LH=2 ..."; "-" for a strategy without any
  int rank;
  /* Derived only when the rank's earlier forms leave the device idle (their
   * cheapest point has fewer than two work-groups a compute unit): split-K,
   * whose only gain is more work-groups (dp_cost charges it otherwise). */
  bool if_idle;
} DpForm;

enum { DP_MAX_FORMS = 8 };

/* The forms for layer l on a device of target `target` ("cuda", "opencl"),
 * in order (ranks increasing): how many (at most DP_MAX_FORMS). The
 * strings are static. */
int dp_forms(const Layer *l, const char *target, DpForm *out);

/* The static cost of a point of strategy `strategy` on layer l for device
 * dev (lower is better): names and values are the point's choices and
 * parameters (ls_bindings); a parameter the point lacks counts as absent,
 * not as 1. Comparable between points of one strategy on one layer;
 * INFINITY for a point whose staged arrays exceed the device's local
 * memory. */
double dp_cost(const Layer *l, const RtDeviceInfo *dev, const char *strategy, int n, const char *const *names,
               const int64_t *vals);

typedef struct DpPoint {
  const char *strategy;   // "s2"
  const char *point;      // as a record keeps it (ls_point_text): ls_compile_record takes it
  double cost;            // its dp_cost
  int lowered;            // candidates lowered to find it (it included)
} DpPoint;

/* The default point of layer l (named name in messages) on device dev,
 * compiled by co into *cr when cr is not NULL (everything in a). False
 * with a Diag when no form gives a point that lowers and compiles (the
 * caller falls back to `direct`). */
bool dp_default_point(Arena *a, const Layer *l, const char *name, const RtDeviceInfo *dev, const CpOptions *co,
                      DpPoint *out, CpResult *cr, Diag *d);

#endif
