/* search.c: the random, evolutionary and model-guided searches (search.h). */
#include "tune/search.h"

#include "tune/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  EVOLVE_MIN_INIT = 8,     // random candidates before the first mutation
  EVOLVE_TOURNAMENT = 3,   // parents: the best of this many picks among the fastest
  EVOLVE_ELITE = 6,        // ... fastest correct candidates
  EVOLVE_EXPLORE = 5,      // one candidate in this many is the next random one
  MUTATE_TRIES = 24,
  MUTATE_VARIANT = 4,      // one mutation in this many moves a choice (another variant)
  NEAR_MAX = 64,           // neighbouring variants considered
  MODEL_POOL_MUTANTS = 24, // the model's pool: this many mutations of parents ...
  MODEL_POOL_RANDOM = 8,   // ... and this many random points, the best predicted measured
  MODEL_PENDING = 64,      // random points drawn for a pool and not taken, kept for later
  NFEATURES = 2 + ST_MAX_PARAMS,
  ARM_TRIALS = 3,          // results an arm of evolve's random draws has before its results weigh it
  ARM_VALUES = 8,          // values of a choice that have arms of their own (more: weighed 1)
};
#define ARM_NEAR 1.5           // an arm whose best is within this of the best so far keeps its full share,
#define ARM_FAR 3.0            // ... within this a quarter,
#define ARM_TRICKLE (1.0 / 16) // ... and beyond (or with nothing correct) this: never none

typedef struct Tried {
  int strategy;
  LsPoint pt;
  double us;               // INFINITY: not correct (or not measured yet)
  bool done;               // its result came back
} Tried;

struct Search {
  Arena *a;
  SearchKind kind;
  int nst;
  LayerSpace *ls[8];
  int64_t init;            // random candidates first
  // the random stream: the strategies in turn, each its sampler's next point
  LsSampler *sampler[8];
  bool used_up[8];
  int turn;
  double credit[8];        // draw_weighted's turns: each strategy's share accrued and not yet drawn
  // what was given out, in order, and the set of point texts (with the strategy)
  int ntried, cap;
  Tried *tried;
  char **seen;             // open-addressing set of "strategy|point"
  size_t nseen, seen_cap;
  uint64_t rng;
  // the model search: the cost model, refitted when results have come back
  Model *model;
  int ndone, fitted;       // results back, and how many the last fit saw
  Cand pending[MODEL_PENDING];
  int npending;
  // search_prime's points, given first
  Cand *primed;
  int nprimed, primed_taken, primed_cap;
};

const char *search_name(SearchKind k) {
  return k == SEARCH_EVOLVE ? "evolve" : k == SEARCH_MODEL ? "model" : "random";
}

const LayerSpace *search_space(const Search *s, int i) { return s->ls[i]; }

bool search_parse(const char *name, SearchKind *out) {
  if (strcmp(name, "random") == 0) return *out = SEARCH_RANDOM, true;
  if (strcmp(name, "evolve") == 0) return *out = SEARCH_EVOLVE, true;
  if (strcmp(name, "model") == 0) return *out = SEARCH_MODEL, true;
  return false;
}

static bool seen_has(const Search *s, const char *key) {
  if (s->seen_cap == 0) return false;
  for (size_t j = cg_hash_str(key) & (s->seen_cap - 1); s->seen[j]; j = (j + 1) & (s->seen_cap - 1))
    if (strcmp(s->seen[j], key) == 0) return true;
  return false;
}

/* Adds key to the set; false when it was there. */
static bool seen_add(Search *s, const char *key) {
  if (2 * (s->nseen + 1) > s->seen_cap) {
    size_t cap = s->seen_cap ? 2 * s->seen_cap : 256;
    char **t = calloc(cap, sizeof *t);
    if (!t) cg_die("out of memory");
    for (size_t i = 0; i < s->seen_cap; i++)
      if (s->seen[i]) {
        size_t j = cg_hash_str(s->seen[i]) & (cap - 1);
        while (t[j]) j = (j + 1) & (cap - 1);
        t[j] = s->seen[i];
      }
    free(s->seen);
    s->seen = t, s->seen_cap = cap;
  }
  size_t j = cg_hash_str(key) & (s->seen_cap - 1);
  for (; s->seen[j]; j = (j + 1) & (s->seen_cap - 1))
    if (strcmp(s->seen[j], key) == 0) return false;
  s->seen[j] = arena_strdup(s->a, key);
  s->nseen++;
  return true;
}

