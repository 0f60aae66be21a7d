/* view.c: building views and walking them to one linear index.
 *
 * The walk keeps a stack of pending indices (and tuple fields): an access
 * pushes its index, each layout primitive rewrites the top of the stack
 * (split pops chunk and element and pushes chunk*n + elem; join pops i and
 * pushes i/n and i%n; slide pushes window*step + elem; pad guards or clamps;
 * transpose swaps; gather applies its index function; asVector turns the
 * index into a vector read whose lane rides along in the index), and a
 * memory finally linearises what is left, row-major. The arithmetic
 * simplifier removes the / and % that ranges make redundant, so tiles and
 * windows cost no index arithmetic in the kernel.
 */
#include "lower/view.h"

#include <string.h>

static View *new_view(Arena *a, ViewKind k, const Type *type, const View *src) {
  View *v = ARENA_NEW(a, View);
  v->kind = k;
  v->type = type;
  v->src = src;
  return v;
}

const View *vw_mem(Arena *a, Mem *m) {
  View *v = new_view(a, V_MEM, m->type, NULL);
  v->mem = m;
  return v;
}

const View *vw_val(Arena *a, const CExpr *c) {
  View *v = new_view(a, V_VAL, c->type, NULL);
  v->val = c;
  return v;
}

const View *vw_access(Arena *a, const View *src, const AExpr *i) {
  cg_assert(src->type->kind == TY_ARRAY);
  View *v = new_view(a, V_ACCESS, src->type->elem, src);
  v->i = i;
  return v;
}

const View *vw_unit(Arena *a, const View *src, const Type *type) { return new_view(a, V_UNIT, type, src); }

const View *vw_get(Arena *a, const View *src, int k) {
  cg_assert(src->type->kind == TY_TUPLE && k < src->type->n);
  View *v = new_view(a, V_GET, src->type->fields[k], src);
  v->k = k;
  return v;
}

static const View *many(Arena *a, ViewKind kind, int n, const View *const *vs, const Type *type) {
  View *v = new_view(a, kind, type, NULL);
  v->nsrcs = n;
  v->srcs = ARENA_ARRAY(a, const View *, n);
  memcpy(v->srcs, vs, sizeof *vs * (size_t)n);
  return v;
}

const View *vw_zip(Arena *a, int n, const View *const *vs, const Type *type) { return many(a, V_ZIP, n, vs, type); }
const View *vw_tuple(Arena *a, int n, const View *const *vs, const Type *type) { return many(a, V_TUPLE, n, vs, type); }

const View *vw_layout(Arena *a, const Fun *f, const View *src, const Type *type) {
  View *v;
  switch (f->prim) {
  case P_GET: return vw_get(a, src, f->index);
  case P_UNZIP: {  // field k of unzip(x) is the array of field k of x's elements
    const View *fields[16];
    for (int k = 0; k < type->n; k++) {
      v = new_view(a, V_PROJ, type->fields[k], src);
      v->k = k;
      fields[k] = v;
    }
    return vw_tuple(a, type->n, fields, type);
  }
  case P_SPLIT: v = new_view(a, V_SPLIT, type, src), v->n = f->n; return v;
  case P_JOIN: v = new_view(a, V_JOIN, type, src), v->n = src->type->elem->len; return v;
  case P_SLIDE: v = new_view(a, V_SLIDE, type, src), v->n = f->n, v->m = f->m; return v;
  case P_PAD:
    v = new_view(a, V_PAD, type, src);
    v->n = f->n;
    v->len = src->type->len;
    v->clamp = f->boundary == PAD_CLAMP;
    v->padval = f->padval;
    return v;
  case P_CROP: v = new_view(a, V_CROP, type, src), v->n = f->n; return v;
  case P_TRANSPOSE: return new_view(a, V_TRANSPOSE, type, src);
  case P_GATHER:
  case P_SCATTER: v = new_view(a, V_GATHER, type, src), v->f = f; return v;
  case P_AS_VECTOR: v = new_view(a, V_AS_VECTOR, type, src), v->n = f->n; return v;
  case P_AS_SCALAR: v = new_view(a, V_AS_SCALAR, type, src), v->n = ax_cst(a, src->type->elem->width); return v;
  default: cg_die("%s is not a layout primitive", prim_name(f->prim));
  }
}

