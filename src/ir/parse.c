/* parse.c: reads the text form of a program (docs/ir.md) into IR nodes.
 *
 * A hand-written lexer and recursive-descent parser. Names are resolved while
 * parsing: primitives first, then user functions, then parameters from the
 * innermost scope out; so an undefined name is reported at its position.
 * Size variables bound by the caller (-p N=1024) become constants here, which
 * makes every size of the program concrete when all are bound.
 * Every error is "file:line:col: message" and stops the parse.
 */
#include "ir/ir.h"
#include "ir/interp.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum Tok {
  T_EOF, T_IDENT, T_INT, T_FLOAT,
  T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
  T_COMMA, T_COLON, T_EQ, T_ARROW, T_PIPE, T_MINUS, T_OTHER,
} Tok;

typedef struct Parser {
  Arena *a;
  Diag *d;
  const char *file;        // for messages
  const char *src;         // whole text
  const char *p;           // start of the current token
  const char *q;           // end of the current token
  int line, col;           // position of the current token
  const char *loc_at;      // the last position located, at loc_line:loc_col
  int loc_line, loc_col;
  int depth;               // of parse_expr, parse_fun and parse_type calls, bounded
  int *slots, nslots;      // the size names' hash table (size_slot)
  Tok tok;                 // current token
  Program *prog;
  int nbind;               // -p bindings
  const char *const *bnames;
  const int64_t *bvals;
  bool *bused;             // which bindings matched a declared size
  Param *scope[256];       // parameters in scope, innermost last
  int nscope;
  const AExpr *idx_vars[2];  // inside gather/scatter index functions
} Parser;

/* ---- Lexer ------------------------------------------------------------------ */

static void skip_space(const char **s) {
  for (;;) {
    while (**s && isspace((unsigned char)**s)) (*s)++;
    if (**s == '#' || (**s == '/' && (*s)[1] == '/')) {
      while (**s && **s != '\n') (*s)++;
      continue;
    }
    break;
  }
}

/* Line and column of a position, counted on from the last position located
 * (tokens come in order, so the whole text is walked about once), or from
 * the start for a position before it. */
static void locate(Parser *ps, const char *at) {
  if (!ps->loc_at || at < ps->loc_at) ps->loc_at = ps->src, ps->loc_line = 1, ps->loc_col = 1;
  for (const char *c = ps->loc_at; c < at; c++) {
    if (*c == '\n') ps->loc_line++, ps->loc_col = 1;
    else ps->loc_col++;
  }
  ps->loc_at = at;
  ps->line = ps->loc_line;
  ps->col = ps->loc_col;
}

static void next(Parser *ps) {
  const char *s = ps->q;
  skip_space(&s);
  ps->p = s;
  locate(ps, s);
  if (!*s) {
    ps->tok = T_EOF;
    ps->q = s;
    return;
  }
  if (isalpha((unsigned char)*s) || *s == '_') {
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    ps->tok = T_IDENT;
  } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
    ps->tok = T_INT;
    while (isdigit((unsigned char)*s)) s++;
    if (*s == '.' || *s == 'e' || *s == 'E') {
      ps->tok = T_FLOAT;
      strtod(ps->p, (char **)&s);
    }
    if (*s == 'f') ps->tok = T_FLOAT, s++;
  } else if (s[0] == '-' && s[1] == '>') {
    ps->tok = T_ARROW, s += 2;
  } else if (s[0] == '|' && s[1] == '>') {
    ps->tok = T_PIPE, s += 2;
  } else {
    static const char punct[] = "()[]{},:=-";
    static const Tok kinds[] = {T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE,
                                T_RBRACE, T_COMMA, T_COLON, T_EQ, T_MINUS};
    const char *k = strchr(punct, *s);
    ps->tok = k ? kinds[k - punct] : T_OTHER;
    s++;
  }
  ps->q = s;
}

/* The value of a run of digits, saturated at INT64_MAX: far above every range
 * a caller allows, so a literal too long for any integer is refused as out of
 * range instead of wrapping. */
static int64_t digits_value(const char *from, const char *to) {
  int64_t v = 0;
  for (const char *c = from; c < to; c++) {
    if (v > (INT64_MAX - 9) / 10) return INT64_MAX;
    v = v * 10 + (*c - '0');
  }
  return v;
}

static const char *tok_text(Parser *ps) {
  if (ps->tok == T_EOF) return "end of input";
  return arena_printf(ps->a, "'%.*s'", (int)(ps->q - ps->p), ps->p);
}

static bool error_here(Parser *ps, const char *fmt, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, what);
  return diag_error(ps->d, "%s:%d:%d: %s", ps->file, ps->line, ps->col, msg);
}

static bool expect(Parser *ps, Tok t, const char *what) {
  if (ps->tok == t) {
    next(ps);
    return true;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "expected %s, found %%s", what);
  return error_here(ps, buf, tok_text(ps));
}