static const char *key_of(Search *s, const Cand *c) { return arena_printf(s->a, "%d|%s", c->strategy, c->point); }

Search *search_new(Arena *a, SearchKind kind, const Strategy *const *st, int nst, const Layer *l,
                   const RtDeviceInfo *dev, int ndoms, const SpaceDomain *doms, int64_t budget, uint64_t seed,
                   Diag *d) {
  if (nst > 8) cg_die("search: more than 8 strategies");
  Search *s = calloc(1, sizeof *s);
  if (!s) cg_die("out of memory");
  s->a = a, s->kind = kind, s->nst = nst, s->rng = seed * 0x2545F4914F6CDD1Dull + 1;
  s->init = budget <= 0 ? 2 * EVOLVE_MIN_INIT : budget / 4 > EVOLVE_MIN_INIT ? budget / 4 : EVOLVE_MIN_INIT;
  StrBuf spec;
  sb_init(&spec);
  layer_format(&spec, l);
  for (int i = 0; i < nst; i++) {
    const char *name = arena_printf(a, "%s (strategy %s)", sb_str(&spec), st[i]->name);
    if (!(s->ls[i] = ls_new(a, st[i], l, name, ndoms, doms, dev, d))) {
      sb_free(&spec);
      search_free(s);
      return NULL;
    }
    s->nst = i + 1;
    s->sampler[i] = ls_sampler_new(s->ls[i], seed + (uint64_t)i);
  }
  sb_free(&spec);
  if (kind == SEARCH_MODEL) s->model = model_new(NFEATURES);
  return s;
}

void search_free(Search *s) {
  if (!s) return;
  model_free(s->model);
  for (int i = 0; i < s->nst; i++) ls_sampler_free(s->sampler[i]), ls_free(s->ls[i]);
  free(s->tried);
  free(s->seen);
  free(s->primed);
  free(s);
}

static void remember(Search *s, const Cand *c) {
  if (s->ntried == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->tried = realloc(s->tried, (size_t)s->cap * sizeof *s->tried);
    if (!s->tried) cg_die("out of memory");
  }
  s->tried[s->ntried++] = (Tried){c->strategy, c->pt, INFINITY, false};
}

/* The next point of the strategies' samplers, in turn (one that is used up
 * drops out), not given before; not yet marked as given. */
static bool draw_random(Search *s, Cand *out) {
  for (int tries = 0; tries < 64 * s->nst;) {
    int i = s->turn++ % s->nst;
    if (s->used_up[i]) {
      bool any = false;
      for (int k = 0; k < s->nst; k++) any |= !s->used_up[k];
      if (!any) return false;
      continue;
    }
    Cand c = {.strategy = i, .how = "random"};
    if (!ls_sampler_next(s->sampler[i], &c.pt)) {
      s->used_up[i] = true;
      continue;
    }
    c.point = ls_point_text(s->ls[i], s->a, &c.pt);
    if (!seen_has(s, key_of(s, &c))) return *out = c, true;
    tries++;   // a point a mutation gave already
  }
  return false;
}

/* The results so far of one arm of the random draws: a strategy, or one
 * value of one of a strategy's choices (LS=3 of s2). */
typedef struct Arm {
  int results;
  double best;   // us; INFINITY: none correct
} Arm;

typedef struct Arms {
  Arm strategy[8];
  Arm choice[8][ST_MAX_CHOICES][ARM_VALUES];
  double best;
} Arms;

static void arm_add(Arm *arm, double us) {
  arm->results++;
  if (us < arm->best) arm->best = us;
}

