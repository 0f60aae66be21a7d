/* layer_space.c: a strategy's space on a layer, the union of its variants'
 * spaces (layer_space.h). */
#include "space/layer_space.h"

#include "codegen/codegen.h"
#include "conv/program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const SpaceDomain *find_domain(int n, const SpaceDomain *doms, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(doms[i].name, name) == 0) return &doms[i];
  return NULL;
}

static bool domain_has(const SpaceDomain *dm, int64_t v) {
  if (!dm->nvalues) return dm->lo <= v && v <= dm->hi;
  for (int i = 0; i < dm->nvalues; i++)
    if (dm->values[i] == v) return true;
  return false;
}

static bool param_has(const SpaceParam *p, int64_t v) {
  if (v < p->lo || v > p->hi) return false;
  for (int i = 0; i < p->nvalues; i++)
    if (p->values[i] == v) return true;
  return p->nvalues == 0;
}

/* Is name one of st's choices (else a tuning parameter, or nothing)? */
static bool is_choice(const Strategy *st, const char *name) {
  for (int i = 0; i < st->nchoices; i++)
    if (strcmp(st->choices[i].name, name) == 0) return true;
  return false;
}

/* A SpaceVisit keeping the first point (the smallest values, in enumeration
 * order: the smallest tiles and blocks, a kernel that lowers in
 * milliseconds, where a random point's unrolled code took up to a minute). */
typedef struct FirstPoint {
  int nparams;
  int64_t *vals;
  bool got;
} FirstPoint;

static bool take_first(void *ctx, const int64_t *vals) {
  FirstPoint *f = ctx;
  memcpy(f->vals, vals, sizeof(int64_t) * (size_t)f->nparams);
  f->got = true;
  return false;
}

static bool make_variant_in(LayerSpace *ls, LsVariant *v, const Program *hl, int ndoms, const SpaceDomain *doms,
                            const RtDeviceInfo *dev, Arena *scratch, Diag *d) {
  Arena *a = ls->a;
  Diag dd = {0};
  Program *p = st_derive(ls->st, scratch, &ls->layer, hl, v->choice, NULL, &dd);
  if (!p) return v->rejected = arena_printf(a, "the derivation fails: %s", dd.msg), true;
  StrBuf sb;
  sb_init(&sb);
  ir_print_program(&sb, p);
  v->text = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  StDomain sd[ST_MAX_PARAMS];
  int nsd = st_domains(ls->st, &ls->layer, sd), k = 0;
  SpaceDomain *vd = ARENA_ARRAY(a, SpaceDomain, (size_t)p->nsizes + 1);
  for (int i = 0; i < p->nsizes; i++) {
    const SpaceDomain *given = find_domain(ndoms, doms, p->size_names[i]);
    if (given) {
      vd[k++] = *given;
      continue;
    }
    for (int j = 0; j < nsd; j++)
      if (strcmp(sd[j].name, p->size_names[i]) == 0) vd[k++] = (SpaceDomain){sd[j].name, sd[j].lo, sd[j].hi, 0, NULL};
  }
  SpaceInput in = {ls->name, v->text, 0, NULL, NULL, k, vd, dev};
  if (!(v->space = space_new(a, &in, d))) return false;
  if (v->space->nparams > ST_MAX_PARAMS) cg_die("strategy %s has more than %d parameters", ls->st->name, ST_MAX_PARAMS);
  if (v->space->empty) return v->rejected = arena_printf(a, "the space is empty: %s", v->space->empty), true;
  v->count = space_count(v->space, &v->exact);
  if (v->count == 0) return v->rejected = "no point meets every constraint", true;
  if (dev && ls->st->nchoices) {   // legality of the mapping: the same at every point, so try the first
    int64_t vals[ST_MAX_PARAMS + 1];
    Diag ld = {0};
    FirstPoint first = {v->space->nparams, vals, false};
    bool have = (space_foreach(v->space, take_first, &first) && first.got) || space_sample(v->space, 1, 1, vals) == 1;
    if (have && !space_lower_point(v->space, scratch, vals, &ld) && ld.kind == DIAG_REJECT)
      v->rejected = arena_strdup(a, ld.msg);
  }
  return true;
}

