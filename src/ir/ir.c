/* ir.c: types, the primitive table and the node constructors.
 *
 * Constructors are the only way nodes are made; they check the static
 * arguments of primitives against IR_PRIMS so that a malformed node can never
 * reach type inference or lowering. Scalar types are static singletons; all
 * other nodes live in the caller's arena.
 */
#include "ir/ir.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- Types ---------------------------------------------------------------- */

static const Type INT_T = {.kind = TY_INT};

/* One scalar type per element type. */
/* fp32's vectors by width (2, 3, 4, 8, 16): what a vector read from half is computed as. */
#define FLOAT_VEC(w) [w] = {.kind = TY_VEC, .et = &ELEM_TYPES[ELEM_FP32], .width = w}
static const Type FLOAT_VECS[17] = {FLOAT_VEC(2), FLOAT_VEC(3), FLOAT_VEC(4), FLOAT_VEC(8), FLOAT_VEC(16)};
#undef FLOAT_VEC

static const Type SCALARS[ELEM_COUNT] = {
    [ELEM_FP32] = {.kind = TY_FLOAT, .et = &ELEM_TYPES[ELEM_FP32]},
    [ELEM_FP16] = {.kind = TY_FLOAT, .et = &ELEM_TYPES[ELEM_FP16]},
};

const Type *ty_scalar(const ElemType *et) {
  cg_assert(SCALARS[et->kind].et == et);   // a row of ELEM_TYPES without its scalar here
  return &SCALARS[et->kind];
}
const Type *ty_float(void) { return ty_scalar(elem_fp32()); }
const Type *ty_int(void) { return &INT_T; }

const Type *ty_vec(Arena *a, const ElemType *et, int width) {
  cg_assert(width == 2 || width == 3 || width == 4 || width == 8 || width == 16);
  Type *t = ARENA_NEW(a, Type);
  t->kind = TY_VEC;
  t->et = et;
  t->width = width;
  return t;
}

const Type *ty_tuple(Arena *a, int n, const Type **fields) {
  cg_assert(n >= 1);
  Type *t = ARENA_NEW(a, Type);
  t->kind = TY_TUPLE;
  t->n = n;
  t->fields = ARENA_ARRAY(a, const Type *, n);
  memcpy(t->fields, fields, sizeof(*fields) * (size_t)n);
  return t;
}

const Type *ty_array(Arena *a, const Type *elem, const AExpr *len) {
  Type *t = ARENA_NEW(a, Type);
  t->kind = TY_ARRAY;
  t->elem = elem;
  t->len = len;
  return t;
}

bool ty_equal(const Type *x, const Type *y) {
  if (x == y) return true;
  if (x->kind != y->kind) return false;
  switch (x->kind) {
  case TY_FLOAT: return x->et == y->et;
  case TY_INT: return true;
  case TY_VEC: return x->et == y->et && x->width == y->width;
  case TY_TUPLE:
    if (x->n != y->n) return false;
    for (int i = 0; i < x->n; i++)
      if (!ty_equal(x->fields[i], y->fields[i])) return false;
    return true;
  case TY_ARRAY: return ax_equal(x->len, y->len) && ty_equal(x->elem, y->elem);
  }
  return false;
}

bool ty_is_scalar(const Type *t) { return t->kind == TY_FLOAT || t->kind == TY_INT; }
bool ty_is_value(const Type *t) { return ty_is_scalar(t) || t->kind == TY_VEC; }

const Type *ty_base(const Type *t) {
  while (t->kind == TY_ARRAY) t = t->elem;
  return t;
}

const AExpr *ty_count(Arena *a, const Type *t) {
  const AExpr *n = ax_cst(a, 1);
  for (; t->kind == TY_ARRAY; t = t->elem) n = ax_mul(a, n, t->len);
  return n;
}

const ElemType *ty_elem(const Type *t) {
  t = ty_base(t);
  return t->kind == TY_FLOAT || t->kind == TY_VEC ? t->et : NULL;
}

int64_t ty_bytes(const Type *t, int64_t n) {
  cg_assert(ty_is_value(t));
  if (t->kind == TY_INT) return n * 4;
  return elem_bytes(t->et, t->kind == TY_VEC ? n * t->width : n);
}

const Type *ty_arith(const Type *t) {
  if (t->kind == TY_FLOAT && elem_is_storage(t->et)) return ty_scalar(elem_type(t->et->acc));
  if (t->kind == TY_VEC && elem_is_storage(t->et)) {   // a vector read from half: float's of its width
    cg_assert(t->et->acc == ELEM_FP32 && t->width <= 16);
    return &FLOAT_VECS[t->width];
  }
  return t;
}