/* Every result back, counted for its strategy and for each of its variant's
 * choice values. */
static void arms_gather(const Search *s, Arms *arms) {
  arms->best = INFINITY;
  for (int i = 0; i < 8; i++) {
    arms->strategy[i] = (Arm){0, INFINITY};
    for (int c = 0; c < ST_MAX_CHOICES; c++)
      for (int v = 0; v < ARM_VALUES; v++) arms->choice[i][c][v] = (Arm){0, INFINITY};
  }
  for (int k = 0; k < s->ntried; k++) {
    const Tried *t = &s->tried[k];
    if (!t->done) continue;
    const LayerSpace *ls = s->ls[t->strategy];
    arm_add(&arms->strategy[t->strategy], t->us);
    for (int c = 0; c < ls->st->nchoices; c++) {
      int v = ls->v[t->pt.variant].choice[c] - 1;
      if (v >= 0 && v < ARM_VALUES) arm_add(&arms->choice[t->strategy][c][v], t->us);
    }
    if (t->us < arms->best) arms->best = t->us;
  }
}

/* An arm's share of the draws: full until it has ARM_TRIALS results, then
 * by how far its best is behind the best so far. */
static double arm_weight(const Arm *arm, double best) {
  if (arm->results < ARM_TRIALS || !isfinite(best)) return 1;
  double behind = arm->best / best;   // INFINITY when nothing of it was correct
  return behind <= ARM_NEAR ? 1 : behind <= ARM_FAR ? 0.25 : ARM_TRICKLE;
}

/* An index among n weights, drawn in proportion to them (-1: all zero). */
static int pick_weighted(Search *s, const double *w, int n) {
  double total = 0;
  for (int i = 0; i < n; i++) total += w[i];
  if (!(total > 0)) return -1;
  double r = (double)(cg_splitmix64(&s->rng) >> 11) * 0x1p-53 * total;
  int last = -1;
  for (int i = 0; i < n; i++) {
    if (w[i] <= 0) continue;
    last = i;
    if (r < w[i]) return i;
    r -= w[i];
  }
  return last;
}

/* evolve's and model's random draws. A point drawn uniformly from a
 * strategy's points lands in the variants with the most parameters: s2's
 * split-K variants hold 30 times the points of its patch variants, which
 * win most layers, so uniform draws almost never reached those. Here a
 * strategy, then a variant of it, is drawn first, each with a share by
 * results (arm_weight): the strategy's own, and for a variant the product
 * of its choice values' (LS=3, LX=2, ...: a variant's own results are too
 * few to judge it by). A strategy or choice far behind keeps a trickle. */
static bool draw_weighted(Search *s, Cand *out) {
  int most = 1;   // variants of the strategy with the most: wv's room, one allocation per draw
  for (int k = 0; k < s->nst; k++) most = s->ls[k]->nvariants > most ? s->ls[k]->nvariants : most;
  Arms *arms = malloc(sizeof *arms);
  double *wv = malloc((size_t)most * sizeof *wv);
  if (!arms || !wv) cg_die("out of memory");
  arms_gather(s, arms);
  // the random start draws with full shares: what it proposes does not
  // depend on which results are back yet, so a tune that resumes (its
  // results fed back at once) walks the same start
  if (s->ntried < s->init) arms->best = INFINITY;
  bool got = false;
  for (int tries = 0; !got && tries < 64 * s->nst;) {
    // the strategies take turns in proportion to their shares (stride
    // scheduling: each accrues its share every draw, the richest is drawn
    // and pays the sum), so with equal shares they come in turn, as random's do
    double total = 0;
    int i = -1;
    for (int k = 0; k < s->nst; k++) {
      if (s->used_up[k]) continue;
      double w = arm_weight(&arms->strategy[k], arms->best);
      s->credit[k] += w, total += w;
      if (i < 0 || s->credit[k] > s->credit[i]) i = k;
    }
    if (i < 0) break;
    s->credit[i] -= total;
    const LayerSpace *ls = s->ls[i];
    for (int v = 0; v < ls->nvariants; v++) {
      wv[v] = 0;
      if (ls_sampler_left(s->sampler[i], v) == 0) continue;
      double w = 1;
      for (int c = 0; c < ls->st->nchoices; c++) {
        int val = ls->v[v].choice[c] - 1;
        if (val >= 0 && val < ARM_VALUES) w *= arm_weight(&arms->choice[i][c][val], arms->best);
      }
      wv[v] = w > ARM_TRICKLE * ARM_TRICKLE ? w : ARM_TRICKLE * ARM_TRICKLE;
    }
    int v = pick_weighted(s, wv, ls->nvariants);
    if (v < 0) {
      s->used_up[i] = true;
      continue;
    }
    Cand c = {.strategy = i, .how = "random"};
    if (!ls_sampler_next_of(s->sampler[i], v, &c.pt)) continue;   // none of it passes the lowering
    c.point = ls_point_text(ls, s->a, &c.pt);
    if (!seen_has(s, key_of(s, &c))) *out = c, got = true;
    else tries++;   // a point a mutation gave already
  }
  free(arms);
  free(wv);
  return got;
}

