/* infer.c: type inference with symbolic sizes.
 *
 * Walks a program once, bottom-up, filling Expr.type and the types of lambda
 * parameters (a lambda's parameters take the types of the values it is applied
 * to; every lambda in a program is applied at one place). Errors are user
 * errors: they name the node by position and printed form and give the two
 * types that disagree. Size side conditions (split, slide, asVector, zip) are
 * checked here when the sizes are constants or provably wrong; the parameter
 * space (issue 3) turns the same conditions into constraints.
 */
#include "ir/ir.h"

#include <stdio.h>
#include <string.h>

typedef struct Infer {
  Arena *a;
  Diag *d;
  const char *file;
} Infer;

static const Type *infer_expr(Infer *in, const Expr *e);
static const Type *apply(Infer *in, const Fun *f, int n, const Type *const *args, const Expr *at);

static bool type_error(Infer *in, const Expr *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool type_error(Infer *in, const Expr *at, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *text = ir_expr_str(in->a, at);
  int len = (int)strlen(text);
  const char *nl = strchr(text, '\n');
  if (nl && nl - text < 60) len = (int)(nl - text);
  return diag_error(in->d, "%s:%d:%d: type error in '%.*s%s': %s", in->file, at->line, at->col,
                    len > 60 ? 60 : len, text, len > 60 || nl ? "..." : "", msg);
}

static const char *ts(Infer *in, const Type *t) { return ty_str(in->a, t); }

static bool want_array(Infer *in, const Expr *at, const char *what, const Type *t) {
  if (t->kind == TY_ARRAY) return true;
  return type_error(in, at, "%s expects an array, got %s", what, ts(in, t));
}

/* A size condition that fails for the given (constant) sizes, or provably. */
static bool check_divides(Infer *in, const Expr *at, const char *what, const AExpr *len, const AExpr *n) {
  int64_t vn, vl;
  if (ax_is_cst(n, &vn) && vn < 1)
    return type_error(in, at, "%s needs a positive size, got %lld", what, (long long)vn);
  if (ax_is_cst(n, &vn) && ax_is_cst(len, &vl) && vl % vn != 0)
    return type_error(in, at, "%s on an array of length %lld: %lld is not divisible by %lld", what,
                      (long long)vl, (long long)vl, (long long)vn);
  return true;
}

static const Type *apply_user(Infer *in, const UserFun *uf, int n, const Type *const *args, const Expr *at) {
  const Type *spread[16];
  if (n == 1 && uf->nparams > 1 && args[0]->kind == TY_TUPLE && args[0]->n == uf->nparams) {
    for (int i = 0; i < uf->nparams; i++) spread[i] = args[0]->fields[i];
    args = spread;  // a tuple argument spreads over the parameters
    n = uf->nparams;
  }
  if (n != uf->nparams)
    return type_error(in, at, "user function '%s' takes %d argument%s, got %d", uf->name, uf->nparams,
                      uf->nparams == 1 ? "" : "s", n),
           NULL;
  for (int i = 0; i < n; i++)   // a value read from a half array is a float (the load converts)
    if (!ty_equal(ty_arith(args[i]), uf->ptypes[i]))
      return type_error(in, at, "argument %d of '%s' (%s) is %s, expected %s", i + 1, uf->name, uf->pnames[i],
                        ts(in, args[i]), ts(in, uf->ptypes[i])),
             NULL;
  return uf->ret;
}

static const Type *apply_lambda(Infer *in, const Fun *f, int n, const Type *const *args, const Expr *at) {
  if (n != f->nparams)
    return type_error(in, at, "a lambda of %d parameters applied to %d arguments", f->nparams, n), NULL;
  for (int i = 0; i < n; i++) {
    if (f->params[i]->type && !ty_equal(f->params[i]->type, args[i]))
      return type_error(in, at, "parameter '%s' is used as %s and as %s", f->params[i]->name,
                        ts(in, f->params[i]->type), ts(in, args[i])),
             NULL;
    f->params[i]->type = args[i];
  }
  return infer_expr(in, f->body);
}

static const Type *apply_map(Infer *in, const Fun *f, const Type *x, const Expr *at) {
  if (!want_array(in, at, prim_name(f->prim), x)) return NULL;
  const Type *r = apply(in, f->f, 1, &x->elem, at);
  return r ? ty_array(in->a, r, x->len) : NULL;
}

/* The type values of t are computed in: t with a storage type's elements
 * (half) read as its accumulation type's (float), at any depth. */
static const Type *computed_in(Arena *a, const Type *t) {
  if (t->kind != TY_ARRAY) return ty_arith(t);
  const Type *e = computed_in(a, t->elem);
  return e == t->elem ? t : ty_array(a, e, t->len);
}

static const Type *apply_reduce(Infer *in, const Fun *f, const Type *const *args, const Expr *at) {
  // an accumulator that starts from values of half (a bias) holds floats
  const Type *init = computed_in(in->a, args[0]), *xs = args[1];
  if (!want_array(in, at, prim_name(f->prim), xs)) return NULL;
  const Type *fa[2] = {init, xs->elem};
  const Type *r = apply(in, f->f, 2, fa, at);
  if (!r) return NULL;
  if (!ty_equal(r, init))
    return type_error(in, at, "the reducing function returns %s but the accumulator is %s", ts(in, r), ts(in, init)),
           NULL;
  return ty_array(in->a, init, ax_cst(in->a, 1));
}

static const Type *apply_zip(Infer *in, int n, const Type *const *args, const Expr *at) {
  const Type *fields[16];
  for (int i = 0; i < n; i++) {
    if (!want_array(in, at, "zip", args[i])) return NULL;
    int64_t diff;
    if (ax_is_cst(ax_sub(in->a, args[i]->len, args[0]->len), &diff) && diff != 0)
      return type_error(in, at, "zip of arrays of different lengths: %s and %s", ts(in, args[0]), ts(in, args[i])),
             NULL;
    fields[i] = args[i]->elem;
  }
  return ty_array(in->a, ty_tuple(in->a, n, fields), args[0]->len);
}

static const Type *apply_layout(Infer *in, const Fun *f, const Type *x, const Expr *at) {
  Arena *a = in->a;
  const char *name = prim_name(f->prim);
  if (f->prim == P_GET) {
    if (x->kind != TY_TUPLE) return type_error(in, at, "get expects a tuple, got %s", ts(in, x)), NULL;
    if (f->index >= x->n) return type_error(in, at, "get[%d] of a tuple of %d fields %s", f->index, x->n, ts(in, x)), NULL;
    return x->fields[f->index];
  }
  if (!want_array(in, at, name, x)) return NULL;
  switch (f->prim) {
  case P_UNZIP: {
    if (x->elem->kind != TY_TUPLE) return type_error(in, at, "unzip expects an array of tuples, got %s", ts(in, x)), NULL;
    const Type *fields[16];
    for (int i = 0; i < x->elem->n; i++) fields[i] = ty_array(a, x->elem->fields[i], x->len);
    return ty_tuple(a, x->elem->n, fields);
  }
  case P_SPLIT:
    if (!check_divides(in, at, "split", x->len, f->n)) return NULL;
    return ty_array(a, ty_array(a, x->elem, f->n), ax_div(a, x->len, f->n));
  case P_JOIN:
    if (x->elem->kind != TY_ARRAY) return type_error(in, at, "join expects an array of arrays, got %s", ts(in, x)), NULL;
    // joining what split[n] cut gives back N, not N/n*n: the split's own
    // constraint (n divides N) is what makes every valid point well-typed
    if (x->len->kind == AX_DIV && ax_equal(x->len->ops[1], x->elem->len))
      return ty_array(a, x->elem->elem, x->len->ops[0]);
    return ty_array(a, x->elem->elem, ax_mul(a, x->len, x->elem->len));
  case P_SLIDE: {
    int64_t len, size, step;
    if (ax_is_cst(f->m, &step) && step < 1) return type_error(in, at, "slide step must be at least 1, got %lld", (long long)step), NULL;
    if (ax_is_cst(x->len, &len) && ax_is_cst(f->n, &size) && len < size)
      return type_error(in, at, "slide window %lld is longer than the array (%lld)", (long long)size, (long long)len), NULL;
    const AExpr *count = ax_add(a, ax_div(a, ax_sub(a, x->len, f->n), f->m), ax_cst(a, 1));
    return ty_array(a, ty_array(a, x->elem, f->n), count);
  }
  case P_PAD: return ty_array(a, x->elem, ax_add(a, x->len, ax_add(a, f->n, f->m)));
  case P_CROP: {   // the inverse of pad: the elements left and right of the middle dropped
    int64_t len, l, r;
    if ((ax_is_cst(f->n, &l) && l < 0) || (ax_is_cst(f->m, &r) && r < 0))
      return type_error(in, at, "crop's amounts must be at least 0"), NULL;
    const AExpr *kept = ax_sub(a, x->len, ax_add(a, f->n, f->m));
    if (ax_is_cst(kept, &len) && len < 1)
      return type_error(in, at, "crop[%s, %s] leaves nothing of an array of %s", ax_str(a, f->n), ax_str(a, f->m),
                        ax_str(a, x->len)), NULL;
    return ty_array(a, x->elem, kept);
  }
  case P_TRANSPOSE:
    if (x->elem->kind != TY_ARRAY) return type_error(in, at, "transpose expects a 2-D array, got %s", ts(in, x)), NULL;
    return ty_array(a, ty_array(a, x->elem->elem, x->len), x->elem->len);
  case P_GATHER:
  case P_SCATTER: return x;
  case P_AS_VECTOR:
    if (x->elem->kind != TY_FLOAT) return type_error(in, at, "asVector expects an array of float, got %s", ts(in, x)), NULL;
    if (!check_divides(in, at, "asVector", x->len, f->n)) return NULL;
    {
      int64_t w;
      if (!ax_is_cst(f->n, &w) || (w != 2 && w != 3 && w != 4 && w != 8 && w != 16))
        return type_error(in, at, "asVector width must be 2, 3, 4, 8 or 16"), NULL;
      return ty_array(a, ty_vec(a, x->elem->et, (int)w), ax_div(a, x->len, f->n));
    }
  case P_AS_SCALAR:
    if (x->elem->kind != TY_VEC) return type_error(in, at, "asScalar expects an array of vectors, got %s", ts(in, x)), NULL;
    return ty_array(a, ty_scalar(x->elem->et), ax_mul(a, x->len, ax_cst(a, x->elem->width)));
  default: cg_die("not a layout primitive: %s", name);
  }
}

/* A tile of rows x cols values computed in fp32 (half storage read as
 * float), the shape of one of the tile product's operands. */
static bool is_tile(const Type *t, int64_t rows, int64_t cols) {
  int64_t r, c;
  return t->kind == TY_ARRAY && ax_is_cst(t->len, &r) && r == rows && t->elem->kind == TY_ARRAY &&
         ax_is_cst(t->elem->len, &c) && c == cols && t->elem->elem->kind == TY_FLOAT &&
         ty_arith(t->elem->elem)->et == elem_fp32();
}

/* mmaTF32(a, b, c) and mma3xTF32: a [[float]8]16, b [[float]8]8, c and the
 * result the warp's accumulator [float4]32 (ir.h); mmaF16 the same with 16
 * for 8 in a's and b's rows. */
static const Type *apply_mma(Infer *in, const Fun *f, const Type *const *args, const Expr *at) {
  const char *name = prim_name(f->prim);
  int k = ir_mma_k(f->prim);
  if (!is_tile(args[0], IR_MMA_M, k))
    return type_error(in, at, "%s's first argument must be a 16 x %d tile [[float]%d]16, not %s", name, k, k,
                      ts(in, args[0])), NULL;
  if (!is_tile(args[1], IR_MMA_N, k))
    return type_error(in, at, "%s's second argument must be an 8 x %d tile [[float]%d]8, not %s", name, k, k,
                      ts(in, args[1])), NULL;
  const Type *acc = ty_array(in->a, ty_vec(in->a, elem_fp32(), 4), ax_cst(in->a, IR_WARP));
  if (!ty_equal(computed_in(in->a, args[2]), acc))
    return type_error(in, at, "%s's third argument must be the warp's accumulator %s, not %s", name, ts(in, acc),
                      ts(in, args[2])), NULL;
  return acc;
}

static const Type *apply_prim(Infer *in, const Fun *f, int n, const Type *const *args, const Expr *at) {
  if (prim_arity(f->prim) > 0 && n != prim_arity(f->prim))
    return type_error(in, at, "%s takes %d arguments, got %d", prim_name(f->prim), prim_arity(f->prim), n), NULL;
  if (prim_is_map(f->prim)) return apply_map(in, f, args[0], at);
  if (prim_is_reduce(f->prim)) return apply_reduce(in, f, args, at);
  switch (f->prim) {
  case P_MAP_VEC: {
    if (args[0]->kind != TY_VEC) return type_error(in, at, "mapVec expects a vector, got %s", ts(in, args[0])), NULL;
    // the vector's element, a float for a vector read from half (and the result a float vector)
    const Type *s = ty_arith(ty_scalar(args[0]->et));
    const Type *r = apply(in, f->f, 1, &s, at);
    if (r && !ty_equal(r, s))
      return type_error(in, at, "mapVec's function must return %s, not %s", ts(in, s), ts(in, r)), NULL;
    return r ? ty_arith(args[0]) : NULL;
  }
  case P_ITERATE: {
    const Type *r = apply(in, f->f, 1, args, at);
    if (r && !ty_equal(r, args[0]))
      return type_error(in, at, "iterate's function maps %s to %s; it must keep the type", ts(in, args[0]), ts(in, r)), NULL;
    return r;
  }
  case P_ZIP: return apply_zip(in, n, args, at);
  case P_TO_GLOBAL:
  case P_TO_LOCAL:
  case P_TO_PRIVATE: return apply(in, f->f, n, args, at);
  case P_BARRIER: return args[0];
  case P_MMA_TF32:
  case P_MMA_3XTF32:
  case P_MMA_F16: return apply_mma(in, f, args, at);
  default: return apply_layout(in, f, args[0], at);
  }
}

static const Type *apply(Infer *in, const Fun *f, int n, const Type *const *args, const Expr *at) {
  switch (f->kind) {
  case F_USER: return apply_user(in, f->uf, n, args, at);
  case F_LAMBDA: return apply_lambda(in, f, n, args, at);
  case F_PRIM: return apply_prim(in, f, n, args, at);
  }
  cg_die("bad function kind");
}

static const Type *infer_expr(Infer *in, const Expr *e) {
  Expr *m = (Expr *)e;  // inference fills the type field once (ir.h)
  switch (e->kind) {
  case E_PARAM:
    if (!e->param->type) cg_die("parameter '%s' used before its type is known", e->param->name);
    return m->type = e->param->type;
  case E_LIT: return m->type = e->lit_is_int ? ty_int() : ty_float();
  case E_CALL: break;
  }
  const Type *args[16];
  for (int i = 0; i < e->nargs; i++)
    if (!(args[i] = infer_expr(in, e->args[i]))) return NULL;
  return m->type = apply(in, e->fun, e->nargs, args, e);
}

/* The number of scalars in t when its lengths are constants (-1 when one is
 * not), saturated at INT64_MAX instead of overflowing. */
static int64_t count_values(const Type *t) {
  int64_t n = 0, len, e;
  switch (t->kind) {
  case TY_FLOAT:
  case TY_INT: return 1;
  case TY_VEC: return t->width;
  case TY_TUPLE:
    for (int i = 0; i < t->n; i++) {
      if ((e = count_values(t->fields[i])) < 0) return -1;
      n = e > INT64_MAX - n ? INT64_MAX : n + e;
    }
    return n;
  case TY_ARRAY:
    if ((e = count_values(t->elem)) < 0 || !ax_is_cst(t->len, &len)) return -1;
    if (len <= 0) return 0;
    return e > INT64_MAX / len ? INT64_MAX : len * e;
  }
  return -1;
}

/* An input or the output whose values no int index reaches is refused before
 * anything counts them in int64 or allocates them. */
static bool check_count(Infer *in, const Program *p, const char *what, const Type *t) {
  int64_t n = count_values(t);
  if (n <= INT32_MAX) return true;
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < p->nsizes; i++) {
    int64_t v;
    if (ax_is_cst(p->sizes[i], &v)) sb_printf(&sb, "%s%s=%lld", sb.len ? ", " : "", p->size_names[i], (long long)v);
  }
  char sizes[256];
  snprintf(sizes, sizeof sizes, "%s", sb_str(&sb));
  sb_free(&sb);
  char count[32] = "more than 9223372036854775806";
  if (n < INT64_MAX) snprintf(count, sizeof count, "%lld", (long long)n);
  return diag_error(in->d, "%s: %s of type %s has %s values, more than 2147483647, the most that the kernels' int "
                    "indices reach%s%s%s", in->file, what, ts(in, t), count, *sizes ? " (with " : "", sizes,
                    *sizes ? ")" : "");
}