const View *vw_inverse(Arena *a, const Fun *f, const View *dst, const Type *arg_type) {
  View *v;
  switch (f->prim) {
  case P_JOIN: v = new_view(a, V_SPLIT, arg_type, dst), v->n = arg_type->elem->len; return v;
  case P_SPLIT: v = new_view(a, V_JOIN, arg_type, dst), v->n = f->n; return v;
  case P_TRANSPOSE: return new_view(a, V_TRANSPOSE, arg_type, dst);
  case P_AS_VECTOR: v = new_view(a, V_AS_SCALAR, arg_type, dst), v->n = f->n; return v;
  case P_AS_SCALAR: v = new_view(a, V_AS_VECTOR, arg_type, dst), v->n = ax_cst(a, arg_type->elem->width); return v;
  case P_SCATTER: v = new_view(a, V_GATHER, arg_type, dst), v->f = f; return v;
  case P_CROP: v = new_view(a, V_UNCROP, arg_type, dst), v->n = f->n, v->len = dst->type->len; return v;
  default: return NULL;
  }
}

static bool is_elementwise_layout(const Fun *g) {
  return g->kind == F_PRIM && prim_is_layout(g->prim) && g->prim != P_ZIP && g->prim != P_UNZIP && g->prim != P_GET;
}

/* The calls of a lambda body that is a chain of one-argument calls ending at
 * the lambda's parameter, outermost first; 0 when the body is not such a chain. */
static int chain(const Fun *g, const Expr **stages, int max) {
  if (g->kind != F_LAMBDA || g->nparams != 1) return 0;
  int n = 0;
  const Expr *e = g->body;
  for (; e->kind == E_CALL && e->nargs == 1 && n < max; e = e->args[0]) stages[n++] = e;
  return e->kind == E_PARAM && e->param == g->params[0] ? n : 0;
}

bool vw_is_layout_fun(const Fun *g) {
  if (is_elementwise_layout(g)) return true;
  if (g->kind == F_PRIM && prim_is_map(g->prim)) return vw_is_layout_fun(g->f);
  const Expr *stages[64];
  int n = chain(g, stages, 64);
  for (int i = 0; i < n; i++)
    if (!vw_is_layout_fun(stages[i]->fun)) return false;
  return n > 0;
}

/* g applied to src as a view (type: g's result); with inverse, the view
 * through which g's argument (of type `type`) writes so that g of it lands in src. */
static const View *layout_fun(Arena *a, const Fun *g, const View *src, const Type *type, bool inverse) {
  if (is_elementwise_layout(g)) return inverse ? vw_inverse(a, g, src, type) : vw_layout(a, g, src, type);
  if (g->kind == F_PRIM) return vw_map_layout(a, g->f, src, type, inverse);
  const Expr *stages[64];
  int n = chain(g, stages, 64);
  const View *v = src;
  for (int i = 0; i < n && v; i++) {  // reading applies the innermost call first, writing the outermost
    const Expr *s = stages[inverse ? i : n - 1 - i];
    v = layout_fun(a, s->fun, v, inverse ? s->args[0]->type : s->type, inverse);
  }
  return v;
}

const View *vw_map_layout(Arena *a, const Fun *g, const View *src, const Type *type, bool inverse) {
  if (!vw_is_layout_fun(g)) return NULL;
  // the step is built over a stand-in for one element of the source
  const Type *from = inverse ? type->elem : src->type->elem, *to = inverse ? src->type->elem : type->elem;
  const View *inner = layout_fun(a, g, new_view(a, V_VAL, inverse ? to : from, NULL), inverse ? from : to, inverse);
  if (!inner) return NULL;
  View *v = new_view(a, V_MAP, type, src);
  v->inner = inner;
  return v;
}