bool ty_stores_as(const Type *value, const Type *mem) {
  if (value->kind == TY_ARRAY && mem->kind == TY_ARRAY) {
    return ax_equal(value->len, mem->len) && ty_stores_as(value->elem, mem->elem);
  }
  return value->kind != TY_ARRAY && mem->kind != TY_ARRAY && ty_equal(ty_arith(value), ty_arith(mem));
}

/* An array length prints bare when it is a constant or a variable, else in
 * parentheses, so that "[[float]4](N/4)" reads back unambiguously. */
static void print_len(StrBuf *sb, const AExpr *len) {
  bool atom = len->kind == AX_CST || len->kind == AX_VAR;
  if (!atom) sb_putc(sb, '(');
  ax_print(sb, len);
  if (!atom) sb_putc(sb, ')');
}

void ty_print(StrBuf *sb, const Type *t) {
  switch (t->kind) {
  case TY_FLOAT: sb_puts(sb, t->et->name); break;
  case TY_INT: sb_puts(sb, "int"); break;
  case TY_VEC: sb_printf(sb, "%s%d", t->et->name, t->width); break;
  case TY_TUPLE:
    sb_putc(sb, '(');
    for (int i = 0; i < t->n; i++) {
      if (i) sb_puts(sb, ", ");
      ty_print(sb, t->fields[i]);
    }
    sb_putc(sb, ')');
    break;
  case TY_ARRAY:
    sb_putc(sb, '[');
    ty_print(sb, t->elem);
    sb_putc(sb, ']');
    print_len(sb, t->len);
    break;
  }
}

const char *ty_str(Arena *a, const Type *t) {
  StrBuf sb;
  sb_init(&sb);
  ty_print(&sb, t);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

const Type *ty_subst(Arena *a, const Type *t, int n, const char *const *names, const AExpr *const *vals) {
  switch (t->kind) {
  case TY_FLOAT:
  case TY_INT:
  case TY_VEC: return t;
  case TY_TUPLE: {
    const Type **f = ARENA_ARRAY(a, const Type *, t->n);
    for (int i = 0; i < t->n; i++) f[i] = ty_subst(a, t->fields[i], n, names, vals);
    return ty_tuple(a, t->n, f);
  }
  case TY_ARRAY:
    return ty_array(a, ty_subst(a, t->elem, n, names, vals), ax_subst(a, t->len, n, names, vals));
  }
  cg_die("bad type kind %d", t->kind);
}

const Type *ty_stored_in(Arena *a, const Type *t, const ElemType *et) {
  switch (t->kind) {
  case TY_FLOAT: return t->et == elem_fp32() ? ty_scalar(et) : t;
  case TY_VEC: return t->et == elem_fp32() ? ty_vec(a, et, t->width) : t;
  case TY_INT: return t;
  case TY_TUPLE: {
    const Type **f = ARENA_ARRAY(a, const Type *, t->n);
    for (int i = 0; i < t->n; i++) f[i] = ty_stored_in(a, t->fields[i], et);
    return ty_tuple(a, t->n, f);
  }
  case TY_ARRAY: return ty_array(a, ty_stored_in(a, t->elem, et), t->len);
  }
  cg_die("bad type kind %d", t->kind);
}

/* ---- Primitive table ---------------------------------------------------- */

static const struct {
  const char *name;
  PrimStatic st;
  int arity;
} PRIM_INFO[P_COUNT] = {
#define X(e, nm, st, ar) [e] = {nm, st, ar},
    IR_PRIMS(X)
#undef X
};

const char *prim_name(Prim p) { return PRIM_INFO[p].name; }
PrimStatic prim_static(Prim p) { return PRIM_INFO[p].st; }
int prim_arity(Prim p) { return PRIM_INFO[p].arity; }

bool prim_lookup(const char *name, Prim *out) {
  for (int p = 0; p < P_COUNT; p++)
    if (strcmp(PRIM_INFO[p].name, name) == 0) {
      *out = (Prim)p;
      return true;
    }
  return false;
}

bool prim_is_map(Prim p) {
  return p == P_MAP || p == P_MAP_SEQ || p == P_MAP_SEQ_UNROLL || p == P_MAP_GLB || p == P_MAP_WRG ||
         p == P_MAP_LCL;
}

bool prim_is_reduce(Prim p) {
  return p == P_REDUCE || p == P_REDUCE_SEQ || p == P_REDUCE_SEQ_UNROLL || p == P_REDUCE_SEQ_PREFETCH ||
         p == P_REDUCE_SEQ_DOUBLE || p == P_REDUCE_SEQ_ASYNC;
}

bool prim_is_mma(Prim p) { return p == P_MMA_TF32 || p == P_MMA_3XTF32 || p == P_MMA_F16; }

static bool fun_calls(const Fun *f, Prim p) {
  if (f->kind == F_LAMBDA) return ir_calls(f->body, p);
  return f->kind == F_PRIM && (f->prim == p || (f->f && fun_calls(f->f, p)));
}

bool ir_calls(const Expr *e, Prim p) {
  if (e->kind != E_CALL) return false;
  for (int i = 0; i < e->nargs; i++)
    if (ir_calls(e->args[i], p)) return true;
  return fun_calls(e->fun, p);
}

int ir_mma_k(Prim p) { return p == P_MMA_F16 ? IR_MMA_K16 : IR_MMA_K; }

int ir_mma_row(int lane, int comp) { return lane / 4 + 8 * (comp / 2); }

int ir_mma_col(int lane, int comp) { return 2 * (lane % 4) + comp % 2; }

bool prim_is_layout(Prim p) {
  switch (p) {
  case P_ZIP: case P_UNZIP: case P_GET: case P_SPLIT: case P_JOIN: case P_SLIDE: case P_PAD: case P_CROP:
  case P_TRANSPOSE: case P_GATHER: case P_SCATTER: case P_AS_VECTOR: case P_AS_SCALAR:
    return true;
  default: return false;
  }
}

/* ---- Node constructors ------------------------------------------------------ */

Param *ir_param(Arena *a, const char *name, const Type *type) {
  Param *p = ARENA_NEW(a, Param);
  p->name = arena_strdup(a, name);
  p->type = type;
  p->id = -1;
  return p;
}

const Expr *ir_ref(Arena *a, Param *p) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = E_PARAM;
  e->param = p;
  return e;
}

