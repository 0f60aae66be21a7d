/* gen.h: staged lowering of expressions to statements (internal to lower/). */
#ifndef CONVGEN_GEN_H
#define CONVGEN_GEN_H

#include "lower/view.h"

typedef struct Env {
  const Param *p;
  const View *v;
  const struct Env *next;
} Env;

/* Loops (maps, reductions, copies) nested in one kernel: a program nested
 * deeper is refused with a message (lw_lower), not lowered. */
enum { GEN_MAX_LOOPS = 64 };

/* An enclosing loop while generating. */
typedef struct Ctx {
  LoopKind kind;
  int dim;
  const AExpr *var;
  int64_t trip;           // iterations
  int64_t step;           // threads sharing the loop (1 for LOOP_SEQ)
  Stmt *stmt;             // its ST_FOR
} Ctx;

typedef struct Gen {
  Arena *a;
  Diag *d;
  LProgram *lp;
  LKernel *k;             // kernel being generated
  Stmt *block;            // where statements go
  Ctx ctx[GEN_MAX_LOOPS];
  int nctx;
  bool dry;               // first pass: only collect trip counts, no legality of barriers
  int64_t trips[4][3];    // [LoopKind][dim]: largest trip count seen (dry pass)
  int64_t threads[4][3];  // [LoopKind][dim]: threads per dimension (second pass)
  int names;              // fresh-name counter
} Gen;

/* Generate code for e; when dst is not NULL the value is written there and dst
 * is returned, otherwise the returned view says where the value lives.
 * Returns NULL after an error (in g->d). */
const View *gen_expr(Gen *g, const Expr *e, const Env *env, const View *dst);
const View *gen_apply(Gen *g, const Fun *f, int n, const View *const *args, const Type *rt, const Env *env,
                      const View *dst, const Expr *at);
/* Copy the value at src into dst element by element. */
bool gen_copy(Gen *g, const View *src, const View *dst);
/* A fresh global buffer (a kernel argument) of the given type and role. */
Mem *gen_global(Gen *g, const Type *t, MRole role, const char *name);
void gen_use_arg(Gen *g, Mem *m);
/* A const array of the program (MR_CONST, named as declared): constant
 * memory that the source declares with its values. */
Mem *gen_const(Gen *g, const Type *t, const char *name, const double *values);

/* Parallel-mapping legality (mapping.c): may a map of this kind and
 * dimension be nested in the current loops? */
bool map_nesting_ok(const Gen *g, LoopKind kind, int dim, const Expr *at);
/* The mapWrgs (kind LOOP_WRG) or mapGlbs (LOOP_GLB) of dimension dim just
 * outside the current point, each the whole body of the one outside it:
 * their number, and the product of their trips in *product; 0 for other
 * kinds. A map of that kind and dim opened here joins them: one range over
 * the product (the batch and the channel tiles in one dimension, a grouped
 * layer's groups and a group's channels). */
int map_chain(const Gen *g, LoopKind kind, int dim, int64_t *product);
/* After a chain's outer map is closed: is the map inside still its whole
 * body (nothing after it)? */
bool map_chain_ok(const Gen *g, const Stmt *loop, const Expr *at);
/* May a barrier be placed here: do all work-items of a group reach it? */
bool barrier_ok(const Gen *g, const Expr *at);

#endif