/* A new random point, as the search's kind draws them; not yet marked as given. */
static bool draw_next(Search *s, Cand *out) {
  return s->kind == SEARCH_RANDOM ? draw_random(s, out) : draw_weighted(s, out);
}

/* The next random point: one a model's pool drew and left, else a new draw. */
static bool next_random(Search *s, Cand *out) {
  while (s->npending > 0) {
    Cand c = s->pending[0];
    memmove(s->pending, s->pending + 1, (size_t)--s->npending * sizeof *s->pending);
    if (seen_add(s, key_of(s, &c))) return *out = c, true;
  }
  if (!draw_next(s, out)) return false;
  seen_add(s, key_of(s, out));
  return true;
}

/* A parent: the best of a few picks among the fastest correct candidates. */
static const Tried *pick_parent(Search *s) {
  const Tried *elite[EVOLVE_ELITE];
  int ne = 0;
  for (int i = 0; i < s->ntried; i++) {   // the EVOLVE_ELITE fastest, kept sorted
    const Tried *t = &s->tried[i];
    if (!isfinite(t->us)) continue;
    if (ne < EVOLVE_ELITE) elite[ne++] = t;
    else if (t->us < elite[ne - 1]->us) elite[ne - 1] = t;
    else continue;
    for (int k = ne - 1; k > 0 && elite[k - 1]->us > elite[k]->us; k--) {
      const Tried *x = elite[k];
      elite[k] = elite[k - 1], elite[k - 1] = x;
    }
  }
  if (ne == 0) return NULL;
  const Tried *best = NULL;
  for (int i = 0; i < EVOLVE_TOURNAMENT; i++) {
    const Tried *t = elite[cg_splitmix64(&s->rng) % (uint64_t)ne];
    if (!best || t->us < best->us) best = t;
  }
  return best;
}

/* A value of parameter j of sp that meets every constraint with the other
 * values of vals, drawn among all such; false when there is none. */
static bool valid_value(Search *s, const Space *sp, int j, int64_t *vals) {
  const SpaceParam *p = &sp->params[j];
  int64_t n = p->nvalues ? p->nvalues : p->hi - p->lo + 1;
  if (n > 4096) return false;
  int64_t *ok = ARENA_ARRAY(s->a, int64_t, (size_t)n);
  int nok = 0;
  const SpaceCon *why;
  for (int64_t i = 0; i < n; i++) {
    vals[j] = p->nvalues ? p->values[i] : p->lo + i;
    if (space_satisfies(sp, vals, &why)) ok[nok++] = vals[j];
  }
  if (nok == 0) return false;
  vals[j] = ok[cg_splitmix64(&s->rng) % (uint64_t)nok];
  return true;
}