const View *vw_fn(Arena *a, const char *var, const View *body, const View *src, const Type *type) {
  View *v = new_view(a, V_FN, type, src);
  v->inner = body;
  v->var = var;
  return v;
}

bool vw_is_view_expr(const Expr *e) {
  if (e->kind == E_PARAM) return true;
  if (e->kind != E_CALL || e->fun->kind != F_PRIM) return false;
  const Fun *f = e->fun;
  bool ok = prim_is_layout(f->prim) ||
            (f->prim == P_MAP && (vw_is_layout_fun(f->f) || vw_is_view_lambda(f->f)));
  for (int k = 0; ok && k < e->nargs; k++) ok = vw_is_view_expr(e->args[k]);
  return ok;
}

bool vw_is_view_lambda(const Fun *f) { return f->kind == F_LAMBDA && f->nparams == 1 && vw_is_view_expr(f->body); }

const Mem *vw_mem_of(const View *v) {
  while (v && v->kind != V_MEM && v->kind != V_VAL)
    v = v->kind == V_ZIP || v->kind == V_TUPLE ? v->srcs[0] : v->kind == V_FN ? v->inner : v->src;
  return v && v->kind == V_MEM ? v->mem : NULL;
}

bool vw_drops(const View *v) {
  for (; v && v->kind != V_MEM && v->kind != V_VAL; v = v->kind == V_ZIP || v->kind == V_TUPLE ? v->srcs[0] : v->src) {
    if (v->kind == V_UNCROP) return true;
    if ((v->kind == V_MAP || v->kind == V_FN) && vw_drops(v->inner)) return true;
  }
  return false;
}

/* ---- The walk ------------------------------------------------------------- */

typedef struct Entry {
  bool is_field;       // a tuple field rather than an array index
  int field;
  const AExpr *i;
} Entry;

typedef struct Walk {
  Arena *a;
  const Lane *lanes;   // NULL: no ownership check
  int nlanes;
  Entry *stack;         // pending indices and fields, innermost last (grows: as deep as the views)
  int n, cap;
  const AExpr *comp;   // pending vector component (asScalar)
  int width;           // vector read width (asVector)
  const AExpr *cond;
  double padval;
  bool dropped;           // cond is a store's: what fails it is not written (V_UNCROP)
  const AExpr *lane;      // a vector read: the variable of its lane (LW_VEC_LANE), in every index since asVector
  int nlevels;            // the zero pads walked, those of one value after another merged (Access.nlevels)
  const AExpr *level_cond[VW_MAX_LEVELS];
  double level_val[VW_MAX_LEVELS];
  int nsubs;            // V_FN index variables bound so far, applied to every index pushed
  const char *sub_names[16];
  const AExpr *sub_vals[16];
} Walk;

/* Room for one more entry: a program may stack as many layout steps as
 * the parser's nesting bound allows (70 split/join pairs made 71 indices). */
static Entry *grow(Walk *w) {
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 16;
    Entry *s = ARENA_ARRAY(w->a, Entry, cap);
    if (w->n) memcpy(s, w->stack, (size_t)w->n * sizeof *s);
    w->stack = s, w->cap = cap;
  }
  return &w->stack[w->n++];
}

static void push(Walk *w, const AExpr *i) { *grow(w) = (Entry){false, 0, i}; }

static const AExpr *pop(Walk *w) {
  if (w->n == 0 || w->stack[w->n - 1].is_field) cg_die("view walk: expected an index on the stack");
  return w->stack[--w->n].i;
}

static int pop_field(Walk *w) {
  if (w->n == 0 || !w->stack[w->n - 1].is_field) cg_die("view walk: expected a tuple field on the stack");
  return w->stack[--w->n].field;
}

