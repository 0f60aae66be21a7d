/* space.h: the parameter space of a program (docs/design.md sections 6 and 7).
 *
 * A program's sizes that are not bound to values (-p M=2048) are its tuning
 * parameters. Each has a name, a one-line meaning and an integer domain
 * [lo, hi], optionally narrowed to a list of allowed values. Constraints come
 * from three places and each carries its origin as text:
 *   - the IR (constraints.c): split[n] on length N gives N % n == 0 and
 *     n >= 1; slide[s, t] gives N >= s, s >= 1, t >= 1 (windows need not
 *     cover N exactly: the type has (N - s)/t + 1 windows and any tail is
 *     unused, so a strategy that wants exact cover writes a split or a pad);
 *     asVector[v] gives N % v == 0; zip gives equal lengths; an unrolled nest
 *     (mapSeqUnroll, reduceSeqUnroll) gives its trip product <= the lowering's
 *     cap on statements per kernel (a necessary condition: every unrolled
 *     iteration is at least one statement); a reduction inside a mapGlb or
 *     mapLcl over an array of accumulators gives their number <=
 *     SPACE_PRIVATE_MAX (registers); a reduceSeq walked in unrolled rows of m
 *     steps (reduce-seq-nest) gives m times its step's unrolled nest <=
 *     SPACE_BODY_MAX (the straight-line loop body a compiler schedules);
 *   - the device: the `workgroup` line's product <= the device's work-group
 *     size, each entry <= its work-item size in that dimension and >= 1;
 *     without a `workgroup` line, a mapLcl(d) over L iterations gives
 *     L <= the work-item size in d;
 *   - the lowering (check.c), a second stage run per point because its limits
 *     are not simple expressions: each kernel's local memory, work-group
 *     size and buffers within the device's limits, and whatever the lowering
 *     itself rejects (a barrier not every work-item reaches, an illegal
 *     mapping, code too large).
 * A constraint with no parameter in it, or one the domains decide, is not
 * kept: when true it is dropped (listed as implied), when false the whole
 * space is empty and `empty` says why.
 *
 * Enumeration (enumerate.c) binds the parameters in dependency order (a
 * divisor after what it divides, the smaller side of <= after the larger),
 * each over its domain in increasing order, and checks a constraint as soon
 * as its last parameter is bound. Parameters that share no constraint form
 * independent groups, counted separately and multiplied.
 *
 * Lifetime: a Space lives in the arena given to space_new; space_free
 * releases the few heap tables enumeration makes.
 */
#ifndef CONVGEN_SPACE_H
#define CONVGEN_SPACE_H

#include "ir/ir.h"
#include "rt/rt.h"

enum {
  SPACE_CODE_CAP = 200000,        // statements per kernel after unrolling: lower.c's cap
  SPACE_PRIVATE_MAX = 128,        // accumulators a work-item's reduction keeps in registers
  SPACE_BODY_MAX = 2048,          // unrolled statements in one loop body of a nested reduceSeq (docs/space.md)
  SPACE_EXACT_MAX = 2000000,      // points of a group kept for exact uniform sampling
};

typedef struct SpaceParam {
  const char *name;       // the size variable
  const char *meaning;    // one line: where the program uses it
  int64_t lo, hi;         // domain, inclusive, lo >= 1
  int nvalues;            // 0: every integer in [lo, hi]; else the allowed values
  const int64_t *values;  // increasing, within [lo, hi]
  const AExpr *var;       // the variable with range [lo, hi] that constraints use
  int group;              // independent group (enumerate.c)
} SpaceParam;

typedef enum ConKind {
  CON_DIVIDES,  // lhs % rhs == 0 (and rhs >= 1 for it to be defined)
  CON_LE,       // lhs <= rhs
  CON_GE,       // lhs >= rhs
  CON_EQ,       // lhs == rhs
} ConKind;

typedef struct SpaceCon {
  ConKind kind;
  const AExpr *lhs, *rhs;  // over parameter variables and constants
  const char *text;        // the condition: "2048 % TS == 0"
  const char *origin;      // where and why: "split[TS] at f.cg:17:12 on length 2048"
  int level;               // position (in enumeration order) of its last parameter
} SpaceCon;

/* What space_new needs: the program text (re-parsed per point by the lowering
 * checks), the bound problem sizes, domains for some parameters, the device. */
typedef struct SpaceDomain {
  const char *name;
  int64_t lo, hi;          // used when nvalues == 0
  int nvalues;
  const int64_t *values;   // any order; duplicates ignored
} SpaceDomain;

typedef struct SpaceInput {
  const char *file;                 // for messages and origins
  const char *text;                 // the program
  int nbind;
  const char *const *bnames;        // problem sizes (-p)
  const int64_t *bvals;
  int ndomains;
  const SpaceDomain *domains;       // parameters not listed get 1..(largest bound size)
  const RtDeviceInfo *dev;          // NULL: no device constraints
} SpaceInput;

typedef struct SpaceGroup SpaceGroup;

typedef struct Space {
  Arena *a;
  SpaceInput in;           // as given (strings and arrays copied into the arena)
  RtDeviceInfo dev;        // valid when in.dev != NULL
  const Program *prog;     // parsed with the problem sizes bound, types inferred
  int nparams;
  SpaceParam *params;      // in enumeration order
  int ncons;
  SpaceCon *cons;          // the constraints that can fail, in order of collection
  int nimplied;
  SpaceCon *implied;       // dropped: true at every point of the domains
  int nconst;              // dropped: conditions on bound sizes alone, all true
  const char *empty;       // non-NULL: no point can exist, and why
  int ngroups;
  SpaceGroup *groups;      // enumerate.c
  uint64_t step_budget;    // value checks one count or one descent may spend
  uint64_t list_max;       // points of a group listed for exact sampling (SPACE_EXACT_MAX)
} Space;

