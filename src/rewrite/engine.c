/* engine.c: positions in a program and the application of one rule at one.
 *
 * A position is a path of child indices from the body; rw_children fixes the
 * order (a call's arguments, then the body of the lambda reached through its
 * function's nested static functions). rw_replace rebuilds only the spine from
 * the root to the position, sharing every sibling. rw_apply then makes the new
 * program: it copies the rewritten tree once more, giving each lambda its own
 * Param objects, so that type inference on the new program never writes into
 * the old one (whose arena may be freed first) and a lambda that a rule
 * duplicated gets parameters of its own. Main invariant of the result: every
 * lambda parameter has an id unique in the program (the interpreter binds by
 * id) and a name that no other name of the program uses, so the printed text
 * parses back to the same program. Rewriting sits between parsing (the
 * high-level expression) and lowering (docs/ir.md), in the strategies.
 */
#include "rewrite/rules.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- Positions -------------------------------------------------------------- */

/* The lambda body reached through a function: a lambda's own body, or the one
 * inside a primitive's nested function (mapWrg[0, mapLcl[0, fun(x) -> b]]). */
static const Expr *reached_body(const Fun *f) {
  for (; f; f = f->f) {
    if (f->kind == F_LAMBDA) return f->body;
    if (f->kind != F_PRIM) return NULL;
  }
  return NULL;
}

int rw_children(const Expr *e, const Expr **out, int max) {
  if (e->kind != E_CALL) return 0;
  int n = 0;
  for (int i = 0; i < e->nargs; i++, n++)
    if (n < max) out[n] = e->args[i];
  const Expr *body = reached_body(e->fun);
  if (body) {
    if (n < max) out[n] = body;
    n++;
  }
  return n;
}

const Expr *rw_at(const Expr *root, const RwPath *p) {
  const Expr *e = root;
  for (int i = 0; i < p->n && e; i++) {
    const Expr *kids[17];
    int n = rw_children(e, kids, 17);
    int k = p->step[i];
    e = k >= 0 && k < n && k < 17 ? kids[k] : NULL;
  }
  return e;
}

const Fun *rw_with_nested(Arena *a, const Fun *like, const Fun *nested) {
  switch (prim_static(like->prim)) {
  case S_F: return ir_prim_f(a, like->prim, nested);
  case S_DF: return ir_prim_df(a, like->prim, like->dim, nested);
  case S_NF: return ir_prim_nf(a, like->prim, like->n, nested);
  default: cg_die("%s has no nested function", prim_name(like->prim));
  }
}

/* f with the lambda body it reaches replaced: new Funs along the chain. */
static const Fun *with_body(Arena *a, const Fun *f, const Expr *body) {
  if (f->kind == F_LAMBDA) return ir_lambda(a, f->nparams, f->params, body);
  return rw_with_nested(a, f, with_body(a, f->f, body));
}

static const Expr *replace_from(Arena *a, const Expr *e, const RwPath *p, int depth, const Expr *repl) {
  if (depth == p->n) return repl;
  const Expr *kids[17];
  int n = rw_children(e, kids, 17), k = p->step[depth];
  if (k < 0 || k >= n || k >= 17) return NULL;
  const Expr *child = replace_from(a, kids[k], p, depth + 1, repl);
  if (!child) return NULL;
  Expr *c;
  if (k == e->nargs) {
    c = (Expr *)ir_call(a, with_body(a, e->fun, child), e->nargs, e->args);
  } else {
    const Expr **args = ARENA_ARRAY(a, const Expr *, e->nargs);
    memcpy(args, e->args, sizeof *args * (size_t)e->nargs);
    args[k] = child;
    c = (Expr *)ir_call(a, e->fun, e->nargs, args);
  }
  c->line = e->line;  // made just now: the spine keeps its source positions for messages
  c->col = e->col;
  return c;
}

const Expr *rw_replace(Arena *a, const Expr *root, const RwPath *p, const Expr *repl) {
  return replace_from(a, root, p, 0, repl);
}

static void find_from(const Expr *e, const Rule *r, const AExpr *const *args, RwPath *cur, RwPath *out, int max,
                      int *count) {
  if (r->match(e, args)) {
    if (*count < max) out[*count] = *cur;
    (*count)++;
  }
  if (cur->n == RW_MAX_PATH) return;  // deeper positions cannot be named
  const Expr *kids[17];
  int n = rw_children(e, kids, 17);
  for (int i = 0; i < n && i < 17; i++) {
    cur->step[cur->n++] = i;
    find_from(kids[i], r, args, cur, out, max, count);
    cur->n--;
  }
}