static bool owned(const Walk *w, const AExpr *i, int64_t threads, int by) {
  for (int k = 0; k < w->nlanes; k++)
    if (w->lanes[k].threads == threads && w->lanes[k].by == by && ax_equal(w->lanes[k].var, i)) return true;
  return false;
}

/* Row-major linear index of what is left on the stack, in storage elements. */
static bool linearise(Walk *w, Mem *m, Access *out, Diag *d) {
  Arena *a = w->a;
  const AExpr *idx = ax_cst(a, 0);
  const Type *t = m->type;
  for (int k = 0; t->kind == TY_ARRAY; t = t->elem, k++) {
    int64_t spread = m->dist ? m->dist[k] : 1;
    const AExpr *i = pop(w), *len = t->len;
    if (spread > 1 && w->lanes && !owned(w, i, spread, m->dist_by[k]))
      return diag_error(d, "private memory '%s' is spread over %lld work-items, but is indexed by '%s', which may "
                        "be another work-item's element; keep the value in local memory to share it",
                        m->name, (long long)spread, ax_str(a, i));
    if (spread > 1) {  // this work-item's slot of a dimension spread over work-items
      i = ax_div(a, i, ax_cst(a, spread));
      len = ax_ceildiv(a, len, ax_cst(a, spread));
    }
    idx = ax_add(a, ax_mul(a, idx, len), i);
  }
  if (w->n) cg_die("view walk: %d indices left over at memory %s", w->n, m->name);
  int64_t c;
  out->mem = m;
  out->width = 1;
  out->comp = -1;
  if (t->kind == TY_VEC && m->storage->kind != TY_VEC) {  // vectors kept as scalars
    idx = ax_mul(a, idx, ax_cst(a, t->width));
    if (w->comp) idx = ax_add(a, idx, w->comp);
    // a component, or asVector's vector of the components (asVector over asScalar of this memory)
    out->width = !w->comp ? t->width : w->width > 1 ? w->width : 1;
  } else if (w->width > 1 && w->comp && t->kind == TY_VEC && t->width == w->width) {
    // asVector over asScalar of vectors kept as vectors, of their width: the element itself (the lanes are
    // its components, vw_resolve checks)
  } else if (w->width > 1) {
    if (w->comp)   // of another width: the component's index would be lost
      return diag_error(d, "asVector[%d] over asScalar of vector memory '%s' (vectors of %d kept as vectors): a "
                        "vector of another width is not made from a vector's components; keep the width, or keep "
                        "the vectors as scalars", w->width, m->name, t->kind == TY_VEC ? t->width : 0);
    out->width = w->width;
  } else if (w->comp) {
    if (!ax_is_cst(w->comp, &c))
      return diag_error(d, "asScalar of private vector memory '%s' needs a constant component index", m->name);
    out->comp = (int)c;
  }
  out->idx = idx;
  return true;
}

/* e with a vector read's lane variable put to l. */
static const AExpr *at_lane(Arena *a, const AExpr *e, int l) {
  const char *lane = LW_VEC_LANE;
  const AExpr *at = ax_cst(a, l);
  return ax_subst(a, e, 1, &lane, &at);
}

/* The tests of a conjunction c (a && b && ...), appended to out from n on;
 * the count, or -1 past VW_MAX_TESTS (two tests per pad walked). */
enum { VW_MAX_TESTS = 64 };
static int conjuncts(const AExpr *c, const AExpr **out, int n) {
  if (n < 0) return n;
  if (c->kind == AX_AND) return conjuncts(c->ops[1], out, conjuncts(c->ops[0], out, n));
  if (n == VW_MAX_TESTS) return -1;
  out[n] = c;
  return n + 1;
}

