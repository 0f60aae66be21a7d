/* interp.c: a lazy reference interpreter over float64.
 *
 * Arrays are evaluated on demand: a map, a layout primitive or an input is a
 * recipe for computing element i, and only the elements the output needs are
 * ever computed. Reductions and iterate are strict (they materialise their
 * accumulator each step, so chains of lazy maps do not grow). A map remembers
 * its most recently computed elements (a small direct-mapped cache), so a
 * tile that many outputs read is computed once, not once per output.
 * Each step of a reduction runs in a frame of the arena that is released
 * when the step ends (only the new accumulator is kept), so memory follows
 * the size of the values, not the amount of work. Invariant that keeps the
 * caches sound: a map caches an element only when the map was made inside
 * the innermost live frame, so a cached value never outlives its memory.
 */
#include "ir/interp.h"

#include <math.h>
#include <string.h>

typedef enum VKind { VAL_NUM, VAL_VEC, VAL_TUPLE, VAL_ARRAY } VKind;
typedef struct Arr Arr;
typedef struct Value {
  VKind kind;
  int n;                     // VAL_VEC width, VAL_TUPLE field count
  double num;                // VAL_NUM
  const double *vec;         // VAL_VEC components
  const struct Value *tup;   // VAL_TUPLE fields
  const Arr *arr;            // VAL_ARRAY
} Value;

typedef struct Env {
  int id;                    // Param id
  Value v;
  const struct Env *next;
} Env;

typedef enum ArrKind {
  A_DATA,       // items[]
  A_HOST,       // flat host floats of element type etype
  A_CONST,      // shaped like src, every base value fill.num
  A_MAP,        // f(src[i]) in env
  A_SLICE,      // src[off + i]
  A_WINDOWS,    // element i is the slice of src of length m at i * off (split, slide)
  A_COLUMNS,    // element i is column i of src (transpose)
  A_JOIN,       // src[i / m][i % m]
  A_COLUMN,     // src[i][off]
  A_PAD,        // src[i - off] in range, else fill (const) or clamped
  A_ZIP,        // (srcs[0][i], ...)
  A_PROJ,       // src[i].field off
  A_GATHER,     // src[perm[i]]
  A_ASVEC,      // vector of src[i*m .. i*m+m-1]
  A_ASSCALAR,   // component i % m of src[i / m]
} ArrKind;

struct Arr {
  ArrKind kind;
  int64_t len;
  const Value *items;        // A_DATA
  const float *host;         // A_HOST
  const Type *etype;         // A_HOST, A_CONST: element type
  int64_t estride;           // A_HOST: flat values per element
  Value fill;                // A_CONST, A_PAD (const)
  bool clamp;                // A_PAD
  const Fun *f;              // A_MAP
  const Env *env;            // A_MAP
  Value src;                 // source array
  const Value *srcs;         // A_ZIP
  int nsrcs;                 // A_ZIP
  int64_t off, m;            // slice offset, join inner length, pad left, column, proj field, vector width
  const int64_t *perm;       // A_GATHER
  size_t birth;              // arena height when made (see the caching invariant)
  struct Memo *memo;         // A_MAP: cache of computed elements (nmemo slots)
  int nmemo;
};

typedef struct Memo {
  int64_t i;                 // element index (-1: empty)
  Value v;
} Memo;

enum { MEMO_SLOTS = 32 };

typedef struct Interp {
  Arena *a;
  Diag *d;
  bool failed;
  size_t floor;              // arena height where the innermost frame starts
  Arena *side;               // where a reduction step's result waits across its frame's reset
  int in_function;           // how many functions (a map's, a reduction's, a let's) are being applied
} Interp;

static Value eval(Interp *in, const Expr *e, const Env *env);
static Value apply(Interp *in, const Fun *f, int n, const Value *args, const Env *env);

static Value num(double v) { return (Value){.kind = VAL_NUM, .num = v}; }

static Value arr_value(Interp *in, Arr *arr) {
  (void)in;
  return (Value){.kind = VAL_ARRAY, .arr = arr};
}

static Arr *new_arr(Interp *in, ArrKind k, int64_t len) {
  Arr *a = ARENA_NEW(in->a, Arr);
  a->kind = k;
  a->len = len;
  return a;
}

static int64_t cst(const AExpr *e) {
  int64_t v;
  if (!ax_is_cst(e, &v)) cg_die("interpreter needs concrete sizes, got %s", "a symbolic one");
  return v;
}

