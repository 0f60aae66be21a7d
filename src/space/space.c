/* space.c: making a parameter space from a program, ordering its parameters,
 * evaluating and printing its constraints.
 *
 * space_new parses the program with the problem sizes bound, so that every
 * length left symbolic is made of tuning parameters; each parameter gets a
 * variable whose range is its domain, and every constraint is rewritten over
 * those variables, so the simplifier can decide the ones that the domains
 * alone make true or false. The invariant after space_new: every kept
 * constraint mentions at least one parameter, and its level is the position
 * of its last parameter in enumeration order. This is the first stage of the
 * search (docs/design.md section 7): the tuner samples from here, then lowers.
 */
#include "space/space.h"

#include "compile/compile.h"

#include <stdlib.h>
#include <string.h>

enum {
  DOMAIN_MAX = 1 << 24,   // values in one domain: enumeration walks them all
  PARAMS_MAX = 64,        // tuning parameters of one program
};

int space_param_index(const Space *s, const char *name) {
  for (int i = 0; i < s->nparams; i++)
    if (strcmp(s->params[i].name, name) == 0) return i;
  return -1;
}

/* ---- Evaluation ------------------------------------------------------------- */

static int var_slot(const Space *s, const AExpr *v) {
  for (int i = 0; i < s->nparams; i++)
    if (s->params[i].var == v) return i;
  return space_param_index(s, v->name);
}

static bool eval_bin(AKind k, int64_t x, int64_t y, int64_t *out) {
  switch (k) {
  case AX_DIV:
  case AX_MOD:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    {
      int64_t q = x / y, r = x % y;
      if (r != 0 && (r < 0) != (y < 0)) q--, r += y;   // floor, as arith.h defines / and %
      *out = k == AX_DIV ? q : r;
    }
    return true;
  case AX_MIN: *out = x < y ? x : y; return true;
  case AX_MAX: *out = x > y ? x : y; return true;
  case AX_LT: *out = x < y; return true;
  case AX_LE: *out = x <= y; return true;
  case AX_EQ: *out = x == y; return true;
  default: cg_die("bad arith kind %d", (int)k);
  }
}

/* Like ax_eval, with parameters looked up by their slot: false when a value is
 * undefined (division by zero, overflow), which fails the constraint. */
bool space_eval(const Space *s, const AExpr *e, const int64_t *vals, int64_t *out) {
  int64_t x = 0, y = 0;
  switch (e->kind) {
  case AX_CST: *out = e->cst; return true;
  case AX_VAR: {
    int i = var_slot(s, e);
    cg_assert(i >= 0);
    *out = vals[i];
    return true;
  }
  case AX_ADD:
  case AX_MUL:
    *out = e->kind == AX_ADD ? 0 : 1;
    for (int i = 0; i < e->n; i++) {
      if (!space_eval(s, e->ops[i], vals, &x)) return false;
      if (e->kind == AX_ADD ? __builtin_add_overflow(*out, x, out) : __builtin_mul_overflow(*out, x, out))
        return false;
    }
    return true;
  case AX_AND:
    if (!space_eval(s, e->ops[0], vals, &x)) return false;
    if (x && !space_eval(s, e->ops[1], vals, &y)) return false;
    *out = x && y;
    return true;
  case AX_SEL:
    if (!space_eval(s, e->ops[0], vals, &x)) return false;
    return space_eval(s, e->ops[x ? 1 : 2], vals, out);
  default:
    if (!space_eval(s, e->ops[0], vals, &x) || !space_eval(s, e->ops[1], vals, &y)) return false;
    return eval_bin(e->kind, x, y, out);
  }
}

bool space_con_holds(const Space *s, const SpaceCon *c, const int64_t *vals) {
  int64_t l, r;
  if (!space_eval(s, c->lhs, vals, &l) || !space_eval(s, c->rhs, vals, &r)) return false;
  switch (c->kind) {
  case CON_DIVIDES: return r >= 1 && l % r == 0;
  case CON_LE: return l <= r;
  case CON_GE: return l >= r;
  case CON_EQ: return l == r;
  }
  return false;
}

static bool in_domain(const SpaceParam *p, int64_t v) {
  if (v < p->lo || v > p->hi) return false;
  if (!p->nvalues) return true;
  for (int k = 0; k < p->nvalues; k++)
    if (p->values[k] == v) return true;
  return false;
}