/* The variables of e (not the lane's), each once, at most max. */
enum { VW_MAX_VARS = 32 };
static int index_vars(const AExpr *e, const AExpr **out, int n, int max) {
  if (e->kind == AX_VAR) {
    if (strcmp(e->name, LW_VEC_LANE) == 0) return n;
    for (int i = 0; i < n; i++)
      if (strcmp(out[i]->name, e->name) == 0) return n;
    if (n < max) out[n++] = e;
    return n;
  }
  for (int i = 0; i < e->n; i++) n = index_vars(e->ops[i], out, n, max);
  return n;
}

/* How a vector's lanes lie in memory, from its index of the lane variable:
 * neighbours (lane l at lane 0's index plus l, proven by the simplifier),
 * apart (some values of the index's variables, within their ranges, put a
 * lane elsewhere: a transpose or a scatter between the vector and the
 * memory), or unknown (neither proven nor refuted: what split |> join
 * identities with offsets leave, taken as neighbours as before lanes were
 * followed). The refutation is a test, not a proof: every corner of the
 * variables' ranges (all of them up to 2^10, else 1024 drawn), the values
 * next to each corner, and 256 points drawn inside; an unbounded range is
 * tried over its first 4096 values. *apart gets a lane found apart. */
enum { VW_MAX_CORNERS = 1024, VW_DRAWN = 256 };
typedef enum Lanes { LANES_NEIGHBOURS, LANES_APART, LANES_UNKNOWN } Lanes;
static Lanes lanes_in_memory(Arena *a, const AExpr *idx, int width, int *apart) {
  const AExpr *idx0 = at_lane(a, idx, 0), *step[16];
  bool proven = true;
  for (int l = 1; l < width; l++) {
    step[l] = ax_sub(a, at_lane(a, idx, l), idx0);
    proven &= ax_equal(step[l], ax_cst(a, l));
  }
  if (proven) return LANES_NEIGHBOURS;
  const AExpr *vars[VW_MAX_VARS];
  int nv = index_vars(idx, vars, 0, VW_MAX_VARS);
  if (nv > VW_MAX_VARS) nv = VW_MAX_VARS;
  const char *names[VW_MAX_VARS];
  int64_t vals[VW_MAX_VARS], lo[VW_MAX_VARS], hi[VW_MAX_VARS];
  for (int i = 0; i < nv; i++) {
    names[i] = vars[i]->name;
    lo[i] = vars[i]->lo == AX_NEG_INF ? (vars[i]->hi == AX_INF ? 0 : vars[i]->hi - 4096) : vars[i]->lo;
    hi[i] = vars[i]->hi == AX_INF ? lo[i] + 4096 : vars[i]->hi;
  }
  uint64_t rng = 0x9E3779B97F4A7C15ull, corners = nv < 10 ? (uint64_t)1 << nv : VW_MAX_CORNERS;
  for (uint64_t sample = 0; sample < 3 * corners + VW_DRAWN; sample++) {
    uint64_t corner = corners == VW_MAX_CORNERS ? 0 : sample % corners;
    for (int i = 0; i < nv; i++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      bool high = corners == VW_MAX_CORNERS ? (rng >> 40) & 1 : (corner >> i) & 1;
      int64_t at = high ? hi[i] : lo[i], next = high ? (at > lo[i] ? at - 1 : at) : (at < hi[i] ? at + 1 : at);
      // corners, then the values next to them, then points drawn inside
      vals[i] = sample < corners ? at : sample < 3 * corners ? ((rng >> 20) & 1 ? next : at)
                : lo[i] + (int64_t)((rng >> 33) % (uint64_t)(hi[i] - lo[i] + 1));
    }
    for (int l = 1; l < width; l++) {
      int64_t v;
      Diag dd = {0};
      if (ax_eval(step[l], nv, names, vals, &v, &dd) && v != l) return *apart = l, LANES_APART;
    }
  }
  return LANES_UNKNOWN;
}