int64_t ir_flat_count(const Type *t) {
  switch (t->kind) {
  case TY_FLOAT:
  case TY_INT: return 1;
  case TY_VEC: return t->width;
  case TY_TUPLE: {
    int64_t n = 0;
    for (int i = 0; i < t->n; i++) n += ir_flat_count(t->fields[i]);
    return n;
  }
  case TY_ARRAY: {
    int64_t len, e = ir_flat_count(t->elem);
    if (!ax_is_cst(t->len, &len) || e < 0) return -1;
    return len * e;
  }
  }
  return -1;
}

static Value host_value(Interp *in, const Type *t, const float *p) {
  if (ty_is_scalar(t)) return num(*p);
  if (t->kind == TY_VEC) {
    double *v = ARENA_ARRAY(in->a, double, t->width);
    for (int i = 0; i < t->width; i++) v[i] = p[i];
    return (Value){.kind = VAL_VEC, .n = t->width, .vec = v};
  }
  cg_assert(t->kind == TY_ARRAY);
  Arr *a = new_arr(in, A_HOST, cst(t->len));
  a->host = p;
  a->etype = t->elem;
  a->estride = ir_flat_count(t->elem);
  return arr_value(in, a);
}

/* An input's host values as its memory holds them: the fp32 values rounded
 * to a storage type's (half), as the runtime rounds them when it writes the
 * buffer; fp32's as they are. */
static const float *stored(Interp *in, const Type *t, const float *p) {
  const ElemType *et = ty_elem(t);
  if (!et || !elem_is_storage(et)) return p;
  int64_t n = ir_flat_count(t);
  float *r = ARENA_ARRAY(in->a, float, n > 0 ? n : 1);
  for (int64_t i = 0; i < n; i++) r[i] = (float)elem_round(et, p[i]);
  return r;
}

/* A value of the same shape as `shape` with every base value v (the padding
 * of an array of arrays is a row of constants). */
static Value fill_like(Interp *in, Value shape, double v) {
  switch (shape.kind) {
  case VAL_NUM: return num(v);
  case VAL_VEC: {
    double *c = ARENA_ARRAY(in->a, double, shape.n);
    for (int i = 0; i < shape.n; i++) c[i] = v;
    return (Value){.kind = VAL_VEC, .n = shape.n, .vec = c};
  }
  case VAL_TUPLE: break;
  case VAL_ARRAY: {
    Arr *a = new_arr(in, A_CONST, shape.arr->len);
    a->src = shape;
    a->fill = num(v);
    return arr_value(in, a);
  }
  }
  cg_die("padding of tuples");
}

static int64_t clamp64(int64_t i, int64_t lo, int64_t hi) { return i < lo ? lo : i > hi ? hi : i; }

/* Element i of an array value. */
static Value elem(Interp *in, Value av, int64_t i) {
  cg_assert(av.kind == VAL_ARRAY);
  const Arr *a = av.arr;
  cg_assert(i >= 0 && i < a->len);
  switch (a->kind) {
  case A_DATA: return a->items[i];
  case A_HOST: return host_value(in, a->etype, a->host + i * a->estride);
  case A_CONST: return fill_like(in, elem(in, a->src, 0), a->fill.num);
  case A_MAP: {
    Memo *m = &a->memo[i % a->nmemo];
    if (m->i == i) return m->v;
    Value v = apply(in, a->f, 1, (Value[]){elem(in, a->src, i)}, a->env);
    if (a->birth >= in->floor) *m = (Memo){i, v};
    return v;
  }
  case A_SLICE: return elem(in, a->src, a->off + i);
  case A_WINDOWS: {
    Arr *sl = new_arr(in, A_SLICE, a->m);
    sl->src = a->src;
    sl->off = i * a->off;
    return arr_value(in, sl);
  }
  case A_COLUMNS: {
    Arr *col = new_arr(in, A_COLUMN, a->src.arr->len);
    col->src = a->src;
    col->off = i;
    return arr_value(in, col);
  }
  case A_JOIN: return elem(in, elem(in, a->src, i / a->m), i % a->m);
  case A_COLUMN: return elem(in, elem(in, a->src, i), a->off);
  case A_PAD: {
    int64_t j = i - a->off, n = a->src.arr->len;
    if (a->clamp) return elem(in, a->src, clamp64(j, 0, n - 1));
    return j >= 0 && j < n ? elem(in, a->src, j) : fill_like(in, elem(in, a->src, 0), a->fill.num);
  }
  case A_ZIP: {
    Value *f = ARENA_ARRAY(in->a, Value, a->nsrcs);
    for (int k = 0; k < a->nsrcs; k++) f[k] = elem(in, a->srcs[k], i);
    return (Value){.kind = VAL_TUPLE, .n = a->nsrcs, .tup = f};
  }
  case A_PROJ: return elem(in, a->src, i).tup[a->off];
  case A_GATHER: return elem(in, a->src, a->perm[i]);
  case A_ASVEC: {
    double *v = ARENA_ARRAY(in->a, double, a->m);
    for (int k = 0; k < a->m; k++) v[k] = elem(in, a->src, i * a->m + k).num;
    return (Value){.kind = VAL_VEC, .n = (int)a->m, .vec = v};
  }
  case A_ASSCALAR: return num(elem(in, a->src, i / a->m).vec[i % a->m]);
  }
  cg_die("bad array kind");
}

