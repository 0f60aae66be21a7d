/* emit.c: prints lowered kernels as C-like source through a Dialect.
 *
 * One walk over the statements; every keyword that differs between targets
 * comes from the dialect. Scalarised private arrays print as one variable per
 * element (name_0, name_1, ...). Parallel loops print as the cheapest form
 * their ranges allow: a plain assignment when there is exactly one iteration
 * per work-item, a guard when there are fewer iterations than work-items, a
 * strided loop otherwise.
 */
#include "codegen/codegen.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct Emit {
  StrBuf *sb;
  const Dialect *dl;
  int indent;
  const LKernel *k;       // the kernel being emitted
  int64_t out_base;       // LProgram.out_base
} Emit;

static void line_start(Emit *e) {
  for (int i = 0; i < e->indent; i++) sb_puts(e->sb, "  ");
}

/* The element type of values of type t: fp32 where t has none (an int
 * memory's pad values, like every literal, print as fp32's). */
static const ElemType *elem_of(const Type *t) {
  const ElemType *et = t ? ty_elem(t) : NULL;
  return et ? et : elem_fp32();
}

/* A guard that the unrolling made a nonzero constant (a pad's bounds test
 * at a place inside the plane): no test to print. */
static bool always(const AExpr *cond) {
  int64_t v;
  return cond && ax_is_cst(cond, &v) && v != 0;
}

/* The element type a load of m gives and a store into it takes: its
 * storage's, or the accumulation type of a storage type (half's float). */
static const ElemType *value_elem(const Mem *m) { return elem_type(elem_of(m->storage)->acc); }

/* How the dialect reads and writes m's elements when they are of a storage
 * type (half); NULL when they are read and written as they are. */
static const ElemSpelling *converted(const Emit *e, const Mem *m) {
  const ElemSpelling *sp = &elem_of(m->storage)->spell[e->dl->elem_target];
  return sp->load ? sp : NULL;
}

/* The vector of width w of et, as the dialect spells it. */
static void vec_name(Emit *e, const ElemType *et, int w) {
  char buf[64];
  elem_vec_name(buf, sizeof buf, et, e->dl->elem_target, w);
  sb_puts(e->sb, buf);
}

static void type_name(Emit *e, const Type *t) {
  if (t->kind == TY_VEC) vec_name(e, t->et, t->width);
  else sb_puts(e->sb, t->kind == TY_INT ? "int" : t->et->spell[e->dl->elem_target].scalar);
}

/* A vector of `width` values of et, its components still to print: the
 * dialect's opening with the type's name in it. */
static void vec_make(Emit *e, const ElemType *et, int width) {
  char buf[64];
  elem_vec_name(buf, sizeof buf, et, e->dl->elem_target, width);
  sb_printf(e->sb, e->dl->vec_make_fmt, buf);
}


static void aexpr(Emit *e, const AExpr *x) { ax_print(e->sb, x); }

/* mem[idx] for arrays, name_k for scalarised ones, name for one-element ones. */
static void element(Emit *e, const Mem *m, const AExpr *idx) {
  int64_t k;
  if (m->space == MS_PRIVATE && m->count == 1) {
    sb_puts(e->sb, m->name);
  } else if (m->scalarised && ax_is_cst(idx, &k)) {
    sb_printf(e->sb, "%s_%lld", m->name, (long long)k);
  } else {
    sb_printf(e->sb, "%s[", m->name);
    aexpr(e, idx);
    sb_putc(e->sb, ']');
  }
}

/* m[idx] read as a value: converted from a storage type, vload_half(idx, m)
 * or __half2float(m[idx]). */
static void load_element(Emit *e, const Mem *m, const AExpr *idx, bool raw) {
  const ElemSpelling *sp = converted(e, m);
  if (!sp || raw) {   // (raw: the element as it is stored, CExpr.raw)
    element(e, m, idx);
  } else if (sp->by_offset) {
    sb_printf(e->sb, "%s(", sp->load);
    aexpr(e, idx);
    sb_printf(e->sb, ", %s)", m->name);
  } else {
    sb_printf(e->sb, "%s(", sp->load);
    element(e, m, idx);
    sb_putc(e->sb, ')');
  }
}

/* The offset argument of vloadN/vstoreN: idx/N when N divides idx, so that
 * the address is visibly aligned (true returned); else 0 with the pointer
 * moved. */