/* A quiet choice at its fallback is left out of labels and point texts
 * (StChoice.quiet): kernels and points from before it read as they did. */
static bool quiet_at(const StChoice *c, int64_t v) { return c->quiet && v == c->fallback; }

static const char *variant_label(Arena *a, const Strategy *st, const int *choice) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0, first = 1; i < st->nchoices; i++) {
    if (quiet_at(&st->choices[i], choice[i])) continue;
    sb_printf(&sb, "%s%s=%d (%s)", first ? "" : ", ", st->choices[i].name, choice[i], st->choices[i].labels[choice[i] - 1]);
    first = 0;
  }
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* The variant's space: its program's sizes with the caller's domain, else the
 * strategy's default. Sets v->rejected when it has no points. The derivation
 * (a program per rewrite step) and the sample point's lowering live in a
 * scratch arena, freed here: kept, they made a layer space of s2's 90
 * variants 2 GB, in the tuner and in each of its workers (round 20's tune
 * on the H200 was killed for memory). What stays is the text and the space. */
static bool make_variant(LayerSpace *ls, LsVariant *v, const Program *hl, int ndoms, const SpaceDomain *doms,
                         const RtDeviceInfo *dev, Diag *d) {
  Arena *scratch = arena_new();
  bool ok = make_variant_in(ls, v, hl, ndoms, doms, dev, scratch, d);
  arena_free(scratch);
  return ok;
}

LayerSpace *ls_new(Arena *a, const Strategy *st, const Layer *l, const char *name, int ndoms,
                   const SpaceDomain *doms, const RtDeviceInfo *dev, Diag *d) {
  LayerSpace *ls = ARENA_NEW(a, LayerSpace);
  ls->a = a, ls->st = st, ls->layer = *l, ls->name = name;
  if (st->refuses && (ls->refused = st->refuses(l))) return ls;   // no variants: a search passes it over
  Program *hl = conv_program(a, l, d);
  if (!hl) return NULL;
  // the choices' domains, checked
  const SpaceDomain *cdom[ST_MAX_CHOICES] = {0};
  int total = 1;
  for (int i = 0; i < st->nchoices; i++) {
    const StChoice *c = &st->choices[i];
    cdom[i] = find_domain(ndoms, doms, c->name);
    for (int j = 0; cdom[i] && j < (cdom[i]->nvalues ? cdom[i]->nvalues : 1); j++) {
      int64_t lo = cdom[i]->nvalues ? cdom[i]->values[j] : cdom[i]->lo, hi = cdom[i]->nvalues ? lo : cdom[i]->hi;
      if (lo < 1 || hi > c->nvalues)
        return diag_error(d, "%s: choice %s takes 1..%d (%s), not %lld", name, c->name, c->nvalues, c->meaning,
                          (long long)(lo < 1 ? lo : hi)), NULL;
    }
    total *= c->nvalues;
  }
  ls->v = ARENA_ARRAY(a, LsVariant, (size_t)total);
  int choice[ST_MAX_CHOICES];
  for (int i = 0; i < st->nchoices; i++) choice[i] = 1;
  const char *not_one = NULL;   // why a given assignment is not a variant
  for (int n = 0; n < total; n++) {   // every assignment, the last choice fastest
    bool wanted = true;
    for (int i = 0; i < st->nchoices; i++) wanted &= !cdom[i] || domain_has(cdom[i], choice[i]);
    const char *why = wanted && st->not_a_variant ? st->not_a_variant(l, choice) : NULL;
    if (why) wanted = false, not_one = not_one ? not_one : why;
    if (wanted) {
      LsVariant *v = &ls->v[ls->nvariants++];
      memcpy(v->choice, choice, sizeof choice);
      v->label = variant_label(a, st, choice);
      if (!make_variant(ls, v, hl, ndoms, doms, dev, d)) return ls_free(ls), NULL;
    }
    for (int i = st->nchoices - 1; i >= 0 && ++choice[i] > st->choices[i].nvalues; i--) choice[i] = 1;
  }
  if (ls->nvariants == 0 && not_one)
    return ls_free(ls), diag_error(d, "%s: the choices given make no variant of %s: %s", name, st->name, not_one), NULL;
  // every domain names a choice or a size of some variant
  for (int j = 0; j < ndoms; j++) {
    bool known = is_choice(st, doms[j].name);
    for (int i = 0; i < ls->nvariants && !known; i++)
      known |= ls->v[i].space && space_param_index(ls->v[i].space, doms[j].name) >= 0;
    if (!known) return ls_free(ls), diag_error(d, "%s: strategy %s has no parameter '%s'", name, st->name, doms[j].name), NULL;
  }
  return ls;
}

