/* print.c: the text form of programs, functions and expressions (docs/ir.md).
 *
 * Invariant: what this prints, ir_parse reads back to the same program. Long
 * chains of one-argument calls print as pipelines (x |> split[4] |> join) so
 * that data flows left to right as in the papers' `f o g $ x`, read backwards.
 */
#include "ir/ir.h"
#include "ir/interp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void print_expr(StrBuf *sb, const Expr *e, int indent);
static void print_fun(StrBuf *sb, const Fun *f, int indent);


static void newline(StrBuf *sb, int indent) {
  sb_putc(sb, '\n');
  for (int i = 0; i < indent; i++) sb_putc(sb, ' ');
}

/* A unary call of a primitive whose argument is again such a call: printed as
 * a pipeline stage. */
static bool is_stage(const Expr *e) {
  return e->kind == E_CALL && e->nargs == 1 && e->fun->kind == F_PRIM;
}

static int chain_length(const Expr *e) {
  int n = 0;
  for (; is_stage(e); e = e->args[0]) n++;
  return n;
}

static void print_static(StrBuf *sb, const Fun *f, int indent) {
  switch (prim_static(f->prim)) {
  case S_NONE: return;
  case S_F: sb_putc(sb, '['); print_fun(sb, f->f, indent); break;
  case S_DF:
    if (f->dim == IR_DIM_FLAT) sb_puts(sb, "[flat, ");
    else sb_printf(sb, "[%d, ", f->dim);
    print_fun(sb, f->f, indent);
    break;
  case S_N: sb_putc(sb, '['); ax_print(sb, f->n); break;
  case S_NN:
    sb_putc(sb, '[');
    ax_print(sb, f->n);
    sb_puts(sb, ", ");
    ax_print(sb, f->m);
    break;
  case S_PAD:
    sb_putc(sb, '[');
    ax_print(sb, f->n);
    sb_puts(sb, ", ");
    ax_print(sb, f->m);
    sb_puts(sb, ", ");
    if (f->boundary == PAD_CLAMP) sb_puts(sb, "clamp");
    else sb_float_literal(sb, f->padval);
    break;
  case S_I: sb_printf(sb, "[%d", f->index); break;
  case S_NF:
    sb_putc(sb, '[');
    ax_print(sb, f->n);
    sb_puts(sb, ", ");
    print_fun(sb, f->f, indent);
    break;
  case S_IDX:
    sb_printf(sb, "[(%s, %s) -> ", f->idx_i->name, f->idx_n->name);
    ax_print(sb, f->idx);
    break;
  }
  sb_putc(sb, ']');
}

static void print_fun(StrBuf *sb, const Fun *f, int indent) {
  switch (f->kind) {
  case F_USER: sb_puts(sb, f->uf->name); break;
  case F_PRIM:
    sb_puts(sb, prim_name(f->prim));
    print_static(sb, f, indent);
    break;
  case F_LAMBDA:
    sb_puts(sb, "fun(");
    for (int i = 0; i < f->nparams; i++) sb_printf(sb, "%s%s", i ? ", " : "", f->params[i]->name);
    sb_puts(sb, ") -> ");
    print_expr(sb, f->body, indent + 2);
    break;
  }
}

static void print_args(StrBuf *sb, const Expr *e, int indent) {
  sb_putc(sb, '(');
  for (int i = 0; i < e->nargs; i++) {
    if (i) sb_puts(sb, ", ");
    print_expr(sb, e->args[i], indent);
  }
  sb_putc(sb, ')');
}

/* x |> f |> g for g(f(x)); long chains break one stage per line. */
static void print_pipeline(StrBuf *sb, const Expr *e, int indent) {
  int n = chain_length(e);
  const Expr *stages[256];
  if (n > 256) n = 256;
  const Expr *x = e;
  for (int i = 0; i < n; i++, x = x->args[0]) stages[i] = x;
  print_expr(sb, x, indent);
  bool multiline = n >= 3;
  for (int i = n - 1; i >= 0; i--) {
    if (multiline) newline(sb, indent);
    else sb_putc(sb, ' ');
    sb_puts(sb, "|> ");
    print_fun(sb, stages[i]->fun, indent + 3);
  }
}