/* *why stays NULL when the point is outside a domain. */
bool space_satisfies(const Space *s, const int64_t *vals, const SpaceCon **why) {
  *why = NULL;
  if (s->empty) return false;
  for (int i = 0; i < s->nparams; i++)
    if (!in_domain(&s->params[i], vals[i])) return false;
  for (int i = 0; i < s->ncons; i++)
    if (!space_con_holds(s, &s->cons[i], vals)) return *why = &s->cons[i], false;
  return true;
}

/* ---- Collecting a constraint -------------------------------------------------- */

static const AExpr *over_params(Space *s, const AExpr *e) {
  const char *names[PARAMS_MAX];
  const AExpr *vars[PARAMS_MAX];
  for (int i = 0; i < s->nparams; i++) names[i] = s->params[i].name, vars[i] = s->params[i].var;
  return ax_subst(s->a, e, s->nparams, names, vars);
}

// "x" or "(x + 1)": an operand of %, which binds tighter than anything but an atom.
static const char *operand(Arena *a, const AExpr *e) {
  const char *t = ax_str(a, e);
  return e->kind == AX_CST || e->kind == AX_VAR ? t : arena_printf(a, "(%s)", t);
}

static const char *con_text(Arena *a, ConKind k, const AExpr *l, const AExpr *r) {
  switch (k) {
  case CON_DIVIDES: return arena_printf(a, "%s %% %s == 0", operand(a, l), operand(a, r));
  case CON_LE: return arena_printf(a, "%s <= %s", ax_str(a, l), ax_str(a, r));
  case CON_GE: return arena_printf(a, "%s >= %s", ax_str(a, l), ax_str(a, r));
  case CON_EQ: return arena_printf(a, "%s == %s", ax_str(a, l), ax_str(a, r));
  }
  cg_die("bad constraint kind %d", (int)k);
}

/* 1: true at every point of the domains, 0: false at every point, -1: it
 * depends on the point. The proofs use the variables' ranges (the domains). */
static int decide(const Space *s, const SpaceCon *c) {
  const AExpr *l = c->lhs, *r = c->rhs;
  if (l->kind == AX_CST && r->kind == AX_CST) return space_con_holds(s, c, NULL);
  switch (c->kind) {
  case CON_DIVIDES:
    if (r->hi < 1 || (l->lo >= 1 && r->lo > l->hi)) return 0;   // a positive number has no larger divisor
    return r->lo >= 1 && ax_prove_divisible(l, r) ? 1 : -1;
  case CON_LE: return ax_prove_le(l, r) ? 1 : ax_prove_lt(r, l) ? 0 : -1;
  case CON_GE: return ax_prove_le(r, l) ? 1 : ax_prove_lt(l, r) ? 0 : -1;
  case CON_EQ: return ax_equal(l, r) ? 1 : ax_prove_lt(l, r) || ax_prove_lt(r, l) ? 0 : -1;
  }
  return -1;
}

/* Past "LINE:COL" at q, or NULL. */
static const char *skip_pos(const char *q) {
  int parts = 0;
  for (; parts < 2 && *q >= '0' && *q <= '9'; parts++) {
    while (*q >= '0' && *q <= '9') q++;
    if (parts == 0 && *q++ != ':') return NULL;
  }
  return parts == 2 ? q : NULL;
}

/* The place in an origin: where "FILE:LINE:COL" (or "FILE:LINE:COL, LINE:COL, ...")
 * starts and how long it is. */
static const char *find_place(const Space *s, const char *origin, size_t *len) {
  size_t fl = strlen(s->in.file);
  if (fl == 0) return NULL;   // strstr would find "" everywhere, past the end too
  for (const char *q = strstr(origin, s->in.file); q; q = strstr(q + 1, s->in.file)) {
    const char *e = q + fl;
    int parts = 0;
    while (*e == ':' && e[1] >= '0' && e[1] <= '9' && parts < 2) {
      for (e++; *e >= '0' && *e <= '9'; e++) {}
      parts++;
    }
    while (parts == 2 && e[0] == ',' && e[1] == ' ' && skip_pos(e + 2)) e = skip_pos(e + 2);   // a list of places
    if (parts == 2) return *len = (size_t)(e - q), q;
  }
  return NULL;
}

/* The same condition found again: one constraint, every origin. Origins that
 * differ only in the place become one with a list of places. */