const Expr *ir_lit(Arena *a, double v, bool is_int) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = E_LIT;
  e->lit = v;
  e->lit_is_int = is_int;
  return e;
}

const Expr *ir_call(Arena *a, const Fun *f, int nargs, const Expr **args) {
  cg_assert(nargs >= 1);
  if (f->kind == F_PRIM && prim_arity(f->prim) > 0 && nargs != prim_arity(f->prim))
    cg_die("%s takes %d arguments, got %d", prim_name(f->prim), prim_arity(f->prim), nargs);
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = E_CALL;
  e->fun = f;
  e->nargs = nargs;
  e->args = ARENA_ARRAY(a, const Expr *, nargs);
  memcpy(e->args, args, sizeof(*args) * (size_t)nargs);
  return e;
}

const Expr *ir_call1(Arena *a, const Fun *f, const Expr *x) { return ir_call(a, f, 1, &x); }

const Fun *ir_lambda(Arena *a, int nparams, Param **params, const Expr *body) {
  cg_assert(nparams >= 1 && body);
  Fun *f = ARENA_NEW(a, Fun);
  f->kind = F_LAMBDA;
  f->nparams = nparams;
  f->params = ARENA_ARRAY(a, Param *, nparams);
  memcpy(f->params, params, sizeof(*params) * (size_t)nparams);
  f->body = body;
  return f;
}

/* ---- User functions' operators -------------------------------------------- */

/* The body's text without blanks, and without one pair of parentheses around
 * the returned expression: " return (a + b); " -> "returna+b;". */
static void squeeze(const char *body, char *out, size_t cap) {
  size_t n = 0;
  for (const char *s = body; *s && n + 1 < cap; s++)
    if (!isspace((unsigned char)*s)) out[n++] = *s;
  out[n] = 0;
  size_t len = strlen(out);
  if (strncmp(out, "return(", 7) == 0 && len >= 9 && strcmp(out + len - 2, ");") == 0) {
    memmove(out + 6, out + 7, len - 7);
    out[len - 3] = ';';
    out[len - 2] = 0;
  }
}

static bool body_is(const char *text, const char *fmt, const char *x, const char *y) {
  char want[256];
  snprintf(want, sizeof want, fmt, x, y);
  if (strcmp(text, want) == 0) return true;
  snprintf(want, sizeof want, fmt, y, x);
  return strcmp(text, want) == 0;
}

