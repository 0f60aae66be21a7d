/* default_point.c: the point a layer without a record runs (default_point.h).
 *
 * The heuristic, in words (docs/tune.md, "Untuned layers"):
 *   - the form. A depthwise layer runs dw (its kernels read each input
 *     value once for kh*kw taps, where s2's would stage a chunk of one
 *     channel); a layer of one output pixel (a classifier's Gemm) runs s1,
 *     whose work-items share out the long window; every other layer runs
 *     s2 with every map at work-group level, the input staged in local
 *     memory (as the tile's patch, LS=3, for a window larger than 1x1; as
 *     the chunk's windows, LS=2, for a 1x1 or dilated one), taps copied in
 *     order (LC=1) and the next chunk prefetched (LP=2): the form of most
 *     of round 33's best records on the H200. Split-K (LX=2) is the one
 *     staged form for residual=1; elsewhere it competes with one kernel
 *     from 96 input channels up, and only when one kernel's cheapest point
 *     leaves the device idle. Where none of those has a point: s2 from
 *     global memory, then s2 with every map global, then s1.
 *   - the point. s2's costs the distance, in powers of two, of its
 *     work-group (TW*TH*TK) from 256 work-items, of its register block
 *     (RK*RW*RH) from 16 outputs (8 for a 1x1 window), of its staged chunk
 *     (CC*kh*kw) from 64 taps (half weight), of RK from RW*RH past a
 *     factor of 2 (a quarter: a square block reads the fewest values a
 *     multiply-add); plus 1.5 per halving below two work-groups a compute
 *     unit, 0.25 per doubling past 16, half a unit per halving of TW below
 *     8 work-items along a row, and for split-K 0.5 plus 0.25 per doubling
 *     of the parts (its partial sums make a round trip through global
 *     memory, and a second kernel adds them); a point whose staged arrays
 *     exceed the device's local memory is never taken. dw's: RH*RW from 4
 *     outputs, half a unit per doubling of RW (rows first), 1.5 per
 *     halving below 512 work-items a compute unit. s1's: its work-group
 *     (c*kh*kw/SO) from 128, KPG*WPT from 2 (half weight), and the same
 *     1.5 per halving below two work-groups a compute unit. tc's: RW*RK
 *     from 2048 outputs a warp in tf32 (1024 in fp16, whose chunks are
 *     twice as long), TH from 4 warps (half weight), half a unit per
 *     doubling of CB, a quarter for LP=2 (the prefetch where two slots do
 *     not fit), half a unit per halving below 4 warps a compute unit (its
 *     best on vgg16.conv3_2 had 448 warps on the H100's 132; at TH=2 the
 *     same warps in twice the work-groups took 1.6x); a point whose staged
 *     arrays exceed the device's local memory is never taken. tc is a
 *     form only for a layer whose input channels its blocks of 8 (16)
 *     would pad by at most a quarter.
 * Checked against round 33's records (H200, OpenCL and CUDA: 81 layers and
 * devices with 3 records or more of these forms): the cheapest of each
 * layer's recorded points of its forms took 1.12x the time of the fastest
 * of them (geometric mean; 2.50x at worst) and 1.21x that of its best
 * record of any form. Where the point chosen for the H200's limits was
 * itself recorded (dw and s1 layers: 24), it took 1.00x to 1.06x the best
 * record under CUDA and 1.00x to 1.49x under OpenCL.
 * The points of a form are all scored when there are at most
 * DP_ENUMERATE_MAX of them, else a seeded sample; the cheapest DP_KEEP of
 * each form are lowered in order of cost (the rank's forms together)
 * until one lowers within the device's limits and compiles.
 */
#include "tune/default_point.h"