static bool vec_address(const Mem *m, const AExpr *idx, int width, char *off, size_t offn, char *ptr,
                        size_t ptrn) {
  Arena *a = arena_new();
  const AExpr *w = ax_cst(a, width);
  bool aligned = ax_prove_divisible(idx, w);
  if (aligned) {
    snprintf(off, offn, "%s", ax_str(a, ax_div(a, idx, w)));
    snprintf(ptr, ptrn, "%s", m->name);
  } else {
    snprintf(off, offn, "0");
    snprintf(ptr, ptrn, "%s + %s", m->name, ax_str(a, idx));
  }
  arena_free(a);
  return aligned;
}

/* A vector load lane by lane: one that straddles a pad's border, each lane
 * its own guard (lane_cond with the lane put in) and element, or a gather,
 * each lane at its own index (lane_idx), guarded if lane_cond says. */
static void lanes(Emit *e, const CExpr *c) {
  Arena *a = arena_new();
  const char *name = LW_VEC_LANE;
  const ElemType *et = value_elem(c->mem);
  vec_make(e, et, c->width);
  for (int l = 0; l < c->width; l++) {
    const AExpr *at = ax_cst(a, l), *in = c->lane_cond ? ax_subst(a, c->lane_cond, 1, &name, &at) : ax_cst(a, 1);
    int64_t always;
    bool guarded = !(ax_is_cst(in, &always) && always);   // not a lane inside the border on every work-item
    if (l) sb_puts(e->sb, ", ");
    if (guarded) {
      sb_putc(e->sb, '(');
      aexpr(e, in);
      sb_puts(e->sb, " ? ");
    }
    load_element(e, c->mem, c->lane_idx ? ax_subst(a, c->lane_idx, 1, &name, &at) : ax_add(a, c->idx, at), false);
    if (guarded) {
      sb_puts(e->sb, " : ");
      elem_literal(e->sb, et, c->padval);
      sb_putc(e->sb, ')');
    }
  }
  sb_puts(e->sb, e->dl->vec_make_end);
  arena_free(a);
}

static void cexpr(Emit *e, const CExpr *c) {
  switch (c->kind) {
  case C_LIT:
    if (c->lit_is_int) sb_printf(e->sb, "%lld", (long long)c->lit);
    else elem_literal(e->sb, elem_of(c->type), c->lit);
    return;
  case C_LOAD: {
    if (c->lane_idx) {   // a gather
      lanes(e, c);
      return;
    }
    if (c->nlevels > 1) {   // nested pads of different values: each level's value where its test fails
      for (int i = 0; i < c->nlevels; i++) {
        sb_putc(e->sb, '(');
        aexpr(e, c->level_cond[i]);
        sb_puts(e->sb, " ? ");
      }
      load_element(e, c->mem, c->idx, false);
      for (int i = c->nlevels - 1; i >= 0; i--) {
        sb_puts(e->sb, " : ");
        elem_literal(e->sb, value_elem(c->mem), c->level_val[i]);
        sb_putc(e->sb, ')');
      }
      return;
    }
    const AExpr *cond = always(c->cond) ? NULL : c->cond;
    if (cond) {
      sb_putc(e->sb, '(');
      aexpr(e, cond);
      sb_puts(e->sb, " ? ");
    }
    if (c->raw && c->width == 2) {   // two neighbouring halves as they are stored, one 32-bit load (gen.c's half_pair)
      sb_puts(e->sb, "cg_h2_at(&");
      element(e, c->mem, c->idx);
      sb_putc(e->sb, ')');
    } else if (c->width > 1) {
      const ElemSpelling *sp = converted(e, c->mem);
      char off[512], ptr[512];
      bool aligned = vec_address(c->mem, c->idx, c->width, off, sizeof off, ptr, sizeof ptr);
      // a local array is declared 16-byte aligned: a width-4 load at a multiple of 4 is one aligned load
      if (sp) {   // half: vload_half4(off, p), a float4
        sb_printf(e->sb, sp->vload_fmt, c->width);
        sb_printf(e->sb, "(%s, %s)", off, ptr);
      } else if (aligned && c->mem->space == MS_LOCAL && c->width == 4) {
        char vt[64];
        elem_vec_name(vt, sizeof vt, elem_of(c->mem->storage), e->dl->elem_target, c->width);
        sb_printf(e->sb, e->dl->vload_aligned_fmt, vt, ptr, off);
      } else {
        sb_printf(e->sb, e->dl->vload_fmt, c->width, off, ptr);
      }
    } else {
      load_element(e, c->mem, c->idx, c->raw);
    }
    if (cond) {
      sb_puts(e->sb, " : ");
      if (c->lane_cond) {
        lanes(e, c);
      } else if (c->width > 1) {
        const ElemType *et = value_elem(c->mem);
        StrBuf lit;
        sb_init(&lit);
        elem_literal(&lit, et, c->padval);
        if (e->dl->vec_splat_fmt) {
          sb_printf(e->sb, e->dl->vec_splat_fmt, c->width, sb_str(&lit));
        } else {   // the vector made of the one value
          vec_make(e, et, c->width);
          sb_printf(e->sb, "%s%s", sb_str(&lit), e->dl->vec_make_end);
        }
        sb_free(&lit);
      } else {
        elem_literal(e->sb, value_elem(c->mem), c->padval);
      }
      sb_putc(e->sb, ')');
    }
    return;
  }
  case C_CALL:
    sb_printf(e->sb, "%s(", c->fname);
    for (int i = 0; i < c->nargs; i++) {
      if (i) sb_puts(e->sb, ", ");
      cexpr(e, c->args[i]);
    }
    sb_putc(e->sb, ')');
    return;
  case C_COMP:
    sb_putc(e->sb, '(');
    cexpr(e, c->args[0]);
    cg_assert(c->comp >= 0 && c->comp < 16 && e->dl->comp_names[c->comp]);
    sb_printf(e->sb, ").%s", e->dl->comp_names[c->comp]);
    return;
  }
}

