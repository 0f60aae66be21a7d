/* program.c: writes the high-level convolution expression of a layer in the
 * IR's text form and parses it (see program.h). Writing text rather than
 * calling constructors keeps the specification readable: what this file
 * prints is exactly what `convgen` users see in dumps. */
#include "conv/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header: the comment naming the layer (what it is, after the spec),
 * the sizes (split: CK), user functions and inputs. part: the inputs have CK
 * channels, not l->c. */
static void conv_header(StrBuf *sb, const Layer *l, const char *what, bool split, bool part) {
  StrBuf spec;
  sb_init(&spec);
  layer_format(&spec, l);
  if (l->name[0]) sb_printf(sb, "# %s (%s): %s\n", l->name, sb_str(&spec), what);
  else sb_printf(sb, "# %s: %s\n", sb_str(&spec), what);
  sb_free(&spec);
  if (split) sb_puts(sb, "size CK\n");
  // the arithmetic's type (float), and the tensors' in memory (the layer's precision: float or half, whose
  // values are read as floats)
  const ElemType *et = layer_elem(l);
  const char *f = elem_type(et->acc)->name, *m = et->name;
  sb_printf(sb, "userfun mult(x: %s, y: %s): %s { return x * y; }\n", f, f, f);
  sb_printf(sb, "userfun add(x: %s, y: %s): %s { return x + y; }\n", f, f, f);
  // scale=1: an input value times its channel's scale (rounded as the unfused Mul's output was), then the weight
  if (l->scale) sb_printf(sb, "userfun mult_scaled(x: %s, w: %s, s: %s): %s { return (x * s) * w; }\n", f, f, f, f);
  StrBuf act;   // the activation's user function, named as act= names it (ReLU's as it always was)
  sb_init(&act);
  layer_act_c(&act, l, "x");
  if (l->act != ACT_NONE)
    sb_printf(sb, "userfun %s(x: %s): %s { return %s; }\n", layer_act_name(l->act), f, f, sb_str(&act));
  sb_free(&act);
  char c[32];
  snprintf(c, sizeof c, "%d", l->c);
  if (part) snprintf(c, sizeof c, "CK");
  sb_printf(sb, "input x: [[[[%s]%d]%d]%s]%d\n", m, l->w, l->h, c, l->n);
  if (!part) snprintf(c, sizeof c, "%d", layer_group_c(l));   // a kernel's channels: its group's
  sb_printf(sb, "input weights: [[[[%s]%d]%d]%s]%d\n", m, l->kw, l->kh, c, l->k);
  if (l->bias) sb_printf(sb, "input bias: [%s]%d\n", m, l->k);
  if (l->residual) sb_printf(sb, "input residual: [[[[%s]%d]%d]%d]%d\n", m, l->out_w, l->out_h, l->k, l->n);
  if (l->scale) sb_printf(sb, "input scale: [[%s]%s]%d\n", m, c, l->n);
}

/* `out = `, or with a storage type (half) the output's declared type, whose
 * values are rounded when stored. */
static void out_decl(StrBuf *sb, const Layer *l) {
  const ElemType *et = layer_elem(l);
  if (!elem_is_storage(et)) sb_puts(sb, "out = ");
  else sb_printf(sb, "out: [[[[%s]%d]%d]%d]%d = ", et->name, l->out_w, l->out_h, l->k, l->n);
}

/* The body of a map over kernels: one kernel's output plane
 * ([out_h][out_w]) over its windows `wins` ([out_h][out_w][channels][kh][kw]),
 * each window's products with `kernel` reduced from the bias `b` plus the
 * residual plane `r`'s value (each NULL without) and activated, then the
 * `]` that closes the map. The residual plane's rows are zipped with the
 * rows of windows and its values with the windows. */
