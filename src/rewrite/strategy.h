/* strategy.h: strategies, sequences of rule applications that take the
 * high-level convolution (conv/program.h) to a low-level program that the
 * lowering compiles (DESIGN.md s.6). Each strategy is one file,
 * strategy_NAME.c; what it applies, in order, is recorded in a log of
 * "rule [arguments] at path" lines so that a derivation can be read and
 * replayed.
 */
#ifndef CONVGEN_STRATEGY_H
#define CONVGEN_STRATEGY_H

#include "rewrite/rewrite.h"

typedef struct Strategy {
  const char *name;      // "direct"
  const char *summary;   // one line for --help and `convgen space`
  /* The low-level program derived from the high-level one (type-inferred);
   * NULL with a Diag when a step does not apply. log (may be NULL) gets one
   * line per rule applied. */
  Program *(*derive)(Arena *a, const Program *hl, StrBuf *log, Diag *d);
} Strategy;

const Strategy *st_strategies(int *n);
const Strategy *st_strategy(const char *name);   // NULL when unknown

/* Steps strategies share (strategy.c). */
typedef bool (*StPick)(const Expr *e);   // which of the matching positions to take
/* Apply rule `name` (with args) at every matching position that pick accepts
 * (pick NULL: every one), in pre-order, at most max times (0: no limit);
 * *count gets how many were applied. NULL with a Diag on failure. */
Program *st_apply_all(Arena *a, Program *p, const char *name, const AExpr *const *args, StPick pick, int max,
                      int *count, StrBuf *log, Diag *d);
/* The maps of p that compute (not maps of layout functions), in pre-order. */
int st_compute_maps(const Program *p, RwPath *out, int max);
/* Apply rule `name` with args at path. */
Program *st_apply_at(Arena *a, Program *p, const char *name, const AExpr *const *args, const RwPath *at, StrBuf *log,
                     Diag *d);

#endif
