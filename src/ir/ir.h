/* ir.h: the functional data-parallel IR (docs/design.md section 2).
 *
 * Types: scalars (float, int), vectors floatN, tuples, and arrays [T]n whose
 * length n is a symbolic AExpr; a float scalar and a vector carry their
 * element type (util/elem.h: fp32, the only one, prints as float).
 * Expressions: a parameter reference, a literal, or a call of a function on
 * arguments. Functions: a lambda, a user function (typed parameters and an
 * OpenCL C body), or a primitive with its static arguments (a nested
 * function, a dimension, sizes).
 *
 * Every primitive is listed once in IR_PRIMS below, which yields its enum, its
 * name in the text form, the static arguments it takes and its call arity.
 * Nodes are made only through the ir_ constructors, which check their static
 * arguments; after construction a node is never changed, except that type
 * inference (ir_infer) fills Expr.type and Param.type once.
 */
#ifndef CONVGEN_IR_H
#define CONVGEN_IR_H

#include "arith/arith.h"
#include "ir/cbody.h"
#include "util/elem.h"

/* ---- Types ---------------------------------------------------------------- */

typedef enum TKind {
  TY_FLOAT,  // a scalar of element type et (fp32: float)
  TY_INT,    // 32-bit int scalar
  TY_VEC,    // N values of element type et (floatN), N in {2,3,4,8,16}
  TY_TUPLE,  // (T1, ..., Tk)
  TY_ARRAY,  // [T]len
} TKind;

typedef struct Type Type;
struct Type {
  TKind kind;
  const ElemType *et;     // TY_FLOAT, TY_VEC: the element type
  int width;              // TY_VEC: N
  int n;                  // TY_TUPLE: number of fields
  const Type **fields;    // TY_TUPLE: the fields
  const Type *elem;       // TY_ARRAY: element type
  const AExpr *len;       // TY_ARRAY: length
};

const Type *ty_float(void);                           // the scalar of the default element type (fp32)
const Type *ty_scalar(const ElemType *et);            // the scalar of element type et
const Type *ty_int(void);
const Type *ty_vec(Arena *a, const ElemType *et, int width);
const Type *ty_tuple(Arena *a, int n, const Type **fields);
const Type *ty_array(Arena *a, const Type *elem, const AExpr *len);
bool ty_equal(const Type *x, const Type *y);          // lengths compared as normal forms
bool ty_is_scalar(const Type *t);                     // float or int
bool ty_is_value(const Type *t);                      // scalar or vector
const Type *ty_base(const Type *t);                   // innermost non-array type
const AExpr *ty_count(Arena *a, const Type *t);       // number of base values in t
const ElemType *ty_elem(const Type *t);               // the element type of t's base: NULL for int and tuples
int64_t ty_bytes(const Type *t, int64_t n);           // bytes of n values of the scalar or vector t (int: 4)
const Type *ty_arith(const Type *t);                  // the type a value of t is computed in: a storage
                                                      // type's scalar (half) its accumulation type's, else t
bool ty_stores_as(const Type *value, const Type *mem); // values of type `value` can be stored as `mem`: the same
                                                      // arrays and lengths, scalars computed in one type
void ty_print(StrBuf *sb, const Type *t);             // "[[float]4](N/4)"
const char *ty_str(Arena *a, const Type *t);
const Type *ty_subst(Arena *a, const Type *t, int n, const char *const *names, const AExpr *const *vals);
const Type *ty_stored_in(Arena *a, const Type *t, const ElemType *et);   // t with each fp32 scalar and vector et's

/* ---- Primitives -------------------------------------------------------------
 * X(enum, text name, static arguments, call arity)
 * static arguments: S_NONE, S_F (function), S_DF (dimension, function),
 * S_N (size), S_NN (two sizes), S_PAD (left, right, boundary), S_I (integer index),
 * S_NF (size, function), S_IDX (index function (i, n) -> aexpr).
 * arity -1: any number >= 1 (zip). */