/* Deep copy into plain data, so that a reduction's accumulator does not keep
 * a growing chain of lazy recipes. */
static Value force(Interp *in, Value v) {
  if (v.kind == VAL_TUPLE) {
    Value *f = ARENA_ARRAY(in->a, Value, v.n);
    for (int k = 0; k < v.n; k++) f[k] = force(in, v.tup[k]);
    v.tup = f;
    return v;
  }
  if (v.kind != VAL_ARRAY || v.arr->kind == A_DATA) return v;
  Arr *a = new_arr(in, A_DATA, v.arr->len);
  Value *items = ARENA_ARRAY(in->a, Value, a->len ? a->len : 1);
  for (int64_t i = 0; i < a->len; i++) items[i] = force(in, elem(in, v, i));
  a->items = items;
  return arr_value(in, a);
}

static bool fault(Interp *in, const char *msg, const char *what) {
  in->failed = true;
  return diag_error(in->d, msg, what);
}

static Value call_user(Interp *in, const UserFun *uf, int n, const Value *args) {
  CbValue cargs[16], out;
  if (n == 1 && uf->nparams > 1) {  // a tuple argument spreads over the parameters
    args = args[0].tup;
    n = uf->nparams;
  }
  for (int k = 0; k < n; k++) {
    if (args[k].kind == VAL_NUM) {
      cargs[k].width = 1;
      cargs[k].v[0] = args[k].num;
    } else {
      cargs[k].width = args[k].n;
      memcpy(cargs[k].v, args[k].vec, sizeof(double) * (size_t)args[k].n);
    }
  }
  Diag d = {0};
  if (!cb_eval(uf->cbody, cargs, &out, &d)) {
    fault(in, "%s", d.msg);
    return num(NAN);
  }
  if (out.width == 1 && uf->ret->kind != TY_VEC) return num(out.v[0]);
  double *v = ARENA_ARRAY(in->a, double, out.width);
  memcpy(v, out.v, sizeof(double) * (size_t)out.width);
  return (Value){.kind = VAL_VEC, .n = out.width, .vec = v};
}

/* env with the parameter of id `id` bound to v in front. */
static const Env *bind(Interp *in, const Env *env, int id, Value v) {
  Env *e = ARENA_NEW(in->a, Env);
  e->id = id;
  e->v = v;
  e->next = env;
  return e;
}

static Value apply_lambda(Interp *in, const Fun *f, const Value *args, const Env *env) {
  for (int k = 0; k < f->nparams; k++) env = bind(in, env, f->params[k]->id, args[k]);
  in->in_function++;
  Value v = eval(in, f->body, env);
  in->in_function--;
  return v;
}

/* A copy of a materialised value (plain data only) in arena `to`. */
static Value clone(Arena *to, Value v) {
  switch (v.kind) {
  case VAL_NUM: return v;
  case VAL_VEC: {
    double *c = ARENA_ARRAY(to, double, v.n);
    memcpy(c, v.vec, sizeof(double) * (size_t)v.n);
    v.vec = c;
    return v;
  }
  case VAL_TUPLE: {
    Value *f = ARENA_ARRAY(to, Value, v.n);
    for (int k = 0; k < v.n; k++) f[k] = clone(to, v.tup[k]);
    v.tup = f;
    return v;
  }
  case VAL_ARRAY: {
    cg_assert(v.arr->kind == A_DATA);
    Arr *a = ARENA_NEW(to, Arr);
    *a = *v.arr;
    Value *items = ARENA_ARRAY(to, Value, a->len ? a->len : 1);
    for (int64_t i = 0; i < a->len; i++) items[i] = clone(to, v.arr->items[i]);
    a->items = items;
    v.arr = a;
    return v;
  }
  }
  cg_die("bad value kind");
}