static void plane_of(StrBuf *sb, const Layer *l, const char *wins, const char *kernel, const char *b, const char *r,
                     const char *sc, const char *indent) {
  char act_map[32] = "", init[96];
  if (l->act != ACT_NONE) snprintf(act_map, sizeof act_map, " |> map[%s]", layer_act_name(l->act));
  const char *window = r ? "get[0](wr)" : "window";
  if (r) snprintf(init, sizeof init, b ? "add(%s, get[1](wr))" : "get[1](wr)", b);
  else snprintf(init, sizeof init, "%s", b ? b : "0.0f");
  if (r) sb_printf(sb, "%s  zip(%s, %s) |> map[fun(rr) -> zip(get[0](rr), get[1](rr)) |> map[fun(wr) ->\n", indent,
                   wins, r);
  else sb_printf(sb, "%s  %s |> map[fun(row) -> row |> map[fun(window) ->\n", indent, wins);
  // with a scale, each channel's scale read for each of its kh*kw taps (a view: clamped) as a third field
  sb_printf(sb, "%s    reduce[add](%s, zip(%s |> map[join] |> join, %s |> map[join] |> join%s%s) |> map[%s])%s]\n",
            indent, init, window, kernel, sc ? ", " : "", sc ? sc : "", sc ? "mult_scaled" : "mult", act_map);
  sb_printf(sb, "%s    |> join]]", indent);
}

/* The output planes of the kernels `ws` (with the biases `bs` and the
 * residual planes `rs`, [kernels][out_h][out_w], each NULL without) over the
 * windows `wins` ([out_h][out_w][channels][kh][kw]), activated:
 * [kernels][out_h][out_w]. The residual planes are zipped with the
 * kernels, so every map carries the value its output adds. */
static void kernel_map(StrBuf *sb, const Layer *l, const char *wins, const char *ws, const char *bs, const char *rs,
                       const char *sc, const char *indent) {
  char b[16] = "", r[16] = "";
  if (bs || rs) {
    sb_printf(sb, "%szip(%s%s%s%s%s) |> map[fun(kb) ->\n", indent, ws, bs ? ", " : "", bs ? bs : "", rs ? ", " : "",
              rs ? rs : "");
    if (bs) snprintf(b, sizeof b, "get[1](kb)");
    if (rs) snprintf(r, sizeof r, "get[%d](kb)", bs ? 2 : 1);
  } else {
    sb_printf(sb, "%s%s |> map[fun(kernel) ->\n", indent, ws);
  }
  plane_of(sb, l, wins, bs || rs ? "get[0](kb)" : "kernel", bs ? b : NULL, rs ? r : NULL, sc, indent);
}

/* The convolution of the images `xs` with the kernels `ws` (and the bias,
 * the residual `rs`, [n][k][out_h][out_w] or NULL, and the activation l
 * has): [n][k][out_h][out_w]. A grouped layer's is the dense map over its
 * k kernels, each reading its own group's c/G channels' windows through a
 * broadcast view of the groups' windows; the rule map-over-groups
 * (src/rewrite/rules_group.c) makes the map over the groups from it. */