#include "space/layer_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Targets, from round 33's best records (bench/results/2026-12-03-bench-h200-r33). */
#define DP_WG 256.0             // s2's work-items a group: the best used 64 to 392
#define DP_OUTPUTS 16.0         // s2's outputs a work-item with a window: the best used 8 to 64
#define DP_OUTPUTS_1X1 8.0      // and with a 1x1 one: 4 to 16
#define DP_TAPS 64.0            // s2's taps a staged chunk: the best used 9 to 144
#define DP_GROUPS_PER_CU 2.0    // work-groups a compute unit, below which the device idles
#define DP_GROUPS_MANY 16.0     // and past which the tiles are smaller than they need be
#define DP_ROW 8.0              // work-items along a row (TW), below which a warp's reads scatter
#define DP_S1_WG 128.0          // s1's work-items a group (c*kh*kw/SO): the best's
#define DP_DW_OUTPUTS 4.0       // dw's outputs a work-item (RH*RW)
#define DP_DW_ITEMS_PER_CU 512.0   // dw's work-items a compute unit, below which the device idles
/* tc's, from its best points on the H100 (bench/results/2026-12-07-mma,
 * vgg16.conv3_2 with the patch staged): a warp's outputs (RW*RK) 64 x 32
 * in tf32 (72 us), 32 x 32 in fp16 (82 us, its chunks twice as long), 4
 * warps a work-group. */
#define DP_TC_OUTPUTS_TF32 2048.0
#define DP_TC_OUTPUTS_FP16 1024.0
#define DP_TC_WARPS 4.0
/* Input channels below which split-K is not tried (but for residual=1,
 * where it is s2's one staged form): too short a reduction to share out.
 * No best record split fewer than 96; at 64 (ResNet-50's 56x56 3x3 layer)
 * the best split-K took 1.8x the one kernel's best under CUDA. */
#define DP_SPLIT_MIN_C 96

enum {
  DP_ENUMERATE_MAX = 100000,   // points of a form scored one by one; past it a sample
  DP_SAMPLES = 4096,           // the sample's size
  DP_KEEP = 16,                // cheapest points of a form kept for lowering
  DP_TRIES = 24,               // points of a rank lowered at most
};
static const uint64_t DP_SEED = 30;   // the sample's: fixed, so the point is too

/* ---- The forms ---- */

/* s2's forms (every choice fixed, so that ls_new derives one variant):
 * [patch][batch over work-groups]; split-K [patch]; from global memory
 * [batch over work-groups]; every map global. None pads the plane (LO=1)
 * or the channels (LE=1): the cost model does not count the work padding
 * adds. */
static const char *const S2_ONE[2][2] = {
    {"LK=2 LH=2 LW=2 LS=2 LC=1 LR=1 LP=2 LN=1 LX=1 LO=1 LE=1", "LK=2 LH=2 LW=2 LS=2 LC=1 LR=1 LP=2 LN=2 LX=1 LO=1 LE=1"},
    {"LK=2 LH=2 LW=2 LS=3 LC=1 LR=1 LP=2 LN=1 LX=1 LO=1 LE=1", "LK=2 LH=2 LW=2 LS=3 LC=1 LR=1 LP=2 LN=2 LX=1 LO=1 LE=1"},
};
static const char *const S2_SPLIT[2] = {"LK=2 LH=2 LW=2 LS=2 LC=1 LR=1 LP=2 LN=2 LX=2 LO=1 LE=1",
                                        "LK=2 LH=2 LW=2 LS=3 LC=1 LR=1 LP=2 LN=2 LX=2 LO=1 LE=1"};
static const char *const S2_GLOBAL[2] = {"LK=2 LH=2 LW=2 LS=1 LC=1 LR=1 LP=1 LN=1 LX=1 LO=1 LE=1",
                                         "LK=2 LH=2 LW=2 LS=1 LC=1 LR=1 LP=1 LN=2 LX=1 LO=1 LE=1"};
static const char S2_MAPGLB[] = "LK=1 LH=1 LW=1 LS=1 LC=1 LR=1 LP=1 LN=1 LX=1 LO=1 LE=1";
/* tc's values a tile-product step, and so the patch's blocks of input
 * channels: 16 in fp16, 8 in tf32. */
