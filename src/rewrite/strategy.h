/* strategy.h: strategies, sequences of rule applications that take the
 * high-level convolution (conv/program.h) to a low-level program that the
 * lowering compiles (docs/design.md section 6). Each strategy is one file,
 * strategy_NAME.c; what it applies, in order, is recorded in a log of
 * "rule [arguments] at path" lines so that a derivation can be read and
 * replayed.
 */
#ifndef CONVGEN_STRATEGY_H
#define CONVGEN_STRATEGY_H

#include "conv/layer.h"
#include "rewrite/rewrite.h"

/* The default domain of a tuning parameter a strategy leaves in its program. */
typedef struct StDomain {
  const char *name;
  int64_t lo, hi;
} StDomain;

/* A structural choice of a strategy: which rules it applies, so not a size
 * the program can keep symbolic (the parallel level of a map). Its values are
 * 1..nvalues, given with -p NAME=V like a tuning parameter; each assignment
 * of the choices is a variant with a program of its own. */
typedef struct StChoice {
  const char *name;              // "LK"
  const char *meaning;           // "the parallel level of the map over channel groups"
  int nvalues;
  const char *const *labels;     // labels[v - 1]: "mapGlb", ...
  /* The value a point that does not name the choice takes (0: it must name
   * it): a choice added later keeps the points written before it, in
   * scripts and in tuning databases, meaning what they meant. */
  int fallback;
  /* Left out of a variant's label and of a point's text at its fallback
   * value: a choice added after kernels were emitted and points recorded
   * with the fallback's meaning, whose headers and texts then read exactly
   * as they did (s2's LR=1, one output row per work-item). */
  bool quiet;
} StChoice;

enum { ST_MAX_PARAMS = 16, ST_MAX_CHOICES = 11 };