/* The parent in a neighbouring variant: one of its choices moved (LX=1 to
 * 2, LP=2 to 3, ...), the parameters both variants have kept, and each one
 * only the new variant has (CK for LX=2, RH for LR=2) drawn among its valid
 * values. Without it evolve could reach another variant only through a
 * random point, never from its best ones. */
static bool variant_mutation(Search *s, const Tried *parent, Cand *out) {
  const LayerSpace *ls = s->ls[parent->strategy];
  const LsVariant *pv = &ls->v[parent->pt.variant];
  int near[NEAR_MAX], nn = 0;
  for (int v = 0; v < ls->nvariants && nn < NEAR_MAX; v++) {
    if (v == parent->pt.variant || !ls->v[v].space) continue;
    int differ = 0;
    for (int c = 0; c < ls->st->nchoices; c++) differ += ls->v[v].choice[c] != pv->choice[c];
    if (differ == 1) near[nn++] = v;
  }
  for (int tries = 0; tries < MUTATE_TRIES && nn > 0; tries++) {
    ArenaMark scratch = arena_mark(s->a);
    Cand c = {.strategy = parent->strategy, .how = "mutation"};
    c.pt.variant = near[cg_splitmix64(&s->rng) % (uint64_t)nn];
    const Space *sp = ls->v[c.pt.variant].space;
    bool added[ST_MAX_PARAMS] = {false}, ok = true;
    for (int j = 0; j < sp->nparams; j++) {
      int k = space_param_index(pv->space, sp->params[j].name);
      added[j] = k < 0;
      c.pt.vals[j] = k >= 0 ? parent->pt.vals[k] : sp->params[j].nvalues ? sp->params[j].values[0] : sp->params[j].lo;
    }
    for (int j = 0; j < sp->nparams && ok; j++) ok = !added[j] || valid_value(s, sp, j, c.pt.vals);
    const SpaceCon *why;
    arena_reset(s->a, scratch);
    if (!ok || !space_satisfies(sp, c.pt.vals, &why)) continue;
    c.point = ls_point_text(ls, s->a, &c.pt);
    if (seen_has(s, key_of(s, &c))) continue;
    *out = c;
    return true;
  }
  return false;
}

/* One parameter of the parent moved: to a neighbouring valid value (7 times
 * in 10) or to any valid one; every other parameter kept. One time in
 * MUTATE_VARIANT a choice moves instead (variant_mutation). The point meets
 * every constraint and was not given before; whether it lowers is not yet
 * checked. */
static bool mutation(Search *s, const Tried *parent, Cand *out) {
  if (cg_splitmix64(&s->rng) % MUTATE_VARIANT == 0 && variant_mutation(s, parent, out)) return true;
  const LayerSpace *ls = s->ls[parent->strategy];
  const Space *sp = ls->v[parent->pt.variant].space;
  if (sp->nparams == 0) return false;
  int64_t *vals = ARENA_ARRAY(s->a, int64_t, (size_t)sp->nparams);
  for (int tries = 0; tries < MUTATE_TRIES; tries++) {
    ArenaMark scratch = arena_mark(s->a);   // released unless this try gives the candidate
    int j = (int)(cg_splitmix64(&s->rng) % (uint64_t)sp->nparams);
    const SpaceParam *p = &sp->params[j];
    int64_t cur = parent->pt.vals[j], n = p->nvalues ? p->nvalues : p->hi - p->lo + 1;
    if (n > 4096) continue;
    int64_t *ok = ARENA_ARRAY(s->a, int64_t, (size_t)n);
    int nok = 0, at = 0;   // the valid values, increasing; at: how many are below cur
    memcpy(vals, parent->pt.vals, sizeof *vals * (size_t)sp->nparams);
    const SpaceCon *why;
    for (int64_t i = 0; i < n; i++) {
      int64_t v = p->nvalues ? p->values[i] : p->lo + i;
      if (v == cur) continue;
      vals[j] = v;
      if (!space_satisfies(sp, vals, &why)) continue;
      at += v < cur;
      ok[nok++] = v;
    }
    if (nok == 0) {
      arena_reset(s->a, scratch);
      continue;
    }
    int pick;
    if (cg_splitmix64(&s->rng) % 10 < 7) {   // a neighbour: just below or just above
      bool up = at == 0 || (at < nok && cg_splitmix64(&s->rng) % 2);
      pick = up ? at : at - 1;
    } else {
      pick = (int)(cg_splitmix64(&s->rng) % (uint64_t)nok);
    }
    Cand c = {.strategy = parent->strategy, .pt = parent->pt, .how = "mutation"};
    c.pt.vals[j] = ok[pick];
    arena_reset(s->a, scratch);
    c.point = ls_point_text(ls, s->a, &c.pt);
    if (seen_has(s, key_of(s, &c))) continue;
    *out = c;
    return true;
  }
  return false;
}