static void conv_body(StrBuf *sb, const Layer *l, const char *xs, const char *ws, const char *rs, const char *ss) {
  // windows: [out_h][out_w][c][kh][kw] per image (with a residual or a scale: an image and its residual
  // planes and its channels' scales)
  if (rs || ss)
    sb_printf(sb, "zip(%s%s%s%s%s) |> map[fun(ir) ->\n    let windows = get[0](ir)\n", xs, rs ? ", " : "", rs ? rs : "",
              ss ? ", " : "", ss ? ss : "");
  else sb_printf(sb, "%s |> map[fun(image) ->\n    let windows = image\n", xs);
  const char *planes = rs ? "get[1](ir)" : NULL;
  // the image's scales, each read for every tap of its channel's window: [c*kh*kw]
  char scales[96] = "";
  if (ss && l->kh * l->kw == 1) snprintf(scales, sizeof scales, "get[%d](ir)", rs ? 2 : 1);
  else if (ss)
    snprintf(scales, sizeof scales, "get[%d](ir) |> split[1] |> map[pad[0, %d, clamp]] |> join", rs ? 2 : 1,
             l->kh * l->kw - 1);
  sb_printf(sb, "      |> map[fun(plane) -> plane |> map[pad[%d, %d, 0.0f]] |> pad[%d, %d, 0.0f]\n", l->pad_w,
            layer_pad_right(l), l->pad_h, layer_pad_bottom(l));
  if (l->dil_h <= 1 && l->dil_w <= 1) {
    sb_printf(sb, "                               |> map[slide[%d, %d]] |> slide[%d, %d] |> map[transpose]]\n", l->kw,
              l->stride_w, l->kh, l->stride_h);
  } else {   // dilated: windows of the dilated extent, whose taps slide[1, d] picks d apart (a view)
    sb_printf(sb, "          |> map[fun(row) -> row |> slide[%d, %d] |> map[fun(win) -> win |> slide[1, %d] |> join]]\n",
              (l->kw - 1) * l->dil_w + 1, l->stride_w, l->dil_w);
    sb_printf(sb, "          |> slide[%d, %d] |> map[fun(win) -> win |> slide[1, %d] |> join] |> map[transpose]]\n",
              (l->kh - 1) * l->dil_h + 1, l->stride_h, l->dil_h);
  }
  sb_puts(sb, "      |> transpose |> map[transpose] in\n");
  if (layer_groups(l) == 1) {   // one output plane per (kernel, bias, residual plane)
    kernel_map(sb, l, "windows", ws, l->bias ? "bias" : NULL, planes, ss ? scales : NULL, "    ");
    sb_puts(sb, "]\n");
    return;
  }
  // grouped: each kernel's windows are its group's c/G channels' (the G
  // groups' windows, [G][out_h][out_w][c/G][kh][kw], a view, each read by
  // the group's k/G kernels: broadcast by clamping a dimension of 1), zipped
  // with the kernels, biases and residual planes; rule map-over-groups
  // (src/rewrite/rules_group.c) makes the map over the groups
  int cg = layer_group_c(l), kg = layer_group_k(l), field = 2;
  char b[16] = "", r[16] = "";
  sb_printf(sb, "    zip(windows |> map[map[split[%d]]] |> map[transpose] |> transpose\n", cg);
  sb_printf(sb, "          |> split[1] |> map[pad[0, %d, clamp]] |> join, %s", kg - 1, ws);
  if (l->bias) sb_puts(sb, ", bias"), snprintf(b, sizeof b, "get[%d](kwin)", field++);
  if (planes) sb_printf(sb, ", %s", planes), snprintf(r, sizeof r, "get[%d](kwin)", field++);
  sb_puts(sb, ") |> map[fun(kwin) ->\n");
  cg_assert(!ss);   // scale=1 is for a dense layer (layer_check)
  plane_of(sb, l, "get[0](kwin)", "get[1](kwin)", l->bias ? b : NULL, planes ? r : NULL, NULL, "      ");
  sb_puts(sb, "]\n");
}

char *conv_program_text(const Layer *l) {
  StrBuf sb;
  sb_init(&sb);
  conv_header(&sb, l, "the convolution as a high-level expression", false, false);
  out_decl(&sb, l);
  conv_body(&sb, l, "x", "weights", l->residual ? "residual" : NULL, l->scale ? "scale" : NULL);
  return sb_take(&sb);
}

Layer conv_part_layer(const Layer *l) {
  Layer part = *l;
  part.bias = false;
  part.act = ACT_NONE;
  part.residual = false;   // (scale stays: each part scales its CK channels by theirs)
  return part;
}

char *conv_part_program_text(const Layer *l) {
  Layer part = conv_part_layer(l);
  StrBuf sb;
  sb_init(&sb);
  conv_header(&sb, &part, "a part of the split convolution: CK of its input channels, no bias, no activation", true, true);
  sb_puts(&sb, "out = ");
  conv_body(&sb, &part, "x", "weights", NULL, part.scale ? "scale" : NULL);
  return sb_take(&sb);
}

