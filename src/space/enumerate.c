/* enumerate.c: counting, listing and sampling the points of a space.
 *
 * Parameters that share no constraint are independent: they fall into
 * groups (union-find over the constraints), each enumerated on its own, and
 * the space is the product of the groups. Within a group the parameters are
 * bound in enumeration order (space.c), each over its domain in increasing
 * order, narrowed by the constraints of its level whose other side is already
 * known (p divides 2048: p <= 2048; p <= TS: p <= the value of TS); a
 * constraint is checked at the level of its last parameter, so a prefix that
 * breaks one is abandoned with all its completions.
 *
 * Counting lists a group's points as it goes, up to Space.list_max of them;
 * the lists make exact sampling a matter of drawing ranks in the product of
 * the groups (a Fisher-Yates shuffle kept sparse in a hash map, so drawing n
 * points costs O(n) memory whatever the size of the space). A group too large
 * to list is sampled by random descent instead (space.h says what that
 * guarantees). Every walk is bounded by Space.step_budget value checks.
 */
#include "space/space.h"

#include <stdlib.h>
#include <string.h>

struct SpaceGroup {
  int n;                 // parameters in the group
  int *idx;              // their positions in Space.params, increasing
  int *ncons;            // per level: constraints checked there
  const SpaceCon ***cons;
  bool counted;          // count is known (maybe a lower bound: !exact)
  bool exact;
  uint64_t count;
  int64_t *points;       // count * n values, in enumeration order, when listed
  bool listed;
};

/* ---- Groups ------------------------------------------------------------------ */

