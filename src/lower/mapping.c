/* mapping.c: legality of mapping maps to parallel levels (docs/design.md section 6).
 *
 * The rules, checked while lowering (and, later, used as constraints when the
 * mapping is searched): no two nested maps use the same parallel dimension,
 * except a mapWrg (mapGlb) that is the whole body of a mapWrg (mapGlb) of
 * its dimension (the two walk one range of groups (work-items) over the
 * product of their trips: the emitter splits the id);
 * mapLcl(d) runs inside mapWrg(d); mapLcl(flat), which takes every work-item
 * of the group, runs inside a mapWrg and neither holds nor sits in another
 * mapLcl; mapGlb is not mixed with mapWrg/mapLcl in
 * one kernel; a barrier is reached by every work-item of the group, so it is
 * never inside mapGlb nor inside a mapLcl whose trip count is not a multiple
 * of the work-group size (some work-items would skip an iteration).
 */
#include "lower/gen.h"

static const char *loop_name(LoopKind k) {
  static const char *names[] = {"mapSeq", "mapGlb", "mapWrg", "mapLcl"};
  return names[k];
}

const char *lw_dim_name(int dim) {
  static const char *names[] = {"0", "1", "2", "flat"};
  return names[dim];
}

static bool mapping_error(const Gen *g, const Expr *at, const char *msg, LoopKind k, int dim) {
  return diag_reject(g->d, "%s:%d:%d: illegal mapping: %s(%s) %s", g->lp->prog->name, at ? at->line : 0,
                    at ? at->col : 0, loop_name(k), lw_dim_name(dim), msg);
}

int map_chain(const Gen *g, LoopKind kind, int dim, int64_t *product) {
  int n = 0;
  *product = 1;
  if ((kind != LOOP_WRG && kind != LOOP_GLB) || dim == IR_DIM_FLAT) return 0;
  for (int i = g->nctx - 1; i >= 0 && g->ctx[i].kind == kind && g->ctx[i].dim == dim; i--) {
    if (g->ctx[i].stmt->body->n != 0) break;   // something before the new map in this one's body
    n++, *product *= g->ctx[i].trip;
  }
  return n;
}

bool map_chain_ok(const Gen *g, const Stmt *loop, const Expr *at) {
  if (!loop->fold_div || loop->body->n == 1) return true;
  return mapping_error(g, at, loop->loop == LOOP_WRG ? "holds a mapWrg of its dimension and more: the inner map must "
                                                       "be its whole body, so that one range walks both"
                                                     : "holds a mapGlb of its dimension and more: the inner map must "
                                                       "be its whole body, so that one range walks both",
                       loop->loop, loop->dim);
}

bool map_nesting_ok(const Gen *g, LoopKind kind, int dim, const Expr *at) {
  if (kind == LOOP_SEQ) return true;
  bool wrg_same_dim = false;
  int64_t product;
  int chain_from = g->nctx - map_chain(g, kind, dim, &product);
  for (int i = 0; i < g->nctx; i++) {
    const Ctx *c = &g->ctx[i];
    if (c->kind == LOOP_SEQ) continue;
    if (kind == LOOP_LCL && c->kind == LOOP_LCL && (dim == IR_DIM_FLAT || c->dim == IR_DIM_FLAT))
      return mapping_error(g, at, dim == IR_DIM_FLAT ? "is nested in a mapLcl; a flat mapLcl takes every work-item"
                                                     : "is nested in mapLcl(flat), which takes every work-item",
                           kind, dim);
    if (c->dim == dim && c->kind == kind && i < chain_from)
      return mapping_error(g, at, kind == LOOP_WRG || kind == LOOP_GLB
                                      ? "is nested in a map on the same dimension, but not as its whole body"
                                      : "is nested in a map on the same dimension", kind, dim);
    if ((kind == LOOP_GLB) != (c->kind == LOOP_GLB))
      return mapping_error(g, at, kind == LOOP_GLB ? "is mixed with mapWrg/mapLcl; use one scheme per kernel"
                                                   : "is mixed with mapGlb; use one scheme per kernel", kind, dim);
    if (kind == LOOP_WRG && c->kind == LOOP_LCL)
      return mapping_error(g, at, "is nested inside mapLcl; work-groups are the outer level", kind, dim);
    if (c->kind == LOOP_WRG && (c->dim == dim || dim == IR_DIM_FLAT)) wrg_same_dim = true;
  }
  if (kind == LOOP_LCL && !wrg_same_dim)
    return mapping_error(g, at, dim == IR_DIM_FLAT ? "is not inside a mapWrg" : "is not inside a mapWrg on the same dimension",
                         kind, dim);
  return true;
}

bool barrier_ok(const Gen *g, const Expr *at) {
  if (g->dry) return true;
  for (int i = 0; i < g->nctx; i++) {
    const Ctx *c = &g->ctx[i];
    if (c->kind == LOOP_GLB)
      return diag_error(g->d, "%s:%d:%d: a barrier is needed inside mapGlb(%d), where work-items cannot "
                        "synchronise; use mapWrg/mapLcl", g->lp->prog->name, at ? at->line : 0, at ? at->col : 0, c->dim);
    if (c->kind == LOOP_LCL && c->trip % c->step != 0)
      return diag_error(g->d, "%s:%d:%d: a barrier would not be reached by all work-items: it is inside "
                        "mapLcl(%s) over %lld iterations with %lld work-items (not a multiple)",
                        g->lp->prog->name, at ? at->line : 0, at ? at->col : 0, lw_dim_name(c->dim), (long long)c->trip,
                        (long long)c->step);
  }
  return true;
}
