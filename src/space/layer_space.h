/* layer_space.h: the parameter space of a strategy on a convolution layer.
 *
 * A strategy's structural choices (StChoice: the parallel level of a map)
 * decide which rules it applies, so each assignment of them is a variant
 * with a program of its own, and the layer's space is the union of the
 * variants' spaces (space.h): a point is a variant plus values for that
 * variant's tuning parameters. A variant whose derivation fails, whose space
 * is empty, or whose mapping the lowering's legality rules reject (checked on
 * one of its points: legality does not depend on the sizes) is kept with the
 * reason and has no points.
 *
 * Every tuning parameter gets the strategy's default domain for the layer
 * unless the caller gives one; a caller's domain may also fix a choice
 * (NAME=V, a single value).
 */
#ifndef CONVGEN_LAYER_SPACE_H
#define CONVGEN_LAYER_SPACE_H

#include "compile/compile.h"
#include "rewrite/strategy.h"
#include "space/space.h"

typedef struct LsVariant {
  int choice[ST_MAX_CHOICES];
  const char *label;      // "LK=1 (mapGlb), LH=3 (mapSeq), ..."; "" without choices
  const char *text;       // the derived program (NULL when the derivation failed)
  Space *space;           // NULL when rejected
  const char *rejected;   // why the variant has no points; NULL when it has some
  uint64_t count;         // points meeting the constraints
  bool exact;             // count is exact (else a lower bound)
} LsVariant;

typedef struct LayerSpace {
  Arena *a;
  const Strategy *st;
  Layer layer;
  const char *name;       // for messages: "vgg16.conv3_2 (strategy s2)"
  int nvariants;
  LsVariant *v;
  /* Why the strategy does not take the layer (Strategy.refuses), the space
   * then empty; NULL when it does. ls_pick and ls_compile_record refuse
   * such a space with it; `space --strategy S` says it. */
  const char *refused;
} LayerSpace;

/* A point: the variant and the values of its space's parameters, in that
 * space's order. */
typedef struct LsPoint {
  int variant;
  int64_t vals[ST_MAX_PARAMS];
} LsPoint;

/* NULL with a Diag for a domain naming a size no variant has, a choice value
 * outside its range, or a bad domain. dev NULL: no device limits and no
 * legality check. */
LayerSpace *ls_new(Arena *a, const Strategy *st, const Layer *l, const char *name, int ndoms,
                   const SpaceDomain *doms, const RtDeviceInfo *dev, Diag *d);
void ls_free(LayerSpace *ls);
uint64_t ls_count(const LayerSpace *ls, bool *exact);   // summed over the variants
/* n distinct points that pass the lowering (each checked in this process):
 * a variant drawn with probability proportional to its points left, then a
 * point of it from its sampler (space.h). Returns how many were drawn. */
int ls_sample(LayerSpace *ls, uint64_t seed, int n, LsPoint *out);
/* The same draws one at a time (what a search that stops early needs). */
typedef struct LsSampler LsSampler;
LsSampler *ls_sampler_new(LayerSpace *ls, uint64_t seed);
bool ls_sampler_next(LsSampler *s, LsPoint *out);   // false: no point left
/* The same from one variant (a search that weighs the variants itself):
 * false when it has none left. ls_sampler_left: its points not drawn yet
 * (a count; 0 for a rejected variant). */
bool ls_sampler_next_of(LsSampler *s, int variant, LsPoint *out);
uint64_t ls_sampler_left(const LsSampler *s, int variant);
void ls_sampler_free(LsSampler *s);
/* The point given by names and values (choices and parameters, as -p gives
 * them): false with a Diag naming what is missing, out of range, or the
 * constraint the point breaks. Its kind: a point that names no point (a
 * value missing, a name the space lacks, choices that make no variant) is
 * DIAG_USER; a point of the space's variants that its domains, its
 * constraints or its variant's legality refuse is DIAG_REJECT. */