void ls_free(LayerSpace *ls) {
  for (int i = 0; ls && i < ls->nvariants; i++)
    if (ls->v[i].space) space_free(ls->v[i].space);
}

uint64_t ls_count(const LayerSpace *ls, bool *exact) {
  uint64_t n = 0;
  *exact = true;
  for (int i = 0; i < ls->nvariants; i++) {
    const LsVariant *v = &ls->v[i];
    if (v->rejected) continue;
    n = n + v->count < n ? UINT64_MAX : n + v->count;
    *exact &= v->exact;
  }
  return n;
}

struct LsSampler {
  LayerSpace *ls;
  SpaceSampler **sm;   // per variant (NULL: rejected)
  uint64_t *left;      // points of each variant not drawn yet
  uint64_t total, rng;
};

LsSampler *ls_sampler_new(LayerSpace *ls, uint64_t seed) {
  LsSampler *s = calloc(1, sizeof *s);
  if (!s) cg_die("out of memory");
  s->ls = ls, s->rng = seed;
  s->sm = calloc((size_t)ls->nvariants + 1, sizeof *s->sm);
  s->left = calloc((size_t)ls->nvariants + 1, sizeof *s->left);
  if (!s->sm || !s->left) cg_die("out of memory");
  for (int i = 0; i < ls->nvariants; i++)
    if (!ls->v[i].rejected) {
      s->left[i] = ls->v[i].count;
      s->total += s->left[i];
      s->sm[i] = space_sampler_new(ls->v[i].space, seed + (uint64_t)i);
    }
  return s;
}

/* One draw of variant i, which has points left: true with a point that
 * passes the lowering in *pt; false when this draw's point does not (the
 * variant may have others). */
static bool draw_of(LsSampler *s, int i, LsPoint *pt) {
  s->left[i]--, s->total--;
  if (!space_sampler_next(s->sm[i], pt->vals)) {   // fewer than counted (a lower bound): none left here
    s->total -= s->left[i], s->left[i] = 0;
    return false;
  }
  ArenaMark mark = arena_mark(s->ls->a);
  bool ok = space_check_point(s->ls->v[i].space, s->ls->a, pt->vals) == NULL;
  arena_reset(s->ls->a, mark);
  if (ok) pt->variant = i;
  return ok;
}

bool ls_sampler_next(LsSampler *s, LsPoint *pt) {
  while (s->total > 0) {
    uint64_t r = cg_splitmix64(&s->rng) % s->total;
    int i = 0;
    while (r >= s->left[i]) r -= s->left[i++];
    if (draw_of(s, i, pt)) return true;
  }
  return false;
}

uint64_t ls_sampler_left(const LsSampler *s, int variant) {
  return variant >= 0 && variant < s->ls->nvariants ? s->left[variant] : 0;
}

bool ls_sampler_next_of(LsSampler *s, int variant, LsPoint *pt) {
  while (ls_sampler_left(s, variant) > 0)
    if (draw_of(s, variant, pt)) return true;
  return false;
}

void ls_sampler_free(LsSampler *s) {
  if (!s) return;
  for (int i = 0; i < s->ls->nvariants; i++)
    if (s->sm[i]) space_sampler_free(s->sm[i]);
  free(s->sm);
  free(s->left);
  free(s);
}

int ls_sample(LayerSpace *ls, uint64_t seed, int n, LsPoint *out) {
  LsSampler *s = ls_sampler_new(ls, seed);
  int k = 0;
  while (k < n && ls_sampler_next(s, &out[k])) k++;
  ls_sampler_free(s);
  return k;
}