static int tc_step(const Layer *l) { return l->precision == PREC_FP16 ? 16 : 8; }

/* tc's (a tf32 or fp16 layer under CUDA): the patch staged, the next chunk
 * in two slots or prefetched ([batch over work-groups]). */
static const char *const TC_PATCH[2][2] = {{"LT=1 LS=3 LP=3 LN=1", "LT=1 LS=3 LP=3 LN=2"},
                                           {"LT=1 LS=3 LP=2 LN=1", "LT=1 LS=3 LP=2 LN=2"}};

int dp_forms(const Layer *l, const char *target, DpForm *out) {
  bool dense = layer_groups(l) == 1, dilated = l->dil_h > 1 || l->dil_w > 1;
  bool one_pixel = dense && l->out_h == 1 && l->out_w == 1;
  int n = 0, rank = 0;
  // a tf32 or fp16 layer: tensor cores first where they are (CUDA's mma.sync; under OpenCL each lane computes its
  // own tile products), but not for a layer of few input channels, which the patch's blocks of 8 (16) would pad
  // by more than a quarter; tc refuses what it does not take, and its forms then give no point
  bool tensor = l->precision == PREC_TF32 || l->precision == PREC_FP16;
  int step = tc_step(l), padded = (l->c + step - 1) / step * step;
  if (tensor && target && strcmp(target, "cuda") == 0 && dense && !dilated && !one_pixel && 4 * padded <= 5 * l->c) {
    out[n++] = (DpForm){"tc", TC_PATCH[0][l->n > 1], rank, false};
    out[n++] = (DpForm){"tc", TC_PATCH[1][l->n > 1], rank++, false};
  }
  if (!dense && layer_group_c(l) == 1 && !l->residual && !dilated) out[n++] = (DpForm){"dw", "LV=1", rank++, false};
  if (one_pixel) out[n++] = (DpForm){"s1", "-", rank++, false};
  int patch = l->kh * l->kw > 1 && !dilated, batch = l->n > 1;
  int start = n;
  if (!l->residual) out[n++] = (DpForm){"s2", S2_ONE[patch][batch], rank, false};
  if (dense && (l->residual || l->c >= DP_SPLIT_MIN_C)) out[n++] = (DpForm){"s2", S2_SPLIT[patch], rank, !l->residual};
  if (n > start) rank++;   // (a grouped layer with residual=1 has neither)
  out[n++] = (DpForm){"s2", S2_GLOBAL[batch], rank++, false};
  out[n++] = (DpForm){"s2", S2_MAPGLB, rank++, false};
  if (!one_pixel) out[n++] = (DpForm){"s1", "-", rank++, false};
  return n;
}

/* ---- The cost ---- */

static double off(double x, double target) { return fabs(log2(x / target)); }   // powers of two apart
static double below(double x, double floor_) { return x < floor_ ? log2(floor_ / x) : 0; }
static double over(double x, double ceiling) { return x > ceiling ? log2(x / ceiling) : 0; }

/* A point's values by name: 0 when it has no such name. */
typedef struct Named {
  int n;
  const char *const *names;
  const int64_t *vals;
} Named;

static double get(const Named *p, const char *name) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->names[i], name) == 0) return (double)p->vals[i];
  return 0;
}

static double or1(double v) { return v > 0 ? v : 1; }

static double compute_units(const RtDeviceInfo *dev) { return dev->compute_units ? dev->compute_units : 1; }

/* A work-group target, within the device's limit (when it says one). */
static double wg_target(const RtDeviceInfo *dev, double target) {
  return dev->max_wg_size ? fmin(target, (double)dev->max_wg_size) : target;
}

/* s2's split-K parts (1: one kernel). */
static double s2_parts(const Layer *l, const Named *p) {
  return get(p, "LX") == 2 ? layer_group_c(l) / or1(get(p, "CK")) : 1;
}