int rw_find(const Expr *root, const Rule *r, const AExpr *const *args, RwPath *out, int max) {
  RwPath cur = {0};
  int count = 0;
  find_from(root, r, args, &cur, out, max, &count);
  return count;
}

const char *rw_path_str(Arena *a, const RwPath *p) {
  if (p->n == 0) return "/";
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < p->n; i++) sb_printf(&sb, "/%d", p->step[i]);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

bool rw_path_parse(const char *s, RwPath *out) {
  out->n = 0;
  s += strspn(s, " \t");
  if (*s != '/') return false;
  if (s[1] == 0 || strchr(" \t\r\n", s[1])) s++;  // the root
  while (*s == '/') {
    char *end;
    long k = strtol(s + 1, &end, 10);
    if (end == s + 1 || s[1] == '-' || s[1] == '+' || k > 16 || out->n == RW_MAX_PATH) return false;
    out->step[out->n++] = (int)k;
    s = end;
  }
  s += strspn(s, " \t\r\n");
  return *s == 0;
}

/* ---- Names ------------------------------------------------------------------- */

typedef struct Names {
  const char **v;  // every name in use (heap array; the strings live elsewhere)
  int n, cap;
} Names;

static bool names_has(const Names *ns, const char *s) {
  for (int i = 0; i < ns->n; i++)
    if (strcmp(ns->v[i], s) == 0) return true;
  return false;
}

static void names_add(Names *ns, const char *s) {
  if (ns->n == ns->cap) {
    ns->cap = ns->cap ? 2 * ns->cap : 64;
    ns->v = realloc(ns->v, sizeof *ns->v * (size_t)ns->cap);
    if (!ns->v) cg_die("out of memory");
  }
  ns->v[ns->n++] = s;
}

static void names_of_fun(Names *ns, const Fun *f);

static void names_of_expr(Names *ns, const Expr *e) {
  if (e->kind != E_CALL) return;
  names_of_fun(ns, e->fun);
  for (int i = 0; i < e->nargs; i++) names_of_expr(ns, e->args[i]);
}

static void names_of_fun(Names *ns, const Fun *f) {
  for (; f && f->kind == F_PRIM; f = f->f) {}
  if (!f || f->kind != F_LAMBDA) return;
  for (int i = 0; i < f->nparams; i++) names_add(ns, f->params[i]->name);
  names_of_expr(ns, f->body);
}

/* Names a new parameter must not take: the program's sizes, user functions,
 * inputs and lambda parameters, and the words of the text form. */
static void collect_names(Names *ns, const Program *p, const Expr *body) {
  static const char *const words[] = {"size", "userfun", "input", "const", "workgroup", "out", "fun", "let", "in",
                                      "clamp", "float", "int", "float2", "float3", "float4", "float8", "float16"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) names_add(ns, words[i]);
  for (int i = 0; i < P_COUNT; i++) names_add(ns, prim_name((Prim)i));
  for (int i = 0; i < p->nsizes; i++) names_add(ns, p->size_names[i]);
  for (int i = 0; i < p->nufs; i++) names_add(ns, p->ufs[i]->name);
  for (int i = 0; i < p->ninputs; i++) names_add(ns, p->inputs[i]->name);
  for (int i = 0; i < p->nconsts; i++) names_add(ns, p->consts[i]->name);
  names_of_expr(ns, body);
}

/* "y" with id 17 -> "y17"; "acc3" -> "acc17"; then "_1", "_2"... if taken. */
static const char *fresh_name(Arena *a, Names *ns, const char *old, int id) {
  size_t len = strlen(old);
  while (len > 0 && old[len - 1] >= '0' && old[len - 1] <= '9') len--;
  const char *base = len ? arena_strndup(a, old, len) : "x";
  const char *s = arena_printf(a, "%s%d", base, id);
  for (int k = 1; names_has(ns, s); k++) s = arena_printf(a, "%s%d_%d", base, id, k);
  names_add(ns, s);
  return s;
}

/* ---- The new program: a copy with its own parameters ----------------------- */

typedef struct Bind {
  const Param *old;
  Param *new;
  const struct Bind *up;
} Bind;