#define IR_PRIMS(X)                                          \
  X(P_MAP, "map", S_F, 1)                                    \
  X(P_MAP_SEQ, "mapSeq", S_F, 1)                             \
  X(P_MAP_SEQ_UNROLL, "mapSeqUnroll", S_F, 1)                \
  X(P_MAP_GLB, "mapGlb", S_DF, 1)                            \
  X(P_MAP_WRG, "mapWrg", S_DF, 1)                            \
  X(P_MAP_LCL, "mapLcl", S_DF, 1)                            \
  X(P_MAP_VEC, "mapVec", S_F, 1)                             \
  X(P_REDUCE, "reduce", S_F, 2)                              \
  X(P_REDUCE_SEQ, "reduceSeq", S_F, 2)                       \
  X(P_REDUCE_SEQ_UNROLL, "reduceSeqUnroll", S_F, 2)          \
  X(P_REDUCE_SEQ_PREFETCH, "reduceSeqPrefetch", S_F, 2)      \
  X(P_REDUCE_SEQ_DOUBLE, "reduceSeqDoubleBuffer", S_F, 2)    \
  X(P_REDUCE_SEQ_ASYNC, "reduceSeqAsync", S_F, 2)            \
  X(P_ITERATE, "iterate", S_NF, 1)                           \
  X(P_ZIP, "zip", S_NONE, -1)                                \
  X(P_UNZIP, "unzip", S_NONE, 1)                             \
  X(P_GET, "get", S_I, 1)                                    \
  X(P_SPLIT, "split", S_N, 1)                                \
  X(P_JOIN, "join", S_NONE, 1)                               \
  X(P_SLIDE, "slide", S_NN, 1)                               \
  X(P_PAD, "pad", S_PAD, 1)                                  \
  X(P_CROP, "crop", S_NN, 1)                                 \
  X(P_TRANSPOSE, "transpose", S_NONE, 1)                     \
  X(P_GATHER, "gather", S_IDX, 1)                            \
  X(P_SCATTER, "scatter", S_IDX, 1)                          \
  X(P_AS_VECTOR, "asVector", S_N, 1)                         \
  X(P_AS_SCALAR, "asScalar", S_NONE, 1)                      \
  X(P_TO_GLOBAL, "toGlobal", S_F, 1)                         \
  X(P_TO_LOCAL, "toLocal", S_F, 1)                           \
  X(P_TO_PRIVATE, "toPrivate", S_F, 1)                       \
  X(P_BARRIER, "barrier", S_NONE, 1)                         \
  X(P_MMA_TF32, "mmaTF32", S_NONE, 3)                        \
  X(P_MMA_3XTF32, "mma3xTF32", S_NONE, 3)                    \
  X(P_MMA_F16, "mmaF16", S_NONE, 3)

typedef enum Prim {
#define X(e, name, st, ar) e,
  IR_PRIMS(X)
#undef X
  P_COUNT
} Prim;

typedef enum PrimStatic { S_NONE, S_F, S_DF, S_N, S_NN, S_PAD, S_I, S_NF, S_IDX } PrimStatic;

const char *prim_name(Prim p);
PrimStatic prim_static(Prim p);
int prim_arity(Prim p);
bool prim_lookup(const char *name, Prim *out);
bool prim_is_map(Prim p);         // any map-family primitive except mapVec
bool prim_is_reduce(Prim p);      // reduce, reduceSeq, reduceSeqUnroll, reduceSeqPrefetch, reduceSeqDoubleBuffer,
                                  // reduceSeqAsync
bool prim_is_layout(Prim p);      // moves no data: zip unzip get split join slide pad transpose gather scatter asVector asScalar
bool prim_is_mma(Prim p);         // a warp's tile product: mmaTF32, mma3xTF32, mmaF16

/* The warp's tile product (mmaTF32, mma3xTF32, mmaF16; docs/ir.md, "Tile
 * products"): D = C + A B^T for A a 16 x K tile (rows of the output, the
 * reduction along a row), B an 8 x K tile (columns of the output, the same)
 * and C, D 16 x 8 tiles held by the 32 lanes of a warp, each lane four values
 * as a float4: lane l = 4g + t holds D[g][2t], D[g][2t + 1], D[g + 8][2t],
 * D[g + 8][2t + 1] (the accumulator layout of PTX's mma.m16n8k8 and
 * m16n8k16). K is 8 for the TF32 products, 16 for mmaF16's half operands
 * (ir_mma_k). */