static bool is_word(Parser *ps, const char *w) {
  size_t n = strlen(w);
  return ps->tok == T_IDENT && (size_t)(ps->q - ps->p) == n && strncmp(ps->p, w, n) == 0;
}

static char *ident(Parser *ps) {
  if (ps->tok != T_IDENT) {
    error_here(ps, "expected a name, found %s", tok_text(ps));
    return NULL;
  }
  char *s = arena_strndup(ps->a, ps->p, (size_t)(ps->q - ps->p));
  next(ps);
  return s;
}

static const char *const KEYWORDS[] = {"size",  "userfun", "input", "const", "workgroup", "out",
                                       "fun",   "let",     "in",    "clamp", "int",       NULL};

static bool is_reserved(const char *name) {
  Prim p;
  for (int i = 0; KEYWORDS[i]; i++)
    if (strcmp(KEYWORDS[i], name) == 0) return true;
  return elem_lookup(name) || prim_lookup(name, &p);
}

/* ---- Sizes ------------------------------------------------------------------ */

/* Room for element n of an array that grows by doubling in the arena: it moves
 * when n is 0 or a power of two, so n appends copy O(n) elements, not O(n^2). */
static void *grow(Arena *a, void *old, int n, size_t size) {
  if (n & (n - 1)) return old;
  void *p = arena_alloc(a, (size_t)(n ? 2 * n : 1) * size);
  if (n) memcpy(p, old, (size_t)n * size);
  return p;
}

/* The size names in a hash table (open addressing; a slot holds index + 1),
 * kept under half full: a program may declare tens of thousands. */
static int *size_slot(Parser *ps, const char *name) {
  size_t mask = (size_t)ps->nslots - 1, h = (size_t)cg_hash_str(name) & mask;
  while (ps->slots[h] && strcmp(ps->prog->size_names[ps->slots[h] - 1], name) != 0) h = (h + 1) & mask;
  return &ps->slots[h];
}

static void add_size_name(Parser *ps, int index) {
  if (2 * (index + 1) > ps->nslots) {
    ps->nslots = ps->nslots ? 2 * ps->nslots : 64;
    ps->slots = ARENA_ARRAY(ps->a, int, ps->nslots);
    for (int i = 0; i < index; i++) *size_slot(ps, ps->prog->size_names[i]) = i + 1;
  }
  *size_slot(ps, ps->prog->size_names[index]) = index + 1;
}

static const AExpr *lookup_size(void *ctx, const char *name) {
  Parser *ps = ctx;
  for (int i = 0; i < 2; i++)
    if (ps->idx_vars[i] && strcmp(ps->idx_vars[i]->name, name) == 0) return ps->idx_vars[i];
  int slot = ps->nslots ? *size_slot(ps, name) : 0;
  return slot ? ps->prog->sizes[slot - 1] : NULL;
}

/* Every integer literal of the size expression text [from, to) fits the int
 * that the kernels index with (the arithmetic takes any int64). */
static bool check_size_literals(Parser *ps, const char *from, const char *to) {
  for (const char *c = from; c < to;) {
    const char *start = c;
    if (isalpha((unsigned char)*c) || *c == '_') {
      while (c < to && (isalnum((unsigned char)*c) || *c == '_')) c++;
    } else if (isdigit((unsigned char)*c)) {
      while (c < to && isdigit((unsigned char)*c)) c++;
      if (digits_value(start, c) > INT32_MAX) {
        locate(ps, start);
        return error_here(ps, "the size %s is more than 2147483647, the largest int (the kernels index with int)",
                          arena_strndup(ps->a, start, (size_t)(c - start)));
      }
    } else {
      c++;
    }
  }
  return true;
}

/* Size expressions are read by the arithmetic parser straight from the text. */
static const AExpr *parse_aexpr(Parser *ps) {
  const char *end = NULL;
  Diag d = {0};
  const AExpr *e = ax_parse(ps->a, ps->p, &end, lookup_size, ps, &d);
  const char *stop = end ? end : ps->p;   // on an error: where it is, and the constant that starts there
  while (!e && isdigit((unsigned char)*stop)) stop++;
  if (!check_size_literals(ps, ps->p, stop)) return NULL;
  if (!e) {
    diag_error(ps->d, "%s:%d:%d: %s", ps->file, ps->line, ps->col, d.msg);
    return NULL;
  }
  ps->q = end;
  next(ps);
  return e;
}

/* ---- Types ------------------------------------------------------------------ */

/* parse_type, parse_fun and parse_expr (every recursion of the parser goes
 * through one of them) count how deep they are nested, so that hostile input
 * ends in a message instead of the stack's end. */
static bool enter(Parser *ps) {
  if (++ps->depth <= IR_MAX_DEPTH) return true;
  return error_here(ps, "the program is nested more than %s deep (parentheses, calls, functions and types)",
                    arena_printf(ps->a, "%d", IR_MAX_DEPTH));
}

static const Type *read_type(Parser *ps);
static const Fun *read_fun(Parser *ps);
static const Expr *read_expr(Parser *ps);

