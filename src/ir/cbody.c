/* cbody.c: user-function bodies (the OpenCL C subset of cbody.h): parsed,
 * checked, and evaluated in float64.
 *
 * Three steps, each complete before the next: a lexer and recursive-descent
 * parser build a syntax tree (syntax errors only); a checker resolves every
 * name to a variable slot, types every expression and applies the static
 * "every path returns" rule; a tree-walking evaluator runs the checked tree.
 * Invariant: a CBody from cb_parse has passed the checker, so the evaluator
 * never meets an unresolved name or an ill-typed node, and reports only what
 * no checker can rule out (integer division by zero, an out-of-range (int)).
 * The body text goes into kernels verbatim, so where OpenCL C is stricter
 * than C the checker follows an OpenCL C 1.2 compiler: no float condition in
 * '?:', no sqrt(2) (int-only call of a float built-in), no max(float, int),
 * and an unsuffixed literal (2.5) is a double: fine in scalar arithmetic, an
 * error beside a vector or as a built-in's argument.
 * Pipeline: the IR parser calls cb_parse on each user function; the reference
 * interpreter calls cb_eval per element; the emitter copies the text. A parsed
 * body lives in the caller's arena; cb_eval allocates nothing.
 */
#include "ir/cbody.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checker and the evaluator recurse over the tree, so its depth is
 * bounded: a pathological body is a user error, never a stack overflow. */
enum { CB_MAX_VARS = 64, CB_MAX_ARGS = 16, CB_MAX_DEPTH = 256 };

/* ---- types ------------------------------------------------------------- */

static const CbType T_INT = {true, 1};
static const CbType T_FLOAT = {false, 1};

static bool type_eq(CbType a, CbType b) { return a.is_int == b.is_int && a.width == b.width; }
static bool valid_width(int w) { return w == 1 || w == 2 || w == 3 || w == 4 || w == 8 || w == 16; }

static const char *type_name(CbType t) {
  if (t.is_int) return "int";
  switch (t.width) {
  case 1: return "float";
  case 2: return "float2";
  case 3: return "float3";
  case 4: return "float4";
  case 8: return "float8";
  case 16: return "float16";
  }
  cg_die("bad CbType width %d", t.width);
}

/* A value of type `from` may be stored in a variable of type `to`: the same
 * type, int widened to float, or a scalar broadcast to a vector. float to int
 * needs an explicit (int). */
static bool assignable(CbType to, CbType from) {
  if (type_eq(to, from)) return true;
  if (to.is_int) return false;
  return from.width == 1;
}

/* ---- built-in functions ------------------------------------------------ */

typedef enum {
  SIG_FLOAT,     // float-only, element-wise; at least one float argument
  SIG_INTFLOAT,  // element-wise on all-int or all-float arguments
  SIG_DOT,       // two floatN (N <= 4), returns float
  SIG_SELECT,    // scalars a, b of one kind; int c
} Sig;

#define CB_BUILTINS(X)                \
  X(B_FMAX, "fmax", 2, SIG_FLOAT)     \
  X(B_FMIN, "fmin", 2, SIG_FLOAT)     \
  X(B_MAX, "max", 2, SIG_INTFLOAT)    \
  X(B_MIN, "min", 2, SIG_INTFLOAT)    \
  X(B_FABS, "fabs", 1, SIG_FLOAT)     \
  X(B_SQRT, "sqrt", 1, SIG_FLOAT)     \
  X(B_RSQRT, "rsqrt", 1, SIG_FLOAT)   \
  X(B_EXP, "exp", 1, SIG_FLOAT)       \
  X(B_LOG, "log", 1, SIG_FLOAT)       \
  X(B_LOG1P, "log1p", 1, SIG_FLOAT)   \
  X(B_POW, "pow", 2, SIG_FLOAT)       \
  X(B_TANH, "tanh", 1, SIG_FLOAT)     \
  X(B_ERF, "erf", 1, SIG_FLOAT)       \
  X(B_FLOOR, "floor", 1, SIG_FLOAT)   \
  X(B_CEIL, "ceil", 1, SIG_FLOAT)     \
  X(B_MAD, "mad", 3, SIG_FLOAT)       \
  X(B_FMA, "fma", 3, SIG_FLOAT)       \
  X(B_CLAMP, "clamp", 3, SIG_INTFLOAT) \
  X(B_DOT, "dot", 2, SIG_DOT)         \
  X(B_SELECT, "select", 3, SIG_SELECT)

typedef enum {
#define X(id, name, arity, sig) id,
  CB_BUILTINS(X)
#undef X
  B_COUNT
} Builtin;

static const struct {
  const char *name;  // spelling in OpenCL C
  int arity;         // number of arguments
  Sig sig;           // typing rule
} builtins[B_COUNT] = {
#define X(id, name, arity, sig) {name, arity, sig},
    CB_BUILTINS(X)
#undef X
};

static int find_builtin(const char *name) {
  for (int i = 0; i < B_COUNT; i++)
    if (strcmp(builtins[i].name, name) == 0) return i;
  return -1;
}

/* ---- syntax tree ------------------------------------------------------- */

#define CB_BINOPS(X)                                                      \
  X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/")             \
  X(OP_LT, "<") X(OP_LE, "<=") X(OP_GT, ">") X(OP_GE, ">=") X(OP_EQ, "==") \
  X(OP_NE, "!=") X(OP_AND, "&&") X(OP_OR, "||")

typedef enum {
#define X(id, spell) id,
  CB_BINOPS(X)
#undef X
  OP_COUNT
} BinOp;

static const char *const binop_spell[OP_COUNT] = {
#define X(id, spell) spell,
    CB_BINOPS(X)
#undef X
};

typedef enum {
  EX_NUM,   // literal: num, type set by the parser
  EX_VAR,   // name; slot after checking
  EX_NEG,   // -a
  EX_POS,   // +a (not an lvalue, unlike a)
  EX_NOT,   // !a
  EX_BIN,   // a op b
  EX_COND,  // a ? b : c
  EX_CAST,  // (to) a, to scalar
  EX_VEC,   // (to)(args...), to a vector: literal, broadcast or cast
  EX_COMP,  // a.name, components in comp[] after checking
  EX_CALL,  // name(args...); fn after checking
} ExprKind;