bool ls_point(const LayerSpace *ls, int n, const char *const *names, const int64_t *vals, LsPoint *out, Diag *d);
/* The layer's space and one point of it, as the command line picks it:
 * names and values (choices and parameters, as -p gives them) checked
 * against every constraint and the lowering (a point outside the space is
 * refused, DIAG_REJECT, with what it breaks); or with random > 0 one drawn
 * by that seed among the points that pass the lowering, the given choices
 * and parameters then fixing theirs. The space (for the caller to ls_free)
 * with *pt set, or NULL with a Diag. */
LayerSpace *ls_pick(Arena *a, const Strategy *st, const Layer *l, const char *name, const RtDeviceInfo *dev, int n,
                    const char *const *names, const int64_t *vals, uint64_t random, LsPoint *pt, Diag *d);
/* The texts the same point may have been written with by earlier versions:
 * `text` (as ls_point_text writes it) first, then the text without each
 * subset of the choices that are at their fallback value (a choice added
 * later, s2's LS=1 or LC=1, was absent from points written before it).
 * Returns how many (at most max), in the arena. */
int ls_point_aliases(const Strategy *st, Arena *a, const char *text, const char **out, int max);
/* A point's text, "NAME=V NAME=V ..." ("-" for none), as names and values
 * (the names point into a copy in the arena): how many, at most max, or -1
 * when the text is not of that form. */
enum { LS_POINT_MAX = ST_MAX_PARAMS + ST_MAX_CHOICES };   // names a point gives at most
int ls_split_point(Arena *a, const char *text, const char **names, int64_t *vals, int max);
/* A point written as "NAME=V NAME=V ..." (as ls_point_text writes it, "-"
 * for none), checked as ls_point checks it. */
bool ls_parse_point(const LayerSpace *ls, Arena *a, const char *text, LsPoint *out, Diag *d);
/* "NAME=V ...": the choices then the parameters; "-" when there are none. */
const char *ls_point_text(const LayerSpace *ls, Arena *a, const LsPoint *pt);
/* The point's kernels: its variant's text with the parameters bound, through
 * the compile pipeline (compile/compile.h) up to o->through; false with the
 * Diag of the pass that failed. */
bool ls_compile(const LayerSpace *ls, Arena *a, const LsPoint *pt, const CpOptions *o, CpResult *r, Diag *d);
/* The point's kernels lowered for a device of target `target` ("opencl",
 * the default when NULL, or "cuda"): ls_compile through the lowering with the target's dialect, whose
 * lowering differs (under CUDA a warp's tile product is mma.sync, each lane
 * giving its fragments; under OpenCL each lane computes its own values), so
 * that what is measured is what the device's language runs. What tune's
 * workers, its kernel hashes and bench measure. */
bool ls_lower(const LayerSpace *ls, Arena *a, const LsPoint *pt, const char *target, CpResult *r, Diag *d);
/* The point as the compile pipeline's input: the space's name, the variant's
 * text and the values of its sizes (a choice is no size of the program: it
 * chose the text), in the arena (for a caller that keeps it past ls_free). */
CpInput ls_point_input(const LayerSpace *ls, Arena *a, const LsPoint *pt);
/* The rules that derive the point's variant, with their positions, one per
 * line into log (st_derive's log). The variants are derived without one, so
 * this derives the variant again; false with a Diag when the layer's
 * expression cannot be built. */
bool ls_derivation(const LayerSpace *ls, Arena *a, const LsPoint *pt, StrBuf *log, Diag *d);
/* A recorded point (strategy and point text, as the database keeps them) of
 * layer l compiled for dev's limits: the point checked against the space as
 * ls_parse_point checks it, and with limits also its lowered kernels against
 * them (space_check_point: a profile's, which no build will check). name
 * names the space in messages. False with the reason in d. */
bool ls_compile_record(Arena *a, const char *strategy, const char *point, const Layer *l, const char *name,
                       const RtDeviceInfo *dev, bool limits, const CpOptions *o, CpResult *r, Diag *d);
/* The names and values of a point's choices and parameters (for -p), *n of
 * them, in the arena. */
void ls_bindings(const LayerSpace *ls, const LsPoint *pt, int *n, const char ***names, int64_t **vals);

#endif