static const Type *parse_type(Parser *ps) {
  const Type *t = enter(ps) ? read_type(ps) : NULL;
  ps->depth--;
  return t;
}

static const Fun *parse_fun(Parser *ps) {
  const Fun *f = enter(ps) ? read_fun(ps) : NULL;
  ps->depth--;
  return f;
}

static const Expr *parse_expr(Parser *ps) {
  const Expr *e = enter(ps) ? read_expr(ps) : NULL;
  ps->depth--;
  return e;
}

/* An element type's scalar (its name, "float") or vector (the name and the
 * width, "float4"); a storage type (half) has its scalar only. */
static const Type *read_elem_type(Parser *ps) {
  static const int widths[] = {2, 3, 4, 8, 16};
  for (int k = 0; k < ELEM_COUNT; k++) {
    const ElemType *et = elem_type((ElemKind)k);
    if (is_word(ps, et->name)) return next(ps), ty_scalar(et);
    if (elem_is_storage(et)) continue;   // half: no vectors of a storage type yet
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
      char buf[32];
      snprintf(buf, sizeof buf, "%s%d", et->name, widths[i]);
      if (is_word(ps, buf)) return next(ps), ty_vec(ps->a, et, widths[i]);
    }
  }
  return NULL;
}

static const Type *read_type(Parser *ps) {
  const Type *t = read_elem_type(ps);
  if (t) return t;
  if (is_word(ps, "int")) return next(ps), ty_int();
  if (ps->tok == T_LPAREN) {
    next(ps);
    const Type *fields[16];
    int n = 0;
    do {
      if (n && !expect(ps, T_COMMA, "','")) return NULL;
      if (n == 16) return error_here(ps, "%s: a tuple has at most 16 fields", "type"), NULL;
      if (!(fields[n++] = parse_type(ps))) return NULL;
    } while (ps->tok == T_COMMA);
    if (!expect(ps, T_RPAREN, "')' after tuple type")) return NULL;
    return ty_tuple(ps->a, n, fields);
  }
  if (ps->tok == T_LBRACK) {
    next(ps);
    const Type *elem = parse_type(ps);
    if (!elem || !expect(ps, T_RBRACK, "']' after array element type")) return NULL;
    const AExpr *len = parse_aexpr(ps);
    return len ? ty_array(ps->a, elem, len) : NULL;
  }
  error_here(ps, "expected a type (float, int, floatN, (T, U) or [T]n), found %s", tok_text(ps));
  return NULL;
}

/* ---- Expressions --------------------------------------------------------- */

static Param *find_param(Parser *ps, const char *name) {
  for (int i = ps->nscope - 1; i >= 0; i--)
    if (strcmp(ps->scope[i]->name, name) == 0) return ps->scope[i];
  return NULL;
}

static UserFun *find_userfun(Parser *ps, const char *name) {
  for (int i = 0; i < ps->prog->nufs; i++)
    if (strcmp(ps->prog->ufs[i]->name, name) == 0) return ps->prog->ufs[i];
  return NULL;
}

static Param *new_param(Parser *ps, const char *name, const Type *type) {
  if (is_reserved(name) || find_userfun(ps, name)) {
    error_here(ps, "'%s' is a primitive, keyword or user function and cannot name a parameter", name);
    return NULL;
  }
  Param *p = ir_param(ps->a, name, type);
  p->id = ps->prog->nparams_total++;
  return p;
}

static bool push_scope(Parser *ps, Param *p) {
  if (ps->nscope == (int)(sizeof ps->scope / sizeof ps->scope[0]))
    return error_here(ps, "%s: parameters nested too deeply", "scope");
  ps->scope[ps->nscope++] = p;
  return true;
}

static Expr *at(const Expr *e, int line, int col) {
  Expr *m = (Expr *)e;  // freshly made by this parser: positions are set once here
  m->line = line;
  m->col = col;
  return m;
}

static const Fun *parse_lambda(Parser *ps) {
  next(ps);  // fun
  if (!expect(ps, T_LPAREN, "'(' after fun")) return NULL;
  Param *params[16];
  int n = 0, saved = ps->nscope;
  do {
    if (n && !expect(ps, T_COMMA, "','")) return NULL;
    if (n == 16) return error_here(ps, "%s: at most 16 parameters", "fun"), NULL;
    const char *name = ident(ps);
    if (!name || !(params[n] = new_param(ps, name, NULL)) || !push_scope(ps, params[n])) return NULL;
    n++;
  } while (ps->tok == T_COMMA);
  if (!expect(ps, T_RPAREN, "')' after parameters") || !expect(ps, T_ARROW, "'->' after fun(...)"))
    return NULL;
  const Expr *body = parse_expr(ps);
  ps->nscope = saved;
  return body ? ir_lambda(ps->a, n, params, body) : NULL;
}

/* The integer literal of the current token, in [0, hi]; out of range, `range`
 * (a format with one %s for the literal) says what it should be. */