static void stmt(Emit *e, const Stmt *s);

static void block_body(Emit *e, const Stmt *b) {
  for (int i = 0; i < b->n; i++) stmt(e, b->stmts[i]);
}

static void decl(Emit *e, const Mem *m) {
  line_start(e);
  type_name(e, m->storage);
  if (m->count == 1) {
    sb_printf(e->sb, " %s;\n", m->name);
  } else if (m->scalarised) {
    for (int64_t k = 0; k < m->count; k++) sb_printf(e->sb, "%s%s_%lld", k ? ", " : " ", m->name, (long long)k);
    sb_puts(e->sb, ";\n");
  } else {
    sb_printf(e->sb, " %s[%lld];\n", m->name, (long long)m->count);
  }
}

/* A flat mapLcl's index: the work-item's place in its group, dimension 0
 * fastest, over the dimensions the group spans (the sizes are the kernel's). */
static void flat_local_id(const Emit *e, char *out, size_t cap) {
  size_t n = 0, stride = 1;
  out[0] = '\0';
  for (int d = 0; d < 3; d++) {
    if (e->k->local[d] <= 1) continue;
    const char *id = e->dl->ids[LOOP_LCL - 1][d];
    if (stride == 1) n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " + " : "", id);
    else n += (size_t)snprintf(out + n, cap - n, "%s%zu*%s", n ? " + " : "", stride, id);
    stride *= e->k->local[d];
    cg_assert(n < cap);
  }
  if (!n) snprintf(out, cap, "0");
}

static void loop(Emit *e, const Stmt *s) {
  const char *var = s->var->name;
  line_start(e);
  if (s->loop == LOOP_SEQ) {
    if (s->stop == 1) sb_printf(e->sb, "{\n");
    else sb_printf(e->sb, "for (int %s = 0; %s < %lld; %s++) {\n", var, var, (long long)s->stop, var);
    e->indent++;
    if (s->stop == 1) line_start(e), sb_printf(e->sb, "const int %s = 0;\n", var);
  } else {
    char id[256];
    if (s->dim == IR_DIM_FLAT) flat_local_id(e, id, sizeof id);
    else snprintf(id, sizeof id, "%s", e->dl->ids[s->loop - 1][s->dim]);
    if (s->fold_div || s->folded) {   // a chain of mapWrgs (mapGlbs) of one dimension: each index a part of the id
      int64_t div = s->fold_div ? s->fold_div : 1;
      if (!s->folded && s->stop * div < s->step) sb_printf(e->sb, "if (%s < %lld) {\n", id, (long long)(s->stop * div));
      else sb_puts(e->sb, "{\n");
      e->indent++;
      line_start(e);
      if (!s->folded) sb_printf(e->sb, "const int %s = %s / %lld;\n", var, id, (long long)div);
      else if (div == 1) sb_printf(e->sb, "const int %s = %s %% %lld;\n", var, id, (long long)s->stop);
      else sb_printf(e->sb, "const int %s = (%s / %lld) %% %lld;\n", var, id, (long long)div, (long long)s->stop);
    } else if (s->stop > s->step) {
      sb_printf(e->sb, "for (int %s = %s; %s < %lld; %s += %lld) {\n", var, id, var, (long long)s->stop, var,
                (long long)s->step);
      e->indent++;
    } else {
      if (s->stop < s->step) sb_printf(e->sb, "if (%s < %lld) {\n", id, (long long)s->stop);
      else sb_puts(e->sb, "{\n");
      e->indent++;
      line_start(e);
      sb_printf(e->sb, "const int %s = %s;\n", var, id);
    }
  }
  block_body(e, s->body);
  e->indent--;
  line_start(e);
  sb_puts(e->sb, "}\n");
}