static void merge_origin(const Space *s, SpaceCon *c, const char *origin) {
  Arena *a = s->a;
  size_t l1, l2;
  const char *p1 = find_place(s, c->origin, &l1), *p2 = find_place(s, origin, &l2);
  if (strstr(c->origin, origin)) return;
  if (p1 && p2 && p1 - c->origin == p2 - origin && strncmp(c->origin, origin, (size_t)(p1 - c->origin)) == 0 &&
      strcmp(p1 + l1, p2 + l2) == 0) {
    const char *pos = p2 + strlen(s->in.file) + 1;   // "18:25"
    int keep = (int)(p1 + l1 - c->origin), add = (int)(p2 + l2 - pos);
    c->origin = arena_printf(a, "%.*s, %.*s%s", keep, c->origin, add, pos, p1 + l1);
    return;
  }
  c->origin = arena_printf(a, "%s; also %s", c->origin, origin);
}

static bool merge(const Space *s, SpaceCon *list, int n, const SpaceCon *c) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i].text, c->text) == 0) return merge_origin(s, &list[i], c->origin), true;
  return false;
}

static void append(Arena *a, SpaceCon **list, int *n, const SpaceCon *c) {
  SpaceCon *l = arena_extend(a, *list, (size_t)*n, sizeof *l);
  l[(*n)++] = *c;
  *list = l;
}

/* lhs and rhs are over the program's size variables; the parameters among them
 * are replaced by the variables whose ranges are their domains. */
void space_add_con(Space *s, ConKind kind, const AExpr *lhs, const AExpr *rhs, const char *origin) {
  lhs = over_params(s, lhs);
  rhs = over_params(s, rhs);
  SpaceCon c = {kind, lhs, rhs, con_text(s->a, kind, lhs, rhs), origin, -1};
  int verdict = decide(s, &c);
  if (verdict == 0) {
    if (!s->empty) s->empty = arena_printf(s->a, "%s is false (%s)", c.text, origin);
    return;
  }
  if (verdict == 1 && lhs->kind == AX_CST && rhs->kind == AX_CST) {
    s->nconst++;
    return;
  }
  if (verdict == 1) {
    if (!merge(s, s->implied, s->nimplied, &c)) append(s->a, &s->implied, &s->nimplied, &c);
  } else if (!merge(s, s->cons, s->ncons, &c)) {
    append(s->a, &s->cons, &s->ncons, &c);
  }
}

/* ---- Dependency order --------------------------------------------------------- */

static void mark_vars(const Space *s, const AExpr *e, bool *in) {
  if (e->kind == AX_VAR) {
    int i = var_slot(s, e);
    if (i >= 0) in[i] = true;
  }
  for (int i = 0; i < e->n; i++) mark_vars(s, e->ops[i], in);
}

/* before[u*n + v]: u is bound before v. A divisor comes after what it divides
 * (its candidates are then the divisors of a known number), the bounded side
 * of <= after its bound; variables on both sides make no edge. */
static void add_edges(const Space *s, const SpaceCon *c, bool *before) {
  int n = s->nparams;
  bool *l = calloc((size_t)n * 2, 1), *r = l + n;
  if (!l) cg_die("out of memory");
  mark_vars(s, c->lhs, l);
  mark_vars(s, c->rhs, r);
  bool *first = c->kind == CON_GE ? l : r, *then = c->kind == CON_GE ? r : l;
  if (c->kind == CON_DIVIDES) first = l, then = r;
  if (c->kind != CON_EQ)
    for (int u = 0; u < n; u++)
      for (int v = 0; v < n; v++)
        if (first[u] && !then[u] && then[v] && !first[v]) before[u * n + v] = true;
  free(l);
}

/* The next parameter: the first in declaration order with nothing unplaced
 * before it (the first unplaced one, when a cycle leaves none). */
static int next_param(int n, const bool *before, const bool *placed) {
  for (int v = 0; v < n; v++) {
    if (placed[v]) continue;
    bool ready = true;
    for (int u = 0; u < n && ready; u++) ready = placed[u] || !before[u * n + v];
    if (ready) return v;
  }
  for (int v = 0; v < n; v++)
    if (!placed[v]) return v;
  cg_die("no parameter left to place");
}

static void set_levels(Space *s) {
  bool *in = calloc((size_t)s->nparams + 1, 1);
  if (!in) cg_die("out of memory");
  for (int i = 0; i < s->ncons; i++) {
    memset(in, 0, (size_t)s->nparams);
    mark_vars(s, s->cons[i].lhs, in);
    mark_vars(s, s->cons[i].rhs, in);
    s->cons[i].level = -1;
    for (int k = 0; k < s->nparams; k++)
      if (in[k]) s->cons[i].level = k;
    cg_assert(s->cons[i].level >= 0);
  }
  free(in);
}