typedef struct Renew {
  Arena *a;
  const Program *prog;   // the program rewritten (its inputs stay shared)
  bool *seen;            // old ids already given to a copied parameter
  int next_id;           // the next fresh id
  Names names;
  const Param *escaped;  // a parameter used outside its lambda: a rule bug
  int nadopted;          // const arrays a rule made (Param.values, not declared yet): the new program's
  const Param *adopted_old[RW_MAX_NEW_CONSTS];
  Param *adopted[RW_MAX_NEW_CONSTS];
} Renew;

static const Expr *copy_expr(Renew *r, const Expr *e, const Bind *b);

/* Does a name in scope (an enclosing lambda's parameter or an input) read as
 * `name`? A parameter that shadows one could capture a reference a rule moved
 * under it, once the program is printed and parsed again. */
static bool shadows(const Renew *r, const char *name, const Bind *b) {
  for (; b; b = b->up)
    if (strcmp(b->new->name, name) == 0) return true;
  for (int i = 0; i < r->prog->ninputs; i++)
    if (strcmp(r->prog->inputs[i]->name, name) == 0) return true;
  for (int i = 0; i < r->prog->nconsts; i++)
    if (strcmp(r->prog->consts[i]->name, name) == 0) return true;
  return false;
}

static Param *copy_param(Renew *r, const Param *p, const Bind *b) {
  Param *q = ir_param(r->a, p->name, NULL);
  bool keep = p->id >= 0 && p->id < r->prog->nparams_total && !r->seen[p->id];
  if (keep) {
    q->id = p->id;
    r->seen[p->id] = true;
  } else {  // made by the rule, or a second copy of a lambda the rule duplicated
    q->id = r->next_id++;
  }
  if (!keep || shadows(r, p->name, b)) q->name = fresh_name(r->a, &r->names, p->name, q->id);
  return q;
}

static const Fun *copy_lambda(Renew *r, const Fun *f, const Bind *b) {
  Param *ps[16];
  Bind binds[16];
  cg_assert(f->nparams <= 16);
  for (int i = 0; i < f->nparams; i++) {
    ps[i] = copy_param(r, f->params[i], i ? &binds[i - 1] : b);
    binds[i] = (Bind){f->params[i], ps[i], i ? &binds[i - 1] : b};
  }
  return ir_lambda(r->a, f->nparams, ps, copy_expr(r, f->body, &binds[f->nparams - 1]));
}

static const Fun *copy_fun(Renew *r, const Fun *f, const Bind *b) {
  if (f->kind == F_LAMBDA) return copy_lambda(r, f, b);
  if (f->kind == F_USER || !f->f) return f;  // immutable and parameter-free: shared
  return rw_with_nested(r->a, f, copy_fun(r, f->f, b));
}

/* A const array that a rule made (Matrices of rules_winograd.c): declared by
 * the new program, under its name unless that is taken, with an id of its
 * own; every reference to it the same one. */
static Param *adopt_const(Renew *r, const Param *p) {
  for (int i = 0; i < r->nadopted; i++)
    if (r->adopted_old[i] == p) return r->adopted[i];
  cg_assert(r->nadopted < RW_MAX_NEW_CONSTS);
  Param *q = ir_param(r->a, p->name, p->type);
  q->values = p->values;
  q->id = r->next_id++;
  if (names_has(&r->names, p->name)) q->name = fresh_name(r->a, &r->names, p->name, q->id);
  else names_add(&r->names, p->name);
  r->adopted_old[r->nadopted] = p;
  r->adopted[r->nadopted++] = q;
  return q;
}

static Param *bound(Renew *r, Param *p, const Bind *b) {
  for (; b; b = b->up)
    if (b->old == p) return b->new;
  for (int i = 0; i < r->prog->ninputs; i++)
    if (r->prog->inputs[i] == p) return p;
  for (int i = 0; i < r->prog->nconsts; i++)
    if (r->prog->consts[i] == p) return p;
  if (p->values) return adopt_const(r, p);
  if (!r->escaped) r->escaped = p;
  return p;
}