bool ir_user_is_identity(const UserFun *uf) {
  if (uf->nparams != 1 || !ty_is_scalar(uf->ret) || !ty_equal(uf->ptypes[0], uf->ret)) return false;
  char text[256], want[256];
  if (strlen(uf->body) >= sizeof text) return false;
  squeeze(uf->body, text, sizeof text);
  snprintf(want, sizeof want, "return%s;", uf->pnames[0]);
  return strcmp(text, want) == 0;
}

IrOp ir_user_op(const UserFun *uf) {
  if (uf->nparams != 2 || !ty_is_scalar(uf->ret) || !ty_equal(uf->ptypes[0], uf->ret) ||
      !ty_equal(uf->ptypes[1], uf->ret))
    return IR_OP_NONE;
  char text[256];
  if (strlen(uf->body) >= sizeof text) return IR_OP_NONE;
  squeeze(uf->body, text, sizeof text);
  const char *x = uf->pnames[0], *y = uf->pnames[1];
  bool fl = uf->ret->kind == TY_FLOAT;
  if (body_is(text, "return%s+%s;", x, y)) return IR_OP_ADD;
  if (body_is(text, "return%s*%s;", x, y)) return IR_OP_MUL;
  if (body_is(text, fl ? "returnfmax(%s,%s);" : "returnmax(%s,%s);", x, y)) return IR_OP_MAX;
  if (body_is(text, fl ? "returnfmin(%s,%s);" : "returnmin(%s,%s);", x, y)) return IR_OP_MIN;
  return IR_OP_NONE;
}

const Fun *ir_user(Arena *a, const UserFun *uf) {
  Fun *f = ARENA_NEW(a, Fun);
  f->kind = F_USER;
  f->uf = uf;
  return f;
}

static Fun *new_prim(Arena *a, Prim p, PrimStatic want) {
  if (prim_static(p) != want) cg_die("primitive %s built with the wrong static arguments", prim_name(p));
  Fun *f = ARENA_NEW(a, Fun);
  f->kind = F_PRIM;
  f->prim = p;
  return f;
}

const Fun *ir_prim(Arena *a, Prim p) { return new_prim(a, p, S_NONE); }

const Fun *ir_prim_f(Arena *a, Prim p, const Fun *nested) {
  cg_assert(nested);
  Fun *f = new_prim(a, p, S_F);
  f->f = nested;
  return f;
}

const Fun *ir_prim_df(Arena *a, Prim p, int dim, const Fun *nested) {
  cg_assert(nested && dim >= 0 && (dim <= 2 || (dim == IR_DIM_FLAT && p == P_MAP_LCL)));
  Fun *f = new_prim(a, p, S_DF);
  f->dim = dim;
  f->f = nested;
  return f;
}

const Fun *ir_prim_n(Arena *a, Prim p, const AExpr *n) {
  cg_assert(n);
  Fun *f = new_prim(a, p, S_N);
  f->n = n;
  return f;
}

const Fun *ir_prim_nn(Arena *a, Prim p, const AExpr *n, const AExpr *m) {
  cg_assert(n && m);
  Fun *f = new_prim(a, p, S_NN);
  f->n = n;
  f->m = m;
  return f;
}

const Fun *ir_prim_i(Arena *a, Prim p, int index) {
  cg_assert(index >= 0);
  Fun *f = new_prim(a, p, S_I);
  f->index = index;
  return f;
}

const Fun *ir_prim_nf(Arena *a, Prim p, const AExpr *n, const Fun *nested) {
  cg_assert(n && nested);
  Fun *f = new_prim(a, p, S_NF);
  f->n = n;
  f->f = nested;
  return f;
}

const Fun *ir_pad(Arena *a, const AExpr *left, const AExpr *right, Boundary b, double value) {
  cg_assert(left && right);
  Fun *f = new_prim(a, P_PAD, S_PAD);
  f->n = left;
  f->m = right;
  f->boundary = b;
  f->padval = value;
  return f;
}

const Fun *ir_prim_idx(Arena *a, Prim p, const AExpr *idx, const AExpr *i, const AExpr *n) {
  cg_assert(idx && i && n && i->kind == AX_VAR && n->kind == AX_VAR);
  Fun *f = new_prim(a, p, S_IDX);
  f->idx = idx;
  f->idx_i = i;
  f->idx_n = n;
  return f;
}

void ir_store_in(Arena *a, Program *p, const ElemType *et) {
  for (int i = 0; i < p->ninputs; i++) p->inputs[i]->type = ty_stored_in(a, p->inputs[i]->type, et);
  if (!p->out_type) p->out_store = et;
}