typedef struct Expr Expr;
struct Expr {
  ExprKind kind;      // node kind
  CbType type;        // result type (the checker sets it, except for EX_NUM)
  double num;         // EX_NUM: value
  BinOp op;           // EX_BIN: operator
  const char *spell;  // EX_BIN: operator as written ("+", or "+=" when desugared)
  const char *name;   // EX_VAR, EX_CALL: name; EX_COMP: component text
  int slot;           // EX_VAR: variable slot
  Builtin fn;         // EX_CALL: resolved built-in
  CbType to;          // EX_CAST, EX_VEC: target type
  Expr *a, *b, *c;    // operands
  Expr **args;        // EX_VEC, EX_CALL: arguments
  int nargs;          // number of args
  int comp[16];       // EX_COMP: component indices
  int depth;          // height of this subtree, 1 for a leaf
  const char *dbl;    // a float scalar that OpenCL C types as double: the
                      // unsuffixed literal that makes it so; else NULL
};

typedef enum {
  ST_DECL,    // T name = e;
  ST_ASSIGN,  // name = e; (compound forms are desugared to name = name op e)
  ST_IF,      // if (e) then [else els]
  ST_BLOCK,   // { body }
  ST_RETURN,  // return e;
  ST_EMPTY,   // ;
} StmtKind;

typedef struct Stmt Stmt;
struct Stmt {
  StmtKind kind;     // statement kind
  CbType type;       // ST_DECL: declared type
  const char *name;  // ST_DECL, ST_ASSIGN: variable
  int slot;          // ST_DECL, ST_ASSIGN: slot after checking
  Expr *e;           // initializer, value, condition or returned value
  Stmt *then, *els;  // ST_IF branches (els may be NULL)
  Stmt *body;        // ST_BLOCK: first statement
  Stmt *next;        // next statement in the enclosing block
};

struct CBody {
  const char *fname;  // user function name, for run-time messages
  int nparams;        // parameters occupy slots 0..nparams-1
  CbType ret;         // declared return type
  Stmt *body;         // first statement of the body
  CbType *slot_type;  // type of each variable slot, parameters first
};

/* ---- errors ------------------------------------------------------------ */

/* Parsing and checking stop at the first error: fail() records it in the
 * Diag and jumps back to cb_parse. Everything made so far is in the arena, so
 * nothing leaks. */
typedef struct Ctx {
  Arena *a;           // where the tree goes
  Diag *d;            // the first error
  const char *fname;  // user function name
  jmp_buf fail;       // cb_parse's recovery point
} Ctx;

static _Noreturn void fail(Ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void fail(Ctx *c, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(c->d, "user function '%s': %s", c->fname, msg);
  longjmp(c->fail, 1);
}

/* ---- lexer ------------------------------------------------------------- */

typedef enum { TK_IDENT, TK_INT, TK_FLOAT, TK_PUNCT, TK_EOF } TokKind;

typedef struct Token {
  TokKind kind;   // token kind
  const char *s;  // start in the body text
  int len;        // length in bytes
  double num;     // TK_INT, TK_FLOAT: value
} Token;

static const char *const puncts[] = {
    "+=", "-=", "*=", "/=", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
    "+",  "-",  "*",  "/",  "<",  ">",  "=",  "!",  "?",  ":",  ";",  ",",
    "(",  ")",  "{",  "}",  ".",
};

static bool is_ident_char(char ch) {
  return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* A C preprocessing number: digits, letters, '.', and a sign after an
 * exponent letter; then validated as one int or float literal. */
static Token lex_number(Ctx *c, const char *s) {
  const char *q = s;
  while (is_ident_char(*q) || *q == '.' ||
         ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E')))
    q++;
  Token t = {TK_INT, s, (int)(q - s), 0};
  char *text = arena_strndup(c->a, s, (size_t)(q - s));
  bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  bool is_float = !hex && strpbrk(text, ".eE") != NULL;
  char *end;
  if (is_float) {
    t.kind = TK_FLOAT;
    size_t n = strlen(text);
    if (text[n - 1] == 'f' || text[n - 1] == 'F') text[n - 1] = 0;
    t.num = strtod(text, &end);
    if (*end) fail(c, "bad number '%.*s'", t.len, s);
    if (isinf(t.num)) fail(c, "float literal '%.*s' is out of range", t.len, s);
  } else {
    long long v = strtoll(text, &end, 0);
    if (*end) fail(c, "bad number '%.*s'", t.len, s);
    if (v > 2147483647LL) fail(c, "integer literal '%.*s' is too large for int", t.len, s);
    t.num = (double)v;
  }
  return t;
}

static const char *skip_space(Ctx *c, const char *s) {
  for (;;) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v') {
      s++;
    } else if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *e = strstr(s + 2, "*/");
      if (!e) fail(c, "unterminated comment");
      s = e + 2;
    } else {
      return s;
    }
  }
}

static Token *tokenize(Ctx *c, const char *text) {
  int n = 0, cap = 64;
  Token *toks = ARENA_ARRAY(c->a, Token, cap);
  for (const char *s = skip_space(c, text);; s = skip_space(c, s)) {
    if (n == cap) {
      Token *bigger = ARENA_ARRAY(c->a, Token, cap * 2);
      memcpy(bigger, toks, sizeof *toks * (size_t)n);
      toks = bigger;
      cap *= 2;
    }
    Token t = {TK_PUNCT, s, 0, 0};
    if (!*s) {
      t.kind = TK_EOF;
    } else if (is_digit(*s) || (*s == '.' && is_digit(s[1]))) {
      t = lex_number(c, s);
    } else if (is_ident_char(*s)) {
      t.kind = TK_IDENT;
      while (is_ident_char(s[t.len])) t.len++;
    } else {
      for (size_t i = 0; i < sizeof puncts / sizeof *puncts && !t.len; i++)
        if (strncmp(s, puncts[i], strlen(puncts[i])) == 0) t.len = (int)strlen(puncts[i]);
      if (!t.len && *s > ' ' && *s < 127) fail(c, "unexpected character '%c'", *s);
      if (!t.len) fail(c, "unexpected byte 0x%02x", (unsigned char)*s);
    }
    toks[n++] = t;
    if (t.kind == TK_EOF) return toks;
    s += t.len;
  }
}