static int find(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

static void mark(const Space *s, const AExpr *e, int *up, int *first) {
  if (e->kind == AX_VAR) {
    int i = space_param_index(s, e->name);
    if (*first < 0) *first = i;
    else up[find(up, i)] = find(up, *first);
  }
  for (int k = 0; k < e->n; k++) mark(s, e->ops[k], up, first);
}

static void add_level_con(Arena *a, SpaceGroup *g, int level, const SpaceCon *c) {
  const SpaceCon **l = arena_extend(a, g->cons[level], (size_t)g->ncons[level], sizeof *l);
  l[g->ncons[level]++] = c;
  g->cons[level] = l;
}

static void fill_group(Space *s, SpaceGroup *g, const int *root, int r) {
  Arena *a = s->a;
  g->idx = ARENA_ARRAY(a, int, s->nparams);
  for (int i = 0; i < s->nparams; i++)
    if (root[i] == r) g->idx[g->n++] = i;
  g->ncons = ARENA_ARRAY(a, int, g->n);
  g->cons = ARENA_ARRAY(a, const SpaceCon **, g->n);
  for (int c = 0; c < s->ncons; c++)
    for (int k = 0; k < g->n; k++)
      if (s->cons[c].level == g->idx[k]) add_level_con(a, g, k, &s->cons[c]);
}

void space_groups(Space *s) {
  int n = s->nparams, *up = ARENA_ARRAY(s->a, int, n + 1), *root = ARENA_ARRAY(s->a, int, n + 1);
  for (int i = 0; i < n; i++) up[i] = i;
  for (int c = 0; c < s->ncons; c++) {
    int first = -1;
    mark(s, s->cons[c].lhs, up, &first);
    mark(s, s->cons[c].rhs, up, &first);
  }
  s->groups = ARENA_ARRAY(s->a, SpaceGroup, n + 1);
  for (int i = 0; i < n; i++) root[i] = find(up, i);
  for (int i = 0; i < n; i++)
    if (root[i] == i) {
      for (int k = 0; k < n; k++)
        if (root[k] == i) s->params[k].group = s->ngroups;
      fill_group(s, &s->groups[s->ngroups++], root, i);
    }
}

void space_free(Space *s) {
  if (!s) return;
  for (int g = 0; g < s->ngroups; g++) {
    free(s->groups[g].points);
    s->groups[g].points = NULL;
  }
}

/* ---- Values of one level ------------------------------------------------------- */

/* When p is the variable of parameter i. */
static bool is_param(const Space *s, const AExpr *e, int i) {
  return e->kind == AX_VAR && (e == s->params[i].var || strcmp(e->name, s->params[i].name) == 0);
}

static bool mentions(const Space *s, const AExpr *e, int i) {
  if (is_param(s, e, i)) return true;
  for (int k = 0; k < e->n; k++)
    if (mentions(s, e->ops[k], i)) return true;
  return false;
}

/* The range a level's constraints leave to parameter i, earlier ones bound. */
static void narrow(const Space *s, const SpaceGroup *g, int k, const int64_t *vals, int64_t *lo, int64_t *hi) {
  int i = g->idx[k];
  *lo = s->params[i].lo, *hi = s->params[i].hi;
  for (int c = 0; c < g->ncons[k]; c++) {
    const SpaceCon *con = g->cons[k][c];
    bool vl = is_param(s, con->lhs, i), vr = is_param(s, con->rhs, i);
    int64_t v;
    const AExpr *other = vl ? con->rhs : con->lhs;
    if (vl == vr || mentions(s, other, i) || !space_eval(s, other, vals, &v)) continue;
    bool upper = con->kind == CON_DIVIDES ? v >= 1 : con->kind == CON_EQ || (con->kind == CON_LE) == vl;
    bool lower = con->kind == CON_EQ || (con->kind == CON_GE && vl) || (con->kind == CON_LE && vr);
    if (con->kind == CON_DIVIDES && vl) upper = false;   // p % v == 0 bounds nothing
    if (upper && v < *hi) *hi = v;
    if (lower && v > *lo) *lo = v;
  }
}

typedef struct Walker {
  Space *s;
  SpaceGroup *g;
  int64_t *vals;        // a whole point, in Space.params order
  uint64_t steps;       // value checks so far
  bool out_of_steps;
} Walker;

/* Whether v for level k passes the constraints of that level. */
static bool try_value(Walker *wk, int k, int64_t v) {
  if (++wk->steps > wk->s->step_budget) return wk->out_of_steps = true, false;
  wk->vals[wk->g->idx[k]] = v;
  for (int c = 0; c < wk->g->ncons[k]; c++)
    if (!space_con_holds(wk->s, wk->g->cons[k][c], wk->vals)) return false;
  return true;
}

/* Calls each(wk, ctx, k, v) for every value v of level k that passes; stops
 * when each returns false. */
typedef bool (*EachValue)(Walker *wk, void *ctx, int k, int64_t v);

static void level_values(Walker *wk, int k, EachValue each, void *ctx) {
  const SpaceParam *p = &wk->s->params[wk->g->idx[k]];
  int64_t lo, hi;
  narrow(wk->s, wk->g, k, wk->vals, &lo, &hi);
  if (p->nvalues) {
    for (int j = 0; j < p->nvalues && !wk->out_of_steps; j++)
      if (p->values[j] >= lo && p->values[j] <= hi && try_value(wk, k, p->values[j]) && !each(wk, ctx, k, p->values[j]))
        return;
    return;
  }
  for (int64_t v = lo; v <= hi && !wk->out_of_steps; v++)
    if (try_value(wk, k, v) && !each(wk, ctx, k, v)) return;
}

/* ---- Counting and listing ---------------------------------------------------------- */

typedef struct Lister {
  uint64_t count;
  int64_t *points;
  size_t cap;           // points allocated
  bool listing;
} Lister;

static void keep(Lister *l, const Walker *wk) {
  int n = wk->g->n;
  if (l->count >= wk->s->list_max) {
    free(l->points);
    l->points = NULL;
    l->listing = false;
    return;
  }
  if (l->count == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->points = realloc(l->points, sizeof *l->points * l->cap * (size_t)n);
    if (!l->points) cg_die("out of memory");
  }
  for (int k = 0; k < n; k++) l->points[l->count * (size_t)n + (size_t)k] = wk->vals[wk->g->idx[k]];
}

static bool count_value(Walker *wk, void *ctx, int k, int64_t v) {
  (void)v;
  Lister *l = ctx;
  if (k + 1 < wk->g->n) {
    level_values(wk, k + 1, count_value, ctx);
    return !wk->out_of_steps;
  }
  if (l->listing) keep(l, wk);
  l->count++;
  return true;
}

static void count_group(Space *s, SpaceGroup *g) {
  if (g->counted) return;
  int64_t *vals = calloc((size_t)s->nparams + 1, sizeof *vals);
  if (!vals) cg_die("out of memory");
  Walker wk = {s, g, vals, 0, false};
  Lister l = {0, NULL, 0, true};
  level_values(&wk, 0, count_value, &l);
  free(vals);
  g->counted = true;
  g->count = l.count;
  g->exact = !wk.out_of_steps;
  g->listed = l.listing && g->exact;
  g->points = g->listed ? l.points : (free(l.points), NULL);
}

uint64_t space_count(Space *s, bool *exact) {
  *exact = true;
  if (s->empty) return 0;
  uint64_t total = 1;
  for (int i = 0; i < s->ngroups; i++) {
    SpaceGroup *g = &s->groups[i];
    count_group(s, g);
    *exact &= g->exact;
    if (g->count == 0 && g->exact) return 0;
    if (__builtin_mul_overflow(total, g->count, &total)) return *exact = false, UINT64_MAX;
  }
  return total;
}

uint64_t space_domain_size(const Space *s) {
  uint64_t total = 1;
  for (int i = 0; i < s->nparams; i++) {
    const SpaceParam *p = &s->params[i];
    uint64_t n = p->nvalues ? (uint64_t)p->nvalues : (uint64_t)(p->hi - p->lo + 1);
    if (__builtin_mul_overflow(total, n, &total)) return UINT64_MAX;
  }
  return total;
}

/* Whether every group is listed, so that points can be had by rank; *total
 * is then the number of points. */
static bool all_listed(Space *s, uint64_t *total) {
  bool exact;
  *total = space_count(s, &exact);
  if (!exact) return false;
  for (int i = 0; i < s->ngroups; i++)
    if (!s->groups[i].listed && s->groups[i].count) return false;
  return true;
}

/* The point of the given rank: the groups' points in mixed radix, the first group slowest. */
static void point_of_rank(const Space *s, uint64_t rank, int64_t *vals) {
  for (int i = s->ngroups - 1; i >= 0; i--) {
    const SpaceGroup *g = &s->groups[i];
    uint64_t r = rank % g->count;
    rank /= g->count;
    for (int k = 0; k < g->n; k++) vals[g->idx[k]] = g->points[r * (size_t)g->n + (size_t)k];
  }
}

bool space_foreach(Space *s, SpaceVisit visit, void *ctx) {
  uint64_t total;
  if (!all_listed(s, &total)) return false;
  int64_t *vals = calloc((size_t)s->nparams + 1, sizeof *vals);
  if (!vals) cg_die("out of memory");
  for (uint64_t r = 0; r < total; r++) {
    point_of_rank(s, r, vals);
    if (!visit(ctx, vals)) break;
  }
  free(vals);
  return true;
}

/* ---- Sampling ------------------------------------------------------------------------- */

/* A hash map from uint64 to uint64 (open addressing), for the sparse shuffle
 * and for the set of points already drawn. */
typedef struct U64Map {
  uint64_t *keys, *vals;
  unsigned char *used;
  size_t cap, n;
} U64Map;

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static size_t slot(const U64Map *m, uint64_t key) {
  size_t i = (size_t)mix(key) & (m->cap - 1);
  while (m->used[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

static void map_put(U64Map *m, uint64_t key, uint64_t val);

static void map_grow(U64Map *m) {
  U64Map old = *m;
  m->cap = old.cap ? 2 * old.cap : 64;
  m->n = 0;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  m->used = calloc(m->cap, 1);
  if (!m->keys || !m->vals || !m->used) cg_die("out of memory");
  for (size_t i = 0; i < old.cap; i++)
    if (old.used[i]) map_put(m, old.keys[i], old.vals[i]);
  free(old.keys), free(old.vals), free(old.used);
}

static void map_put(U64Map *m, uint64_t key, uint64_t val) {
  if (2 * (m->n + 1) > m->cap) map_grow(m);
  size_t i = slot(m, key);
  m->n += !m->used[i];
  m->used[i] = 1;
  m->keys[i] = key;
  m->vals[i] = val;
}

static uint64_t map_get(const U64Map *m, uint64_t key, uint64_t dflt) {
  if (!m->cap) return dflt;
  size_t i = slot(m, key);
  return m->used[i] ? m->vals[i] : dflt;
}

static void map_free(U64Map *m) { free(m->keys), free(m->vals), free(m->used); }

struct SpaceSampler {
  Space *s;
  uint64_t rng;          // splitmix64 state
  bool exact;
  uint64_t total, drawn; // exact: points, and points drawn so far
  U64Map map;            // exact: the shuffle's moved ranks; descent: hashes of points drawn
  int64_t **cand;        // descent: per parameter, the values left at its level
  size_t *ccap;
};


/* Uniform in [0, bound), bound >= 1: rejection removes the modulo bias. */
static uint64_t uniform(uint64_t *state, uint64_t bound) {
  uint64_t threshold = (0 - bound) % bound, x;
  while ((x = cg_splitmix64(state)) < threshold) {}
  return x % bound;
}

SpaceSampler *space_sampler_new(Space *s, uint64_t seed) {
  SpaceSampler *sm = calloc(1, sizeof *sm);
  if (!sm) cg_die("out of memory");
  sm->s = s;
  sm->rng = seed;
  sm->exact = s->empty || all_listed(s, &sm->total);
  if (s->empty) sm->total = 0;
  sm->cand = calloc((size_t)s->nparams + 1, sizeof *sm->cand);
  sm->ccap = calloc((size_t)s->nparams + 1, sizeof *sm->ccap);
  if (!sm->cand || !sm->ccap) cg_die("out of memory");
  return sm;
}

void space_sampler_free(SpaceSampler *sm) {
  if (!sm) return;
  map_free(&sm->map);
  for (int i = 0; i < sm->s->nparams; i++) free(sm->cand[i]);
  free(sm->cand);
  free(sm->ccap);
  free(sm);
}

bool space_sampler_uniform(const SpaceSampler *sm) { return sm->exact; }

/* Step i of a Fisher-Yates shuffle of the ranks 0..total-1, where only the
 * positions that moved are stored. */
static bool next_exact(SpaceSampler *sm, int64_t *vals) {
  if (sm->drawn == sm->total) return false;
  uint64_t i = sm->drawn++, j = i + uniform(&sm->rng, sm->total - i);
  uint64_t at_j = map_get(&sm->map, j, j), at_i = map_get(&sm->map, i, i);
  map_put(&sm->map, j, at_i);
  point_of_rank(sm->s, at_j, vals);
  return true;
}

typedef struct Values {
  int64_t *v;
  size_t n, cap;
} Values;

static bool append_value(Walker *wk, void *ctx, int k, int64_t v) {
  (void)wk, (void)k;
  Values *b = ctx;
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 64;
    if (!(b->v = realloc(b->v, sizeof *b->v * b->cap))) cg_die("out of memory");
  }
  b->v[b->n++] = v;
  return true;
}

/* The values of level k that pass, into sm->cand[param]; returns how many. */
static size_t candidates(SpaceSampler *sm, Walker *wk, int k) {
  int i = wk->g->idx[k];
  Values b = {sm->cand[i], 0, sm->ccap[i]};
  level_values(wk, k, append_value, &b);
  sm->cand[i] = b.v;
  sm->ccap[i] = b.cap;
  return b.n;
}

/* A random completion of levels k.. of the walker's group: each value uniform
 * among those left at its level, a value whose subtree has no point removed
 * and another drawn (backtracking). */
static bool descend(SpaceSampler *sm, Walker *wk, int k) {
  if (k == wk->g->n) return true;
  int i = wk->g->idx[k];
  size_t n = candidates(sm, wk, k);
  while (n > 0 && !wk->out_of_steps) {
    size_t j = (size_t)uniform(&sm->rng, n);
    int64_t v = sm->cand[i][j];
    sm->cand[i][j] = sm->cand[i][--n];
    wk->vals[i] = v;
    if (descend(sm, wk, k + 1)) return true;
  }
  return false;
}

static uint64_t hash_point(const int64_t *vals, int n) {
  uint64_t h = 0x84222325cbf29ce4ULL;
  for (int i = 0; i < n; i++) h = mix(h ^ (uint64_t)vals[i]);
  return h;
}

/* Points that hash alike count as repeats: a point may be skipped, never given twice. */
static bool next_descent(SpaceSampler *sm, int64_t *vals) {
  Space *s = sm->s;
  for (int repeats = 0; repeats < 1000; repeats++) {
    for (int g = 0; g < s->ngroups; g++) {
      Walker wk = {s, &s->groups[g], vals, 0, false};
      if (!descend(sm, &wk, 0)) return false;
    }
    uint64_t h = hash_point(vals, s->nparams);
    if (!map_get(&sm->map, h, 0)) {
      map_put(&sm->map, h, 1);
      return true;
    }
  }
  return false;
}

bool space_sampler_next(SpaceSampler *sm, int64_t *vals) {
  if (sm->s->empty) return false;
  return sm->exact ? next_exact(sm, vals) : next_descent(sm, vals);
}

int space_sample(Space *s, uint64_t seed, int n, int64_t *out) {
  SpaceSampler *sm = space_sampler_new(s, seed);
  int k = 0;
  while (k < n && space_sampler_next(sm, out + (size_t)k * (size_t)s->nparams)) k++;
  space_sampler_free(sm);
  return k;
}