/* A vector read, its index and guards still of the lane variable; the
 * index becomes lane 0's. Lanes that are neighbours in memory, or not known
 * to be apart, are one vector load; a guard that depends on the lane (a pad
 * the vector may straddle) stays as each lane's (lane_cond), cond becoming
 * every lane's: the vector is loaded whole where every lane is inside, lane
 * by lane at the border. Lanes apart in memory (a transpose between the
 * vector and the memory) are read lane by lane, each at its own index
 * (lane_idx) under its own guard: a gather. */
static bool vector_lanes(Walk *w, const Mem *m, Access *out, Diag *d) {
  Arena *a = w->a;
  const AExpr *idx = out->idx, *idx0 = at_lane(a, idx, 0);
  int apart = 1;
  Lanes lanes = lanes_in_memory(a, idx, w->width, &apart);
  bool by_lane = out->cond && !ax_equal(out->cond, at_lane(a, out->cond, 0));
  out->idx = idx0;
  if (lanes == LANES_APART || (by_lane && lanes == LANES_UNKNOWN)) {
    if (m->space == MS_PRIVATE)   // registers are read whole, not lane by lane
      return diag_error(d, "asVector[%d] of private memory '%s' whose lanes are not neighbours (lane 0 reads element "
                        "%s, lane %d element %s): vectorise along the dimension that is contiguous", w->width, m->name,
                        ax_str(a, idx0), apart, ax_str(a, at_lane(a, idx, apart)));
    out->lane_idx = idx;
    out->lane_cond = out->cond;
    out->cond = NULL;
    return true;
  }
  // a guard of every lane alike: the vector is read whole
  if (!by_lane) return true;
  if (m->space == MS_PRIVATE)   // registers are read whole, not lane by lane
    return diag_error(d, "asVector[%d] over a pad of private memory '%s' that its vectors may straddle: pad after "
                      "vectorising", w->width, m->name);
  out->lane_cond = out->cond;
  // every lane's guard: each test of the conjunction once per lane it differs in, the others once
  const AExpr *tests[VW_MAX_TESTS], *all = NULL;
  int n = conjuncts(out->cond, tests, 0), k = 0;
  if (n < 0) tests[0] = out->cond, n = 1;   // too many to list: the conjunction per lane as it is
  const AExpr **uniq = ARENA_ARRAY(a, const AExpr *, (size_t)n * (size_t)w->width + 1);
  for (int i = 0; i < n; i++)
    for (int l = 0; l < w->width; l++) {
      const AExpr *in = at_lane(a, tests[i], l);
      bool seen = false;
      for (int j = 0; j < k && !seen; j++) seen = ax_equal(uniq[j], in);
      if (!seen) uniq[k++] = in, all = all ? ax_and(a, all, in) : in;
    }
  out->cond = all;
  return true;
}