bool ls_point(const LayerSpace *ls, int n, const char *const *names, const int64_t *vals, LsPoint *out, Diag *d) {
  const Strategy *st = ls->st;
  if (ls->refused) return diag_error(d, "%s: %s", ls->name, ls->refused);
  int choice[ST_MAX_CHOICES];
  for (int i = 0; i < st->nchoices; i++) {
    int j = 0;
    while (j < n && strcmp(names[j], st->choices[i].name) != 0) j++;
    if (j == n && st->choices[i].fallback) {
      choice[i] = st->choices[i].fallback;
      continue;
    }
    if (j == n)
      return diag_error(d, "%s: choice '%s' (%s) has no value; give it with -p %s=1..%d or draw a point with "
                        "--random SEED", ls->name, st->choices[i].name, st->choices[i].meaning, st->choices[i].name,
                        st->choices[i].nvalues);
    if (vals[j] < 1 || vals[j] > st->choices[i].nvalues)
      return diag_error(d, "%s: choice %s takes 1..%d (%s), not %lld", ls->name, st->choices[i].name,
                        st->choices[i].nvalues, st->choices[i].meaning, (long long)vals[j]);
    choice[i] = (int)vals[j];
  }
  int vi = 0;
  while (vi < ls->nvariants && memcmp(ls->v[vi].choice, choice, sizeof(int) * (size_t)st->nchoices) != 0) vi++;
  if (vi == ls->nvariants && st->not_a_variant && st->not_a_variant(&ls->layer, choice))
    return diag_error(d, "%s: not a variant of %s: %s", ls->name, st->name, st->not_a_variant(&ls->layer, choice));
  if (vi == ls->nvariants) return diag_error(d, "%s: no such variant", ls->name);
  const LsVariant *v = &ls->v[vi];
  if (v->rejected && !v->space)
    return diag_reject(d, "%s: the variant %s has no points: %s", ls->name, v->label, v->rejected);
  if (v->rejected) return diag_reject(d, "%s: the variant %s is not usable: %s", ls->name, v->label, v->rejected);
  const Space *s = v->space;
  for (int j = 0; j < n; j++) {
    if (!is_choice(st, names[j]) && space_param_index(s, names[j]) < 0) {
      StrBuf sb;
      sb_init(&sb);
      for (int i = 0; i < s->nparams; i++) sb_printf(&sb, "%s%s", i ? ", " : "", s->params[i].name);
      if (st->nchoices) sb_printf(&sb, " with %s", v->label);
      diag_error(d, "%s: '%s' is not a tuning parameter (%s)", ls->name, names[j],
                 s->nparams ? sb_str(&sb) : "the strategy has none");
      sb_free(&sb);
      return false;
    }
  }
  out->variant = vi;
  for (int i = 0; i < s->nparams; i++) {
    const SpaceParam *sp = &s->params[i];
    int j = 0;
    while (j < n && strcmp(names[j], sp->name) != 0) j++;
    if (j == n)
      return diag_error(d, "%s: tuning parameter '%s' has no value; give it with -p %s=... or draw a point with "
                        "--random SEED", ls->name, sp->name, sp->name);
    out->vals[i] = vals[j];
    if (!param_has(sp, vals[j]))
      return diag_reject(d, "%s: %s=%lld is outside its domain %lld..%lld%s", ls->name, sp->name, (long long)vals[j],
                        (long long)sp->lo, (long long)sp->hi, sp->nvalues ? " (a list of values)" : "");
  }
  const SpaceCon *why;
  if (!space_satisfies(s, out->vals, &why))
    return diag_reject(d, "%s: the point is outside the space: it breaks %s (%s)", ls->name, why->text, why->origin);
  return true;
}

void ls_bindings(const LayerSpace *ls, const LsPoint *pt, int *n, const char ***names, int64_t **vals) {
  const LsVariant *v = &ls->v[pt->variant];
  int k = ls->st->nchoices + v->space->nparams;
  *names = ARENA_ARRAY(ls->a, const char *, (size_t)k + 1);
  *vals = ARENA_ARRAY(ls->a, int64_t, (size_t)k + 1);
  *n = 0;
  for (int i = 0; i < ls->st->nchoices; i++) (*names)[*n] = ls->st->choices[i].name, (*vals)[(*n)++] = v->choice[i];
  for (int i = 0; i < v->space->nparams; i++) (*names)[*n] = v->space->params[i].name, (*vals)[(*n)++] = pt->vals[i];
}