/* ---- parser ------------------------------------------------------------ */

typedef struct Parser {
  Ctx *c;        // arena and error exit
  Token *tok;    // current token
  int nest;      // recursion depth of parse_expr, parse_unary and parse_stmt
} Parser;

static bool is(Parser *p, const char *s) {
  return p->tok->kind != TK_EOF && p->tok->kind != TK_INT && p->tok->kind != TK_FLOAT &&
         (int)strlen(s) == p->tok->len && strncmp(p->tok->s, s, (size_t)p->tok->len) == 0;
}
static bool peek_is(Parser *p, int k, const char *s) {
  Parser q = {p->c, p->tok, 0};
  for (int i = 0; i < k && q.tok->kind != TK_EOF; i++) q.tok++;
  return is(&q, s);
}
static bool accept(Parser *p, const char *s) {
  if (!is(p, s)) return false;
  p->tok++;
  return true;
}
static char *tok_str(Parser *p, const Token *t) { return arena_strndup(p->c->a, t->s, (size_t)t->len); }
static const char *tok_desc(Parser *p, const Token *t) {
  return t->kind == TK_EOF ? "end of body" : arena_printf(p->c->a, "'%s'", tok_str(p, t));
}

/* The source text from `start` to the end of the last consumed token, with
 * whitespace runs collapsed, for messages like "expected ';' after 'return x'". */
static const char *span(Parser *p, const char *start) {
  const Token *last = p->tok - 1;
  const char *end = last->s + last->len;
  StrBuf sb;
  sb_init(&sb);
  for (const char *s = start; s < end; s++) {
    bool sp = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
    if (sp && (sb.len == 0 || sb.data[sb.len - 1] == ' ')) continue;
    sb_putc(&sb, sp ? ' ' : *s);
  }
  if (sb.len > 60) {
    sb.len = 57;
    sb_puts(&sb, "...");
  }
  const char *r = arena_strdup(p->c->a, sb_str(&sb));
  sb_free(&sb);
  return r;
}

static void expect(Parser *p, const char *s, const char *start) {
  if (!accept(p, s)) fail(p->c, "expected '%s' after '%s'", s, span(p, start));
}

/* A type keyword at the current token: int, float, float2 .. float16. */
static bool type_at(const Token *t, CbType *out) {
  if (t->kind != TK_IDENT) return false;
  if (t->len == 3 && strncmp(t->s, "int", 3) == 0) return *out = T_INT, true;
  if (t->len < 5 || strncmp(t->s, "float", 5) != 0) return false;
  if (t->len == 5) return *out = T_FLOAT, true;
  int w = 0;
  for (int i = 5; i < t->len; i++) {
    if (!is_digit(t->s[i]) || w > 16) return false;
    w = w * 10 + (t->s[i] - '0');
  }
  if (w == 1 || !valid_width(w) || t->s[5] == '0') return false;
  *out = (CbType){false, w};
  return true;
}

static bool is_keyword(const Token *t) {
  static const char *const kw[] = {"if", "else", "return", "for", "while", "do",
                                   "switch", "break", "continue", "goto", "const"};
  CbType ty;
  if (type_at(t, &ty)) return true;
  for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
    if ((int)strlen(kw[i]) == t->len && strncmp(t->s, kw[i], (size_t)t->len) == 0) return true;
  return false;
}

static Expr *new_expr(Parser *p, ExprKind kind) {
  Expr *e = ARENA_NEW(p->c->a, Expr);
  e->kind = kind;
  e->depth = 1;
  return e;
}

/* Sets the height of a node whose operands are in place. */
static Expr *built(Parser *p, Expr *e) {
  Expr *kids[3 + CB_MAX_ARGS] = {e->a, e->b, e->c};
  for (int i = 0; i < e->nargs; i++) kids[3 + i] = e->args[i];
  for (int i = 0; i < 3 + e->nargs; i++)
    if (kids[i] && kids[i]->depth >= e->depth) e->depth = kids[i]->depth + 1;
  if (e->depth > CB_MAX_DEPTH) fail(p->c, "expression is nested too deeply (the limit is %d)", CB_MAX_DEPTH);
  return e;
}

static void nest(Parser *p) {
  if (++p->nest > CB_MAX_DEPTH) fail(p->c, "body is nested too deeply (the limit is %d)", CB_MAX_DEPTH);
}

static Expr *parse_expr(Parser *p);
static Expr *parse_unary(Parser *p);

/* "(" args ")" after the opening parenthesis has been consumed. */
static void parse_args(Parser *p, Expr *e, const char *start) {
  Expr *tmp[CB_MAX_ARGS];
  int n = 0;
  if (!is(p, ")")) {
    do {
      if (n == CB_MAX_ARGS) fail(p->c, "too many arguments in '%s'", span(p, start));
      tmp[n++] = parse_expr(p);
    } while (accept(p, ","));
  }
  expect(p, ")", start);
  e->nargs = n;
  e->args = ARENA_ARRAY(p->c->a, Expr *, n ? n : 1);
  memcpy(e->args, tmp, sizeof *tmp * (size_t)n);
}

static Expr *parse_primary(Parser *p) {
  const Token *t = p->tok;
  if (t->kind == TK_INT || t->kind == TK_FLOAT) {
    p->tok++;
    Expr *e = new_expr(p, EX_NUM);
    e->num = t->num;
    e->type = t->kind == TK_INT ? T_INT : T_FLOAT;
    char last = t->s[t->len - 1];
    if (t->kind == TK_FLOAT && last != 'f' && last != 'F') e->dbl = tok_str(p, t);
    return e;
  }
  if (t->kind == TK_IDENT && !is_keyword(t)) {
    p->tok++;
    Expr *e = new_expr(p, accept(p, "(") ? EX_CALL : EX_VAR);
    e->name = tok_str(p, t);
    if (e->kind == EX_CALL) parse_args(p, e, t->s);
    return built(p, e);
  }
  if (accept(p, "(")) {
    Expr *e = parse_expr(p);
    expect(p, ")", t->s);
    return e;
  }
  fail(p->c, "expected an expression, found %s", tok_desc(p, t));
}

