/* lower.h: the lowered form of a program: kernels of C-like statements over
 * memories, plus the buffers between kernels and each kernel's ND-range.
 *
 * The lowering pipeline (lower.c's table `passes`, in order; the first four
 * steps make one kernel at a time, inside the pass named kernels):
 *   kernels     the top level splits into kernels where a parallel map's input
 *               is computed by another (global synchronisation between them)
 *   ranges      per kernel, a dry run of gen collects the trip count of each
 *               parallel dimension -> the ND-range (work-group and global sizes)
 *   gen         address spaces, memory allocation, views, unrolling,
 *               parallel-mapping legality: expressions become statements
 *               (a staged evaluation, gen.c, view.c, mapping.c)
 *   barriers    a barrier before each statement that could race with what
 *               other work-items did since the last one (barriers.c)
 *   size check  the unrolled code stays under a cap
 *   scalarise   private arrays indexed only by constants become registers
 *   prefetch    a reduceSeqPrefetch's leading copies to local memory split
 *               into loads one step ahead, into registers, and stores
 *   combine-loads  neighbouring local loads as one float4 load
 * The emitter (codegen/) prints the result through a dialect table.
 */
#ifndef CONVGEN_LOWER_H
#define CONVGEN_LOWER_H

#include "ir/ir.h"

typedef enum MSpace { MS_GLOBAL, MS_LOCAL, MS_PRIVATE, MS_CONST } MSpace;

typedef enum MRole {
  MR_INPUT,   // a program input (kernel argument, read only)
  MR_OUTPUT,  // the program's output (kernel argument)
  MR_TEMP,    // a global buffer between or inside kernels (kernel argument)
  MR_LOCAL,   // a __local array of one kernel
  MR_PRIVATE, // a private array or scalar
  MR_CONST,   // a `const` array of the program: constant memory at program scope, its values in the source
} MRole;

typedef struct Mem {
  const char *name;       // C identifier
  MSpace space;
  MRole role;
  const Type *type;       // logical type of the whole memory
  const Type *storage;    // element type in C: a scalar (float, int), or a vector (floatN) for private vectors
  int64_t count;          // number of storage elements
  int input_index;        // MR_INPUT: which program input
  const double *values;   // MR_CONST: the values, count of them (Param.values)
  int64_t *dist;          // MR_PRIVATE: per array dimension (outermost first), the
                          // number of work-items it is spread over (1: not spread);
                          // element i of such a dimension lives in slot i / dist
  int *dist_by;           // MR_PRIVATE: per spread dimension, the parallel level that
                          // spreads it, LW_LANE(kind, dim)
  bool scalarised;        // MR_PRIVATE: every access has a constant index (registers)
} Mem;

typedef enum CKind {
  C_LIT,     // literal
  C_LOAD,    // mem[idx] (vector load of `width` when width > 1), guarded by cond
  C_CALL,    // fname(args)
  C_COMP,    // component comp of a vector expression args[0]
} CKind;

typedef struct CExpr CExpr;
struct CExpr {
  CKind kind;
  const Type *type;       // scalar or vector
  double lit;             // C_LIT
  bool lit_is_int;        // C_LIT
  Mem *mem;               // C_LOAD
  const AExpr *idx;       // C_LOAD: index in storage elements
  int width;              // C_LOAD: vector width read from scalar storage (1: none)
  const AExpr *cond;      // C_LOAD: NULL, or the in-bounds condition of a pad (of every lane of a vector)
  double padval;          // C_LOAD: value when cond is false
  const AExpr *lane_cond; // C_LOAD of a vector that may straddle a pad's border: NULL, or each lane's
                          // condition, of the variable LW_VEC_LANE (0 .. width - 1), for when cond is false
  const AExpr *lane_idx;  // C_LOAD of a vector whose lanes are apart in memory (a gather): NULL, or each
                          // lane's index, of LW_VEC_LANE; read lane by lane, each under lane_cond if any
  int nlevels;            // C_LOAD of a scalar through nested pads of different values (Access.nlevels):
  const AExpr **level_cond; // each level's test, outermost first, and the value where it fails
  const double *level_val;
  bool raw;               // C_LOAD of one element of a storage type (half) as it is stored, not converted: the
                          // operands of the tile product's helper for halves (cg_mma_f16h)
  const char *fname;      // C_CALL
  int nargs;              // C_CALL
  const CExpr **args;     // C_CALL; C_COMP: args[0]
  int comp;               // C_COMP
};