static const Expr *copy_expr(Renew *r, const Expr *e, const Bind *b) {
  Expr *c;
  switch (e->kind) {
  case E_PARAM: c = (Expr *)ir_ref(r->a, bound(r, e->param, b)); break;
  case E_LIT: c = (Expr *)ir_lit(r->a, e->lit, e->lit_is_int); break;
  case E_CALL: {
    const Expr *args[16];
    cg_assert(e->nargs <= 16);
    for (int i = 0; i < e->nargs; i++) args[i] = copy_expr(r, e->args[i], b);
    c = (Expr *)ir_call(r->a, copy_fun(r, e->fun, b), e->nargs, args);
    break;
  }
  default: cg_die("bad expression kind %d", e->kind);
  }
  c->line = e->line;  // made just now: keep the source position for messages
  c->col = e->col;
  return c;
}

static Program *new_program(Arena *a, const Program *p, const Expr *body, const Param **escaped) {
  Program *np = ARENA_NEW(a, Program);
  *np = *p;  // sizes, user functions, inputs and workgroup are shared (immutable)
  Renew r = {.a = a, .prog = p, .next_id = p->nparams_total};
  r.seen = ARENA_ARRAY(a, bool, p->nparams_total > 0 ? p->nparams_total : 1);
  collect_names(&r.names, p, body);
  np->body = copy_expr(&r, body, NULL);
  np->nparams_total = r.next_id;
  if (r.nadopted) {   // the program's const arrays, then the rule's
    np->consts = ARENA_ARRAY(a, Param *, p->nconsts + r.nadopted);
    for (int i = 0; i < p->nconsts; i++) np->consts[i] = p->consts[i];
    for (int i = 0; i < r.nadopted; i++) np->consts[p->nconsts + i] = r.adopted[i];
    np->nconsts = p->nconsts + r.nadopted;
  }
  free(r.names.v);
  *escaped = r.escaped;
  return np;
}

/* ---- Application --------------------------------------------------------- */

static const AExpr *find_var(const AExpr *e, const char *name) {
  if (e->kind == AX_VAR) return strcmp(e->name, name) == 0 ? e : NULL;
  for (int i = 0; i < e->n; i++) {
    const AExpr *v = find_var(e->ops[i], name);
    if (v) return v;
  }
  return NULL;
}

/* A rule argument may name a tuning parameter the program does not declare
 * (split[tile]); it becomes a size of the new program, so that the printed
 * text declares it and parses back. */
static void declare_args(Arena *a, Program *np, const Rule *r, const AExpr *const *args) {
  for (int i = 0; i < r->nargs; i++) {
    const char *names[16];
    int n = ax_vars(args[i], names, 16);
    for (int k = 0; k < n && k < 16; k++) {
      bool known = false;
      for (int j = 0; j < np->nsizes && !known; j++) known = strcmp(np->size_names[j], names[k]) == 0;
      if (known) continue;
      const char **sn = arena_extend(a, np->size_names, (size_t)np->nsizes, sizeof *sn);
      const AExpr **sv = arena_extend(a, np->sizes, (size_t)np->nsizes, sizeof *sv);
      sn[np->nsizes] = names[k];
      sv[np->nsizes] = find_var(args[i], names[k]);
      np->size_names = sn;
      np->sizes = sv;
      np->nsizes++;
    }
  }
}

/* A rule may bring a user function of its own (copy's id): declare each the
 * program lacks, so that the printed text declares it and parses back. A
 * different function of the same name would make that text ambiguous: its
 * name is returned (NULL when all is well). */
static const char *declare_fun_ufs(Arena *a, Program *np, const Fun *f);

static const char *declare_user_funs(Arena *a, Program *np, const Expr *e) {
  if (e->kind != E_CALL) return NULL;
  const char *clash = declare_fun_ufs(a, np, e->fun);
  for (int i = 0; i < e->nargs && !clash; i++) clash = declare_user_funs(a, np, e->args[i]);
  return clash;
}

/* A user function's body without blanks, its parameters named by position
 * ("return#0;"): two functions that differ only in those are the same. */
static void body_shape(StrBuf *sb, const UserFun *f) {
  for (const char *s = f->body; *s;) {
    if (isalpha((unsigned char)*s) || *s == '_') {
      const char *e = s;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      int i = 0;
      while (i < f->nparams && !(strlen(f->pnames[i]) == (size_t)(e - s) && strncmp(f->pnames[i], s, (size_t)(e - s)) == 0)) i++;
      if (i < f->nparams) sb_printf(sb, "#%d", i);
      else sb_printf(sb, "%.*s", (int)(e - s), s);
      s = e;
    } else {
      if (!isspace((unsigned char)*s)) sb_putc(sb, *s);
      s++;
    }
  }
}