static bool parse_int_tok(Parser *ps, int64_t hi, const char *range, int *out) {
  if (ps->tok != T_INT) return error_here(ps, "expected an integer, found %s", tok_text(ps));
  int64_t v = digits_value(ps->p, ps->q);
  if (v > hi) return error_here(ps, range, arena_strndup(ps->a, ps->p, (size_t)(ps->q - ps->p)));
  *out = (int)v;
  next(ps);
  return true;
}

/* A number: an int literal within int's range, or a float literal within
 * float's (the types the text form gives them, docs/ir.md). */
static bool parse_number_kind(Parser *ps, double *out, bool *is_int) {
  bool neg = ps->tok == T_MINUS;
  if (neg) next(ps);
  if (ps->tok != T_INT && ps->tok != T_FLOAT) return error_here(ps, "expected a number, found %s", tok_text(ps));
  *is_int = ps->tok == T_INT;
  const char *text = arena_printf(ps->a, "%s%.*s", neg ? "-" : "", (int)(ps->q - ps->p), ps->p);
  *out = strtod(ps->p, NULL);
  if (neg) *out = -*out;
  if (*is_int && digits_value(ps->p, ps->q) > (neg ? -(int64_t)INT32_MIN : INT32_MAX))
    return error_here(ps, "the integer literal %s is out of range for int (-2147483648 to 2147483647)", text);
  if (!*is_int && !(fabs(*out) <= elem_fp32()->max))   // a literal is of the default element type
    return error_here(ps, "the float literal %s is out of range for float (at most 3.4e38 in magnitude)", text);
  next(ps);
  return true;
}

static bool parse_number(Parser *ps, double *out) {
  bool is_int;
  return parse_number_kind(ps, out, &is_int);
}

static const Fun *parse_index_fun(Parser *ps, Prim p) {
  if (!expect(ps, T_LPAREN, "'(' starting the index function (i, n) -> expr")) return NULL;
  const char *i = ident(ps);
  if (!i || !expect(ps, T_COMMA, "','")) return NULL;
  const char *n = ident(ps);
  if (!n || !expect(ps, T_RPAREN, "')'") || !expect(ps, T_ARROW, "'->'")) return NULL;
  ps->idx_vars[0] = ax_var(ps->a, i, 0, AX_INF);
  ps->idx_vars[1] = ax_var(ps->a, n, 1, AX_INF);
  const AExpr *e = parse_aexpr(ps);
  const Fun *f = e ? ir_prim_idx(ps->a, p, e, ps->idx_vars[0], ps->idx_vars[1]) : NULL;
  ps->idx_vars[0] = ps->idx_vars[1] = NULL;
  return f;
}

/* The bracketed static arguments of a primitive. */
static const Fun *parse_prim(Parser *ps, Prim p) {
  PrimStatic st = prim_static(p);
  if (st == S_NONE) return ir_prim(ps->a, p);
  if (ps->tok != T_LBRACK) {
    error_here(ps, "expected '[' with the static arguments of %s", prim_name(p));
    return NULL;
  }
  next(ps);
  const Fun *f = NULL, *g;
  const AExpr *n, *m;
  int k;
  double v;
  switch (st) {
  case S_NONE: break;
  case S_F: f = (g = parse_fun(ps)) ? ir_prim_f(ps->a, p, g) : NULL; break;
  case S_DF:
    if (p == P_MAP_LCL && is_word(ps, "flat")) {
      next(ps);
      k = IR_DIM_FLAT;
    } else if (is_word(ps, "flat")) {
      return error_here(ps, "only mapLcl walks the work-group flat; %s takes a dimension 0, 1 or 2", prim_name(p)),
             NULL;
    } else if (!parse_int_tok(ps, 2, p == P_MAP_LCL ? "a parallel dimension is 0, 1, 2 or flat, not %s"
                                                    : "a parallel dimension is 0, 1 or 2, not %s", &k)) {
      return NULL;
    }
    if (!expect(ps, T_COMMA, "','")) return NULL;
    f = (g = parse_fun(ps)) ? ir_prim_df(ps->a, p, k, g) : NULL;
    break;
  case S_N: f = (n = parse_aexpr(ps)) ? ir_prim_n(ps->a, p, n) : NULL; break;
  case S_NN:
    if (!(n = parse_aexpr(ps)) || !expect(ps, T_COMMA, "','") || !(m = parse_aexpr(ps))) return NULL;
    f = ir_prim_nn(ps->a, p, n, m);
    break;
  case S_PAD:
    if (!(n = parse_aexpr(ps)) || !expect(ps, T_COMMA, "','") || !(m = parse_aexpr(ps)) ||
        !expect(ps, T_COMMA, "','"))
      return NULL;
    if (is_word(ps, "clamp")) {
      next(ps);
      f = ir_pad(ps->a, n, m, PAD_CLAMP, 0);
    } else {
      f = parse_number(ps, &v) ? ir_pad(ps->a, n, m, PAD_CONST, v) : NULL;
    }
    break;
  case S_I:
    f = parse_int_tok(ps, 15, "a tuple index is 0 to 15 (a tuple has at most 16 fields), not %s", &k)
            ? ir_prim_i(ps->a, p, k) : NULL;
    break;
  case S_NF:
    if (!(n = parse_aexpr(ps)) || !expect(ps, T_COMMA, "','")) return NULL;
    f = (g = parse_fun(ps)) ? ir_prim_nf(ps->a, p, n, g) : NULL;
    break;
  case S_IDX: f = parse_index_fun(ps, p); break;
  }
  if (!f || !expect(ps, T_RBRACK, "']' after static arguments")) return NULL;
  return f;
}

