/* rewrite.h: the rewrite engine. A rule turns one expression into an
 * equivalent one; strategies are sequences of rule applications that take the
 * high-level convolution to a low-level, parallel form (docs/design.md section 6).
 *
 * A rule has a name, its equation as a string (which is also its
 * documentation: "map(f) . map(g) => map(f . g)"), a matcher and a builder.
 * Rules that introduce a numeric choice (a tile size, a vector width) take it
 * as an AExpr argument, usually a symbolic tuning parameter, so that the
 * rewritten program keeps the choice open (its constraints are read off the
 * IR later: split(n) on length N gives N % n = 0).
 *
 * Positions: every expression node of a program is reachable by a path of
 * child indices from the body (rw_children lists a node's children: the call's
 * arguments first, then the bodies of the lambdas inside the called function,
 * through the static arguments of primitives). Rewriting builds new nodes; the
 * old program is never changed. After a rewrite, types must be inferred again
 * (ir_infer) on the new program.
 */
#ifndef CONVGEN_REWRITE_H
#define CONVGEN_REWRITE_H

#include "ir/ir.h"

enum { RW_MAX_PATH = 64, RW_MAX_ARGS = 4 };
/* Const arrays one rule application may make (Winograd's three matrices). */
enum { RW_MAX_NEW_CONSTS = 8 };

typedef struct RwPath {
  int n;                       // depth
  int step[RW_MAX_PATH];       // child index at each level
} RwPath;

typedef struct Rule Rule;
struct Rule {
  const char *name;            // "map-fusion"
  const char *equation;        // "map(f)(map(g)(x)) => map(fun(y) -> f(g(y)))(x)"
  int nargs;                   // numeric arguments the rule takes (0..RW_MAX_ARGS)
  const char *arg_names[RW_MAX_ARGS];  // their meaning, e.g. "n: tile size"
  /* Does the rule apply at e (typed)? */
  bool (*match)(const Expr *e, const AExpr *const *args);
  /* The rewritten expression (untyped new nodes; may share unchanged children). */
  const Expr *(*build)(Arena *a, const Expr *e, const AExpr *const *args);
};

/* The children of an expression node, in a fixed order (see above); returns
 * how many there are (at most max are stored). A call has at most 17: 16
 * arguments and one lambda body. */
int rw_children(const Expr *e, const Expr **out, int max);

/* The node at a path; NULL when the path does not exist. */
const Expr *rw_at(const Expr *root, const RwPath *p);

/* root with the node at path p replaced by repl (new nodes along the path,
 * siblings shared); NULL when the path does not exist. */
const Expr *rw_replace(Arena *a, const Expr *root, const RwPath *p, const Expr *repl);

/* Every position where rule r applies, in pre-order; returns the count (at
 * most max stored). root must be typed. */
int rw_find(const Expr *root, const Rule *r, const AExpr *const *args, RwPath *out, int max);

/* Apply r at p: a new program, type-inferred again.
 * NULL with a Diag when the rule does not apply there or the result does not
 * type-check (which would be a bug in the rule: the message says so).
 * What is shared: the sizes, user functions, inputs, primitives without a
 * nested function and every AExpr; the expression tree itself is copied once
 * (engine.c says why), so inference never writes into prog. The result lives
 * in a but refers to prog's arena: free that one last. Lambda parameters made
 * by the rule, and the second copy of any lambda it duplicated, get fresh ids
 * from prog->nparams_total up and fresh names ("y17"); the rest keep theirs.
 * A variable of a rule argument that prog does not declare as a size (a
 * tuning parameter, split[tile]) is declared in the new program, after
 * prog's sizes, so that its text parses back.
 * Messages: "rule 'NAME' does not apply at PATH ('EXPR')", "rule 'NAME'
 * produced an ill-typed program at PATH: <the type error>". */
Program *rw_apply(Arena *a, const Program *prog, const Rule *r, const AExpr *const *args, const RwPath *p, Diag *d);

/* A copy of prog with every lambda parameter made afresh (the ids of
 * duplicates renumbered, names that would capture renamed) and its types
 * inferred again: for a program a strategy assembled from parts (s2's
 * split-K puts a derived program in a map's body) rather than by a rule.
 * NULL with a Diag when it is ill-scoped or ill-typed. */
Program *rw_renew(Arena *a, const Program *prog, Diag *d);

/* Paths as text, for messages, dumps and golden files: "/" is the body,
 * "/0/2" the third child of its first child. rw_path_parse accepts what
 * rw_path_str writes (surrounding blanks allowed); false on anything else. */
const char *rw_path_str(Arena *a, const RwPath *p);
bool rw_path_parse(const char *s, RwPath *out);

/* The rules, each defined once in its family's file (rules_*.c). */
const Rule *rw_rules(int *n);
const Rule *rw_rule(const char *name);   // NULL when unknown

#endif