static bool same_user_fun(const UserFun *x, const UserFun *y) {
  if (x == y) return true;
  if (x->nparams != y->nparams || !ty_equal(x->ret, y->ret)) return false;
  for (int i = 0; i < x->nparams; i++)
    if (!ty_equal(x->ptypes[i], y->ptypes[i])) return false;
  StrBuf bx, by;
  sb_init(&bx), sb_init(&by);
  body_shape(&bx, x), body_shape(&by, y);
  bool same = strcmp(sb_str(&bx), sb_str(&by)) == 0;
  sb_free(&bx), sb_free(&by);
  return same;
}

static const char *declare_fun_ufs(Arena *a, Program *np, const Fun *f) {
  if (!f) return NULL;
  if (f->kind == F_LAMBDA) return declare_user_funs(a, np, f->body);
  if (f->kind == F_PRIM) return declare_fun_ufs(a, np, f->f);
  for (int i = 0; i < np->nufs; i++)
    if (strcmp(np->ufs[i]->name, f->uf->name) == 0)
      return same_user_fun(np->ufs[i], f->uf) ? NULL : f->uf->name;
  UserFun **ufs = arena_extend(a, np->ufs, (size_t)np->nufs, sizeof *ufs);
  ufs[np->nufs++] = (UserFun *)f->uf;
  np->ufs = ufs;
  return NULL;
}

static bool args_ok(Arena *a, const Rule *r, const AExpr *const *args, Diag *d) {
  for (int i = 0; i < r->nargs; i++)
    if (!args || !args[i]) {
      StrBuf sb;
      sb_init(&sb);
      for (int k = 0; k < r->nargs; k++) sb_printf(&sb, "%s%s", k ? "; " : "", r->arg_names[k]);
      const char *list = arena_strdup(a, sb_str(&sb));
      sb_free(&sb);
      return diag_error(d, "rule '%s' takes %d argument%s (%s)", r->name, r->nargs, r->nargs == 1 ? "" : "s", list);
    }
  return true;
}

static const char *short_text(Arena *a, const Expr *e) {
  const char *s = ir_expr_str(a, e);
  size_t n = strcspn(s, "\n");
  return n > 60 ? arena_printf(a, "%.60s...", s) : arena_strndup(a, s, n);
}

Program *rw_apply(Arena *a, const Program *prog, const Rule *r, const AExpr *const *args, const RwPath *p, Diag *d) {
  if (!args_ok(a, r, args, d)) return NULL;
  const char *where = rw_path_str(a, p);
  const Expr *at = rw_at(prog->body, p);
  if (!at) return diag_error(d, "rule '%s': no expression at %s", r->name, where), NULL;
  if (!at->type) cg_die("rw_apply needs a type-inferred program");
  if (!r->match(at, args))
    return diag_error(d, "rule '%s' does not apply at %s ('%s')", r->name, where, short_text(a, at)), NULL;
  const Expr *body = rw_replace(a, prog->body, p, r->build(a, at, args));
  const Param *escaped;
  Program *np = new_program(a, prog, body, &escaped);
  declare_args(a, np, r, args);
  const char *clash = declare_user_funs(a, np, np->body);
  if (clash)
    return diag_error(d, "rule '%s' brings a user function '%s' but the program has another of that name", r->name,
                      clash),
           NULL;
  if (escaped)
    return diag_error(d, "rule '%s' produced an ill-scoped program at %s: '%s' is used outside its lambda", r->name,
                      where, escaped->name),
           NULL;
  Diag td = {0};
  if (!ir_infer(a, np, &td))
    return diag_error(d, "rule '%s' produced an ill-typed program at %s: %s", r->name, where, td.msg), NULL;
  return np;
}

Program *rw_renew(Arena *a, const Program *prog, Diag *d) {
  const Param *escaped;
  Program *np = new_program(a, prog, prog->body, &escaped);
  const char *clash = declare_user_funs(a, np, np->body);
  if (clash) return diag_error(d, "a user function '%s' is declared twice, differently", clash), NULL;
  if (escaped) return diag_error(d, "an ill-scoped program: '%s' is used outside its lambda", escaped->name), NULL;
  Diag td = {0};
  if (!ir_infer(a, np, &td)) return diag_error(d, "an ill-typed program: %s", td.msg), NULL;
  return np;
}