int ls_split_point(Arena *a, const char *text, const char **names, int64_t *vals, int max) {
  int n = 0;
  char *copy = arena_strdup(a, text), *save = NULL;   // (strtok_r: no state shared between threads)
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (strcmp(tok, "-") == 0) continue;
    char *eq = strchr(tok, '='), *end;
    if (!eq || eq == tok || n == max) return -1;
    *eq = 0;
    names[n] = tok;
    errno = 0;
    vals[n++] = strtoll(eq + 1, &end, 10);
    if (*end || end == eq + 1 || errno) return -1;
  }
  return n;
}

bool ls_parse_point(const LayerSpace *ls, Arena *a, const char *text, LsPoint *out, Diag *d) {
  if (ls->refused) return diag_error(d, "%s: %s", ls->name, ls->refused);
  const char *names[LS_POINT_MAX];
  int64_t vals[LS_POINT_MAX];
  int n = ls_split_point(a, text, names, vals, LS_POINT_MAX);
  if (n < 0) return diag_error(d, "%s: bad point '%s': want NAME=V ...", ls->name, text);
  return ls_point(ls, n, names, vals, out, d);
}

int ls_point_aliases(const Strategy *st, Arena *a, const char *text, const char **out, int max) {
  enum { MAX_TOKENS = ST_MAX_PARAMS + ST_MAX_CHOICES };
  const char *tok[MAX_TOKENS];
  bool optional[MAX_TOKENS];
  int nt = 0, nopt = 0;
  char *copy = arena_strdup(a, text), *save = NULL;
  for (char *t = strtok_r(copy, " ", &save); t && nt < MAX_TOKENS; t = strtok_r(NULL, " ", &save)) {
    optional[nt] = false;
    for (int i = 0; i < st->nchoices && nopt < ST_MAX_CHOICES; i++) {
      const StChoice *c = &st->choices[i];
      size_t n = strlen(c->name);
      if (c->fallback && strncmp(t, c->name, n) == 0 && t[n] == '=' && atoll(t + n + 1) == c->fallback)
        optional[nt] = true, nopt++;
    }
    tok[nt++] = t;
  }
  int k = 0;
  for (int mask = 0; mask < (1 << nopt) && k < max; mask++) {   // mask: the optional tokens left out
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0, j = 0, first = 1; i < nt; i++) {
      if (optional[i] && (mask >> j++ & 1)) continue;
      sb_printf(&sb, "%s%s", first ? "" : " ", tok[i]);
      first = 0;
    }
    out[k++] = arena_strdup(a, sb.len ? sb_str(&sb) : "-");
    sb_free(&sb);
  }
  return k;
}

const char *ls_point_text(const LayerSpace *ls, Arena *a, const LsPoint *pt) {
  int n;
  const char **names;
  int64_t *vals;
  ls_bindings(ls, pt, &n, &names, &vals);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0, first = 1; i < n; i++) {
    if (i < ls->st->nchoices && quiet_at(&ls->st->choices[i], vals[i])) continue;
    sb_printf(&sb, "%s%s=%lld", first ? "" : " ", names[i], (long long)vals[i]);
    first = 0;
  }
  const char *s = arena_strdup(a, sb.len ? sb_str(&sb) : "-");
  sb_free(&sb);
  return s;
}

bool ls_compile(const LayerSpace *ls, Arena *a, const LsPoint *pt, const CpOptions *o, CpResult *r, Diag *d) {
  const LsVariant *v = &ls->v[pt->variant];
  const char *names[ST_MAX_PARAMS];
  for (int i = 0; i < v->space->nparams; i++) names[i] = v->space->params[i].name;
  CpInput in = {ls->name, v->text, v->space->nparams, names, pt->vals};
  return cp_compile(a, &in, o, r, d);
}

bool ls_lower(const LayerSpace *ls, Arena *a, const LsPoint *pt, const char *target, CpResult *r, Diag *d) {
  CpOptions co = {.through = CP_LOWER, .target = cg_dialect(target ? target : "opencl")};
  cg_assert(co.target);
  return ls_compile(ls, a, pt, &co, r, d);
}