/* Component selections after e, which started at `start`. */
static Expr *parse_components(Parser *p, Expr *e, const char *start) {
  while (accept(p, ".")) {
    if (p->tok->kind != TK_IDENT) fail(p->c, "expected a component name after '%s'", span(p, start));
    Expr *comp = new_expr(p, EX_COMP);
    comp->a = e;
    comp->name = tok_str(p, p->tok++);
    e = built(p, comp);
  }
  return e;
}

static Expr *parse_postfix(Parser *p) {
  const char *start = p->tok->s;
  return parse_components(p, parse_primary(p), start);
}

static Expr *parse_unary_nested(Parser *p);

static Expr *parse_unary(Parser *p) {
  nest(p);
  Expr *e = parse_unary_nested(p);
  p->nest--;
  return e;
}

static Expr *parse_unary_nested(Parser *p) {
  const Token *t = p->tok;
  CbType to;
  if (is(p, "++") || is(p, "--")) fail(p->c, "operator '%s' is not supported", tok_str(p, t));
  if (accept(p, "-") || accept(p, "+") || accept(p, "!")) {
    Expr *e = new_expr(p, t->s[0] == '-' ? EX_NEG : t->s[0] == '+' ? EX_POS : EX_NOT);
    e->a = parse_unary(p);
    return built(p, e);
  }
  if (is(p, "(") && type_at(t + 1, &to) && peek_is(p, 2, ")")) {
    p->tok += 3;
    Expr *e = new_expr(p, to.width > 1 ? EX_VEC : EX_CAST);
    e->to = to;
    if (e->kind == EX_VEC && accept(p, "(")) {  // a literal is a postfix expression, as in OpenCL C
      parse_args(p, e, t->s);
      if (e->nargs == 0) fail(p->c, "vector literal '%s' is empty", span(p, t->s));
      return parse_components(p, built(p, e), t->s);
    } else if (e->kind == EX_VEC) {
      e->nargs = 1;
      e->args = ARENA_ARRAY(p->c->a, Expr *, 1);
      e->args[0] = parse_unary(p);
    } else {
      e->a = parse_unary(p);
    }
    return built(p, e);
  }
  return parse_postfix(p);
}

/* Binary operators by precedence level, loosest first; all left-associative. */
static const BinOp levels[][5] = {
    {OP_OR, OP_COUNT},
    {OP_AND, OP_COUNT},
    {OP_EQ, OP_NE, OP_COUNT},
    {OP_LT, OP_LE, OP_GT, OP_GE, OP_COUNT},
    {OP_ADD, OP_SUB, OP_COUNT},
    {OP_MUL, OP_DIV, OP_COUNT},
};
enum { NLEVELS = sizeof levels / sizeof *levels };

static Expr *parse_binary(Parser *p, int level) {
  if (level == NLEVELS) return parse_unary(p);
  Expr *e = parse_binary(p, level + 1);
  for (;;) {
    int i = 0;
    while (levels[level][i] != OP_COUNT && !is(p, binop_spell[levels[level][i]])) i++;
    if (levels[level][i] == OP_COUNT) return e;
    p->tok++;
    Expr *bin = new_expr(p, EX_BIN);
    bin->op = levels[level][i];
    bin->spell = binop_spell[bin->op];
    bin->a = e;
    bin->b = parse_binary(p, level + 1);
    e = built(p, bin);
  }
}

static Expr *parse_expr(Parser *p) {
  const char *start = p->tok->s;
  nest(p);
  Expr *e = parse_binary(p, 0);
  if (accept(p, "?")) {
    Expr *cond = new_expr(p, EX_COND);
    cond->a = e;
    cond->b = parse_expr(p);
    expect(p, ":", start);
    cond->c = parse_expr(p);
    e = built(p, cond);
  }
  p->nest--;
  return e;
}

static Stmt *new_stmt(Parser *p, StmtKind kind) {
  Stmt *s = ARENA_NEW(p->c->a, Stmt);
  s->kind = kind;
  return s;
}

static Stmt *parse_stmt(Parser *p, bool allow_decl);

/* Statements up to `close` ("}" or end of body). */
static Stmt *parse_stmts(Parser *p, const char *close, const char *start) {
  Stmt head = {0}, *tail = &head;
  while (close ? !is(p, close) : p->tok->kind != TK_EOF) {
    if (p->tok->kind == TK_EOF) fail(p->c, "expected '}' after '%s'", span(p, start));
    if (!close && is(p, "}")) fail(p->c, "unexpected '}'");
    tail = tail->next = parse_stmt(p, true);
  }
  if (close) p->tok++;
  return head.next;
}

static Stmt *parse_decl(Parser *p, CbType type, const char *start) {
  Stmt *s = new_stmt(p, ST_DECL);
  s->type = type;
  if (p->tok->kind != TK_IDENT || is_keyword(p->tok))
    fail(p->c, "expected a name after '%s'", span(p, start));
  s->name = tok_str(p, p->tok++);
  if (is(p, ";") || is(p, ","))
    fail(p->c, "declaration of '%s' needs an initializer", s->name);
  expect(p, "=", start);
  s->e = parse_expr(p);
  expect(p, ";", start);
  return s;
}

static bool is_assign_op(Parser *p) {
  return is(p, "=") || is(p, "+=") || is(p, "-=") || is(p, "*=") || is(p, "/=");
}

/* `name = e;` or `name op= e;`; anything else that starts like an expression
 * is an error, since expression statements have no effect in this subset. */