static bool step(Walk *w, const View **vp, bool write, Diag *d);
static bool step(Walk *w, const View **vp, bool write, Diag *d) {
  Arena *a = w->a;
  const View *v = *vp;
  const AExpr *i, *j;
  switch (v->kind) {
  case V_MEM:
  case V_VAL: cg_die("step at a leaf");
  case V_ACCESS: push(w, w->nsubs ? ax_subst(a, v->i, w->nsubs, w->sub_names, w->sub_vals) : v->i); break;
  case V_FN:  // the body's view, with the element's index variable bound to the index
    if (w->nsubs == 16) cg_die("views of lambdas nested deeper than 16");
    w->sub_names[w->nsubs] = v->var;
    w->sub_vals[w->nsubs++] = pop(w);
    *vp = v->inner;
    return true;
  case V_GET:
    *grow(w) = (Entry){true, v->k, NULL};
    break;
  case V_TUPLE: *vp = v->srcs[pop_field(w)]; return true;
  case V_ZIP: {
    i = pop(w);
    int k = pop_field(w);
    push(w, i);
    *vp = v->srcs[k];
    return true;
  }
  case V_UNIT: pop(w); break;
  case V_MAP: {  // the element's own layout steps, under the outer index
    i = pop(w);
    for (const View *inner = v->inner; inner->kind != V_VAL;)
      if (!step(w, &inner, write, d)) return false;
    push(w, i);
    break;
  }
  case V_PROJ:
    i = pop(w);
    *grow(w) = (Entry){true, v->k, NULL};
    push(w, i);
    break;
  case V_SPLIT: i = pop(w), j = pop(w), push(w, ax_add(a, ax_mul(a, i, v->n), j)); break;
  case V_JOIN: i = pop(w), push(w, ax_mod(a, i, v->n)), push(w, ax_div(a, i, v->n)); break;
  case V_SLIDE: i = pop(w), j = pop(w), push(w, ax_add(a, ax_mul(a, i, v->m), j)); break;
  case V_TRANSPOSE: i = pop(w), j = pop(w), push(w, i), push(w, j); break;
  case V_PAD: {
    if (write) return diag_error(d, "cannot write through pad (it is not invertible); pad the input instead");
    if (w->lane && v->clamp)
      return diag_error(d, "asVector[%d] over a pad that clamps: the lanes would not be neighbours at the border; "
                        "pad after vectorising", w->width);
    i = pop(w);
    j = ax_sub(a, i, v->n);
    if (v->clamp) {
      push(w, ax_min(a, ax_max(a, j, ax_cst(a, 0)), ax_sub(a, v->len, ax_cst(a, 1))));
      break;
    }
    if (w->lane) {   // a vector that starts at a multiple of the width of a pad of the width is in or out whole
      const AExpr *wd = ax_cst(a, w->width), *i0 = at_lane(a, i, 0);
      if (ax_equal(ax_sub(a, i, i0), w->lane) && ax_prove_divisible(i0, wd) && ax_prove_divisible(v->n, wd) &&
          ax_prove_divisible(v->len, wd))
        i = i0;
    }   // else the guard keeps the lane: the vector may straddle the border (vector_lanes)
    const AExpr *in = ax_and(a, ax_le(a, v->n, i), ax_lt(a, i, ax_add(a, v->n, v->len)));
    if (w->nlevels && w->level_val[w->nlevels - 1] == v->padval) {   // the value of the pad outside it
      w->level_cond[w->nlevels - 1] = ax_and(a, w->level_cond[w->nlevels - 1], in);
    } else {
      if (w->nlevels == VW_MAX_LEVELS)
        return diag_error(d, "more than %d nested pads of different values in one read", VW_MAX_LEVELS);
      w->level_cond[w->nlevels] = in, w->level_val[w->nlevels++] = v->padval;
    }
    w->cond = w->cond ? ax_and(a, w->cond, in) : in;
    w->padval = v->padval;
    push(w, j);
    break;
  }
  case V_CROP: push(w, ax_add(a, pop(w), v->n)); break;
  case V_UNCROP: {   // a store of the whole array keeps its middle: the others are dropped
    if (!write) return diag_error(d, "cannot read the array a crop was taken from");
    if (w->lane) return diag_error(d, "a vector of %d lanes stored through crop's guard: store it lane by lane, or "
                                   "vectorise inside the crop", w->width);
    i = pop(w);
    const AExpr *in = ax_and(a, ax_le(a, v->n, i), ax_lt(a, i, ax_add(a, v->n, v->len)));
    w->cond = w->cond ? ax_and(a, w->cond, in) : in;
    w->dropped = true;
    push(w, ax_sub(a, i, v->n));
    break;
  }
  case V_GATHER: {
    if (v->f->prim == P_SCATTER && !write)
      return diag_error(d, "cannot read through scatter; scatter places results where they are written");
    if (v->f->prim == P_GATHER && write)
      return diag_error(d, "cannot write through gather; use scatter on the written side");
    const char *names[2] = {v->f->idx_i->name, v->f->idx_n->name};
    const AExpr *vals[2] = {pop(w), v->src->type->len};
    push(w, ax_subst(a, v->f->idx, 2, names, vals));
    break;
  }
  case V_AS_VECTOR:
    i = pop(w);
    if (w->comp) {
      push(w, ax_add(a, ax_mul(a, i, v->n), w->comp));
      w->comp = NULL;
    } else {
      int64_t width;
      cg_assert(ax_is_cst(v->n, &width));
      w->width = (int)width;
      // the lane rides along in the walk, so that every pad guards each lane and the memory's index says
      // whether the lanes are neighbours (vector_lanes, vector_store)
      w->lane = ax_var(a, LW_VEC_LANE, 0, width - 1);
      push(w, ax_add(a, ax_mul(a, i, v->n), w->lane));
    }
    break;
  case V_AS_SCALAR:
    i = pop(w);
    push(w, ax_div(a, i, v->n));
    w->comp = ax_mod(a, i, v->n);
    break;
  }
  *vp = v->src;
  return true;
}