typedef struct Strategy {
  const char *name;      // "direct"
  const char *summary;   // one line, printed by `convgen space LAYER --strategy S`
  /* The low-level program derived from layer l's high-level one, hl
   * (type-inferred; conv_program of l), for one value of each choice (choice[i] in 1..choices[i].nvalues);
   * NULL with a Diag when a step does not apply. log (may be NULL) gets one
   * line per rule applied. */
  Program *(*derive)(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
  /* The default domains of its tuning parameters for layer l (at most
   * ST_MAX_PARAMS; a variant's program may use only some of them); the
   * constraints read off the program narrow them. */
  int (*domains)(const Layer *l, StDomain *out);
  int nchoices;                  // at most ST_MAX_CHOICES
  const StChoice *choices;
  /* Why an assignment of the choices is not a variant of the layer (one
   * choice needs values of the others: s2's LS=2 needs LK=LH=LW=2; or the
   * layer makes it the same as another: s2's LN=2 at n=1); NULL when it is.
   * The member may be NULL: every assignment is a variant. */
  const char *(*not_a_variant)(const Layer *l, const int *choice);
  /* Why the strategy does not take layer l at all (dw: a layer with more
   * than one input channel per group); NULL when it does. The member may be
   * NULL: every layer. Its space is then empty (ls_new), so a search over
   * every strategy passes it over. */
  const char *(*refuses)(const Layer *l);
} Strategy;

const Strategy *st_strategies(int *n);
const Strategy *st_strategy(const char *name);   // NULL when unknown

/* A strategy's derivation and domains for layer l. A grouped layer's
 * high-level expression is the dense one with each kernel reading its
 * group's windows (docs/conv.md); the rule map-over-groups first makes
 * it a map over the groups of one group's dense expression, the strategy
 * derives that group's convolution (it is given layer_group(l), and
 * st_compute_maps does not count the map over the groups), then the map
 * over the groups takes the level and dimension of the first parallel map
 * inside it. For a dense layer these are st->derive and st->domains. */
Program *st_derive(const Strategy *st, Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log,
                   Diag *d);
int st_domains(const Strategy *st, const Layer *l, StDomain *out);

/* Steps strategies share (strategy.c). */
typedef bool (*StPick)(const Expr *e);   // which of the matching positions to take
/* Apply rule `name` (with args) at every matching position that pick accepts
 * (pick NULL: every one), in pre-order, at most max times (0: no limit);
 * *count gets how many were applied. NULL with a Diag on failure. */
Program *st_apply_all(Arena *a, Program *p, const char *name, const AExpr *const *args, StPick pick, int max,
                      int *count, StrBuf *log, Diag *d);
/* A map of a map of a computing function (map[map[f]](x), f not a layout
 * function): what map-eta turns into a map of a lambda, so that the inner
 * map is a call a rule can reach. */
bool st_is_map_of_map(const Expr *e);
/* The map over a grouped layer's groups (its array zips the weights split
 * by groups with the groups' windows and biases). */
bool st_is_group_map(const Expr *e);
/* Does p have a map over a grouped layer's groups (map-over-groups made it)? */
bool st_has_group_map(const Program *p);
/* The maps of p that compute (not maps of layout functions, nor the map
 * over the groups), in pre-order. */
int st_compute_maps(const Program *p, RwPath *out, int max);
/* p is prefix or a position inside it (prefix's steps begin p's). */
bool st_path_within(const RwPath *p, const RwPath *prefix);
/* base extended by the steps of rel ("/1/0"); base NULL: the root. */
RwPath st_path(const RwPath *base, const char *rel);
/* A grouped layer's windows as each group's planes' windows, made in the map
 * over the groups (windows-of-groups, zip-map-fusion, beta), so that the
 * patch rules, which match the windows of planes, match a group's; p as it
 * is when it has no groups' windows (a dense layer). The windows' let must
 * be inlined (beta) before. */
Program *st_group_planes(Arena *a, Program *p, StrBuf *log, Diag *d);
/* The body of the lambda of the primitive called at `at` (map[fun(y) -> body]); NULL otherwise. */
const Expr *st_body(const Program *p, const RwPath *at);
/* The steps S1 and S2 share: the output channels in groups of per_channel
 * and the pixels of each row in groups of per_pixel (split-join, map-eta),
 * the channel map moved inside the rows and the pixel groups
 * (map-interchange, or map-interchange-zip where the inner map's array
 * depends on the channel: st_interchange_rule; map-fission-call for the
 * joins). The map over one
 * group's channels is then at /1/1/0/1/0/1/0/0/0/1, over its pixels inside. */
Program *st_tile_channels_pixels(Arena *a, Program *p, const AExpr *per_channel, const AExpr *per_pixel, StrBuf *log,
                                 Diag *d);
/* The rule that exchanges the map at `at` with the map its body is:
 * map-interchange-zip when the inner map's array uses the outer map's
 * element (with a residual, the rows and pixels zipped with the channel's
 * residual plane), else map-interchange. */
const char *st_interchange_rule(const Program *p, const RwPath *at);
/* After st_tile_channels_pixels: the map over a pixel group's channels,
 * found from the map over channel groups (the second compute map). */
bool st_tiled_channel_map(const Program *p, RwPath *out, Diag *d);
/* After partial-reduce split the window's products (a map) into chunks: the
 * map moved into the chunks and fused into each chunk's reduction (split-map,
 * map-fusion, beta, reduce-map-fusion). */
Program *st_products_in_chunks(Arena *a, Program *p, StrBuf *log, Diag *d);
/* From the body of the map at `at`, the number of last-argument steps to the
 * map over the chunks (a map of a split); 0 when there is none. */
int st_depth_to_chunks(const Program *p, const RwPath *at);
/* The compute map at pre-order index `index` (st_compute_maps) moved inside
 * the map its body computes: the calls around that map leave first
 * (map-fission-call), then map-interchange, or map-interchange-zip when the
 * inner map's array depends on the outer map's element. */
Program *st_sink(Arena *a, Program *p, int index, StrBuf *log, Diag *d);
/* The maps to lower in a staged program whose reduction's initial value is
 * at `init`: those that compute, and every map of the initial value (a view
 * of the biases, but placed in private memory it must be walked), except
 * the views inside the arrays those maps walk (strategy_s2_local.c). */
int st_maps_to_lower(const Program *p, const RwPath *init, RwPath *out, int max);
/* The copy at `at` flattened (map-flatten while it matches, each time one
 * level further in); *map is where the one map over the elements is left. */
Program *st_flatten_copy(Arena *a, Program *p, const RwPath *at, RwPath *map, StrBuf *log, Diag *d);
/* map-fission-call at `at` until the map's body is a reduction (the calls
 * around it leave the map); *at follows the map. */
Program *st_fission_to_reduce(Arena *a, Program *p, RwPath *at, StrBuf *log, Diag *d);
/* reduce-seq-nest on the window's sequential reduction (the first reduceSeq
 * whose step is a lambda, as reduce-map-fusion left it): rows of kh*kw values (one input channel's window), or of kw
 * when kh*kw is over LW_ROW_UNROLL_MAX; each row is unrolled, so its indices
 * are constant offsets. */
Program *st_nest_window(Arena *a, Program *p, StrBuf *log, Diag *d);
/* The kernel's kh and kw, from the type of the input `weights`; false with a
 * Diag when the program has none of constant size. */
bool st_kernel_size(const Program *p, int64_t *kh, int64_t *kw, Diag *d);
/* How S2's staged chunks are copied into local memory (s2's choice LC):
 * the weight chunk's taps over dimension 0 (RK over 1), its RK channels over
 * dimension 0 (taps over 1), the input chunk's taps over dimension 2 in both;
 * or each chunk flattened and walked in its order by the whole group as one
 * line (mapLcl[flat]). */
typedef enum StCopy { ST_COPY_BY_TAPS = 1, ST_COPY_BY_CHANNELS = 2, ST_COPY_FLAT = 3 } StCopy;
/* How S2's chunk loop is pipelined (its choice LP). */
typedef enum StPipe { ST_PIPE_NONE = 1, ST_PIPE_PREFETCH = 2, ST_PIPE_DOUBLE = 3, ST_PIPE_ASYNC = 4 } StPipe;
/* A staged reduction's two loops made sequential (reduce-to-seq on the
 * chunk's reduction at inner, then on the chunk loop at r), the chunk loop
 * pipelined as pipe says (reduce-seq-prefetch, -double-buffer), and every
 * map of a map made a call (map-eta): s2's staging and tc's (LS=2). */
Program *st_chunk_loops(Arena *a, Program *p, const RwPath *inner, const RwPath *r, StPipe pipe, StrBuf *log, Diag *d);
/* The tiles of rows, then of pixel groups, read the patches of the input
 * their windows cover (windows-row-patches, windows-column-patches, each
 * map over tiles fused with the map that makes a tile's windows from its
 * patch): s2's and tc's LS=3, after their tiles are cut and sunk. */
Program *st_tile_patches(Arena *a, Program *p, StrBuf *log, Diag *d);
/* With the patch staged (LS=3): *at, the path of a chunk's array of views
 * (windows, or a tile product's steps) in the step of the chunk loop at r,
 * moved to the chunk of the patch those views read (field `field` of the
 * step's element), which is what is copied; false when there is none. */
bool st_patch_chunk(const Program *p, const RwPath *r, int field, RwPath *at);

/* S2's local staging (strategy_s2_local.c): the steps after s2 has cut and
 * sunk the tiles with every level mapWrg+mapLcl, the chunks copied as copy
 * says. patch: the inputs staged as the tile's patch of the input (each value
 * once, copied flat), not as the chunk's windows. batch: the choice LN. */
Program *st_s2_stage(Arena *a, Program *p, StCopy copy, bool patch, StPipe pipe, int batch, StrBuf *log, Diag *d);
/* S2's map over the batch at `at` lowered as its choice LN says (1 a loop,
 * 2 a mapWrg of dimension 2 folded with the channel tiles'; strategy_s2.c). */
Program *st_s2_lower_batch(Arena *a, Program *p, int level, const RwPath *at, StrBuf *log, Diag *d);
/* S2 itself (strategy_s2.c), and S2 with split-K (choice LX=2,
 * strategy_s2_split.c): choice holds s2's S2_CHOICES values, LX the ninth
 * (S2_LX), LO the tenth, LE the eleventh. */
enum { S2_CHOICES = 11, S2_LX = 8, S2_LO = 9, S2_LE = 10 };
/* Split-K's parts at most (CK >= c / S2_MAX_PARTS): its partial sums are at
 * most this many times the output, the bound on the memory a split adds. */
enum { S2_MAX_PARTS = 32 };
Program *strategy_s2(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
Program *st_s2_split(Arena *a, const Layer *l, const int *choice, StrBuf *log, Diag *d);
/* l with its output plane computed larger, its rows and columns rounded up
 * to multiples of mh and mw: the bottom and right padding grown (pad_dh,
 * pad_dw) so that the windows reach them. The plane of s2's LO and of tc's
 * rows; the caller crops the output back (st_crop_output). */
Layer st_padded_plane(const Layer *l, int mh, int mw);
/* p, whose output is [n][k][oh][ow] (its lengths maybe written as a
 * tiling's), with its rows past out_h and columns past out_w dropped as
 * they are stored (crop; docs/ir.md): the output of a layer computed over a
 * padded plane (s2's LO). */
Program *st_crop_output(Arena *a, const Program *p, int oh, int ow, int out_h, int out_w, StrBuf *log, Diag *d);
/* p, derived for layer pl (l with its input channels c and output channels
 * k rounded up: s2's LE), as l's program: its inputs of l's shapes, each
 * read through views that pad it with zeros to pl's (st_pad_inputs), and
 * the output's channels past l->k dropped as they are stored (crop). A zero
 * channel adds nothing to a sum, and a zero kernel's outputs are dropped,
 * so the values are l's. Not for a grouped layer. */
Program *st_pad_channels(Arena *a, const Program *p, const Layer *l, const Layer *pl, StrBuf *log, Diag *d);
/* p, derived for layer pl (l padded: more channels, LE; a larger output
 * plane, LO), with its inputs declared in l's shapes and each read through
 * views that pad it with zeros to pl's: x's channels; the weights' kernels
 * and their channels; the bias; the residual's channels, rows and columns;
 * the scale's channels. The output is pl's (the caller crops it). Not for a
 * grouped layer. */
Program *st_pad_inputs(Arena *a, const Program *p, const Layer *l, const Layer *pl, Diag *d);
/* Apply rule `name` with args at path. */
Program *st_apply_at(Arena *a, Program *p, const char *name, const AExpr *const *args, const RwPath *at, StrBuf *log,
                     Diag *d);

#endif