static Stmt *parse_assign(Parser *p, const char *start) {
  Expr *target = parse_expr(p);
  const Token *op = p->tok;
  if (is(p, "++") || is(p, "--")) fail(p->c, "operator '%s' is not supported", tok_str(p, op));
  if (!is_assign_op(p)) {
    if (is(p, ";")) fail(p->c, "expression statement '%s' has no effect", span(p, start));
    expect(p, ";", start);
  }
  if (target->kind != EX_VAR)
    fail(p->c, "cannot assign to '%s': only a local variable or parameter can be assigned",
         span(p, start));
  p->tok++;
  Stmt *s = new_stmt(p, ST_ASSIGN);
  s->name = target->name;
  s->e = parse_expr(p);
  if (op->len == 2) {
    Expr *bin = new_expr(p, EX_BIN);
    bin->op = op->s[0] == '+' ? OP_ADD : op->s[0] == '-' ? OP_SUB : op->s[0] == '*' ? OP_MUL : OP_DIV;
    bin->spell = tok_str(p, op);
    bin->a = target;
    bin->b = s->e;
    s->e = built(p, bin);
  }
  expect(p, ";", start);
  return s;
}

static Stmt *parse_stmt_nested(Parser *p, bool allow_decl);

static Stmt *parse_stmt(Parser *p, bool allow_decl) {
  nest(p);
  Stmt *s = parse_stmt_nested(p, allow_decl);
  p->nest--;
  return s;
}

static Stmt *parse_stmt_nested(Parser *p, bool allow_decl) {
  const Token *t = p->tok;
  const char *start = t->s;
  CbType type;
  if (accept(p, ";")) return new_stmt(p, ST_EMPTY);
  if (accept(p, "{")) {
    Stmt *s = new_stmt(p, ST_BLOCK);
    s->body = parse_stmts(p, "}", start);
    return s;
  }
  if (accept(p, "return")) {
    Stmt *s = new_stmt(p, ST_RETURN);
    if (is(p, ";")) fail(p->c, "'return' needs a value");
    s->e = parse_expr(p);
    expect(p, ";", start);
    return s;
  }
  if (accept(p, "if")) {
    Stmt *s = new_stmt(p, ST_IF);
    expect(p, "(", start);
    s->e = parse_expr(p);
    expect(p, ")", start);
    s->then = parse_stmt(p, false);
    if (accept(p, "else")) s->els = parse_stmt(p, false);
    return s;
  }
  if (is(p, "else")) fail(p->c, "'else' without 'if'");
  bool is_decl = type_at(t, &type);
  if (!is_decl && t->kind == TK_IDENT && t[1].kind == TK_IDENT && !is_keyword(t) && !is_keyword(t + 1))
    fail(p->c, "unknown type '%s'", tok_str(p, t));  // `double y = ...`, `uint n = ...`
  if (is_decl && !allow_decl) fail(p->c, "a declaration cannot be the body of 'if' or 'else'; add braces");
  if (is_decl) {
    p->tok++;
    return parse_decl(p, type, start);
  }
  if (t->kind == TK_IDENT && is_keyword(t)) fail(p->c, "'%s' is not supported", tok_str(p, t));
  return parse_assign(p, start);
}

/* ---- checker ----------------------------------------------------------- */

typedef struct Checker {
  Ctx *c;                           // arena and error exit
  int nslots;                       // slots given out so far
  CbType slot_type[CB_MAX_VARS];    // type of each slot
  const char *vis[CB_MAX_VARS];     // visible names, innermost last
  int vis_slot[CB_MAX_VARS];        // slot of each visible name
  int nvis;                         // number of visible names
  int scope;                        // index in vis where the innermost scope starts
} Checker;

static int lookup(Checker *k, const char *name) {
  for (int i = k->nvis - 1; i >= 0; i--)
    if (strcmp(k->vis[i], name) == 0) return k->vis_slot[i];
  return -1;
}

static int declare(Checker *k, const char *name, CbType type) {
  for (int i = k->scope; i < k->nvis; i++)
    if (strcmp(k->vis[i], name) == 0) fail(k->c, "redeclaration of '%s'", name);
  if (k->nslots == CB_MAX_VARS) fail(k->c, "too many variables (the limit is %d)", CB_MAX_VARS);
  k->slot_type[k->nslots] = type;
  k->vis[k->nvis] = name;
  k->vis_slot[k->nvis++] = k->nslots;
  return k->nslots++;
}

static void check_expr(Checker *k, Expr *e);

/* The type of e = x op y for + - * /, the compound assignments and the arms
 * of ?:: element-wise with scalar broadcast; int only when both sides are int;
 * a double scalar stays double but must not meet a vector. */
static void arith_type(Checker *k, Expr *e, const char *op, const Expr *x, const Expr *y) {
  CbType a = x->type, b = y->type;
  if (a.width > 1 && b.width > 1 && a.width != b.width)
    fail(k->c, "type mismatch in '%s': %s and %s", op, type_name(a), type_name(b));
  const char *dbl = x->dbl ? x->dbl : y->dbl;
  if (dbl && (a.width > 1 || b.width > 1))
    fail(k->c, "type mismatch in '%s': %s and double (the literal '%s' is a double in OpenCL C; write '%sf')",
         op, type_name(a.width > 1 ? a : b), dbl, dbl);
  e->type = a.is_int && b.is_int ? T_INT : (CbType){false, a.width > b.width ? a.width : b.width};
  e->dbl = dbl;
}

static void check_bin(Checker *k, Expr *e) {
  check_expr(k, e->a);
  check_expr(k, e->b);
  CbType a = e->a->type, b = e->b->type;
  if (e->op <= OP_DIV) {
    arith_type(k, e, e->spell, e->a, e->b);
    return;
  }
  if (a.width > 1 || b.width > 1)
    fail(k->c, "operator '%s' needs scalar operands, got %s and %s", e->spell, type_name(a), type_name(b));
  e->type = T_INT;
}