typedef enum SKind {
  ST_BLOCK,    // { stmts }
  ST_FOR,      // loop over var = start; var < stop; var += step
  ST_STORE,    // mem[idx] = value (vector store of width when width > 1)
  ST_DECL,     // declares a private memory
  ST_BARRIER,  // work-group barrier
  ST_COMMENT,  // a comment line
  ST_ASYNC_WAIT,  // the work-item waits for its asynchronous copies (an async ST_STORE's) to land
} SKind;

typedef enum LoopKind { LOOP_SEQ, LOOP_GLB, LOOP_WRG, LOOP_LCL } LoopKind;

/* A loop the prefetch pass pipelines: its copies loaded one step ahead, and
 * with LPIPE_DOUBLE their local arrays in two slots; LPIPE_ASYNC as
 * LPIPE_DOUBLE, the copies asynchronous where the target has them. */
typedef enum LPipe { LPIPE_NONE, LPIPE_PREFETCH, LPIPE_DOUBLE, LPIPE_ASYNC } LPipe;

typedef struct Stmt Stmt;
struct Stmt {
  SKind kind;
  int n, cap;             // ST_BLOCK: statements
  Stmt **stmts;           // ST_BLOCK
  LoopKind loop;          // ST_FOR
  int dim;                // ST_FOR parallel: dimension
  const AExpr *var;       // ST_FOR: loop variable (range [0, stop-1])
  int64_t stop;           // ST_FOR: trip count
  int64_t step;           // ST_FOR: threads in this dimension (1 for LOOP_SEQ)
  Stmt *body;             // ST_FOR: an ST_BLOCK
  LPipe pipe;             // ST_FOR: how the prefetch pass pipelines it (a reduceSeqPrefetch's or
                          // reduceSeqDoubleBuffer's loop); LPIPE_NONE for every other loop
  int64_t fold_div;       // ST_FOR mapWrg (mapGlb) in a chain of them in one dimension, each the whole body of
                          // the one outside (folded: one range over the product of their trips): the
                          // product of the trips inside it, its index (id / fold_div) % stop; 0 otherwise
  bool folded;            // ST_FOR: nested in such a chain (its group id is the chain's, no guard)
  Mem *mem;               // ST_STORE, ST_DECL
  const AExpr *idx;       // ST_STORE
  int width;              // ST_STORE
  bool async;             // ST_STORE into local memory of one value that `value`, a load of global memory,
                          // reads: an asynchronous copy (CUDA's cp.async), zeros where the load's pad test
                          // fails; ST_ASYNC_WAIT waits for it (prefetch.c, LPIPE_ASYNC)
  const CExpr *value;     // ST_STORE
  const AExpr *cond;      // ST_STORE: NULL, or the condition under which it is done
  bool global_fence;      // ST_BARRIER: also order global memory
  const char *text;       // ST_COMMENT
};

/* A user function a kernel calls, possibly at a vector width (mapVec). */
typedef struct LUserFun {
  const UserFun *uf;
  int width;              // 1: as declared; N: every float becomes floatN
  const char *cname;      // name in C
} LUserFun;

typedef struct LKernel {
  const char *name;       // "k0", "k1", ...
  int nargs;
  Mem **args;             // global buffers, in argument order
  int nlocals;
  Mem **locals;           // __local arrays
  Stmt *body;             // ST_BLOCK
  int work_dim;           // 1..3
  size_t global[3];       // global work size per dimension
  size_t local[3];        // work-group size per dimension
  bool uses_groups;       // launched with explicit local sizes (mapWrg/mapLcl)
} LKernel;