char *conv_split_program_text(const Layer *l) {
  Layer part = conv_part_layer(l);
  StrBuf sb;
  sb_init(&sb);
  conv_header(&sb, l, "the convolution as a high-level expression, its input channels in parts of CK (split-K)", true, false);
  // the parts: [c/CK][n][k][out_h][out_w], each the convolution of CK channels
  out_decl(&sb, l);
  // (with scale=1 each part's scales too: [c/CK][n][CK], as the input's channels)
  sb_printf(&sb, "%szip(x |> map[split[CK]] |> transpose, weights |> map[split[CK]] |> transpose%s)\n",
            l->residual ? "zip(" : "", l->scale ? ", scale |> map[split[CK]] |> transpose" : "");
  sb_puts(&sb, "  |> map[fun(part) ->\n");
  conv_body(&sb, &part, "get[0](part)", "get[1](part)", NULL, l->scale ? "get[2](part)" : NULL);
  sb_puts(&sb, "  ]\n");
  // each output's c/CK partial sums last, added up from the bias (plus the
  // residual: its images, planes, rows and values zipped into the maps over
  // the partial sums'), then the activation
  sb_puts(&sb, "  |> transpose |> map[transpose] |> map[map[transpose]] |> map[map[map[transpose]]]\n");
  char act_map[32] = "";
  if (l->act != ACT_NONE) snprintf(act_map, sizeof act_map, " |> map[%s]", layer_act_name(l->act));
  if (l->residual) {
    sb_puts(&sb, "  , residual) |> map[fun(sr) -> ");
    if (l->bias) sb_puts(&sb, "zip(bias, get[0](sr), get[1](sr)) |> map[fun(ks) -> zip(get[1](ks), get[2](ks))\n");
    else sb_puts(&sb, "zip(get[0](sr), get[1](sr)) |> map[fun(ks) -> zip(get[0](ks), get[1](ks))\n");
    sb_puts(&sb, "    |> map[fun(row) -> zip(get[0](row), get[1](row)) |> map[fun(pp) ->\n");
    sb_printf(&sb, "      reduce[add](%s, get[0](pp))%s] |> join]]]\n",
              l->bias ? "add(get[0](ks), get[1](pp))" : "get[1](pp)", act_map);
    return sb_take(&sb);
  }
  if (l->bias) sb_puts(&sb, "  |> map[fun(sums) -> zip(bias, sums) |> map[fun(ks) -> get[1](ks) |> map[fun(row) ->\n");
  else sb_puts(&sb, "  |> map[fun(sums) -> sums |> map[fun(ks) -> ks |> map[fun(row) ->\n");
  sb_printf(&sb, "    row |> map[fun(parts) -> reduce[add](%s, parts)%s] |> join]]]\n",
            l->bias ? "get[0](ks)" : "0.0f", act_map);
  return sb_take(&sb);
}

static Program *parse_text(Arena *a, const Layer *l, char *text, Diag *d) {
  StrBuf name;
  sb_init(&name);
  layer_format(&name, l);
  Program *p = ir_parse(a, sb_str(&name), text, 0, NULL, NULL, d);
  sb_free(&name);
  free(text);
  if (p && !ir_infer(a, p, d)) return NULL;
  return p;
}

Program *conv_part_program(Arena *a, const Layer *l, Diag *d) { return parse_text(a, l, conv_part_program_text(l), d); }

Program *conv_split_program(Arena *a, const Layer *l, Diag *d) { return parse_text(a, l, conv_split_program_text(l), d); }

Program *conv_program(Arena *a, const Layer *l, Diag *d) { return parse_text(a, l, conv_program_text(l), d); }

uint64_t conv_fixed_inputs(const Program *p) {
  uint64_t bits = 0;
  for (int i = 0; i < p->ninputs && i < 64; i++)
    if (strcmp(p->inputs[i]->name, "weights") == 0 || strcmp(p->inputs[i]->name, "bias") == 0) bits |= 1ull << i;
  return bits;
}