/* Whether c's point passes the lowering (its space's per-point check). */
static bool lowers(Search *s, const Cand *c) {
  const Space *sp = s->ls[c->strategy]->v[c->pt.variant].space;
  ArenaMark scratch = arena_mark(s->a);
  bool ok = space_check_point((Space *)sp, s->a, c->pt.vals) == NULL;
  arena_reset(s->a, scratch);
  return ok;
}

static bool mutate(Search *s, const Tried *parent, Cand *out) {
  for (int tries = 0; tries < MUTATE_TRIES; tries++) {
    Cand c;
    if (!mutation(s, parent, &c)) return false;
    if (!lowers(s, &c)) continue;
    seen_add(s, key_of(s, &c));
    return *out = c, true;
  }
  return false;
}

/* ---- the model search ---- */

/* What the model sees of a point: its strategy, its variant, and the
 * logarithm of each parameter (in its variant's order). */
static void features(const Search *s, int strategy, const LsPoint *pt, double *x) {
  for (int i = 0; i < NFEATURES; i++) x[i] = 0;
  x[0] = strategy;
  x[1] = pt->variant;
  const Space *sp = s->ls[strategy]->v[pt->variant].space;
  for (int j = 0; j < sp->nparams && j < ST_MAX_PARAMS; j++) x[2 + j] = log2(1.0 + (double)pt->vals[j]);
}

/* The model refitted on every result back: the log of a correct one's time;
 * one that failed (wrong, too slow, over a limit, did not build) counts as
 * twice the slowest correct one, so that its neighbourhood is avoided. */
static void refit(Search *s) {
  // a fit costs milliseconds per hundred samples and results arrive many a
  // second under --jobs: refitted once an eighth more (at least 8) are back
  int more = s->fitted / 8 > 8 ? s->fitted / 8 : 8;
  if (s->fitted > 0 && s->ndone < s->fitted + more) return;
  double worst = 0;
  for (int i = 0; i < s->ntried; i++)
    if (s->tried[i].done && isfinite(s->tried[i].us) && s->tried[i].us > worst) worst = s->tried[i].us;
  model_free(s->model);
  s->model = model_new(NFEATURES);
  double x[NFEATURES];
  for (int i = 0; i < s->ntried; i++) {
    const Tried *t = &s->tried[i];
    if (!t->done || (!isfinite(t->us) && worst == 0)) continue;
    features(s, t->strategy, &t->pt, x);
    model_add(s->model, x, log(isfinite(t->us) ? t->us : 2 * worst));
  }
  model_fit(s->model);
  s->fitted = s->ndone;
}

typedef struct Scored {
  Cand c;
  double predicted;
  bool random;             // from the random stream (else a mutation)
} Scored;

static int cmp_scored(const void *a, const void *b) {
  const Scored *p = a, *q = b;
  return (p->predicted > q->predicted) - (p->predicted < q->predicted);
}

/* A pool of mutations of good parents and random points, each scored by the
 * model; the best predicted one that lowers is the candidate, and the
 * random points not taken wait in s->pending. */