/* Parses a component selector (.x, .xy, .s0, .s01f) against a vector width. */
static void check_comp(Checker *k, Expr *e) {
  check_expr(k, e->a);
  CbType t = e->a->type;
  const char *s = e->name;
  if (t.width == 1) fail(k->c, "'.%s' applied to %s, which is not a vector", s, type_name(t));
  int n = 0;
  bool numeric = s[0] == 's' || s[0] == 'S';
  for (const char *q = s + numeric; *q; q++) {
    const char *digits = "0123456789abcdef", *xyzw = "xyzw";
    char ch = *q >= 'A' && *q <= 'F' ? (char)(*q - 'A' + 'a') : *q;
    const char *pos = strchr(numeric ? digits : xyzw, ch);
    if (!pos || n == 16) fail(k->c, "unknown component '.%s' of %s", s, type_name(t));
    int idx = (int)(pos - (numeric ? digits : xyzw));
    if (idx >= t.width) fail(k->c, "component '.%s' is out of range for %s", s, type_name(t));
    e->comp[n++] = idx;
  }
  if (!valid_width(n)) fail(k->c, "unknown component '.%s' of %s", s, type_name(t));
  e->type = (CbType){false, n};
}

static const char *arg_list(Checker *k, const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < e->nargs; i++) sb_printf(&sb, "%s%s", i ? ", " : "", type_name(e->args[i]->type));
  const char *r = arena_strdup(k->c->a, sb_str(&sb));
  sb_free(&sb);
  return r;
}

static void check_call(Checker *k, Expr *e) {
  int fn = find_builtin(e->name);
  if (fn < 0) fail(k->c, "unknown function '%s'", e->name);
  if (lookup(k, e->name) >= 0) fail(k->c, "'%s' is a variable, not a function", e->name);
  e->fn = (Builtin)fn;
  if (e->nargs != builtins[fn].arity)
    fail(k->c, "'%s' takes %d argument%s, got %d", e->name, builtins[fn].arity,
         builtins[fn].arity == 1 ? "" : "s", e->nargs);
  int width = 1, nint = 0;
  bool ok = true;
  for (int i = 0; i < e->nargs; i++) {
    check_expr(k, e->args[i]);
    const char *dbl = e->args[i]->dbl;
    if (dbl)
      fail(k->c, "'%s' cannot take a double argument (the literal '%s' is a double in OpenCL C; write '%sf')",
           e->name, dbl, dbl);
    CbType t = e->args[i]->type;
    nint += t.is_int;
    if (t.width > 1 && width > 1 && t.width != width) ok = false;
    if (t.width > width) width = t.width;
  }
  Sig sig = builtins[fn].sig;
  if (ok && (sig == SIG_FLOAT || sig == SIG_DOT) && nint == e->nargs)
    fail(k->c, "'%s' needs a float argument, got (%s)", e->name, arg_list(k, e));
  if (ok && sig == SIG_INTFLOAT && nint > 0 && nint < e->nargs)
    fail(k->c, "'%s' mixes int and float arguments (%s); add a cast", e->name, arg_list(k, e));
  if (sig == SIG_DOT) ok = ok && width <= 4;
  if (sig == SIG_SELECT)
    ok = width == 1 && e->args[2]->type.is_int && e->args[0]->type.is_int == e->args[1]->type.is_int;
  if (!ok) fail(k->c, "bad argument types for '%s': (%s)", e->name, arg_list(k, e));
  if (sig == SIG_DOT) e->type = T_FLOAT;
  else if (sig == SIG_SELECT) e->type = e->args[0]->type;
  else e->type = (CbType){nint == e->nargs, width};
}

static void check_vec(Checker *k, Expr *e) {
  int n = 0;
  for (int i = 0; i < e->nargs; i++) {
    check_expr(k, e->args[i]);
    n += e->args[i]->type.width;
  }
  if (e->nargs == 1 && n != 1 && n != e->to.width)
    fail(k->c, "cannot cast %s to %s", type_name(e->args[0]->type), type_name(e->to));
  if (e->nargs > 1 && n != e->to.width)
    fail(k->c, "vector literal (%s) has %d components, needs %d", type_name(e->to), n, e->to.width);
  e->type = e->to;
}

static void check_expr(Checker *k, Expr *e) {
  switch (e->kind) {
  case EX_NUM:
    return;
  case EX_VAR:
    e->slot = lookup(k, e->name);
    if (e->slot < 0) fail(k->c, "unknown name '%s'", e->name);
    e->type = k->slot_type[e->slot];
    return;
  case EX_NEG:
  case EX_POS:
    check_expr(k, e->a);
    e->type = e->a->type;
    e->dbl = e->a->dbl;
    return;
  case EX_NOT:
    check_expr(k, e->a);
    if (e->a->type.width > 1) fail(k->c, "operator '!' needs a scalar operand, got %s", type_name(e->a->type));
    e->type = T_INT;
    return;
  case EX_BIN:
    check_bin(k, e);
    return;
  case EX_COND:
    check_expr(k, e->a);
    check_expr(k, e->b);
    check_expr(k, e->c);
    if (!type_eq(e->a->type, T_INT))
      fail(k->c, "condition of '?:' must be int, got %s", type_name(e->a->type));
    arith_type(k, e, "?:", e->b, e->c);
    return;
  case EX_CAST:
    check_expr(k, e->a);
    if (e->a->type.width > 1) fail(k->c, "cannot cast %s to %s", type_name(e->a->type), type_name(e->to));
    e->type = e->to;
    return;
  case EX_VEC:
    check_vec(k, e);
    return;
  case EX_COMP:
    check_comp(k, e);
    return;
  case EX_CALL:
    check_call(k, e);
    return;
  }
  cg_die("bad expression kind %d", e->kind);
}

static void check_stmts(Checker *k, Stmt *s, CbType ret);