static const Fun *read_fun(Parser *ps) {
  if (is_word(ps, "fun")) return parse_lambda(ps);
  if (ps->tok == T_LPAREN) {
    next(ps);
    const Fun *f = parse_fun(ps);
    return f && expect(ps, T_RPAREN, "')'") ? f : NULL;
  }
  if (ps->tok != T_IDENT) {
    error_here(ps, "expected a function (a primitive, a user function or fun(...) -> ...), found %s",
               tok_text(ps));
    return NULL;
  }
  char *name = arena_strndup(ps->a, ps->p, (size_t)(ps->q - ps->p));
  Prim p;
  if (prim_lookup(name, &p)) return next(ps), parse_prim(ps, p);
  UserFun *uf = find_userfun(ps, name);
  if (uf) return next(ps), ir_user(ps->a, uf);
  if (find_param(ps, name)) error_here(ps, "'%s' is a parameter, not a function", name);
  else error_here(ps, "undefined function '%s'", name);
  return NULL;
}

static const Expr *parse_args_call(Parser *ps, const Fun *f, int line, int col) {
  if (!expect(ps, T_LPAREN, "'(' with the arguments")) return NULL;
  const Expr *args[16];
  int n = 0;
  do {
    if (n && !expect(ps, T_COMMA, "','")) return NULL;
    if (n == 16) return error_here(ps, "%s: at most 16 arguments", "call"), NULL;
    if (!(args[n++] = parse_expr(ps))) return NULL;
  } while (ps->tok == T_COMMA);
  if (!expect(ps, T_RPAREN, "')' after arguments")) return NULL;
  if (f->kind == F_PRIM && prim_arity(f->prim) > 0 && n != prim_arity(f->prim)) {
    ps->line = line, ps->col = col;
    char buf[128];
    snprintf(buf, sizeof buf, "%s takes %d argument%s, got %d", prim_name(f->prim), prim_arity(f->prim),
             prim_arity(f->prim) == 1 ? "" : "s", n);
    error_here(ps, "%s", buf);
    return NULL;
  }
  if (f->kind == F_LAMBDA && n != f->nparams) {
    ps->line = line, ps->col = col;
    error_here(ps, "%s: a lambda called with the wrong number of arguments", "call");
    return NULL;
  }
  return at(ir_call(ps->a, f, n, args), line, col);
}

static const Expr *parse_let(Parser *ps) {
  int line = ps->line, col = ps->col;
  next(ps);  // let
  const char *name = ident(ps);
  if (!name || !expect(ps, T_EQ, "'=' after let NAME")) return NULL;
  const Expr *value = parse_expr(ps);
  if (!value) return NULL;
  if (!is_word(ps, "in")) return error_here(ps, "expected 'in' after let's value, found %s", tok_text(ps)), NULL;
  next(ps);
  Param *p = new_param(ps, name, NULL);
  if (!p || !push_scope(ps, p)) return NULL;
  const Expr *body = parse_expr(ps);
  ps->nscope--;
  if (!body) return NULL;
  return at(ir_call1(ps->a, ir_lambda(ps->a, 1, &p, body), value), line, col);
}

static const Expr *parse_primary(Parser *ps) {
  int line = ps->line, col = ps->col;
  if (is_word(ps, "let")) return parse_let(ps);
  if (ps->tok == T_INT || ps->tok == T_FLOAT || ps->tok == T_MINUS) {
    bool is_int;
    double v;
    if (!parse_number_kind(ps, &v, &is_int)) return NULL;
    return at(ir_lit(ps->a, v, is_int), line, col);
  }
  if (ps->tok == T_LPAREN) {
    const char *save_q = ps->q;
    next(ps);
    bool fun_first = is_word(ps, "fun");
    if (fun_first) {
      ps->q = save_q - 1;  // re-read from '(' as a parenthesised function
      next(ps);
      const Fun *f = parse_fun(ps);
      return f ? parse_args_call(ps, f, line, col) : NULL;
    }
    const Expr *e = parse_expr(ps);
    return e && expect(ps, T_RPAREN, "')'") ? e : NULL;
  }
  if (ps->tok == T_IDENT) {
    char *name = arena_strndup(ps->a, ps->p, (size_t)(ps->q - ps->p));
    Param *p = find_param(ps, name);
    Prim pr;
    if (p && !prim_lookup(name, &pr) && !find_userfun(ps, name)) {
      next(ps);
      return at(ir_ref(ps->a, p), line, col);
    }
    if (!prim_lookup(name, &pr) && !find_userfun(ps, name) && !is_word(ps, "fun")) {
      error_here(ps, "undefined name '%s'", name);
      return NULL;
    }
    const Fun *f = parse_fun(ps);
    return f ? parse_args_call(ps, f, line, col) : NULL;
  }
  error_here(ps, "expected an expression, found %s", tok_text(ps));
  return NULL;
}