/* The output's value t stored as its declaration decl says: as ty_stores_as,
 * but lengths whose difference is not a constant (a derived program's
 * RW*TW*(14/(RW*TW)) against 14, equal at every point its constraints allow)
 * are taken as equal: the program is inferred again with its sizes bound
 * before it is lowered, and the constants are compared then. N + 2 against
 * N differs at once. */
static bool declared_fits(Arena *a, const Type *t, const Type *decl) {
  if (t->kind == TY_ARRAY && decl->kind == TY_ARRAY) {
    int64_t diff;
    if (ax_is_cst(ax_sub(a, t->len, decl->len), &diff) && diff != 0) return false;
    return declared_fits(a, t->elem, decl->elem);
  }
  return ty_stores_as(t, decl);
}

bool ir_infer(Arena *a, Program *p, Diag *d) {
  Infer in = {a, d, p->name};
  for (int i = 0; i < p->ninputs; i++)
    if (!check_count(&in, p, arena_printf(a, "input '%s'", p->inputs[i]->name), p->inputs[i]->type)) return false;
  const Type *t = infer_expr(&in, p->body);
  if (t && p->out_type && !declared_fits(a, t, p->out_type))
    return diag_error(d, "%s: the output is declared %s, but its expression is %s", p->name, ts(&in, p->out_type),
                      ts(&in, t));
  if (t && !p->out_type && p->out_store) p->out_type = ty_stored_in(a, t, p->out_store);   // (ir_store_in)
  return t && check_count(&in, p, "the output", t);
}