enum { IR_MMA_M = 16, IR_MMA_N = 8, IR_MMA_K = 8, IR_MMA_K16 = 16, IR_WARP = 32 };
int ir_mma_k(Prim p);   // the reduction's length of one product: 8 or 16
/* Row and column of the tile that lane `lane`'s component `comp` holds. */
int ir_mma_row(int lane, int comp);
int ir_mma_col(int lane, int comp);

/* ---- Nodes ------------------------------------------------------------------ */

typedef struct Expr Expr;
typedef struct Fun Fun;

typedef struct Param {
  const char *name;     // as written; unique within its scope
  const Type *type;     // declared (program inputs) or inferred (lambda parameters)
  int id;               // unique per Program, for environments
  const double *values; // a `const` array's values, row-major (each a float); NULL for any other
} Param;

typedef struct UserFun {
  const char *name;           // C identifier
  int nparams;
  const char **pnames;        // parameter names
  const Type **ptypes;        // scalar or vector types
  const Type *ret;            // scalar or vector
  const char *body;           // OpenCL C statements, emitted verbatim
  const CBody *cbody;         // parsed body, for the interpreter
} UserFun;

/* Associative operators a user function may compute: "return a + b;" and its
 * kin, recognised from the body's text (whitespace and one pair of outer
 * parentheses ignored, operands in either order), rather than trusting a
 * name. IR_OP_NONE unless f(a, b) is one of them on two scalars of one type. */
typedef enum IrOp { IR_OP_NONE, IR_OP_ADD, IR_OP_MUL, IR_OP_MAX, IR_OP_MIN } IrOp;
IrOp ir_user_op(const UserFun *uf);
/* Is uf the identity of one scalar, "return x;" (copy's id)? */
bool ir_user_is_identity(const UserFun *uf);

typedef enum EKind {
  E_PARAM,  // reference to a Param
  E_LIT,    // literal scalar
  E_CALL,   // fun(args)
} EKind;

struct Expr {
  EKind kind;
  const Type *type;     // filled by ir_infer
  int line, col;        // position in the source text (0 when built by code)
  Param *param;         // E_PARAM
  double lit;           // E_LIT: the value
  bool lit_is_int;      // E_LIT: an int literal
  const Fun *fun;       // E_CALL
  int nargs;            // E_CALL
  const Expr **args;    // E_CALL
};

typedef enum FKind {
  F_LAMBDA,  // fun(params) -> body
  F_USER,    // a user function
  F_PRIM,    // a primitive with static arguments
} FKind;

typedef enum Boundary { PAD_CONST, PAD_CLAMP } Boundary;

/* The dimension of a mapLcl that walks its elements with all the work-items
 * of the group as one line (the local id linearised over the three
 * dimensions, `mapLcl[flat, f]`): for copies whose layout does not follow
 * the work-group's shape. */
enum { IR_DIM_FLAT = 3 };

struct Fun {
  FKind kind;
  int nparams;              // F_LAMBDA
  Param **params;           // F_LAMBDA
  const Expr *body;         // F_LAMBDA
  const UserFun *uf;        // F_USER
  Prim prim;                // F_PRIM
  const Fun *f;             // S_F, S_DF, S_NF: the nested function
  int dim;                  // S_DF: parallel dimension 0..2, or IR_DIM_FLAT (mapLcl only)
  int index;                // S_I: tuple field
  const AExpr *n, *m;       // S_N: n; S_NN: n = size, m = step (crop: left, right); S_PAD: n = left, m = right; S_NF: n
  Boundary boundary;        // S_PAD
  double padval;            // S_PAD with PAD_CONST
  const AExpr *idx;         // S_IDX: index expression over the variables idx_i and idx_n
  const AExpr *idx_i, *idx_n;  // S_IDX: those variables
};

/* Does e, or a function inside it (a lambda's body, a primitive's nested
 * function), call primitive p? */
bool ir_calls(const Expr *e, Prim p);

/* Constructors; they check static arguments and cg_die on misuse by code
 * (the parser checks user input before calling them). */