static void print_expr(StrBuf *sb, const Expr *e, int indent) {
  switch (e->kind) {
  case E_PARAM: sb_puts(sb, e->param->name); return;
  case E_LIT:
    if (e->lit_is_int) sb_printf(sb, "%lld", (long long)e->lit);
    else sb_float_literal(sb, e->lit);
    return;
  case E_CALL: break;
  }
  const Fun *f = e->fun;
  if (f->kind == F_LAMBDA && f->nparams == 1 && e->nargs == 1) {
    sb_printf(sb, "let %s = ", f->params[0]->name);
    print_expr(sb, e->args[0], indent + 2);
    sb_puts(sb, " in");
    newline(sb, indent);
    print_expr(sb, f->body, indent);
    return;
  }
  if (f->kind == F_LAMBDA) {
    sb_putc(sb, '(');
    print_fun(sb, f, indent);
    sb_putc(sb, ')');
    print_args(sb, e, indent);
    return;
  }
  if (chain_length(e) >= 2) {
    sb_putc(sb, '(');
    print_pipeline(sb, e, indent + 1);
    sb_putc(sb, ')');
    return;
  }
  print_fun(sb, f, indent);
  print_args(sb, e, indent);
}

void ir_print_expr(StrBuf *sb, const Expr *e) { print_expr(sb, e, 0); }
void ir_print_fun(StrBuf *sb, const Fun *f) { print_fun(sb, f, 0); }

const char *ir_expr_str(Arena *a, const Expr *e) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_expr(&sb, e);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

static void print_userfun(StrBuf *sb, const UserFun *uf) {
  sb_printf(sb, "userfun %s(", uf->name);
  for (int i = 0; i < uf->nparams; i++) {
    sb_printf(sb, "%s%s: ", i ? ", " : "", uf->pnames[i]);
    ty_print(sb, uf->ptypes[i]);
  }
  sb_puts(sb, "): ");
  ty_print(sb, uf->ret);
  sb_printf(sb, " {%s}\n", uf->body);
}

void ir_print_program(StrBuf *sb, const Program *p) {
  if (p->nsizes) {
    sb_puts(sb, "size ");
    for (int i = 0; i < p->nsizes; i++) sb_printf(sb, "%s%s", i ? ", " : "", p->size_names[i]);
    sb_putc(sb, '\n');
  }
  for (int i = 0; i < p->nufs; i++) print_userfun(sb, p->ufs[i]);
  for (int i = 0; i < p->ninputs; i++) {
    sb_printf(sb, "input %s: ", p->inputs[i]->name);
    ty_print(sb, p->inputs[i]->type);
    sb_putc(sb, '\n');
  }
  for (int i = 0; i < p->nconsts; i++) {
    const Param *c = p->consts[i];
    sb_printf(sb, "const %s: ", c->name);
    ty_print(sb, c->type);
    sb_puts(sb, " = [");
    for (int64_t k = 0, n = ir_flat_count(c->type); k < n; k++) {
      if (k) sb_puts(sb, ", ");
      sb_float_literal(sb, c->values[k]);
    }
    sb_puts(sb, "]\n");
  }
  for (int d = 0; d < 3 && p->workgroup[d]; d++) {
    sb_puts(sb, d ? ", " : "workgroup ");
    ax_print(sb, p->workgroup[d]);
    if (d == 2 || !p->workgroup[d + 1]) sb_putc(sb, '\n');
  }
  sb_puts(sb, "out");
  if (p->out_type) {
    sb_puts(sb, ": ");
    ty_print(sb, p->out_type);
  }
  sb_puts(sb, " = ");
  print_expr(sb, p->body, 2);
  sb_putc(sb, '\n');
}
