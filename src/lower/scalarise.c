/* scalarise.c: private arrays that are only ever indexed by constants become
 * separate scalar variables, so that the device compiler keeps them in
 * registers (unrolled loops over register blocks produce exactly this).
 * Runs after gen; sets Mem.scalarised, which the emitter reads, and the final
 * element count of private memories whose dimensions are spread over
 * work-items (see Mem.dist).
 */
#include "lower/lower.h"

/* Storage elements of a private memory once its spread dimensions keep only
 * this work-item's slots. */
static int64_t private_count(const Mem *m) {
  int64_t n = 1, len;
  int k = 0;
  const Type *t = m->type;
  for (; t->kind == TY_ARRAY; t = t->elem, k++) {
    cg_assert(ax_is_cst(t->len, &len));
    n *= (len + m->dist[k] - 1) / m->dist[k];
  }
  return n * (t->kind == TY_VEC && m->storage->kind != TY_VEC ? t->width : 1);
}

static void mark_cexpr(const CExpr *c) {
  if (c->kind == C_LOAD && c->mem->space == MS_PRIVATE && (c->width > 1 || !ax_is_cst(c->idx, &(int64_t){0})))
    c->mem->scalarised = false;
  for (int i = 0; i < c->nargs; i++) mark_cexpr(c->args[i]);
}

static void mark_stmt(const Stmt *s, bool decl_pass) {
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++) mark_stmt(s->stmts[i], decl_pass);
    break;
  case ST_FOR: mark_stmt(s->body, decl_pass); break;
  case ST_DECL:
    if (decl_pass) {
      s->mem->scalarised = true;
      s->mem->count = private_count(s->mem);
    }
    break;
  case ST_STORE:
    if (decl_pass) break;
    if (s->mem->space == MS_PRIVATE && (s->width > 1 || !ax_is_cst(s->idx, &(int64_t){0})))
      s->mem->scalarised = false;
    mark_cexpr(s->value);
    break;
  case ST_BARRIER:
  case ST_COMMENT:
  case ST_ASYNC_WAIT: break;
  }
}

void lw_scalarise(LProgram *lp) {
  for (int k = 0; k < lp->nkernels; k++) {
    mark_stmt(lp->kernels[k]->body, true);
    mark_stmt(lp->kernels[k]->body, false);
  }
}