static void check_stmt(Checker *k, Stmt *s, CbType ret) {
  switch (s->kind) {
  case ST_DECL:
    check_expr(k, s->e);  // before declaring: `float x = x;` must not see itself
    if (!assignable(s->type, s->e->type))
      fail(k->c, "cannot initialize '%s' of type %s with %s", s->name, type_name(s->type), type_name(s->e->type));
    s->slot = declare(k, s->name, s->type);
    return;
  case ST_ASSIGN:
    s->slot = lookup(k, s->name);
    if (s->slot < 0) fail(k->c, "unknown name '%s'", s->name);
    check_expr(k, s->e);
    if (!assignable(k->slot_type[s->slot], s->e->type))
      fail(k->c, "cannot assign %s to '%s' of type %s", type_name(s->e->type), s->name,
           type_name(k->slot_type[s->slot]));
    return;
  case ST_IF:
    check_expr(k, s->e);
    if (s->e->type.width > 1) fail(k->c, "condition of 'if' must be a scalar, got %s", type_name(s->e->type));
    check_stmt(k, s->then, ret);
    if (s->els) check_stmt(k, s->els, ret);
    return;
  case ST_BLOCK: {
    int nvis = k->nvis, scope = k->scope;
    k->scope = k->nvis;
    check_stmts(k, s->body, ret);
    k->nvis = nvis;
    k->scope = scope;
    return;
  }
  case ST_RETURN:
    check_expr(k, s->e);
    if (!assignable(ret, s->e->type))
      fail(k->c, "returns %s but is declared to return %s", type_name(s->e->type), type_name(ret));
    return;
  case ST_EMPTY:
    return;
  }
  cg_die("bad statement kind %d", s->kind);
}

static void check_stmts(Checker *k, Stmt *s, CbType ret) {
  for (; s; s = s->next) check_stmt(k, s, ret);
}

/* Static rule: a statement list returns when one of its statements does; an
 * if returns when it has an else and both branches return. */
static bool always_returns(const Stmt *s) {
  for (; s; s = s->next) {
    if (s->kind == ST_RETURN) return true;
    if (s->kind == ST_BLOCK && always_returns(s->body)) return true;
    if (s->kind == ST_IF && s->els && always_returns(s->then) && always_returns(s->els)) return true;
  }
  return false;
}

/* What cb_parse was asked, kept in memory so that nothing live across its
 * setjmp sits in a register that longjmp could clobber. */
typedef struct Job {
  const char *text;           // the body
  int nparams;                // number of parameters
  const char *const *pnames;  // their names
  const CbType *ptypes;       // their types
  CbType ret;                 // declared return type
} Job;

static CBody *parse_and_check(Ctx *c, const Job *job) {
  Checker *k = ARENA_NEW(c->a, Checker);
  k->c = c;
  for (int i = 0; i < job->nparams; i++) {
    CbType t = job->ptypes[i];
    cg_assert(valid_width(t.width) && (!t.is_int || t.width == 1));
    declare(k, job->pnames[i], t);
  }
  Parser p = {c, tokenize(c, job->text), 0};
  Stmt *body = parse_stmts(&p, NULL, job->text);
  check_stmts(k, body, job->ret);  // the body's outer block shares the parameters' scope, as in C
  if (!always_returns(body)) fail(c, "not every path returns a value");
  CBody *b = ARENA_NEW(c->a, CBody);
  b->fname = arena_strdup(c->a, c->fname);
  b->nparams = job->nparams;
  b->ret = job->ret;
  b->body = body;
  b->slot_type = ARENA_ARRAY(c->a, CbType, k->nslots ? k->nslots : 1);
  memcpy(b->slot_type, k->slot_type, sizeof *k->slot_type * (size_t)k->nslots);
  return b;
}

CBody *cb_parse(Arena *a, const char *fname, const char *text, int nparams,
                const char *const *pnames, const CbType *ptypes, CbType ret, Diag *d) {
  cg_assert(valid_width(ret.width) && (!ret.is_int || ret.width == 1));
  Job job = {text, nparams, pnames, ptypes, ret};
  Ctx c;
  c.a = a;
  c.d = d;
  c.fname = fname;
  if (setjmp(c.fail)) return NULL;
  return parse_and_check(&c, &job);
}

/* ---- evaluator --------------------------------------------------------- */

typedef struct Eval {
  const CBody *b;                 // the body being run
  CbValue slot[CB_MAX_VARS];      // variables; parameters first
  Diag *d;                        // where a fault goes
  bool fault;                     // a fault was recorded; results are junk
} Eval;

static void fault(Eval *ev, const char *what) {
  if (!ev->fault) diag_error(ev->d, "user function '%s': %s", ev->b->fname, what);
  ev->fault = true;
}

/* Component i of v, a scalar broadcasting to every position. */
static double at(const CbValue *v, int i) { return v->width == 1 ? v->v[0] : v->v[i]; }

/* Ints are computed in 64 bits and wrapped to 32, as the device does. */
static double wrap_i32(int64_t x) { return (double)(int32_t)(uint32_t)(uint64_t)x; }

static CbValue convert(CbValue v, CbType to) {
  CbValue r = {to.width, {0}};
  for (int i = 0; i < to.width; i++) r.v[i] = at(&v, i);
  return r;
}

static double arith(Eval *ev, BinOp op, bool is_int, double x, double y) {
  if (is_int) {
    int64_t a = (int64_t)x, b = (int64_t)y;
    switch (op) {
    case OP_ADD: return wrap_i32(a + b);
    case OP_SUB: return wrap_i32(a - b);
    case OP_MUL: return wrap_i32(a * b);
    case OP_DIV:
      if (b != 0) return wrap_i32(a / b);
      fault(ev, "integer division by zero in '/'");
      return 0;
    default: break;
    }
  } else {
    switch (op) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_DIV: return x / y;
    default: break;
    }
  }
  switch (op) {
  case OP_LT: return x < y;
  case OP_LE: return x <= y;
  case OP_GT: return x > y;
  case OP_GE: return x >= y;
  case OP_EQ: return x == y;
  case OP_NE: return x != y;
  default: cg_die("bad binary operator %d", op);
  }
}

