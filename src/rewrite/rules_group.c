/* rules_group.c: grouping, the rule that makes a grouped convolution's map
 * over its groups.
 *
 * A grouped layer's high-level expression is the dense one (a map over the
 * k kernels, each reducing its windows with it) where each kernel reads
 * the windows of its own group's c/G channels: the G groups' windows A
 * broadcast to the k/G kernels of each group, as a view,
 *
 *     join(map[pad[0, m, clamp]](split[1](A)))     (m = k/G - 1)
 *
 * which reads group g's element k/G times in a row, zipped with the
 * kernels (and their biases and residual planes). map-over-groups turns
 * the map over that zip into a map over the groups, each a map over its
 * k/G kernels with the group's windows shared, so that a strategy derives
 * one group's kernels as it derives a dense layer's (st_derive) and the
 * windows are not read through the broadcast. The equation holds for any
 * A and B1..Bn of that shape: element j of the broadcast is A[j / (m+1)],
 * and split[m+1](Bi) puts Bi[j] in group j / (m+1) at place j % (m+1).
 */
#include "rewrite/rules.h"

/* join(map[pad[0, m, clamp]](split[1](A))): A, and m in *m; else NULL. */
static const Expr *broadcast_of(const Expr *e, const AExpr **m) {
  if (!rw_is_call(e, P_JOIN) || e->nargs != 1) return NULL;
  const Expr *padded = e->args[0];
  if (!rw_is_call(padded, P_MAP) || padded->nargs != 1) return NULL;
  const Fun *pad = padded->fun->f;
  int64_t left, one;
  if (!pad || pad->kind != F_PRIM || pad->prim != P_PAD || pad->boundary != PAD_CLAMP || !ax_is_cst(pad->n, &left) ||
      left != 0)
    return NULL;
  const Expr *split = padded->args[0];
  if (!rw_is_call(split, P_SPLIT) || split->nargs != 1 || !ax_is_cst(split->fun->n, &one) || one != 1) return NULL;
  *m = pad->m;
  return split->args[0];
}

/* e with each get[i](p) replaced by fields[i] (p used only so: rw_only_fields;
 * the fields do not use p, so one field after another is the same). */
static const Expr *subst_fields(Arena *a, const Expr *e, const Param *p, const Expr *const *fields, int n) {
  for (int i = 0; i < n; i++) e = rw_subst_field(a, e, p, i, fields[i]);
  return e;
}

/* map[fun(y) -> h](zip(broadcast(A), B1, ..., Bn)), y used only as get[i](y).
 * zip's arguments have one length, A's times m+1, so split[m+1] divides
 * every Bi. */
static bool groups_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y;
  const Expr *h;
  if (!rw_is_call(e, P_MAP) || e->nargs != 1 || !(h = rw_lambda_body1(e->fun->f, &y))) return false;
  const Expr *z = e->args[0];
  const AExpr *m;
  return rw_is_call(z, P_ZIP) && z->nargs >= 2 && z->nargs <= 15 && broadcast_of(z->args[0], &m) &&
         rw_only_fields(h, y, z->nargs);
}

static const Expr *groups_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y, *g = rw_param(a, "group"), *kb = rw_param(a, "kb");
  const Expr *h = rw_lambda_body1(e->fun->f, &y), *z = e->args[0];
  const AExpr *m;
  const Expr *shared = broadcast_of(z->args[0], &m);
  const AExpr *per_group = ax_add(a, m, ax_cst(a, 1));
  int n = z->nargs - 1;   // B1..Bn
  // the groups: zip(A, split[m+1](B1), ..., split[m+1](Bn))
  const Expr *outer[16], *inner[16], *fields[16];
  outer[0] = shared;
  for (int i = 0; i < n; i++) outer[i + 1] = ir_call1(a, ir_prim_n(a, P_SPLIT, per_group), z->args[i + 1]);
  // a group's elements: its Bi zipped (or its B1 alone), each y's fields from the group and the element
  const Expr *g_ref = ir_ref(a, g), *kb_ref = ir_ref(a, kb);
  fields[0] = ir_call1(a, ir_prim_i(a, P_GET, 0), g_ref);
  for (int i = 0; i < n; i++) {
    inner[i] = ir_call1(a, ir_prim_i(a, P_GET, i + 1), g_ref);
    fields[i + 1] = n == 1 ? kb_ref : ir_call1(a, ir_prim_i(a, P_GET, i), kb_ref);
  }
  const Expr *body = subst_fields(a, h, y, fields, n + 1);   // groups_match saw y's uses; rw_apply types the result
  const Expr *elems = n == 1 ? inner[0] : ir_call(a, ir_prim(a, P_ZIP), n, inner);
  const Expr *one_group = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &kb, body)), elems);
  const Expr *groups = ir_call(a, ir_prim(a, P_ZIP), n + 1, outer);
  const Expr *mapped = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &g, one_group)), groups);
  return ir_call1(a, ir_prim(a, P_JOIN), mapped);
}

static const Rule RULES[] = {
    {"map-over-groups",
     "map[fun(y) -> h](zip(join(map[pad[0, m, clamp]](split[1](A))), B1, ..., Bn)) => "
     "join(map[fun(g) -> map[fun(b) -> h[get[0](y) := get[0](g), get[i](y) := get[i-1](b)]](zip(get[1](g), ..., "
     "get[n](g)))](zip(A, split[m+1](B1), ..., split[m+1](Bn))))  (y used only as get[i](y); with n = 1 the inner "
     "map walks get[1](g) and get[1](y) is b)",
     0, {0}, groups_match, groups_build},
};

const Rule *rw_group_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