static bool model_pick(Search *s, Cand *out) {
  refit(s);
  Scored pool[MODEL_POOL_MUTANTS + MODEL_POOL_RANDOM];
  int n = 0;
  for (int i = 0; i < MODEL_POOL_MUTANTS; i++) {
    const Tried *parent = pick_parent(s);
    if (parent && mutation(s, parent, &pool[n].c)) pool[n++].random = false;
  }
  int taken = 0;   // pending random points first; those that do not fit stay pending
  while (taken < s->npending && n < MODEL_POOL_MUTANTS + MODEL_POOL_RANDOM)
    pool[n].c = s->pending[taken++], pool[n++].random = true;
  memmove(s->pending, s->pending + taken, (size_t)(s->npending - taken) * sizeof *s->pending);
  s->npending -= taken;
  while (n < MODEL_POOL_MUTANTS + MODEL_POOL_RANDOM && draw_next(s, &pool[n].c)) pool[n++].random = true;
  double x[NFEATURES];
  for (int i = 0; i < n; i++) {
    features(s, pool[i].c.strategy, &pool[i].c.pt, x);
    pool[i].predicted = model_predict(s->model, x);
  }
  qsort(pool, (size_t)n, sizeof *pool, cmp_scored);
  bool got = false;
  for (int i = 0; i < n; i++) {
    Scored *p = &pool[i];
    if (!got && !seen_has(s, key_of(s, &p->c)) && (p->random || lowers(s, &p->c))) {
      seen_add(s, key_of(s, &p->c));
      *out = p->c;
      out->how = "model";
      got = true;
    } else if (p->random && s->npending < MODEL_PENDING) {
      s->pending[s->npending++] = p->c;
    }
  }
  return got;
}

bool search_next(Search *s, Cand *out) {
  bool got = false;
  if (s->primed_taken < s->nprimed) {
    *out = s->primed[s->primed_taken++];
    out->id = s->ntried, remember(s, out);
    return true;
  }
  if (s->kind != SEARCH_RANDOM && s->ntried >= s->init && cg_splitmix64(&s->rng) % EVOLVE_EXPLORE != 0) {
    if (s->kind == SEARCH_MODEL && s->ndone >= EVOLVE_MIN_INIT) {
      got = model_pick(s, out);
    } else {
      const Tried *parent = pick_parent(s);
      got = parent && mutate(s, parent, out);
    }
  }
  if (!got) got = next_random(s, out);
  if (got) out->id = s->ntried, remember(s, out);
  return got;
}

/* A recorded point of strategy i as a candidate ("seed"), marked as given;
 * false when it is not a point of the space or was given already. */
static bool seed_cand(Search *s, int i, const char *point, Cand *c) {
  if (i < 0 || i >= s->nst) return false;
  *c = (Cand){.strategy = i, .how = "seed"};
  Diag d = {0};
  if (!ls_parse_point(s->ls[i], s->a, point, &c->pt, &d)) return false;
  c->point = ls_point_text(s->ls[i], s->a, &c->pt);
  return seen_add(s, key_of(s, c));
}

bool search_seed(Search *s, int i, const char *point, double median_us) {
  Cand c;
  if (!isfinite(median_us) || !seed_cand(s, i, point, &c)) return false;
  remember(s, &c);
  search_result(s, s->ntried - 1, median_us);
  return true;
}

bool search_prime(Search *s, int i, const char *point, const char *how) {
  Cand c;
  if (!seed_cand(s, i, point, &c)) return false;
  c.how = how;
  if (s->nprimed == s->primed_cap) {
    s->primed_cap = s->primed_cap ? 2 * s->primed_cap : 16;
    s->primed = realloc(s->primed, (size_t)s->primed_cap * sizeof *s->primed);
    if (!s->primed) cg_die("out of memory");
  }
  s->primed[s->nprimed++] = c;
  return true;
}

void search_result(Search *s, int64_t id, double median_us) {
  if (id < 0 || id >= s->ntried) return;
  s->tried[id].us = median_us;
  if (!s->tried[id].done) s->ndone++;
  s->tried[id].done = true;
}