/* An asynchronous copy of one value (prefetch.c): cg_cp_async4(&lcl[i],
 * &x[j], ok), the source address x itself and nothing read where the load's
 * pad test ok fails (the copy fills a zero). */
static void async_copy(Emit *e, const Stmt *s) {
  const CExpr *v = s->value;   // cg_emit checked that the dialect has the helpers (LProgram.uses_async)
  sb_puts(e->sb, "cg_cp_async4(&");
  element(e, s->mem, s->idx);
  sb_puts(e->sb, ", ");
  const AExpr *cond = always(v->cond) ? NULL : v->cond;
  if (cond) {
    sb_putc(e->sb, '(');
    aexpr(e, cond);
    sb_puts(e->sb, " ? ");
  }
  sb_putc(e->sb, '&');
  element(e, v->mem, v->idx);
  if (cond) {
    sb_printf(e->sb, " : %s), ", v->mem->name);
    aexpr(e, cond);
  } else {
    sb_puts(e->sb, ", 1");
  }
  sb_puts(e->sb, ");\n");
}

static void store(Emit *e, const Stmt *s) {
  line_start(e);
  if (s->cond && !always(s->cond)) {
    sb_puts(e->sb, "if (");
    aexpr(e, s->cond);
    sb_puts(e->sb, ") ");
  }
  if (s->async) {
    async_copy(e, s);
    return;
  }
  if (s->width > 1) {
    const ElemSpelling *sp = converted(e, s->mem);
    char off[512], ptr[512];
    vec_address(s->mem, s->idx, s->width, off, sizeof off, ptr, sizeof ptr);
    StrBuf val;
    sb_init(&val);
    StrBuf *saved = e->sb;
    e->sb = &val;
    cexpr(e, s->value);
    e->sb = saved;
    if (sp) {   // half: vstore_half4(v, off, p), from a float4
      sb_printf(e->sb, sp->vstore_fmt, s->width);
      sb_printf(e->sb, "(%s, %s, %s)", sb_str(&val), off, ptr);
    } else {
      sb_printf(e->sb, e->dl->vstore_fmt, s->width, sb_str(&val), off, ptr);
    }
    sb_free(&val);
    sb_puts(e->sb, ";\n");
    return;
  }
  const ElemSpelling *sp = converted(e, s->mem);
  if (sp && sp->by_offset) {   // vstore_half(v, idx, m)
    sb_printf(e->sb, "%s(", sp->store);
    cexpr(e, s->value);
    sb_puts(e->sb, ", ");
    aexpr(e, s->idx);
    sb_printf(e->sb, ", %s);\n", s->mem->name);
    return;
  }
  element(e, s->mem, s->idx);
  sb_puts(e->sb, " = ");
  if (sp) sb_printf(e->sb, "%s(", sp->store);   // m[idx] = __float2half_rn(v)
  cexpr(e, s->value);
  sb_puts(e->sb, sp ? ");\n" : ";\n");
}

static void stmt(Emit *e, const Stmt *s) {
  switch (s->kind) {
  case ST_BLOCK:
    line_start(e);
    sb_puts(e->sb, "{\n");
    e->indent++;
    block_body(e, s);
    e->indent--;
    line_start(e);
    sb_puts(e->sb, "}\n");
    return;
  case ST_FOR: loop(e, s); return;
  case ST_STORE: store(e, s); return;
  case ST_DECL: decl(e, s->mem); return;
  case ST_BARRIER:
    line_start(e);
    sb_printf(e->sb, "%s\n", s->global_fence ? e->dl->barrier_global : e->dl->barrier_local);
    return;
  case ST_COMMENT:
    line_start(e);
    sb_printf(e->sb, "// %s\n", s->text);
    return;
  case ST_ASYNC_WAIT:
    line_start(e);
    sb_puts(e->sb, "cg_cp_async_wait();\n");
    return;
  }
}

