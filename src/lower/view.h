/* view.h: views, the index expressions of layout primitives (docs/design.md section 3).
 *
 * A view says where the values of an expression live without moving them:
 * a memory, a computed value, or a layout primitive over another view.
 * Reading (or writing) one element walks the chain from the outside in with a
 * stack of indices and yields one linear, simplified index into one memory,
 * plus a guard when the element lies in the padding of a pad.
 */
#ifndef CONVGEN_VIEW_H
#define CONVGEN_VIEW_H

#include "lower/lower.h"

typedef enum ViewKind {
  V_MEM,        // a memory, whole
  V_VAL,        // a value held in a C expression (a literal)
  V_ACCESS,     // element i of src
  V_TUPLE,      // a tuple of views (unzip's result)
  V_ZIP,        // zip of srcs
  V_GET,        // field k of a tuple view
  V_PROJ,       // the array of field k of src's elements (unzip)
  V_UNIT,       // a one-element array whose element is src (a reduction's result)
  V_MAP,        // map(g) of src for a layout primitive g: inner is g's view
  V_FN,         // map(fun(y) -> B) of src, B only layout calls: inner is B's view with y = src[var]
  V_SPLIT,      // split(n) of src
  V_JOIN,       // join of src (inner length n)
  V_SLIDE,      // slide(n = size, m = step) of src
  V_PAD,        // pad(n = left) of src; guard or clamp; src length len
  V_TRANSPOSE,  // transpose of src
  V_GATHER,     // gather / scatter of src by an index function
  V_AS_VECTOR,  // asVector(n) of src
  V_AS_SCALAR,  // asScalar of src (vector width n)
  V_CROP,       // crop(n = left) of src: element i is src's i + n
  V_UNCROP,     // written only: crop's inverse, the array whose middle (from n, len long) is src; what is
                // written outside it is dropped (a guarded store)
} ViewKind;

typedef struct View View;
struct View {
  ViewKind kind;
  const Type *type;       // the type of the values this view denotes
  const View *src;        // the view underneath
  int nsrcs;              // V_TUPLE, V_ZIP
  const View **srcs;      // V_TUPLE, V_ZIP
  Mem *mem;               // V_MEM
  const CExpr *val;       // V_VAL
  const AExpr *i;         // V_ACCESS: the index
  int k;                  // V_GET: field
  const AExpr *n, *m;     // sizes, see ViewKind
  const AExpr *len;       // V_PAD: length of src; V_UNCROP: src's (the middle's) length
  bool clamp;             // V_PAD
  double padval;          // V_PAD constant
  const Fun *f;           // V_GATHER: the gather or scatter primitive
  const View *inner;      // V_MAP: the layout step applied to each element; V_FN: the body
  const char *var;        // V_FN: the index variable of the body's element
};

const View *vw_mem(Arena *a, Mem *m);
const View *vw_val(Arena *a, const CExpr *c);
const View *vw_access(Arena *a, const View *v, const AExpr *i);
const View *vw_get(Arena *a, const View *v, int k);
const View *vw_unit(Arena *a, const View *v, const Type *type);
const View *vw_zip(Arena *a, int n, const View *const *vs, const Type *type);
const View *vw_tuple(Arena *a, int n, const View *const *vs, const Type *type);
/* A layout primitive over a view (the result type is the call's type). */
const View *vw_layout(Arena *a, const Fun *f, const View *src, const Type *type);
/* map(g)(src) for a layout function g (vw_is_layout_fun): a view, no data
 * moves (NULL if g is not one). With inverse, the view through which
 * the argument of map(g) writes so that it lands in src. */
const View *vw_map_layout(Arena *a, const Fun *g, const View *src, const Type *type, bool inverse);
/* map(fun(y) -> B)(src) as a view, for a lambda whose body makes only views
 * (vw_is_view_lambda): body is B's view with y bound to src[var], var an
 * index variable of the caller's making; element i is the body with var = i. */
const View *vw_fn(Arena *a, const char *var, const View *body, const View *src, const Type *type);
/* Is f a lambda of one parameter whose body is made of layout primitives
 * (zip, get and the rest), maps of layout functions or of such lambdas, the
 * parameter and free variables? Mapping it moves no data either. */
bool vw_is_view_lambda(const Fun *f);
/* Is e made of such calls only (a view: evaluating it moves no data)? */
bool vw_is_view_expr(const Expr *e);
/* Is g a layout function: a layout primitive, a map of one, or a lambda whose
 * body is a chain of such calls on its parameter? (Mapping it moves no data.) */
bool vw_is_layout_fun(const Fun *g);

/* The view through which a data-producing argument writes so that the layout
 * primitive f applied to it lands in dst (join writes through split, split
 * through join, transpose through transpose, asVector through asScalar, scatter
 * through its index function). NULL when f cannot be inverted this way. */
const View *vw_inverse(Arena *a, const Fun *f, const View *dst, const Type *arg_type);

/* The memory a view finally reads or writes (the first one, for zips); NULL
 * for values. */
const Mem *vw_mem_of(const View *v);
/* Whether a write through v may be dropped (a crop's inverse on the way to
 * the memory): such a view is no place to accumulate in, as what is not
 * stored cannot be read back. */
bool vw_drops(const View *v);

enum { VW_MAX_LEVELS = 8 };   // nested pads of different values one read may pass

/* The result of walking a view to one scalar or vector element. */
typedef struct Access {
  Mem *mem;               // NULL for a value
  const CExpr *val;       // a value view's expression
  const AExpr *idx;       // linear index in storage elements
  int width;              // > 1: a vector read from scalar storage
  int comp;               // >= 0: a component of a vector element
  const AExpr *cond;      // pad guard (NULL: always in bounds); of a vector: every lane in bounds; of a
                          // write, the guard of a store through crop (outside it nothing is written)
  double padval;          // value outside the guard
  const AExpr *lane_cond; // a vector that may straddle a pad's border: each lane's guard, of the
                          // variable LW_VEC_LANE (lane l reads idx + l); NULL: the lanes share cond
  const AExpr *lane_idx;  // a vector whose lanes are apart in memory: each lane's index, of LW_VEC_LANE,
                          // read lane by lane (cond NULL, lane_cond each lane's guard); NULL: idx + l
  /* Nested zero pads of different values (pad[1, 1, 2.0f] |> pad[1, 1, 5.0f]):
   * each level's own test and value, outermost first (the read is level 0's
   * value where its test fails, else level 1's where that fails, ...); cond
   * is still their conjunction. nlevels 0: one value, padval. */
  int nlevels;
  const AExpr *level_cond[VW_MAX_LEVELS];
  double level_val[VW_MAX_LEVELS];
} Access;

/* A parallel loop around the access: its variable, its number of
 * work-items and its level (LW_LANE). Private memory spread over work-items
 * (Mem.dist) may only be indexed, in a spread dimension, by such a variable
 * of the level that spread it, with the same number of work-items: the
 * element must belong to the work-item that reads it. */
typedef struct Lane {
  const AExpr *var;
  int64_t threads;
  int by;
} Lane;

/* Resolve v (of scalar or vector type) to an access; false with a Diag when the
 * chain cannot be read or written that way (writing into a pad, reading a
 * scatter, a non-constant vector component, another work-item's private
 * element). lanes may be NULL to skip the ownership check. */
bool vw_resolve(Arena *a, const View *v, bool write, Access *out, Diag *d, const Lane *lanes, int nlanes);

#endif