/* f applied to (acc, xs[i]), materialised, with everything else the step
 * made released: the result is parked in a side arena across the reset. */
static Value step_in_frame(Interp *in, const Fun *f, Value acc, Value xs, int64_t i, const Env *env,
                           ArenaMark frame) {
  size_t saved = in->floor;
  in->floor = in->a->live;
  Value next = force(in, apply(in, f, 2, (Value[]){acc, elem(in, xs, i)}, env));
  in->floor = saved;
  ArenaMark empty = arena_mark(in->side);
  Value parked = clone(in->side, next);
  arena_reset(in->a, frame);
  next = clone(in->a, parked);
  arena_reset(in->side, empty);
  return next;
}

static Value reduce(Interp *in, const Fun *f, Value init, Value xs, const Env *env) {
  Value acc = force(in, init);
  Arr *a = new_arr(in, A_DATA, 1);
  Value *items = ARENA_NEW(in->a, Value);
  ArenaMark frame = arena_mark(in->a);  // each step's work is released at its end
  for (int64_t i = 0; i < xs.arr->len && !in->failed; i++) acc = step_in_frame(in, f->f, acc, xs, i, env, frame);
  *items = acc;
  a->items = items;
  return arr_value(in, a);
}

/* The permutation that a gather or scatter index function describes. */
static const int64_t *index_table(Interp *in, const Fun *f, int64_t n, bool inverse) {
  int64_t *perm = ARENA_ARRAY(in->a, int64_t, n ? n : 1);
  const char *names[2] = {f->idx_i->name, f->idx_n->name};
  for (int64_t i = 0; i < n; i++) {
    int64_t vals[2] = {i, n}, j;
    Diag d = {0};
    if (!ax_eval(f->idx, 2, names, vals, &j, &d) || j < 0 || j >= n) {
      fault(in, "%s: index function maps an index outside the array", prim_name(f->prim));
      j = 0;
    }
    if (inverse) perm[j] = i;
    else perm[i] = j;
  }
  return perm;
}

static Value apply_layout(Interp *in, const Fun *f, Value x) {
  const Arr *s = x.kind == VAL_ARRAY ? x.arr : NULL;
  Arr *a;
  switch (f->prim) {
  case P_GET: return x.tup[f->index];
  case P_SPLIT:
    a = new_arr(in, A_WINDOWS, s->len / cst(f->n));
    a->m = a->off = cst(f->n);
    break;
  case P_SLIDE:
    a = new_arr(in, A_WINDOWS, (s->len - cst(f->n)) / cst(f->m) + 1);
    a->m = cst(f->n);
    a->off = cst(f->m);
    break;
  case P_JOIN: {
    int64_t m = s->len ? elem(in, x, 0).arr->len : 0;
    a = new_arr(in, A_JOIN, s->len * m);
    a->m = m;
    break;
  }
  case P_TRANSPOSE:
    a = new_arr(in, A_COLUMNS, elem(in, x, 0).arr->len);
    break;
  case P_CROP:   // element i is src's i + left: a pad whose offset is minus the left amount, never outside
    a = new_arr(in, A_PAD, s->len - cst(f->n) - cst(f->m));
    a->off = -cst(f->n);
    break;
  case P_PAD: {
    int64_t l = cst(f->n), r = cst(f->m);
    a = new_arr(in, A_PAD, s->len + l + r);
    a->off = l;
    a->clamp = f->boundary == PAD_CLAMP;
    a->fill = num(f->padval);
    break;
  }
  case P_GATHER:
  case P_SCATTER:
    a = new_arr(in, A_GATHER, s->len);
    a->perm = index_table(in, f, s->len, f->prim == P_SCATTER);
    break;
  case P_AS_VECTOR:
    a = new_arr(in, A_ASVEC, s->len / cst(f->n));
    a->m = cst(f->n);
    break;
  case P_AS_SCALAR: {
    int64_t w = s->len ? elem(in, x, 0).n : 1;
    a = new_arr(in, A_ASSCALAR, s->len * w);
    a->m = w;
    break;
  }
  case P_UNZIP: {
    int nf = s->len ? elem(in, x, 0).n : 0;
    Value *fields = ARENA_ARRAY(in->a, Value, nf ? nf : 1);
    for (int k = 0; k < nf; k++) {
      Arr *p = new_arr(in, A_PROJ, s->len);
      p->src = x;
      p->off = k;
      fields[k] = arr_value(in, p);
    }
    return (Value){.kind = VAL_TUPLE, .n = nf, .tup = fields};
  }
  default: cg_die("not a layout primitive: %s", prim_name(f->prim));
  }
  a->src = x;
  return arr_value(in, a);
}

