/* helpers.c: the questions matchers ask and the pieces builders make, shared
 * by every rule family (rules.h).
 *
 * Matchers see one typed expression and must never crash on any node: each
 * helper accepts every kind of Expr and Fun and answers false for shapes it
 * does not describe. Size conditions are decided only where the arithmetic can
 * decide them; an undecided one is left to the parameter space.
 */
#include "rewrite/rules.h"

#include <stdio.h>
#include <string.h>

bool rw_is_call(const Expr *e, Prim p) {
  return e && e->kind == E_CALL && e->fun->kind == F_PRIM && e->fun->prim == p;
}

bool rw_is_map_call(const Expr *e) {
  return e && e->kind == E_CALL && e->fun->kind == F_PRIM && prim_is_map(e->fun->prim);
}

bool rw_is_ref(const Expr *e, const Param *p) { return e && e->kind == E_PARAM && e->param == p; }

const Expr *rw_flat_arg(const Expr *e) {
  if (!rw_is_call(e, P_JOIN)) return NULL;
  const Expr *m = e->args[0];
  bool map_join = rw_is_call(m, P_MAP) && m->fun->f->kind == F_PRIM && m->fun->f->prim == P_JOIN;
  return map_join ? m->args[0] : NULL;
}

const Expr *rw_lambda_body1(const Fun *f, Param **param) {
  if (!f || f->kind != F_LAMBDA || f->nparams != 1) return NULL;
  if (param) *param = f->params[0];
  return f->body;
}

bool rw_fun_uses(const Fun *f, const Param *p) {
  for (; f; f = f->f) {
    if (f->kind == F_LAMBDA) return rw_uses(f->body, p);
    if (f->kind != F_PRIM) return false;
  }
  return false;
}

bool rw_uses(const Expr *e, const Param *p) {
  switch (e->kind) {
  case E_PARAM: return e->param == p;
  case E_LIT: return false;
  case E_CALL: break;
  }
  for (int i = 0; i < e->nargs; i++)
    if (rw_uses(e->args[i], p)) return true;
  return rw_fun_uses(e->fun, p);
}

int rw_count_uses(const Expr *e, const Param *p, bool *in_lambda) {
  if (e->kind == E_PARAM) return e->param == p;
  if (e->kind != E_CALL) return 0;
  int n = 0;
  for (int i = 0; i < e->nargs; i++) n += rw_count_uses(e->args[i], p, in_lambda);
  if (rw_fun_uses(e->fun, p)) {
    *in_lambda = true;
    n++;
  }
  return n;
}

static const Fun *subst_fun(Arena *a, const Fun *f, const Param *p, const Expr *repl) {
  if (!rw_fun_uses(f, p)) return f;
  if (f->kind == F_LAMBDA) return ir_lambda(a, f->nparams, f->params, rw_subst(a, f->body, p, repl));
  return rw_with_nested(a, f, subst_fun(a, f->f, p, repl));
}

const Expr *rw_subst(Arena *a, const Expr *e, const Param *p, const Expr *repl) {
  if (e->kind == E_PARAM) return e->param == p ? repl : e;
  if (e->kind != E_CALL || !rw_uses(e, p)) return e;
  const Expr *args[16];
  cg_assert(e->nargs <= 16);
  for (int i = 0; i < e->nargs; i++) args[i] = rw_subst(a, e->args[i], p, repl);
  return ir_call(a, subst_fun(a, e->fun, p, repl), e->nargs, args);
}

const AExpr *rw_len(const Expr *e) {
  return e && e->type && e->type->kind == TY_ARRAY ? e->type->len : NULL;
}

bool rw_may_divide(const AExpr *len, const AExpr *n) {
  int64_t vn, vl, lo, hi;
  ax_range(n, &lo, &hi);
  if (hi < 1) return false;
  if (ax_is_cst(n, &vn) && ax_is_cst(len, &vl)) return vn >= 1 && vl % vn == 0;
  return true;
}

bool rw_may_le(const AExpr *x, const AExpr *y) { return !ax_prove_lt(y, x); }

Param *rw_param(Arena *a, const char *base) { return ir_param(a, base, NULL); }

const Expr *rw_call2(Arena *a, const Fun *f, const Expr *x, const Expr *y) {
  const Expr *args[2] = {x, y};
  return ir_call(a, f, 2, args);
}

const Expr *rw_map(Arena *a, const Fun *f, const Expr *x) { return ir_call1(a, ir_prim_f(a, P_MAP, f), x); }

/* rw_subst_tuple's walk: NULL when y is used whole. */
static const Expr *tuple_subst(Arena *a, const Expr *e, const Param *y, int n, const Expr *const *fields);

static const Fun *tuple_fun(Arena *a, const Fun *f, const Param *y, int n, const Expr *const *fields, bool *ok) {
  if (!rw_fun_uses(f, y)) return f;
  if (f->kind == F_LAMBDA) {
    const Expr *b = tuple_subst(a, f->body, y, n, fields);
    if (!b) return *ok = false, f;
    return ir_lambda(a, f->nparams, f->params, b);
  }
  if (f->kind == F_PRIM && f->f) return rw_with_nested(a, f, tuple_fun(a, f->f, y, n, fields, ok));
  return *ok = false, f;
}