/* s2's work-groups: the tiles of the output (each a block of RK x RH x RW
 * per work-item, TK x TH x TW work-items), of every image with LN=2, of
 * every part with split-K. */
static double s2_groups(const Layer *l, const Named *p) {
  double rk = or1(get(p, "RK")), rw = or1(get(p, "RW")), rh = or1(get(p, "RH"));
  double tw = or1(get(p, "TW")), th = or1(get(p, "TH")), tk = or1(get(p, "TK"));
  return layer_groups(l) * (get(p, "LN") == 2 ? l->n : 1) * s2_parts(l, p) * (l->out_w / (rw * tw)) *
         (l->out_h / (rh * th)) * (layer_group_k(l) / (rk * tk));
}

/* The bytes of local memory s2's staged arrays take (0: nothing staged):
 * the chunk of weights (TK*RK channels of CC planes' windows) and of
 * inputs, the tile's patch with LS=3, its windows with LS=2; twice over
 * with LP=3. What the lowering allocates, so that a point over the device's
 * limit is known before it is lowered. */
static double s2_local_bytes(const Layer *l, const Named *p) {
  double ls = get(p, "LS"), cc = or1(get(p, "CC")), win = (double)l->kh * l->kw;
  if (ls < 2) return 0;
  double rk = or1(get(p, "RK")), rw = or1(get(p, "RW")), rh = or1(get(p, "RH"));
  double tw = or1(get(p, "TW")), th = or1(get(p, "TH")), tk = or1(get(p, "TK"));
  double weights = tk * rk * cc * win, inputs;
  if (ls == 3) {
    double span_h = (double)(l->kh - 1) * l->dil_h + 1, span_w = (double)(l->kw - 1) * l->dil_w + 1;
    inputs = cc * ((th * rh - 1) * l->stride_h + span_h) * ((rw * tw - 1) * l->stride_w + span_w);
  } else {
    inputs = cc * win * th * rh * rw * tw;
  }
  // staged in the layer's element type (an fp16 layer's copies as halves: gen.c's staged_type)
  return layer_elem(l)->bytes * (weights + inputs) * (get(p, "LP") >= 3 ? 2 : 1);
}

static double s2_cost(const Layer *l, const RtDeviceInfo *dev, const Named *p) {
  if (dev->local_mem && s2_local_bytes(l, p) > (double)dev->local_mem) return INFINITY;
  double win = (double)l->kh * l->kw, cu = compute_units(dev);
  double rk = or1(get(p, "RK")), rw = or1(get(p, "RW")), rh = or1(get(p, "RH"));
  double tw = get(p, "TW"), th = or1(get(p, "TH")), tk = or1(get(p, "TK")), cc = get(p, "CC");
  double parts = s2_parts(l, p), groups = s2_groups(l, p);
  double c = off(rk * rw * rh, win > 1 ? DP_OUTPUTS : DP_OUTPUTS_1X1);
  if (tw > 0)
    c += off(tw * th * tk, wg_target(dev, DP_WG)) + 0.5 * below(tw, fmin(DP_ROW, l->out_w / rw));
  if (cc > 0) c += 0.5 * off(cc * win, DP_TAPS);
  if (win > 1) c += 0.25 * fmax(0, off(rk, rw * rh) - 1);   // a square block reads the fewest values a multiply-add
  c += 1.5 * below(groups, DP_GROUPS_PER_CU * cu) + 0.25 * over(groups, DP_GROUPS_MANY * cu);
  if (get(p, "LX") == 2) c += 0.5 + 0.25 * log2(parts);
  return c;
}

/* Does the point leave the device idle (fewer than DP_GROUPS_PER_CU
 * work-groups a compute unit)? Only s2's forms compete on it. */
static bool idles(const Layer *l, const RtDeviceInfo *dev, const char *strategy, const Named *p) {
  return strcmp(strategy, "s2") == 0 && s2_groups(l, p) < DP_GROUPS_PER_CU * compute_units(dev);
}