CpInput ls_point_input(const LayerSpace *ls, Arena *a, const LsPoint *pt) {
  const LsVariant *v = &ls->v[pt->variant];
  const Space *s = v->space;
  const char **names = ARENA_ARRAY(a, const char *, (size_t)s->nparams + 1);
  int64_t *vals = ARENA_ARRAY(a, int64_t, (size_t)s->nparams + 1);
  for (int i = 0; i < s->nparams; i++) names[i] = arena_strdup(a, s->params[i].name), vals[i] = pt->vals[i];
  return (CpInput){ls->name, v->text, s->nparams, names, vals};
}

bool ls_derivation(const LayerSpace *ls, Arena *a, const LsPoint *pt, StrBuf *log, Diag *d) {
  const Program *hl = conv_program(a, &ls->layer, d);
  if (!hl) return false;
  Diag dd = {0};
  if (!st_derive(ls->st, a, &ls->layer, hl, ls->v[pt->variant].choice, log, &dd))   // it derived the first time
    cg_die("%s: the derivation that made the variant fails the second time: %s", ls->name, dd.msg);
  return true;
}

LayerSpace *ls_pick(Arena *a, const Strategy *st, const Layer *l, const char *name, const RtDeviceInfo *dev, int n,
                    const char *const *names, const int64_t *vals, uint64_t random, LsPoint *pt, Diag *d) {
  SpaceDomain *doms = ARENA_ARRAY(a, SpaceDomain, (size_t)n + 1);
  int k = 0;
  for (int i = 0; i < n; i++)   // a choice given fixes the variant; with a random draw a parameter too
    if (random || is_choice(st, names[i])) doms[k++] = (SpaceDomain){names[i], vals[i], vals[i], 0, NULL};
  LayerSpace *ls = ls_new(a, st, l, name, k, doms, dev, d);
  if (!ls) return NULL;
  if (ls->refused) return diag_error(d, "%s: %s", name, ls->refused), NULL;
  bool ok = true;
  if (random) {
    bool exact;
    if (ls_count(ls, &exact) == 0) {
      StrBuf spec;   // the layer as the user may give it again
      sb_init(&spec);
      if (l->name[0]) sb_puts(&spec, l->name);
      else layer_format(&spec, l);
      ok = diag_reject(d, "%s: the space has no points (convgen space %s --strategy %s says why)", name, sb_str(&spec),
                       st->name);
      sb_free(&spec);
    }
    else if (ls_sample(ls, random, 1, pt) != 1)
      ok = diag_reject(d, "%s: no point of the space passes the lowering", name);
  } else {
    ok = ls_point(ls, n, names, vals, pt, d);
    const char *why = ok ? space_check_point(ls->v[pt->variant].space, a, pt->vals) : NULL;
    if (why) ok = diag_reject(d, "%s: the point is outside the space: the lowering rejects it: %s", name, why);
  }
  if (!ok) ls_free(ls), ls = NULL;
  return ls;
}

bool ls_compile_record(Arena *a, const char *strategy, const char *point, const Layer *l, const char *name,
                       const RtDeviceInfo *dev, bool limits, const CpOptions *o, CpResult *r, Diag *d) {
  const Strategy *st = st_strategy(strategy);
  if (!st) return diag_error(d, "unknown strategy '%s'", strategy);
  // only the point's variant derived: its choices fix it (all of a space's
  // variants took some 4 s a convolution of a tuned ResNet-50 to infer)
  const char *names[LS_POINT_MAX];
  int64_t vals[LS_POINT_MAX];
  int n = ls_split_point(a, point, names, vals, LS_POINT_MAX), k = 0;
  SpaceDomain *doms = ARENA_ARRAY(a, SpaceDomain, LS_POINT_MAX);
  for (int i = 0; i < n; i++)
    if (is_choice(st, names[i])) doms[k++] = (SpaceDomain){names[i], vals[i], vals[i], 0, NULL};
  LayerSpace *ls = ls_new(a, st, l, name, k, doms, dev, d);
  LsPoint pt;
  bool ok = ls && ls_parse_point(ls, a, point, &pt, d);
  const char *why = ok && limits ? space_check_point(ls->v[pt.variant].space, a, pt.vals) : NULL;
  if (why) ok = diag_reject(d, "%s", why);
  ok = ok && ls_compile(ls, a, &pt, o, r, d);
  ls_free(ls);
  return ok;
}