/* Parses, infers types, collects the constraints and orders the parameters.
 * NULL with a Diag for a bad program, an unknown or bound name in the domains,
 * an empty domain, or a parameter without a domain when no size is bound. */
Space *space_new(Arena *a, const SpaceInput *in, Diag *d);
void space_free(Space *s);
int space_param_index(const Space *s, const char *name);   // -1 when none

/* The parameters (name, domain, meaning) and every constraint with its origin. */
void space_print(StrBuf *sb, const Space *s);

/* Whether the point (values in params order) satisfies every constraint;
 * *why gets the text and origin of the first one it breaks. */
bool space_satisfies(const Space *s, const int64_t *vals, const SpaceCon **why);

/* The number of points that satisfy every IR and device constraint.
 * *exact is false when counting stopped at the step budget (the result is
 * then a lower bound) or the count does not fit in 64 bits (UINT64_MAX). */
uint64_t space_count(Space *s, bool *exact);
uint64_t space_domain_size(const Space *s);   // product of the domain sizes (saturates)

/* Sampling without replacement, from a seeded generator (splitmix64).
 * Exact mode, when every group has at most Space.list_max points: all valid
 * points of each group are listed, and points are drawn by rank with a
 * Fisher-Yates shuffle of the product space: every ordered sequence of
 * distinct valid points is equally likely. Descent mode otherwise: each
 * group's parameters are drawn in order, each value uniform among those that
 * pass the constraints checked at its level and have not yet proved a dead
 * end (backtracking on dead ends); a point's probability is then the product
 * over levels of 1 / (live values at that level), which favours points in
 * sparse parts of the space: not uniform. Repeats are rejected, and the
 * sampler gives up after 1000 repeats in a row. */
typedef struct SpaceSampler SpaceSampler;
SpaceSampler *space_sampler_new(Space *s, uint64_t seed);
bool space_sampler_next(SpaceSampler *sm, int64_t *vals);   // false: no more points
bool space_sampler_uniform(const SpaceSampler *sm);
void space_sampler_free(SpaceSampler *sm);
/* n points into out (n * nparams values, row-major); returns how many were
 * drawn, fewer when the space has fewer. */
int space_sample(Space *s, uint64_t seed, int n, int64_t *out);

/* Enumeration of every valid point in order (the groups' points combined,
 * first group slowest); false when some group is too large to list. */
typedef bool (*SpaceVisit)(void *ctx, const int64_t *vals);   // false stops
bool space_foreach(Space *s, SpaceVisit visit, void *ctx);

/* ---- The lowering stage (check.c) -------------------------------------------
 * A point is lowered with every size bound (the compile pipeline up to
 * lower, compile.h);
 * it fails with the lowering's reason, or when a kernel's local memory,
 * work-group size, work-item sizes or a buffer exceed the device's limits. */
typedef struct SpaceReason {
  const char *key;        // the reason with its numbers replaced by N: how rejects are grouped
  const char *example;    // the full reason for the first point (in enumeration order) it rejected
  const int64_t *point;   // that point
  uint64_t count;
} SpaceReason;

typedef struct SpaceCheck {
  uint64_t checked;       // points lowered
  uint64_t passed;
  int nreasons;
  SpaceReason *reasons;   // by decreasing count
} SpaceCheck;

typedef void (*SpaceProgress)(void *ctx, uint64_t done, uint64_t total);

typedef struct SpaceCheckOptions {
  int jobs;               // points lowered at once, each in a child process (0: in this process)
  int64_t mem_limit_mb;   // per child (0: none; never under AddressSanitizer)
  int time_limit_s;       // per child (0: none)
  SpaceProgress progress; // called after each point (may be NULL)
  void *ctx;
} SpaceCheckOptions;

SpaceCheckOptions space_check_defaults(void);   // a job per CPU, 2048 MiB, 60 s
/* One point, in this process: NULL when it passes, else the reason (a
 * rejected point, whatever refused it). */
const char *space_check_point(Space *s, Arena *a, const int64_t *vals);
/* The lowering of one point alone, without the device's limits: false with
 * the lowering's Diag, whose kind tells a legality rule of the mapping
 * (DIAG_REJECT, the same at every point of the program: the mapping does not
 * depend on the sizes) from what the sizes decide (a barrier that some
 * work-items skip, code over the cap: DIAG_USER, the lowering's word for an
 * input it refuses). */
bool space_lower_point(Space *s, Arena *a, const int64_t *vals, Diag *d);
/* Every IR-valid point; false (with d) when the space is too large to list. */
bool space_check_all(Space *s, const SpaceCheckOptions *o, SpaceCheck *out, Diag *d);
/* Like space_sample, over the points that also pass the lowering: points are
 * drawn as space_sampler_next gives them and kept when they pass, so exact
 * mode stays uniform over the points that pass. out->checked counts the
 * points lowered on the way. */
int space_sample_checked(Space *s, uint64_t seed, int n, int64_t *pts, const SpaceCheckOptions *o,
                         SpaceCheck *out);

/* ---- Internal to the space passes ------------------------------------------- */
void space_collect(Space *s);                              // constraints.c
void space_add_con(Space *s, ConKind kind, const AExpr *lhs, const AExpr *rhs, const char *origin);
bool space_con_holds(const Space *s, const SpaceCon *c, const int64_t *vals);
bool space_eval(const Space *s, const AExpr *e, const int64_t *vals, int64_t *out);
void space_order(Space *s);                                // space.c
void space_groups(Space *s);                               // enumerate.c

#endif