/* x rounded to TF32 as cvt.rna.tf32.f32 does: an fp32 value to 10 bits of
 * mantissa, to nearest with ties away from zero (NaN and Inf kept). */
static float tf32_rna(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The warp's tile product D = C + A B^T (ir.h), as the tensor cores take
 * their operands: mmaTF32 rounds each fp32 operand to TF32; mma3xTF32 splits
 * each into a TF32 high part and the TF32 rounding of what is left, and adds
 * the three products that matter (hi hi, hi lo, lo hi); mmaF16 rounds each
 * to half (exact for a half input). Sums in float64. */
static Value apply_mma(Interp *in, const Fun *f, const Value *args) {
  bool split = f->prim == P_MMA_3XTF32, half = f->prim == P_MMA_F16;
  int kk = ir_mma_k(f->prim);
  double hi[2][IR_MMA_M][IR_MMA_K16], lo[2][IR_MMA_M][IR_MMA_K16];
  for (int m = 0; m < 2; m++)
    for (int r = 0; r < (m ? IR_MMA_N : IR_MMA_M); r++) {
      Value row = force(in, elem(in, args[m], r));
      for (int k = 0; k < kk; k++) {
        float x = (float)elem(in, row, k).num, h = half ? elem_f16_to_f32(elem_f32_to_f16(x)) : tf32_rna(x);
        hi[m][r][k] = h;
        lo[m][r][k] = split ? tf32_rna(x - h) : 0;
      }
    }
  Arr *a = new_arr(in, A_DATA, IR_WARP);
  Value *items = ARENA_ARRAY(in->a, Value, IR_WARP);
  for (int l = 0; l < IR_WARP; l++) {
    Value c = force(in, elem(in, args[2], l));
    double *v = ARENA_ARRAY(in->a, double, 4);
    for (int i = 0; i < 4; i++) {
      int r = ir_mma_row(l, i), col = ir_mma_col(l, i);
      double sum = c.vec[i];
      for (int k = 0; k < kk; k++)
        sum += hi[0][r][k] * hi[1][col][k] + hi[0][r][k] * lo[1][col][k] + lo[0][r][k] * hi[1][col][k];
      v[i] = sum;
    }
    items[l] = (Value){.kind = VAL_VEC, .n = 4, .vec = v};
  }
  a->items = items;
  return arr_value(in, a);
}

static Value apply_prim(Interp *in, const Fun *f, int n, const Value *args, const Env *env) {
  if (prim_is_map(f->prim)) {
    Arr *a = new_arr(in, A_MAP, args[0].arr->len);
    a->nmemo = a->len < MEMO_SLOTS ? (int)(a->len ? a->len : 1) : MEMO_SLOTS;
    a->memo = ARENA_ARRAY(in->a, Memo, a->nmemo);
    for (int k = 0; k < a->nmemo; k++) a->memo[k].i = -1;
    a->birth = in->a->live;
    a->f = f->f;
    a->env = env;
    a->src = args[0];
    return arr_value(in, a);
  }
  if (prim_is_reduce(f->prim)) return reduce(in, f, args[0], args[1], env);
  switch (f->prim) {
  case P_MAP_VEC: {
    double *v = ARENA_ARRAY(in->a, double, args[0].n);
    for (int k = 0; k < args[0].n; k++) v[k] = apply(in, f->f, 1, (Value[]){num(args[0].vec[k])}, env).num;
    return (Value){.kind = VAL_VEC, .n = args[0].n, .vec = v};
  }
  case P_ITERATE: {
    Value x = args[0];
    for (int64_t k = cst(f->n); k > 0 && !in->failed; k--) x = force(in, apply(in, f->f, 1, &x, env));
    return x;
  }
  case P_ZIP: {
    Arr *a = new_arr(in, A_ZIP, args[0].arr->len);
    a->srcs = args;
    a->nsrcs = n;
    return arr_value(in, a);
  }
  case P_TO_GLOBAL:
  case P_TO_LOCAL:
  case P_TO_PRIVATE: return apply(in, f->f, n, args, env);
  case P_BARRIER: return args[0];
  case P_MMA_TF32:
  case P_MMA_3XTF32:
  case P_MMA_F16: return apply_mma(in, f, args);
  default: return apply_layout(in, f, args[0]);
  }
}

static Value apply(Interp *in, const Fun *f, int n, const Value *args, const Env *env) {
  switch (f->kind) {
  case F_USER: return call_user(in, f->uf, n, args);
  case F_LAMBDA: return apply_lambda(in, f, args, env);
  case F_PRIM: return apply_prim(in, f, n, args, env);
  }
  cg_die("bad function kind");
}

static Value eval(Interp *in, const Expr *e, const Env *env) {
  switch (e->kind) {
  case E_PARAM:
    for (; env; env = env->next)
      if (env->id == e->param->id) return env->v;
    cg_die("unbound parameter '%s'", e->param->name);
  case E_LIT: return num(e->lit);
  case E_CALL: break;
  }
  Value *args = ARENA_ARRAY(in->a, Value, e->nargs);
  for (int k = 0; k < e->nargs; k++) args[k] = eval(in, e->args[k], env);
  if (e->fun->kind == F_LAMBDA && e->nargs == e->fun->nparams && in->in_function == 0) {
    // a let outside every function is a kernel's buffer (docs/ir.md, "Kernels"): its value computed once,
    // whole, and later reads look it up, as the kernels read the buffer; left lazy, each read through a
    // later stage's views would compute its element again (wino's M reads each of V's transforms K times)
    for (int k = 0; k < e->nargs; k++) env = bind(in, env, e->fun->params[k]->id, force(in, args[k]));
    return eval(in, e->fun->body, env);
  }
  return apply(in, e->fun, e->nargs, args, env);
}

/* The flat output value at position k of a value of type t. */
static double flat_at(Interp *in, Value v, const Type *t, int64_t k) {
  while (t->kind == TY_ARRAY) {
    int64_t inner = ir_flat_count(t->elem);
    v = elem(in, v, k / inner);
    k %= inner;
    t = t->elem;
  }
  if (t->kind == TY_VEC) return v.vec[k];
  return v.num;
}

bool ir_eval(const Program *p, const float *const *inputs, double *out, int64_t nsample, const int64_t *sample,
             Diag *d) {
  const Type *t = p->body->type;
  int64_t total = ir_flat_count(t);
  if (total < 0) return diag_error(d, "%s: cannot evaluate with symbolic sizes", p->name);
  if (ty_base(t)->kind == TY_TUPLE) return diag_error(d, "%s: the output must not hold tuples", p->name);
  Interp in = {arena_new(), d, false, 0, arena_new(), 0};
  const Env *env = NULL;
  for (int k = 0; k < p->ninputs; k++)
    env = bind(&in, env, p->inputs[k]->id, host_value(&in, p->inputs[k]->type, stored(&in, p->inputs[k]->type, inputs[k])));
  for (int k = 0; k < p->nconsts; k++) {   // a const array's values, as floats (what the kernels hold)
    int64_t n = ir_flat_count(p->consts[k]->type);
    float *v = ARENA_ARRAY(in.a, float, n);
    for (int64_t i = 0; i < n; i++) v[i] = (float)p->consts[k]->values[i];
    env = bind(&in, env, p->consts[k]->id, host_value(&in, p->consts[k]->type, v));
  }
  Value body = eval(&in, p->body, env);
  int64_t n = nsample > 0 ? nsample : total;
  const ElemType *oet = p->out_type ? ty_elem(p->out_type) : ty_elem(t);
  bool round = oet && elem_is_storage(oet);   // a half output: each value as the kernel's store rounds it
  for (int64_t s = 0; s < n && !in.failed; s++) {
    int64_t k = nsample > 0 ? sample[s] : s;
    out[k] = ty_is_value(t) ? (t->kind == TY_VEC ? body.vec[k] : body.num) : flat_at(&in, body, t, k);
    if (round) out[k] = elem_round(oet, out[k]);
  }
  arena_free(in.a);
  arena_free(in.side);
  return !in.failed;
}