static const Expr *tuple_subst(Arena *a, const Expr *e, const Param *y, int n, const Expr *const *fields) {
  if (e->kind == E_PARAM) return e->param == y ? NULL : e;
  if (e->kind != E_CALL || !rw_uses(e, y)) return e;
  const Fun *f = e->fun;
  if (e->nargs == 1 && rw_is_ref(e->args[0], y)) {
    if (f->kind == F_USER && f->uf->nparams == n) {   // a spread tuple
      const Expr *spread[16];
      for (int i = 0; i < n; i++) spread[i] = fields[i];
      return ir_call(a, f, n, spread);
    }
    if (rw_is_call(e, P_GET) && f->index >= 0 && f->index < n) return fields[f->index];
    return NULL;
  }
  const Expr *args[16];
  cg_assert(e->nargs <= 16);
  for (int i = 0; i < e->nargs; i++)
    if (!(args[i] = tuple_subst(a, e->args[i], y, n, fields))) return NULL;
  bool ok = true;
  const Fun *g = tuple_fun(a, f, y, n, fields, &ok);
  return ok ? ir_call(a, g, e->nargs, args) : NULL;
}

const Expr *rw_subst_tuple(Arena *a, const Expr *e, const Param *y, int n, const Expr *const *fields) {
  cg_assert(n >= 1 && n <= 16);
  return tuple_subst(a, e, y, n, fields);
}

const Expr *rw_subst_pair(Arena *a, const Expr *e, const Param *y, const Expr *u, const Expr *v) {
  return tuple_subst(a, e, y, 2, (const Expr *const[]){u, v});
}

bool rw_only_fields(const Expr *e, const Param *p, int n) {
  if (!rw_uses(e, p)) return true;
  if (e->kind != E_CALL) return false;
  if (rw_is_call(e, P_GET) && e->nargs == 1 && rw_is_ref(e->args[0], p)) return e->fun->index >= 0 && e->fun->index < n;
  for (int i = 0; i < e->nargs; i++)
    if (!rw_only_fields(e->args[i], p, n)) return false;
  for (const Fun *f = e->fun; f; f = f->f) {
    if (f->kind == F_LAMBDA) return rw_only_fields(f->body, p, n);
    if (f->kind != F_PRIM) return true;
  }
  return true;
}

bool rw_find_field(const Expr *e, const Param *y, int i, RwPath *at) {
  if (e->kind != E_CALL || !rw_uses(e, y)) return false;
  if (rw_is_call(e, P_GET) && e->nargs == 1 && rw_is_ref(e->args[0], y) && e->fun->index == i) return true;
  const Expr *kids[17];   // 16 arguments and a lambda body
  int n = rw_children(e, kids, 17);
  for (int k = 0; k < n && (!at || at->n < RW_MAX_PATH); k++) {
    if (at) at->step[at->n++] = k;
    if (rw_find_field(kids[k], y, i, at)) return true;
    if (at) at->n--;
  }
  return false;
}

static const Fun *field_fun(Arena *a, const Fun *f, const Param *y, int i, const Expr *v) {
  if (!rw_fun_uses(f, y)) return f;
  if (f->kind == F_LAMBDA) return ir_lambda(a, f->nparams, f->params, rw_subst_field(a, f->body, y, i, v));
  if (f->kind == F_PRIM && f->f) return rw_with_nested(a, f, field_fun(a, f->f, y, i, v));
  return f;
}

const Expr *rw_subst_field(Arena *a, const Expr *e, const Param *y, int i, const Expr *v) {
  if (e->kind != E_CALL || !rw_uses(e, y)) return e;
  if (rw_is_call(e, P_GET) && e->nargs == 1 && rw_is_ref(e->args[0], y) && e->fun->index == i) return v;
  const Expr *args[16];
  cg_assert(e->nargs <= 16);
  for (int k = 0; k < e->nargs; k++) args[k] = rw_subst_field(a, e->args[k], y, i, v);
  return ir_call(a, field_fun(a, e->fun, y, i, v), e->nargs, args);
}

const UserFun *rw_identity(Arena *a, const Type *t, const char *name) {
  UserFun *uf = ARENA_NEW(a, UserFun);
  uf->name = name, uf->nparams = 1, uf->body = " return x; ", uf->ret = t;
  uf->pnames = ARENA_ARRAY(a, const char *, 1), uf->ptypes = ARENA_ARRAY(a, const Type *, 1);
  uf->pnames[0] = "x", uf->ptypes[0] = t;
  CbType ct = {false, t->kind == TY_VEC ? t->width : 1};
  Diag d = {0};
  uf->cbody = cb_parse(a, uf->name, uf->body, 1, uf->pnames, &ct, ct, &d);
  cg_assert(uf->cbody);
  return uf;
}