typedef struct LProgram {
  const Program *prog;
  int nkernels;
  LKernel **kernels;      // launched in order
  int nbuffers;
  Mem **buffers;          // inputs (in program order), temps, then the output
  int nconsts;
  Mem **consts;           // the program's const arrays (MR_CONST), declared once before the kernels
  int nufs;
  LUserFun *ufs;          // user functions to emit (deduplicated)
  bool warp_mma;          // the target does a warp's tile product in one instruction (CUDA's mma.sync): each
                          // lane gives its fragments (lw_lower_with's warp_mma; gen.c, gen_mma)
  bool uses_mma;          // a kernel calls the tile product's helpers (the dialect's mma_helpers)
  bool async_copy;        // the target copies global to local memory asynchronously (cp.async; sm_80, as
                          // warp_mma: set with it): reduceSeqAsync's copies are such copies
  bool uses_async;        // a kernel makes asynchronous copies (the dialect's async helpers)
  int64_t out_base;       // the output is its buffer's elements from this one on (a slice of a joined
                          // Concat's output, net/plan.h): each kernel moves its output's pointer there first
} LProgram;

/* Lower a type-inferred program whose sizes are all constants. Errors (an
 * illegal mapping, a barrier not all work-items reach, symbolic sizes, code too
 * large) come back in the Diag with the reason. */
LProgram *lw_lower(Arena *a, const Program *p, Diag *d);

/* The lowering's passes in order (lower.c), and lw_lower calling `after`
 * with each pass's name and the program so far once the pass has run (the
 * compile pipeline's dumps, compile.h). */
typedef struct LwPass {
  const char *name;       // "kernels", "scalarise", "prefetch", "combine-loads"
  const char *purpose;    // one line
  bool (*run)(Arena *a, LProgram *lp, Diag *d);
} LwPass;
const LwPass *lw_passes(int *n);
typedef void (*LwAfter)(void *ctx, const char *pass, const LProgram *lp);
LProgram *lw_lower_with(Arena *a, const Program *p, bool warp_mma, LwAfter after, void *ctx, Diag *d);

/* A reduceSeq over join(xss) is a loop over xss whose body walks each xs
 * unrolled, when xs has at most this many elements (rule reduce-seq-nest). */
#define LW_ROW_UNROLL_MAX 64

/* The variable of a vector load's lane in CExpr.lane_cond: the emitter puts
 * in 0 .. width - 1. */
#define LW_VEC_LANE "__vlane"

/* A buffer's flat values (vector storage counts its components) and bytes
 * (its storage's ty_bytes: the element type's size, 4 for an int). */
int64_t lw_mem_values(const Mem *m);
int64_t lw_mem_bytes(const Mem *m);

/* Does kernel k of lp compute only from the program inputs in `fixed` (bit
 * i: input i, values that stay the same from run to run, as a layer's
 * weights and bias) and const arrays, into temporaries that no other
 * kernel writes? Then what it writes stays valid while
 * those inputs do, and a caller that runs the program many times on the
 * same fixed inputs runs it once: Winograd's filter transform
 * (measure.h, MeasOptions.fixed_inputs). */
bool lw_kernel_prepares(const LProgram *lp, int k, uint64_t fixed);
/* Does s store into m (anywhere in its nest)? */
bool lw_stmt_stores(const Stmt *s, const Mem *m);

/* A parallel level (loop kind and dimension) as one int: Mem.dist_by, Lane.by. */
#define LW_LANE(kind, dim) ((int)(kind) * 4 + (dim))

/* "0", "1", "2" or "flat" (IR_DIM_FLAT): a parallel dimension in messages. */
const char *lw_dim_name(int dim);

/* Internal to the lowering passes. */
void lw_scalarise(LProgram *lp);
bool lw_prefetch(Arena *a, LProgram *lp, Diag *d);   // prefetch.c: reduceSeqPrefetch's copies one step ahead
void lw_combine_loads(Arena *a, LProgram *lp);   // loads.c: neighbouring local loads as float4 ones
bool lw_place_barriers(Arena *a, LKernel *k, const Mem *result, Diag *d);
int64_t lw_stmt_count(const Stmt *s);
Stmt *lw_block(Arena *a);
void lw_append(Arena *a, Stmt *block, Stmt *s);

#endif