static double apply(Builtin fn, double x, double y, double z) {
  switch (fn) {
  case B_FMAX: case B_MAX: return fmax(x, y);
  case B_FMIN: case B_MIN: return fmin(x, y);
  case B_FABS: return fabs(x);
  case B_SQRT: return sqrt(x);
  case B_RSQRT: return 1.0 / sqrt(x);
  case B_EXP: return exp(x);
  case B_LOG: return log(x);
  case B_LOG1P: return log1p(x);
  case B_POW: return pow(x, y);
  case B_TANH: return tanh(x);
  case B_ERF: return erf(x);
  case B_FLOOR: return floor(x);
  case B_CEIL: return ceil(x);
  case B_MAD: case B_FMA: return x * y + z;
  case B_CLAMP: return fmin(fmax(x, y), z);
  case B_SELECT: return z != 0 ? y : x;
  case B_DOT: case B_COUNT: break;
  }
  cg_die("bad built-in %d", fn);
}

static CbValue eval_expr(Eval *ev, const Expr *e);

static CbValue eval_call(Eval *ev, const Expr *e) {
  CbValue arg[3], r = {e->type.width, {0}};
  for (int i = 0; i < e->nargs; i++) arg[i] = eval_expr(ev, e->args[i]);
  if (e->fn == B_DOT) {
    int w = arg[0].width > arg[1].width ? arg[0].width : arg[1].width;
    for (int i = 0; i < w; i++) r.v[0] += at(&arg[0], i) * at(&arg[1], i);
    return r;
  }
  for (int i = 0; i < r.width; i++)
    r.v[i] = apply(e->fn, at(&arg[0], i), e->nargs > 1 ? at(&arg[1], i) : 0, e->nargs > 2 ? at(&arg[2], i) : 0);
  return r;
}

static CbValue eval_expr(Eval *ev, const Expr *e) {
  CbValue r = {e->type.width, {0}}, x, y;
  switch (e->kind) {
  case EX_NUM:
    r.v[0] = e->num;
    return r;
  case EX_VAR:
    return ev->slot[e->slot];
  case EX_NEG:
    x = eval_expr(ev, e->a);
    for (int i = 0; i < r.width; i++) r.v[i] = e->type.is_int ? wrap_i32(-(int64_t)x.v[i]) : -x.v[i];
    return r;
  case EX_POS:
    return eval_expr(ev, e->a);
  case EX_NOT:
    r.v[0] = eval_expr(ev, e->a).v[0] == 0;
    return r;
  case EX_BIN:
    x = eval_expr(ev, e->a);
    if (e->op == OP_AND || e->op == OP_OR) {  // short-circuit, as in C
      bool lhs = x.v[0] != 0;
      r.v[0] = lhs == (e->op == OP_OR) ? lhs : eval_expr(ev, e->b).v[0] != 0;
      return r;
    }
    y = eval_expr(ev, e->b);
    for (int i = 0; i < r.width; i++) r.v[i] = arith(ev, e->op, e->type.is_int, at(&x, i), at(&y, i));
    return r;
  case EX_COND:
    return convert(eval_expr(ev, eval_expr(ev, e->a).v[0] != 0 ? e->b : e->c), e->type);
  case EX_CAST:
    x = eval_expr(ev, e->a);
    r.v[0] = x.v[0];
    if (e->to.is_int) {
      if (!(x.v[0] > -2147483649.0 && x.v[0] < 2147483648.0))
        fault(ev, "(int) of a value out of int range");
      else
        r.v[0] = trunc(x.v[0]);
    }
    return r;
  case EX_VEC: {
    int n = 0;
    for (int i = 0; i < e->nargs; i++) {
      x = eval_expr(ev, e->args[i]);
      for (int j = 0; j < x.width; j++) r.v[n++] = x.v[j];
    }
    for (int i = n; i < r.width; i++) r.v[i] = r.v[0];  // (float4)(s) broadcasts
    return r;
  }
  case EX_COMP:
    x = eval_expr(ev, e->a);
    for (int i = 0; i < r.width; i++) r.v[i] = x.v[e->comp[i]];
    return r;
  case EX_CALL:
    return eval_call(ev, e);
  }
  cg_die("bad expression kind %d", e->kind);
}

typedef enum { FLOW_NEXT, FLOW_RETURN, FLOW_FAULT } Flow;

static Flow exec_stmts(Eval *ev, const Stmt *s, CbValue *out);

static Flow exec_stmt(Eval *ev, const Stmt *s, CbValue *out) {
  switch (s->kind) {
  case ST_DECL:
  case ST_ASSIGN: {
    CbValue v = eval_expr(ev, s->e);
    if (ev->fault) return FLOW_FAULT;
    ev->slot[s->slot] = convert(v, ev->b->slot_type[s->slot]);
    return FLOW_NEXT;
  }
  case ST_IF: {
    bool cond = eval_expr(ev, s->e).v[0] != 0;
    if (ev->fault) return FLOW_FAULT;
    if (cond) return exec_stmt(ev, s->then, out);
    return s->els ? exec_stmt(ev, s->els, out) : FLOW_NEXT;
  }
  case ST_BLOCK:
    return exec_stmts(ev, s->body, out);
  case ST_RETURN:
    *out = convert(eval_expr(ev, s->e), ev->b->ret);
    return ev->fault ? FLOW_FAULT : FLOW_RETURN;
  case ST_EMPTY:
    return FLOW_NEXT;
  }
  cg_die("bad statement kind %d", s->kind);
}

static Flow exec_stmts(Eval *ev, const Stmt *s, CbValue *out) {
  for (; s; s = s->next) {
    Flow f = exec_stmt(ev, s, out);
    if (f != FLOW_NEXT) return f;
  }
  return FLOW_NEXT;
}

bool cb_eval(const CBody *b, const CbValue *args, CbValue *out, Diag *d) {
  Eval ev;
  ev.b = b;
  ev.d = d;
  ev.fault = false;
  for (int i = 0; i < b->nparams; i++) {
    cg_assert(args[i].width == b->slot_type[i].width);
    ev.slot[i] = args[i];
  }
  Flow f = exec_stmts(&ev, b->body, out);
  if (f == FLOW_FAULT) return false;
  if (f == FLOW_NEXT) return diag_error(d, "user function '%s': fell off the end without returning a value", b->fname);
  return true;
}