static double dw_cost(const Layer *l, const RtDeviceInfo *dev, const Named *p) {
  double rh = or1(get(p, "RH")), rw = or1(get(p, "RW"));
  double items = (double)l->n * l->k * (l->out_h / rh) * (l->out_w / rw);
  // rows before columns: a column of outputs reuses kh - 1 rows of its patch
  return off(rh * rw, DP_DW_OUTPUTS) + 0.5 * log2(rw) + 1.5 * below(items, DP_DW_ITEMS_PER_CU * compute_units(dev));
}

static double s1_cost(const Layer *l, const RtDeviceInfo *dev, const Named *p) {
  double window = (double)layer_group_c(l) * l->kh * l->kw, so = or1(get(p, "SO"));
  double kpg = or1(get(p, "KPG")), wpt = or1(get(p, "WPT"));
  double groups = (double)l->n * layer_groups(l) * (layer_group_k(l) / kpg) * l->out_h * (l->out_w / wpt);
  return off(window / so, wg_target(dev, DP_S1_WG)) + 0.5 * off(kpg * wpt, 2) +
         1.5 * below(groups, DP_GROUPS_PER_CU * compute_units(dev));
}

/* The bytes of local memory tc's staged arrays take with the patch staged
 * (LS=3): the chunk of weights (RK channels of CB blocks of 8, or 16 in
 * fp16, channels' windows) and the patch of those channels, in the
 * layer's element type; twice over with LP=3. */
static double tc_local_bytes(const Layer *l, const Named *p) {
  double cc = tc_step(l) * or1(get(p, "CB"));
  double rk = or1(get(p, "RK")), rw = or1(get(p, "RW")), th = or1(get(p, "TH"));
  double patch = cc * ((th - 1) * l->stride_h + l->kh) * ((rw - 1) * l->stride_w + l->kw);
  return layer_elem(l)->bytes * (rk * cc * l->kh * l->kw + patch) * (get(p, "LP") >= 3 ? 2 : 1);
}

static double tc_cost(const Layer *l, const RtDeviceInfo *dev, const Named *p) {
  if (dev->local_mem && tc_local_bytes(l, p) > (double)dev->local_mem) return INFINITY;
  double rk = or1(get(p, "RK")), rw = or1(get(p, "RW")), th = or1(get(p, "TH")), cb = or1(get(p, "CB"));
  double ow = ceil(l->out_w / 16.0) * 16, k = ceil(l->k / 8.0) * 8;   // the row and the channels, padded to the tiles
  double warps = (get(p, "LN") == 2 ? l->n : 1) * ceil(ow / rw) * l->out_h * ceil(k / rk);
  double c = off(rw * rk, l->precision == PREC_FP16 ? DP_TC_OUTPUTS_FP16 : DP_TC_OUTPUTS_TF32);
  c += 0.5 * off(th, DP_TC_WARPS) + 0.5 * log2(cb) + (get(p, "LP") == 2 ? 0.25 : 0);
  return c + 0.5 * below(warps, DP_TC_WARPS * compute_units(dev));
}

double dp_cost(const Layer *l, const RtDeviceInfo *dev, const char *strategy, int n, const char *const *names,
               const int64_t *vals) {
  Named p = {n, names, vals};
  if (strcmp(strategy, "tc") == 0) return tc_cost(l, dev, &p);
  if (strcmp(strategy, "s2") == 0) return s2_cost(l, dev, &p);
  if (strcmp(strategy, "dw") == 0) return dw_cost(l, dev, &p);
  if (strcmp(strategy, "s1") == 0) return s1_cost(l, dev, &p);
  return 0;
}

/* ---- The search ---- */

typedef struct Cand {
  double cost;
  int form;                     // index into the rank's spaces
  int order;                    // found order: ties go to the earlier
  int64_t vals[ST_MAX_PARAMS];  // the variant's parameters
} Cand;