static const Expr *read_expr(Parser *ps) {
  const Expr *e = parse_primary(ps);
  while (e && ps->tok == T_PIPE) {
    next(ps);
    int line = ps->line, col = ps->col;
    const Fun *f = parse_fun(ps);
    if (!f) return NULL;
    if (f->kind == F_PRIM && prim_arity(f->prim) > 1) {
      ps->line = line, ps->col = col;
      error_here(ps, "%s takes more than one argument and cannot follow '|>'", prim_name(f->prim));
      return NULL;
    }
    e = at(ir_call1(ps->a, f, e), line, col);
  }
  return e;
}

/* ---- Declarations ------------------------------------------------------------ */

static bool parse_sizes(Parser *ps) {
  next(ps);  // size
  do {
    if (ps->tok == T_COMMA) next(ps);
    int line = ps->line, col = ps->col;
    const char *name = ident(ps);
    if (!name) return false;
    ps->line = line, ps->col = col;   // the messages below point at the name
    if (is_reserved(name)) return error_here(ps, "'%s' is reserved and cannot name a size", name);
    if (lookup_size(ps, name)) return error_here(ps, "size '%s' is declared twice", name);
    Program *pg = ps->prog;
    const AExpr *v = ax_size_var(ps->a, name);
    for (int i = 0; i < ps->nbind; i++)
      if (strcmp(ps->bnames[i], name) == 0) {
        if (ps->bvals[i] < 1) return error_here(ps, "size '%s' must be at least 1", name);
        if (ps->bvals[i] > INT32_MAX)
          return error_here(ps, "%s", arena_printf(ps->a, "size '%s' is %lld, more than 2147483647, the largest int "
                                                   "(the kernels index with int)", name, (long long)ps->bvals[i]));
        v = ax_cst(ps->a, ps->bvals[i]);
        ps->bused[i] = true;
      }
    pg->size_names = grow(ps->a, pg->size_names, pg->nsizes, sizeof *pg->size_names);
    pg->sizes = grow(ps->a, pg->sizes, pg->nsizes, sizeof *pg->sizes);
    pg->size_names[pg->nsizes] = name;
    pg->sizes[pg->nsizes] = v;
    add_size_name(ps, pg->nsizes++);
  } while (ps->tok == T_COMMA);
  return true;
}

static CbType cb_type(const Type *t) {
  CbType c = {t->kind == TY_INT, t->kind == TY_VEC ? t->width : 1};
  return c;
}

/* A user function computes in arithmetic types: a value read from an array
 * of a storage type (half) is its accumulation type's (float) already. */
static bool storage_free(Parser *ps, const Type *t) {
  const ElemType *et = ty_elem(t);
  if (!et || !elem_is_storage(et)) return true;
  const char *acc = elem_type(et->acc)->name;
  return error_here(ps, "%s", arena_printf(ps->a, "%s is a storage type: a user function takes and returns %s (a value "
                                                  "read from an array of %s is a %s, and a store into one rounds)",
                                           et->name, acc, et->name, acc));
}