void space_order(Space *s) {
  int n = s->nparams;
  bool *before = calloc((size_t)n * (size_t)n + (size_t)n + 1, 1), *placed = before + (size_t)n * (size_t)n;
  if (!before) cg_die("out of memory");
  for (int i = 0; i < s->ncons; i++) add_edges(s, &s->cons[i], before);
  SpaceParam *order = ARENA_ARRAY(s->a, SpaceParam, n + 1);
  for (int k = 0; k < n; k++) {
    int v = next_param(n, before, placed);
    placed[v] = true;
    order[k] = s->params[v];
  }
  free(before);
  s->params = order;
  set_levels(s);
}

/* ---- Parameters and their domains ---------------------------------------------- */

static const SpaceDomain *find_domain(const SpaceInput *in, const char *name) {
  for (int i = 0; i < in->ndomains; i++)
    if (strcmp(in->domains[i].name, name) == 0) return &in->domains[i];
  return NULL;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* A domain given for a size: known, not bound, not empty, sizes >= 1. */
static bool check_domain(const Space *s, const SpaceDomain *dm, Diag *d) {
  const Program *p = s->prog;
  int i = 0;
  while (i < p->nsizes && strcmp(p->size_names[i], dm->name) != 0) i++;
  StrBuf sb;
  sb_init(&sb);
  for (int k = 0; k < p->nsizes; k++) sb_printf(&sb, "%s%s", k ? ", " : "", p->size_names[k]);
  bool ok = i < p->nsizes ||
            diag_error(d, "%s: no size '%s' (the program declares: %s)", s->in.file, dm->name, sb_str(&sb));
  sb_free(&sb);
  int64_t v;
  if (ok && ax_is_cst(p->sizes[i], &v))
    return diag_error(d, "%s: size '%s' is bound to %lld; a bound size is not a tuning parameter", s->in.file,
                      dm->name, (long long)v);
  for (int k = 0; ok && k < dm->nvalues; k++)
    if (dm->values[k] < 1) return diag_error(d, "%s: value %lld for '%s': a size is at least 1", s->in.file,
                                             (long long)dm->values[k], dm->name);
  if (ok && !dm->nvalues && (dm->lo < 1 || dm->lo > dm->hi))
    return diag_error(d, "%s: domain %lld..%lld for '%s': want 1 <= LO <= HI", s->in.file, (long long)dm->lo,
                      (long long)dm->hi, dm->name);
  if (ok && !dm->nvalues && dm->hi - dm->lo >= DOMAIN_MAX)
    return diag_error(d, "%s: domain %lld..%lld for '%s' has more than %d values", s->in.file, (long long)dm->lo,
                      (long long)dm->hi, dm->name, DOMAIN_MAX);
  return ok;
}

static void set_values(Arena *a, SpaceParam *p, const SpaceDomain *dm) {
  int64_t *v = ARENA_ARRAY(a, int64_t, dm->nvalues);
  memcpy(v, dm->values, sizeof *v * (size_t)dm->nvalues);
  qsort(v, (size_t)dm->nvalues, sizeof *v, cmp_i64);
  int n = 0;
  for (int k = 0; k < dm->nvalues; k++)
    if (!n || v[k] != v[n - 1]) v[n++] = v[k];
  p->values = v;
  p->nvalues = n;
  p->lo = v[0];
  p->hi = v[n - 1];
}

/* The parameters, in declaration order: every size the program leaves unbound. */
static bool make_params(Space *s, Diag *d) {
  const Program *p = s->prog;
  int64_t largest = 0, v;
  for (int i = 0; i < p->nsizes; i++)
    if (ax_is_cst(p->sizes[i], &v) && v > largest) largest = v;
  for (int i = 0; i < s->in.ndomains; i++)
    if (!check_domain(s, &s->in.domains[i], d)) return false;
  s->params = ARENA_ARRAY(s->a, SpaceParam, p->nsizes + 1);
  for (int i = 0; i < p->nsizes; i++) {
    if (ax_is_cst(p->sizes[i], &v)) continue;
    if (s->nparams == PARAMS_MAX)
      return diag_error(d, "%s: more than %d sizes without a value; bind some", s->in.file, PARAMS_MAX);
    SpaceParam *sp = &s->params[s->nparams++];
    const SpaceDomain *dm = find_domain(&s->in, p->size_names[i]);
    *sp = (SpaceParam){.name = p->size_names[i], .lo = 1, .hi = largest};
    if (dm && dm->nvalues) set_values(s->a, sp, dm);
    else if (dm) sp->lo = dm->lo, sp->hi = dm->hi;
    else if (!largest)
      return diag_error(d, "%s: no domain for '%s': bind the problem sizes or give one for it", s->in.file,
                        sp->name);
    sp->var = ax_var(s->a, sp->name, sp->lo, sp->hi);
  }
  return true;
}

static void copy_input(Space *s, const SpaceInput *in) {
  Arena *a = s->a;
  s->in = *in;
  s->in.file = arena_strdup(a, in->file);
  s->in.text = arena_strdup(a, in->text);
  const char **names = ARENA_ARRAY(a, const char *, in->nbind + 1);
  int64_t *vals = ARENA_ARRAY(a, int64_t, in->nbind + 1);
  for (int i = 0; i < in->nbind; i++) names[i] = arena_strdup(a, in->bnames[i]), vals[i] = in->bvals[i];
  s->in.bnames = names;
  s->in.bvals = vals;
  SpaceDomain *dms = ARENA_ARRAY(a, SpaceDomain, in->ndomains + 1);
  for (int i = 0; i < in->ndomains; i++) {
    dms[i] = in->domains[i];
    dms[i].name = arena_strdup(a, in->domains[i].name);
  }
  s->in.domains = dms;
  s->in.dev = in->dev ? &s->dev : NULL;
  if (in->dev) s->dev = *in->dev;
}

Space *space_new(Arena *a, const SpaceInput *in, Diag *d) {
  Space *s = ARENA_NEW(a, Space);
  s->a = a;
  s->step_budget = 1000000000;
  s->list_max = SPACE_EXACT_MAX;
  copy_input(s, in);
  CpInput cin = {s->in.file, s->in.text, in->nbind, s->in.bnames, s->in.bvals};
  CpOptions o = {.through = CP_INFER};   // the types, with the sizes left free, are what the parameters come from
  CpResult r;
  if (!cp_compile(a, &cin, &o, &r, d)) return NULL;
  s->prog = r.prog;
  if (!make_params(s, d)) return NULL;
  space_collect(s);
  space_order(s);
  space_groups(s);
  return s;
}

/* ---- Printing --------------------------------------------------------------------- */

static const char *domain_text(Arena *a, const SpaceParam *p) {
  if (!p->nvalues) return arena_printf(a, "%lld..%lld", (long long)p->lo, (long long)p->hi);
  StrBuf sb;
  sb_init(&sb);
  for (int k = 0; k < p->nvalues; k++) sb_printf(&sb, "%s%lld", k ? "," : "", (long long)p->values[k]);
  const char *t = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return t;
}

static void print_cons(StrBuf *sb, const SpaceCon *cons, int n) {
  int w = 0;
  for (int i = 0; i < n; i++)
    if ((int)strlen(cons[i].text) > w) w = (int)strlen(cons[i].text);
  for (int i = 0; i < n; i++) sb_printf(sb, "  %-*s  %s\n", w, cons[i].text, cons[i].origin);
}

void space_print(StrBuf *sb, const Space *s) {
  int wn = 0, wd = 0;
  for (int i = 0; i < s->nparams; i++) {
    int n = (int)strlen(s->params[i].name), dl = (int)strlen(domain_text(s->a, &s->params[i]));
    wn = n > wn ? n : wn;
    wd = dl > wd ? dl : wd;
  }
  sb_printf(sb, "parameters (%d), in enumeration order:\n", s->nparams);
  for (int i = 0; i < s->nparams; i++)
    sb_printf(sb, "  %-*s  %-*s  %s\n", wn, s->params[i].name, wd, domain_text(s->a, &s->params[i]),
              s->params[i].meaning);
  sb_printf(sb, "constraints (%d):\n", s->ncons);
  print_cons(sb, s->cons, s->ncons);
  if (s->nimplied) {
    sb_printf(sb, "implied by the domains, not checked (%d):\n", s->nimplied);
    print_cons(sb, s->implied, s->nimplied);
  }
  if (s->empty) sb_printf(sb, "the space is empty: %s\n", s->empty);
}