/* The cheapest DP_KEEP points of one form's space, cheapest first. */
typedef struct Keep {
  const Layer *l;
  const RtDeviceInfo *dev;
  const char *strategy;
  int nchoices, nparams;
  const char *names[LS_POINT_MAX];   // the choices, then the parameters
  int64_t vals[LS_POINT_MAX];
  Cand best[DP_KEEP];
  int n, seen, form;
} Keep;

static void keep(Keep *k, const int64_t *vals) {
  memcpy(k->vals + k->nchoices, vals, sizeof *vals * (size_t)k->nparams);
  double c = dp_cost(k->l, k->dev, k->strategy, k->nchoices + k->nparams, k->names, k->vals);
  if (isinf(c)) return (void)k->seen++;   // (it could not run)
  int at = k->n;
  while (at > 0 && c < k->best[at - 1].cost) at--;
  if (at == DP_KEEP) return (void)k->seen++;
  if (k->n < DP_KEEP) k->n++;
  memmove(&k->best[at + 1], &k->best[at], sizeof *k->best * (size_t)(k->n - 1 - at));
  k->best[at] = (Cand){c, k->form, k->seen++, {0}};
  memcpy(k->best[at].vals, vals, sizeof *vals * (size_t)k->nparams);
}

static bool visit(void *ctx, const int64_t *vals) {
  keep(ctx, vals);
  return true;
}

/* The form's space: its one variant derived (every choice fixed); NULL
 * when the strategy refuses the layer or the variant has no points. */
static LayerSpace *form_space(Arena *a, const DpForm *f, const Layer *l, const char *name, const RtDeviceInfo *dev) {
  const char *names[LS_POINT_MAX];
  int64_t vals[LS_POINT_MAX];
  int n = ls_split_point(a, f->choices, names, vals, LS_POINT_MAX);
  SpaceDomain *doms = ARENA_ARRAY(a, SpaceDomain, LS_POINT_MAX);
  for (int i = 0; i < n; i++) doms[i] = (SpaceDomain){names[i], vals[i], vals[i], 0, NULL};
  Diag d = {0};
  LayerSpace *ls = ls_new(a, st_strategy(f->strategy), l, name, n, doms, dev, &d);
  if (ls && !ls->refused && ls->nvariants == 1 && !ls->v[0].rejected) return ls;
  ls_free(ls);
  return NULL;
}

/* The cheapest points of the form's space into k: every point when they are
 * few enough to list, else a seeded sample's. */
static void cheapest(Keep *k, LayerSpace *ls) {
  const LsVariant *v = &ls->v[0];
  k->nchoices = ls->st->nchoices, k->nparams = v->space->nparams;
  for (int i = 0; i < k->nchoices; i++) k->names[i] = ls->st->choices[i].name, k->vals[i] = v->choice[i];
  for (int i = 0; i < k->nparams; i++) k->names[k->nchoices + i] = v->space->params[i].name;
  if (v->exact && v->count <= DP_ENUMERATE_MAX && space_foreach(v->space, visit, k)) return;
  int64_t *pts = malloc(sizeof *pts * DP_SAMPLES * (size_t)(k->nparams + 1));
  if (!pts) cg_die("out of memory");
  int got = space_sample(v->space, DP_SEED, DP_SAMPLES, pts);
  for (int i = 0; i < got; i++) keep(k, pts + (size_t)i * (size_t)k->nparams);
  free(pts);
}

static int by_cost(const void *x, const void *y) {
  const Cand *a = x, *b = y;
  if (a->cost != b->cost) return a->cost < b->cost ? -1 : 1;
  if (a->form != b->form) return a->form - b->form;
  return a->order - b->order;
}

/* The point compiled into a (the space lives in a scratch arena: its text
 * and names are copied). */
static bool compile_in(Arena *a, const LayerSpace *ls, const LsPoint *pt, const CpOptions *co, CpResult *cr, Diag *d) {
  CpInput in = ls_point_input(ls, a, pt);
  in.name = arena_strdup(a, in.name), in.text = arena_strdup(a, in.text);
  return cp_compile(a, &in, co, cr, d);
}