static bool parse_userfun(Parser *ps) {
  next(ps);  // userfun
  int line = ps->line, col = ps->col;
  UserFun *uf = ARENA_NEW(ps->a, UserFun);
  if (!(uf->name = ident(ps))) return false;
  if (is_reserved(uf->name) || find_userfun(ps, uf->name)) {
    ps->line = line, ps->col = col;
    return error_here(ps, "user function name '%s' is already taken", uf->name);
  }
  const char *pnames[16];
  const Type *ptypes[16];
  CbType ctypes[16];
  if (!expect(ps, T_LPAREN, "'(' after the user function's name")) return false;
  while (ps->tok != T_RPAREN) {
    if (uf->nparams && !expect(ps, T_COMMA, "','")) return false;
    if (uf->nparams == 16) return error_here(ps, "%s: at most 16 parameters", "userfun");
    if (!(pnames[uf->nparams] = ident(ps)) || !expect(ps, T_COLON, "':' and a type")) return false;
    const Type *t = parse_type(ps);
    if (!t) return false;
    if (!ty_is_value(t)) return error_here(ps, "user function parameters are scalars or vectors, not %s", ty_str(ps->a, t));
    if (!storage_free(ps, t)) return false;
    ctypes[uf->nparams] = cb_type(t);
    ptypes[uf->nparams++] = t;
  }
  next(ps);
  if (!expect(ps, T_COLON, "':' and the return type")) return false;
  if (!(uf->ret = parse_type(ps))) return false;
  if (!ty_is_value(uf->ret)) return error_here(ps, "a user function returns a scalar or vector, not %s", ty_str(ps->a, uf->ret));
  if (!storage_free(ps, uf->ret)) return false;
  if (ps->tok != T_LBRACE) return error_here(ps, "expected '{' starting the body, found %s", tok_text(ps));
  const char *start = ps->q, *s = start;
  for (int depth = 1; depth > 0; s++) {
    if (!*s) return error_here(ps, "unterminated body of user function '%s'", uf->name);
    depth += (*s == '{') - (*s == '}');
  }
  uf->body = arena_strndup(ps->a, start, (size_t)(s - 1 - start));
  uf->pnames = ARENA_ARRAY(ps->a, const char *, uf->nparams ? uf->nparams : 1);
  uf->ptypes = ARENA_ARRAY(ps->a, const Type *, uf->nparams ? uf->nparams : 1);
  memcpy(uf->pnames, pnames, sizeof *pnames * (size_t)uf->nparams);
  memcpy(uf->ptypes, ptypes, sizeof *ptypes * (size_t)uf->nparams);
  Diag d = {0};
  uf->cbody = cb_parse(ps->a, uf->name, uf->body, uf->nparams, uf->pnames, ctypes, cb_type(uf->ret), &d);
  if (!uf->cbody) {
    ps->line = line, ps->col = col;
    return error_here(ps, "%s", d.msg);
  }
  ps->q = s;
  next(ps);
  Program *pg = ps->prog;
  pg->ufs = grow(ps->a, pg->ufs, pg->nufs, sizeof *pg->ufs);
  pg->ufs[pg->nufs++] = uf;
  return true;
}

static bool parse_input(Parser *ps) {
  next(ps);  // input
  const char *name = ident(ps);
  if (!name || !expect(ps, T_COLON, "':' and the input's type")) return false;
  if (find_param(ps, name)) return error_here(ps, "input '%s' is declared twice", name);
  const Type *t = parse_type(ps);
  if (!t) return false;
  if (t->kind != TY_ARRAY || !ty_is_value(ty_base(t)))
    return error_here(ps, "an input is an array of scalars or vectors, not %s", ty_str(ps->a, t));
  Param *p = new_param(ps, name, t);
  if (!p || !push_scope(ps, p)) return false;
  Program *pg = ps->prog;
  pg->inputs = grow(ps->a, pg->inputs, pg->ninputs, sizeof *pg->inputs);
  pg->inputs[pg->ninputs++] = p;
  return true;
}

/* const NAME: TYPE = [v, v, ...]: an array of floats of constant lengths and
 * its values, row-major, each a number within float's range. */
static bool parse_const(Parser *ps) {
  next(ps);  // const
  const char *name = ident(ps);
  if (!name || !expect(ps, T_COLON, "':' and the const array's type")) return false;
  if (find_param(ps, name)) return error_here(ps, "'%s' is declared twice", name);
  Arena *a = ps->a;
  const Type *t = parse_type(ps);
  if (!t) return false;
  if (t->kind != TY_ARRAY || ty_base(t)->kind != TY_FLOAT || ty_elem(t) != elem_fp32())
    return error_here(ps, "a const array is an array of float, not %s", ty_str(ps->a, t));
  int64_t n = ir_flat_count(t);
  if (n < 0)
    return error_here(ps, "%s", arena_printf(a, "const '%s': its lengths must be numbers or bound sizes, not %s", name,
                                             ty_str(a, t)));
  if (n > IR_MAX_CONST_VALUES)
    return error_here(ps, "%s", arena_printf(a, "const '%s' holds %lld values, more than %d (64 KiB, a device's "
                                                "least constant memory)", name, (long long)n, IR_MAX_CONST_VALUES));
  if (!expect(ps, T_EQ, "'=' and the const array's values") || !expect(ps, T_LBRACK, "'[' starting the values"))
    return false;
  double *v = ARENA_ARRAY(ps->a, double, n);
  int64_t k = 0;
  for (; ps->tok != T_RBRACK; k++) {
    if (k && !expect(ps, T_COMMA, "',' or ']'")) return false;
    double x;
    if (k == n)
      return error_here(ps, "%s", arena_printf(a, "const '%s' of type %s holds %lld values; more are given", name,
                                               ty_str(a, t), (long long)n));
    if (!parse_number(ps, &x)) return false;
    v[k] = (float)x;   // the value a kernel holds
  }
  if (k != n)
    return error_here(ps, "%s", arena_printf(a, "const '%s' of type %s holds %lld values; %lld are given", name,
                                             ty_str(a, t), (long long)n, (long long)k));
  next(ps);  // ]
  Param *p = new_param(ps, name, t);
  if (!p || !push_scope(ps, p)) return false;
  p->values = v;
  Program *pg = ps->prog;
  pg->consts = grow(ps->a, pg->consts, pg->nconsts, sizeof *pg->consts);
  pg->consts[pg->nconsts++] = p;
  return true;
}