/* A user function's body at vector width w: every word naming its element
 * type (`float`) becomes the vector of w of them (floatW). */
static void user_fun(Emit *e, const LUserFun *u) {
  const UserFun *uf = u->uf;
  StrBuf *sb = e->sb;
  const Type *ret = uf->ret;
  const ElemType *et = elem_of(ret);   // a function widened is of one element type, its return's
  size_t n = strlen(et->name);
  if (*e->dl->fun_qual) sb_printf(sb, "%s ", e->dl->fun_qual);
  if (u->width > 1) vec_name(e, et, u->width);
  else type_name(e, ret);
  sb_printf(sb, " %s(", u->cname);
  for (int i = 0; i < uf->nparams; i++) {
    if (i) sb_puts(sb, ", ");
    if (u->width > 1) vec_name(e, et, u->width);
    else type_name(e, uf->ptypes[i]);
    sb_printf(sb, " %s", uf->pnames[i]);
  }
  sb_puts(sb, ") {");
  for (const char *p = uf->body; *p; p++) {
    bool word = strncmp(p, et->name, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_' &&
                (p == uf->body || (!isalnum((unsigned char)p[-1]) && p[-1] != '_'));
    if (u->width > 1 && word) {
      vec_name(e, et, u->width);
      p += n - 1;
    } else {
      sb_putc(sb, *p);
    }
  }
  sb_puts(sb, "}\n\n");
}

static void kernel(Emit *e, const LKernel *k) {
  StrBuf *sb = e->sb;
  if (k->uses_groups)
    sb_printf(sb, "// %s: %d-D, %zu x %zu x %zu work-items in groups of %zu x %zu x %zu\n", k->name, k->work_dim,
              k->global[0], k->global[1], k->global[2], k->local[0], k->local[1], k->local[2]);
  else
    sb_printf(sb, "// %s: %d-D, %zu x %zu x %zu work-items\n", k->name, k->work_dim, k->global[0], k->global[1],
              k->global[2]);
  sb_printf(sb, "%s %s(", e->dl->kernel_qual, k->name);
  for (int i = 0; i < k->nargs; i++) {
    const Mem *m = k->args[i];
    sb_printf(sb, "%s%s%s ", i ? ", " : "", m->role == MR_INPUT ? "const " : "", e->dl->global_kw);
    type_name(e, m->storage);
    sb_printf(sb, " *%s %s", e->dl->restrict_kw, m->name);
  }
  sb_puts(sb, ") {\n");
  e->indent = 1;
  e->k = k;
  for (int i = 0; i < k->nargs && e->out_base; i++)
    if (k->args[i]->role == MR_OUTPUT)
      sb_printf(sb, "  %s += %lld;   // its slice of a larger buffer\n", k->args[i]->name, (long long)e->out_base);
  for (int i = 0; i < k->nlocals; i++) {
    const Mem *m = k->locals[i];
    const char *raw = elem_of(m->storage)->spell[e->dl->elem_target].local_raw;
    line_start(e);
    sb_printf(sb, "%s ", e->dl->local_kw);
    if (raw) {   // __local ushort lcl_raw[N]; __local half *lcl = (__local half *)lcl_raw;
      sb_printf(sb, "%s %s_raw[%lld]%s;\n", raw, m->name, (long long)m->count, e->dl->local_align);
      line_start(e);
      sb_printf(sb, "%s ", e->dl->local_kw);
      type_name(e, m->storage);
      sb_printf(sb, " *%s = (%s ", m->name, e->dl->local_kw);
      type_name(e, m->storage);
      sb_printf(sb, " *)%s_raw;\n", m->name);
      continue;
    }
    type_name(e, m->storage);
    sb_printf(sb, " %s[%lld]%s;\n", m->name, (long long)m->count, e->dl->local_align);
  }
  block_body(e, k->body);
  sb_puts(sb, "}\n");
}

/* What the buffers' element types need (CUDA's __half and its conversions),
 * once each, before the prelude; nothing where every buffer is fp32. */
static void headers(Emit *e, const LProgram *lp) {
  bool done[ELEM_COUNT] = {false};
  for (int i = 0; i < lp->nbuffers; i++) {
    const ElemType *et = elem_of(lp->buffers[i]->storage);
    const char *h = et->spell[e->dl->elem_target].header;
    if (h && !done[et->kind]) sb_printf(e->sb, "%s\n", h);
    done[et->kind] = true;
  }
}

/* A const array at program scope: `__constant float B[16] = {1.0f, ...};`,
 * ten values a line. */
static void const_array(Emit *e, const Mem *m) {
  sb_printf(e->sb, "%s float %s[%lld] = {", e->dl->const_kw, m->name, (long long)m->count);
  for (int64_t k = 0; k < m->count; k++) {
    sb_puts(e->sb, k == 0 ? "" : k % 10 == 0 ? ",\n    " : ", ");
    elem_literal(e->sb, elem_fp32(), m->values[k]);
  }
  sb_puts(e->sb, "};\n\n");
}

char *cg_emit(const LProgram *lp, const Dialect *dl, const char *header) {
  StrBuf sb;
  sb_init(&sb);
  Emit e = {&sb, dl, 0, NULL, lp->out_base};
  for (const char *p = header; p && *p;) {
    const char *nl = strchr(p, '\n');
    int n = nl ? (int)(nl - p) : (int)strlen(p);
    sb_printf(&sb, "// %.*s\n", n, p);
    p += n + (nl ? 1 : 0);
  }
  sb_printf(&sb, "// %s, generated by convgen; %d kernel%s\n\n", dl->name, lp->nkernels, lp->nkernels == 1 ? "" : "s");
  headers(&e, lp);
  sb_puts(&sb, dl->prelude);
  if (lp->uses_mma) sb_puts(&sb, dl->mma_helpers);
  if (lp->uses_async) {
    if (!dl->async_helpers) cg_die("%s has no asynchronous copies", dl->name);
    sb_puts(&sb, dl->async_helpers);
  }
  for (int i = 0; i < lp->nconsts; i++) const_array(&e, lp->consts[i]);
  for (int i = 0; i < lp->nufs; i++) user_fun(&e, &lp->ufs[i]);
  for (int i = 0; i < lp->nkernels; i++) {
    if (i) sb_putc(&sb, '\n');
    kernel(&e, lp->kernels[i]);
  }
  return sb_take(&sb);
}

/* ---- cg_supports: the widest vector lp uses ---- */

static int type_width(const Type *t) { return t && t->kind == TY_VEC ? t->width : 1; }

static int cexpr_width(const CExpr *c) {
  int w = type_width(c->type);
  if (c->kind == C_LOAD && c->width > w) w = c->width;
  for (int i = 0; (c->kind == C_CALL || c->kind == C_COMP) && i < (c->kind == C_COMP ? 1 : c->nargs); i++) {
    int a = cexpr_width(c->args[i]);
    if (a > w) w = a;
  }
  return w;
}

static int stmt_width(const Stmt *s) {
  int w = 1;
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++) {
      int b = stmt_width(s->stmts[i]);
      if (b > w) w = b;
    }
    return w;
  case ST_FOR: return stmt_width(s->body);
  case ST_STORE: {
    int v = cexpr_width(s->value);
    return s->width > v ? s->width : v;
  }
  case ST_DECL: return type_width(s->mem->storage);
  case ST_BARRIER:
  case ST_COMMENT:
  case ST_ASYNC_WAIT: return 1;
  }
  return 1;
}

bool cg_supports(const Dialect *dl, const LProgram *lp, char *why, size_t cap) {
  int widest = 1;
  for (int i = 0; i < lp->nufs; i++)
    if (lp->ufs[i].width > widest) widest = lp->ufs[i].width;
  for (int k = 0; k < lp->nkernels; k++) {
    const LKernel *kn = lp->kernels[k];
    int w = stmt_width(kn->body);
    for (int i = 0; i < kn->nargs; i++) w = type_width(kn->args[i]->storage) > w ? type_width(kn->args[i]->storage) : w;
    for (int i = 0; i < kn->nlocals; i++)
      w = type_width(kn->locals[i]->storage) > w ? type_width(kn->locals[i]->storage) : w;
    if (w > widest) widest = w;
  }
  // CUDA has float2 and float4 only: a width of 3 or 8 is none of its types
  if (widest <= dl->max_width && (dl->max_width > 4 || widest != 3)) return true;
  snprintf(why, cap, "the program uses vectors of %d floats, a type %s does not have", widest, dl->name);
  return false;
}