typedef struct Search {
  Arena *a, *scratch;
  const Layer *l;
  const char *name;
  const RtDeviceInfo *dev;
  const CpOptions *co;
  CpResult *cr;
  int lowered;
  const char *why;   // the last refusal (in a)
} Search;

/* The cheapest point of the rank's forms (forms[0..n)) that lowers within
 * the device's limits and compiles: true with *out set. */
static bool search_rank(Search *s, const DpForm *forms, int n, DpPoint *out) {
  LayerSpace *ls[DP_MAX_FORMS] = {0};
  Cand *all = ARENA_ARRAY(s->scratch, Cand, DP_MAX_FORMS * DP_KEEP);
  int nall = 0;
  bool idle = true;   // the cheapest point so far leaves the device idle (or there is none)
  for (int f = 0; f < n; f++) {
    if (forms[f].if_idle && !idle) continue;
    if (!(ls[f] = form_space(s->scratch, &forms[f], s->l, s->name, s->dev))) continue;
    Keep *k = ARENA_NEW(s->scratch, Keep);
    *k = (Keep){.l = s->l, .dev = s->dev, .strategy = forms[f].strategy, .form = f};
    cheapest(k, ls[f]);
    if (k->n > 0 && (nall == 0 || k->best[0].cost < all[0].cost)) {
      memcpy(k->vals + k->nchoices, k->best[0].vals, sizeof *k->vals * (size_t)k->nparams);
      idle = idles(s->l, s->dev, k->strategy, &(Named){k->nchoices + k->nparams, k->names, k->vals});
    }
    memcpy(all + nall, k->best, sizeof *all * (size_t)k->n);
    nall += k->n;
    qsort(all, (size_t)nall, sizeof *all, by_cost);
  }
  bool found = false;
  for (int i = 0; i < nall && i < DP_TRIES && !found; i++) {
    LsPoint pt = {0, {0}};
    memcpy(pt.vals, all[i].vals, sizeof pt.vals);
    const LayerSpace *sp = ls[all[i].form];
    s->lowered++;
    ArenaMark mark = arena_mark(s->scratch);
    const char *why = space_check_point(sp->v[0].space, s->scratch, pt.vals);
    Diag cd = {0};
    if (!why && s->cr && !compile_in(s->a, sp, &pt, s->co, s->cr, &cd)) why = cd.msg;
    if (why) {
      s->why = arena_printf(s->a, "%s %s: %s", forms[all[i].form].strategy, ls_point_text(sp, s->scratch, &pt), why);
      arena_reset(s->scratch, mark);
      continue;
    }
    *out = (DpPoint){forms[all[i].form].strategy, arena_strdup(s->a, ls_point_text(sp, s->scratch, &pt)),
                     all[i].cost, s->lowered};
    found = true;
  }
  for (int f = 0; f < n; f++) ls_free(ls[f]);
  return found;
}

bool dp_default_point(Arena *a, const Layer *l, const char *name, const RtDeviceInfo *dev, const CpOptions *co,
                      DpPoint *out, CpResult *cr, Diag *d) {
  DpForm forms[DP_MAX_FORMS];
  int n = dp_forms(l, rt_info_target(dev), forms);
  Search s = {a, arena_new(), l, name, dev, co, cr, 0, NULL};
  bool found = false;
  for (int i = 0, j; i < n && !found; i = j) {
    for (j = i; j < n && forms[j].rank == forms[i].rank; j++) {}
    found = search_rank(&s, forms + i, j - i, out);
  }
  arena_free(s.scratch);
  if (!found)
    diag_error(d, "%s: no default point: no form of %d lowers within the device's limits and compiles%s%s", name, n,
               s.why ? " (the last refused: " : "", s.why ? arena_printf(a, "%s)", s.why) : "");
  return found;
}