static bool parse_workgroup(Parser *ps) {
  next(ps);  // workgroup
  int n = 0;
  do {
    if (n && !expect(ps, T_COMMA, "','")) return false;
    if (n == 3) return error_here(ps, "%s: at most 3 dimensions", "workgroup");
    if (!(ps->prog->workgroup[n++] = parse_aexpr(ps))) return false;
  } while (ps->tok == T_COMMA);
  return true;
}

/* How deep the tree under e goes (calls, the functions they apply and their
 * bodies), counted no further than past room; the node where the count passes
 * it goes to *at. */
static int fun_depth(const Fun *f, int room, const Expr **at);

static int expr_depth(const Expr *e, int room, const Expr **at) {
  if (e->kind != E_CALL) return 1;
  if (room < 2) {   // a call is at least 2 deep (itself and its function)
    if (!*at) *at = e;
    return 2;
  }
  int d = fun_depth(e->fun, room - 1, at);
  for (int i = 0; i < e->nargs && d < room; i++) {
    int k = expr_depth(e->args[i], room - 1, at);
    if (k > d) d = k;
  }
  return d + 1;
}

static int fun_depth(const Fun *f, int room, const Expr **at) {
  bool nested = f->kind == F_LAMBDA || (f->kind == F_PRIM && f->f);
  if (!nested) return 1;
  if (room < 2) return 2;
  return 1 + (f->kind == F_LAMBDA ? expr_depth(f->body, room - 1, at) : fun_depth(f->f, room - 1, at));
}

/* Every pass after the parser recurses over the tree, and a pipeline of
 * stages is a tree as deep as it is long: the same bound as the parser's. */
static bool check_depth(Parser *ps) {
  const Expr *at = NULL;
  if (expr_depth(ps->prog->body, IR_MAX_DEPTH, &at) <= IR_MAX_DEPTH) return true;
  ps->line = at ? at->line : ps->line, ps->col = at ? at->col : ps->col;
  return error_here(ps, "the program is nested more than %s deep here (each '|>' stage is a call around the ones "
                    "before it); name a part of it with let", arena_printf(ps->a, "%d", IR_MAX_DEPTH));
}

static bool check_bindings(Parser *ps) {
  for (int i = 0; i < ps->nbind; i++) {
    if (ps->bused[i]) continue;
    StrBuf sb;
    sb_init(&sb);
    for (int j = 0; j < ps->prog->nsizes; j++) sb_printf(&sb, "%s%s", j ? ", " : "", ps->prog->size_names[j]);
    diag_error(ps->d, "%s: unknown size '%s' (the program declares: %s)", ps->file, ps->bnames[i],
               ps->prog->nsizes ? sb_str(&sb) : "none");
    sb_free(&sb);
    return false;
  }
  return true;
}

Program *ir_parse(Arena *a, const char *name, const char *text, int nbind, const char *const *bnames,
                  const int64_t *bvals, Diag *d) {
  Parser ps = {.a = a, .d = d, .file = name, .src = text, .q = text, .nbind = nbind, .bnames = bnames, .bvals = bvals};
  ps.bused = ARENA_ARRAY(a, bool, nbind ? nbind : 1);
  ps.prog = ARENA_NEW(a, Program);
  ps.prog->name = arena_strdup(a, name);
  next(&ps);
  for (;;) {
    bool ok;
    if (is_word(&ps, "size")) ok = parse_sizes(&ps);
    else if (is_word(&ps, "userfun")) ok = parse_userfun(&ps);
    else if (is_word(&ps, "input")) ok = parse_input(&ps);
    else if (is_word(&ps, "const")) ok = parse_const(&ps);
    else if (is_word(&ps, "workgroup")) ok = parse_workgroup(&ps);
    else if (is_word(&ps, "out")) break;
    else if (ps.tok == T_EOF) return error_here(&ps, "%s: the program has no 'out = ...' line", "missing output"), NULL;
    else ok = error_here(&ps, "expected 'size', 'userfun', 'input', 'const', 'workgroup' or 'out', found %s", tok_text(&ps));
    if (!ok) return NULL;
  }
  if (!check_bindings(&ps)) return NULL;
  next(&ps);
  if (ps.tok == T_COLON) {   // out: TYPE = ..., the output's type declared (its element type the stored one)
    next(&ps);
    const Type *t = parse_type(&ps);
    if (!t) return NULL;
    if (t->kind != TY_ARRAY || !ty_is_value(ty_base(t)))
      return error_here(&ps, "the output is an array of scalars or vectors, not %s", ty_str(a, t)), NULL;
    ps.prog->out_type = t;
  }
  if (!expect(&ps, T_EQ, "'=' after out")) return NULL;
  if (!(ps.prog->body = parse_expr(&ps))) return NULL;
  if (ps.tok != T_EOF) return error_here(&ps, "unexpected %s after the output expression", tok_text(&ps)), NULL;
  return check_depth(&ps) ? ps.prog : NULL;
}
