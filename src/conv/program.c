/* program.c: writes the high-level convolution expression of a layer in the
 * IR's text form and parses it (see program.h). Writing text rather than
 * calling constructors keeps the specification readable: what this file
 * prints is exactly what `convgen` users see in dumps. */
#include "conv/program.h"

#include <stdio.h>
#include <stdlib.h>

char *conv_program_text(const Layer *l) {
  StrBuf sb;
  sb_init(&sb);
  StrBuf spec;
  sb_init(&spec);
  layer_format(&spec, l);
  if (l->name[0]) sb_printf(&sb, "# %s (%s): the convolution as a high-level expression\n", l->name, sb_str(&spec));
  else sb_printf(&sb, "# %s: the convolution as a high-level expression\n", sb_str(&spec));
  sb_free(&spec);
  sb_puts(&sb, "userfun mult(x: float, y: float): float { return x * y; }\n");
  sb_puts(&sb, "userfun add(x: float, y: float): float { return x + y; }\n");
  StrBuf act;   // the activation's user function, named as act= names it (ReLU's as it always was)
  sb_init(&act);
  layer_act_c(&act, l, "x");
  const char *act_name = l->act == ACT_NONE ? NULL : layer_act_name(l->act);
  if (act_name) sb_printf(&sb, "userfun %s(x: float): float { return %s; }\n", act_name, sb_str(&act));
  sb_free(&act);
  char act_map[32] = "";
  if (act_name) snprintf(act_map, sizeof act_map, " |> map[%s]", act_name);
  sb_printf(&sb, "input x: [[[[float]%d]%d]%d]%d\n", l->w, l->h, l->c, l->n);
  sb_printf(&sb, "input weights: [[[[float]%d]%d]%d]%d\n", l->kw, l->kh, l->c, l->k);
  if (l->bias) sb_printf(&sb, "input bias: [float]%d\n", l->k);
  // windows: [out_h][out_w][c][kh][kw] per image
  sb_puts(&sb, "out = x |> map[fun(image) ->\n");
  sb_puts(&sb, "    let windows = image\n");
  sb_printf(&sb, "      |> map[fun(plane) -> plane |> map[pad[%d, %d, 0.0f]] |> pad[%d, %d, 0.0f]\n", l->pad_w,
            l->pad_w, l->pad_h, l->pad_h);
  sb_printf(&sb, "                               |> map[slide[%d, %d]] |> slide[%d, %d] |> map[transpose]]\n", l->kw,
            l->stride_w, l->kh, l->stride_h);
  sb_puts(&sb, "      |> transpose |> map[transpose] in\n");
  // one output plane per (kernel, bias): reduce the products from the bias
  if (l->bias) sb_puts(&sb, "    zip(weights, bias) |> map[fun(kb) ->\n");
  else sb_puts(&sb, "    weights |> map[fun(kernel) ->\n");
  const char *kernel = l->bias ? "get[0](kb)" : "kernel", *init = l->bias ? "get[1](kb)" : "0.0f";
  sb_puts(&sb, "      windows |> map[fun(row) -> row |> map[fun(window) ->\n");
  sb_printf(&sb, "        reduce[add](%s, zip(window |> map[join] |> join, %s |> map[join] |> join) |> map[mult])%s]\n",
            init, kernel, act_map);
  sb_puts(&sb, "        |> join]]]\n");
  return sb_take(&sb);
}

Program *conv_program(Arena *a, const Layer *l, Diag *d) {
  char *text = conv_program_text(l);
  StrBuf name;
  sb_init(&name);
  layer_format(&name, l);
  Program *p = ir_parse(a, sb_str(&name), text, 0, NULL, NULL, d);
  sb_free(&name);
  free(text);
  if (p && !ir_infer(a, p, d)) return NULL;
  return p;
}