bool vw_resolve(Arena *a, const View *v, bool write, Access *out, Diag *d, const Lane *lanes, int nlanes) {
  Walk w = {.a = a, .lanes = lanes, .nlanes = nlanes};
  memset(out, 0, sizeof *out);
  while (v->kind != V_MEM && v->kind != V_VAL)
    if (!step(&w, &v, write, d)) return false;
  out->cond = w.cond;
  out->padval = w.padval;
  if (w.nlevels > 1) {   // nested pads of different values: each level's test and value
    if (w.lane)
      return diag_error(d, "asVector[%d] over nested pads of different values (%g outside, %g inside): pad with one "
                        "value, or vectorise after the pads", w.width, w.level_val[0], w.level_val[1]);
    out->nlevels = w.nlevels;
    memcpy(out->level_cond, w.level_cond, sizeof w.level_cond);
    memcpy(out->level_val, w.level_val, sizeof w.level_val);
  }
  if (v->kind == V_VAL) {
    if (write) return diag_error(d, "cannot write to a value");
    if (w.n) cg_die("view walk: indices left over at a value");
    out->val = v->val;
    out->comp = -1;
    int64_t c;
    if (w.comp) {
      if (!ax_is_cst(w.comp, &c)) return diag_error(d, "a vector value needs a constant component index");
      out->comp = (int)c;
    }
    return true;
  }
  if (write && w.cond && !w.dropped) return diag_error(d, "cannot write through pad");
  if (!linearise(&w, v->mem, out, d)) return false;
  if (!w.lane) return true;
  if (v->mem->storage->kind == TY_VEC) {   // vectors kept as vectors: the lanes are one element's components
    const AExpr *idx = out->idx, *idx0 = at_lane(a, idx, 0);
    for (int l = 1; l < w.width; l++)
      if (!ax_equal(at_lane(a, idx, l), idx0))
        return diag_error(d, "a vector of %d lanes over vector memory '%s' whose lanes are not one element's "
                          "components (lane 0 at element %s, lane %d at %s)", w.width, v->mem->name, ax_str(a, idx0),
                          l, ax_str(a, at_lane(a, idx, l)));
    out->idx = idx0;
    if (out->cond) out->cond = at_lane(a, out->cond, 0);
    return true;
  }
  if (!write) return vector_lanes(&w, v->mem, out, d);
  // a vector store: one vstore, so its lanes must not be known to be apart
  const AExpr *idx = out->idx;
  out->idx = at_lane(a, idx, 0);
  int apart = 1;
  if (lanes_in_memory(a, idx, w.width, &apart) == LANES_APART)
    return diag_error(d, "a vector of %d lanes stored into '%s' whose lanes are not neighbours in memory (lane 0 "
                      "writes element %s, lane %d element %s, not always %d further: a transpose or a scatter "
                      "between the vector and the memory); vectorise along the dimension that is contiguous", w.width,
                      v->mem->name, ax_str(a, out->idx), apart, ax_str(a, at_lane(a, idx, apart)), apart);
  return true;
}