Param *ir_param(Arena *a, const char *name, const Type *type);
const Expr *ir_ref(Arena *a, Param *p);
const Expr *ir_lit(Arena *a, double v, bool is_int);
const Expr *ir_call(Arena *a, const Fun *f, int nargs, const Expr **args);
const Expr *ir_call1(Arena *a, const Fun *f, const Expr *x);
const Fun *ir_lambda(Arena *a, int nparams, Param **params, const Expr *body);
const Fun *ir_user(Arena *a, const UserFun *uf);
const Fun *ir_prim(Arena *a, Prim p);                                  // S_NONE
const Fun *ir_prim_f(Arena *a, Prim p, const Fun *f);                  // S_F
const Fun *ir_prim_df(Arena *a, Prim p, int dim, const Fun *f);        // S_DF
const Fun *ir_prim_n(Arena *a, Prim p, const AExpr *n);                // S_N
const Fun *ir_prim_nn(Arena *a, Prim p, const AExpr *n, const AExpr *m);  // S_NN
const Fun *ir_prim_i(Arena *a, Prim p, int index);                     // S_I
const Fun *ir_prim_nf(Arena *a, Prim p, const AExpr *n, const Fun *f); // S_NF
const Fun *ir_pad(Arena *a, const AExpr *left, const AExpr *right, Boundary b, double value);
const Fun *ir_prim_idx(Arena *a, Prim p, const AExpr *idx, const AExpr *i, const AExpr *n);

/* A program: declared size variables, user functions, typed inputs, one body. */
typedef struct Program {
  const char *name;          // file name or "<string>"
  int nsizes;
  const char **size_names;   // declared size variables, in order
  const AExpr **sizes;       // their values: AX_VAR (range [1, inf)) or a bound constant
  int nufs;
  UserFun **ufs;
  int ninputs;
  Param **inputs;
  int nconsts;               // `const` arrays: values the program holds (Winograd's matrices), not inputs
  Param **consts;
  const Expr *body;
  const Type *out_type;      // `out: T = ...`: the output's declared type, whose element type is the one
                             // stored (half: the values rounded as they are written); NULL: body's type
  const ElemType *out_store; // with no out_type: the element type the output is stored in (ir_store_in),
                             // out_type set from it by ir_infer; NULL: the body's
  int nparams_total;         // Param ids are 0 .. nparams_total-1
  const AExpr *workgroup[3]; // `workgroup` line: work-items per dimension of a
                             // work-group (NULL: as many as the largest mapLcl)
} Program;

/* How deep a program may nest: the parser's recursion, and the depth of the
 * tree it builds, which every later pass recurses over. */
enum { IR_MAX_DEPTH = 1000 };

/* The most values a `const` array may hold: 64 KiB of floats, the least
 * constant memory an OpenCL device has (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE). */
enum { IR_MAX_CONST_VALUES = 16384 };

/* The largest program text the command line reads (a file or standard input). */
#define IR_MAX_TEXT ((size_t)16 << 20)

/* Text form (docs/ir.md). ir_parse returns NULL with a Diag "file:line:col: ..."
 * on malformed text, undefined names or bad user-function bodies. Size variables
 * named in bnames are bound to the constants bvals while parsing (the -p option),
 * so every size in the result is concrete when all sizes are bound. */
Program *ir_parse(Arena *a, const char *name, const char *text, int nbind,
                  const char *const *bnames, const int64_t *bvals, Diag *d);
void ir_print_program(StrBuf *sb, const Program *p);
void ir_print_expr(StrBuf *sb, const Expr *e);
void ir_print_fun(StrBuf *sb, const Fun *f);
const char *ir_expr_str(Arena *a, const Expr *e);

/* Type inference: fills every Expr.type and lambda Param.type. On a type error
 * the Diag names the node by its position and printed form and gives the two
 * types that disagree. */
bool ir_infer(Arena *a, Program *p, Diag *d);

/* The program's tensors in memory in element type et (a storage type:
 * half), before ir_infer: each input of fp32 values declared et's (read as
 * fp32, as a declared half input is) and the output, when not declared,
 * stored in et (out_store). An fp16 network's operators (src/net/net.c)
 * are their programs of fp32 so stored. */
void ir_store_in(Arena *a, Program *p, const ElemType *et);

#endif
