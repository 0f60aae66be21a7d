/* test_layer.c: layer specs (src/conv/layer.c).
 *
 * Every named layer against its own copy of the tables of docs/design.md section 11
 * (written out again here, so a typo in one place shows), overrides of named
 * layers, the plain form's defaults, non-square shapes and strides 2 and 4,
 * the canonical form and its round trip, sizes and FLOPs, the network lists
 * with and without repeated shapes, and every error with its exact message.
 */
#include "conv/layer.h"
#include "test.h"

static Layer P(const char *spec) {
  Layer l;
  Diag d = {0};
  if (!layer_parse(spec, &l, &d)) {
    fprintf(stderr, "unexpected error for '%s': %s\n", spec, d.msg);
    test_failed++;
    memset(&l, 0, sizeof l);
  }
  return l;
}

static const char *error_of(const char *spec) {
  static Diag d;
  memset(&d, 0, sizeof d);
  Layer l;
  if (layer_parse(spec, &l, &d)) return "(parsed)";
  return d.set ? d.msg : "(no message)";
}

static const char *fmt(const Layer *l) {
  static char buf[512];
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  snprintf(buf, sizeof buf, "%s", sb_str(&sb));
  sb_free(&sb);
  return buf;
}

/* ---- Named layers ----------------------------------------------------------------------- */

static const struct {
  const char *name;
  int hw, c, k, ks, stride, pad, out;
} table[] = {
    {"vgg16.conv1_1", 224, 3, 64, 3, 1, 1, 224},     {"vgg16.conv1_2", 224, 64, 64, 3, 1, 1, 224},
    {"vgg16.conv2_1", 112, 64, 128, 3, 1, 1, 112},   {"vgg16.conv2_2", 112, 128, 128, 3, 1, 1, 112},
    {"vgg16.conv3_1", 56, 128, 256, 3, 1, 1, 56},    {"vgg16.conv3_2", 56, 256, 256, 3, 1, 1, 56},
    {"vgg16.conv3_3", 56, 256, 256, 3, 1, 1, 56},    {"vgg16.conv4_1", 28, 256, 512, 3, 1, 1, 28},
    {"vgg16.conv4_2", 28, 512, 512, 3, 1, 1, 28},    {"vgg16.conv4_3", 28, 512, 512, 3, 1, 1, 28},
    {"vgg16.conv5_1", 14, 512, 512, 3, 1, 1, 14},    {"vgg16.conv5_2", 14, 512, 512, 3, 1, 1, 14},
    {"vgg16.conv5_3", 14, 512, 512, 3, 1, 1, 14},    {"alexnet.conv1", 224, 3, 64, 11, 4, 2, 55},
    {"alexnet.conv2", 27, 64, 192, 5, 1, 2, 27},     {"alexnet.conv3", 13, 192, 384, 3, 1, 1, 13},
    {"alexnet.conv4", 13, 384, 256, 3, 1, 1, 13},    {"alexnet.conv5", 13, 256, 256, 3, 1, 1, 13},
};
enum { NTABLE = sizeof table / sizeof *table };

static void test_named(void) {
  for (int i = 0; i < NTABLE; i++) {
    Layer l = P(table[i].name);
    CHECK_STR(l.name, table[i].name);
    CHECK(l.n == 1 && l.c == table[i].c && l.k == table[i].k);
    CHECK(l.h == table[i].hw && l.w == table[i].hw);
    CHECK(l.kh == table[i].ks && l.kw == table[i].ks);
    CHECK(l.stride_h == table[i].stride && l.stride_w == table[i].stride);
    CHECK(l.pad_h == table[i].pad && l.pad_w == table[i].pad);
    CHECK(l.bias && (l.act == ACT_RELU));
    CHECK(l.out_h == table[i].out && l.out_w == table[i].out);
  }
  Layer a1 = P("alexnet.conv1");
  CHECK(a1.out_h == 55 && a1.out_w == 55);
  CHECK_STR(fmt(&a1), "n=1,c=3,h=224,w=224,k=64,kh=11,kw=11,stride=4,pad=2,bias=1,relu=1");
  Layer v = P("vgg16.conv1_1");
  CHECK_STR(fmt(&v), "n=1,c=3,h=224,w=224,k=64,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1");
  Layer sp = P("  alexnet.conv2  ");
  CHECK(sp.out_h == 27 && sp.kh == 5 && sp.pad_h == 2);
}

static void test_overrides(void) {
  Layer l = P("vgg16.conv3_2,n=2");
  CHECK(l.n == 2 && l.c == 256 && l.k == 256 && l.h == 56 && l.bias && (l.act == ACT_RELU));
  CHECK_STR(l.name, "vgg16.conv3_2,n=2");

  l = P("vgg16.conv3_2,bias=0,relu=0");
  CHECK(!l.bias && !(l.act == ACT_RELU) && l.c == 256);
  CHECK_STR(l.name, "vgg16.conv3_2,bias=0,relu=0");

  l = P("vgg16.conv3_2, relu = 0 , bias=0");   // canonical order in the name, spaces ignored
  CHECK_STR(l.name, "vgg16.conv3_2,bias=0,relu=0");

  l = P("vgg16.conv3_2,n=1,pad=1");            // no change, no suffix
  CHECK_STR(l.name, "vgg16.conv3_2");

  l = P("alexnet.conv1,stride=2");
  CHECK(l.stride_h == 2 && l.stride_w == 2 && l.out_h == 109 && l.out_w == 109);
  CHECK_STR(l.name, "alexnet.conv1,stride=2");

  l = P("vgg16.conv1_1,kh=1,pad_w=0");         // one side of a pair
  CHECK(l.kh == 1 && l.kw == 3 && l.pad_h == 1 && l.pad_w == 0);
  CHECK(l.out_h == 226 && l.out_w == 222);
  CHECK_STR(l.name, "vgg16.conv1_1,kh=1,pad_w=0");

  l = P("vgg16.conv5_1,c=8,k=4,h=7,w=9");      // a reduced version
  CHECK(l.c == 8 && l.k == 4 && l.out_h == 7 && l.out_w == 9);
  CHECK_STR(l.name, "vgg16.conv5_1,c=8,h=7,w=9,k=4");
}

/* ---- The plain form ---------------------------------------------------------------------- */

static void test_plain(void) {
  Layer l = P("c=3,h=5,w=7,k=2");
  CHECK_STR(l.name, "");
  CHECK(l.n == 1 && l.kh == 3 && l.kw == 3 && l.stride_h == 1 && l.stride_w == 1);
  CHECK(l.pad_h == 0 && l.pad_w == 0 && !l.bias && !(l.act == ACT_RELU));
  CHECK(l.out_h == 3 && l.out_w == 5);

  l = P("k=256 , pad=1,stride=1, kw=3,kh=3,w=56,h=56,c=128,n=1");
  CHECK_STR(fmt(&l), "n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1,bias=0,relu=0");
  CHECK(l.out_h == 56 && l.out_w == 56);

  // Non-square input, kh != kw, different strides and pads per axis.
  l = P("n=2,c=5,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=3,pad_h=2,pad_w=0,bias=1");
  CHECK(l.n == 2 && l.kh == 5 && l.kw == 3 && l.stride_h == 2 && l.stride_w == 3);
  CHECK(l.out_h == 7 && l.out_w == 5);   // (13+4-5)/2+1, (17-3)/3+1
  CHECK(l.bias && !(l.act == ACT_RELU));
  CHECK_STR(fmt(&l), "n=2,c=5,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=3,pad_h=2,pad_w=0,bias=1,relu=0");

  l = P("c=3,h=13,w=17,k=1,kh=5,kw=5,stride=2");
  CHECK(l.out_h == 5 && l.out_w == 7);
  l = P("c=3,h=13,w=17,k=1,kh=7,kw=7,stride=4,pad=3");
  CHECK(l.out_h == 4 && l.out_w == 5);   // (13+6-7)/4+1, (17+6-7)/4+1
  l = P("c=3,h=224,w=224,k=64,kh=11,kw=11,stride=4,pad=2");
  CHECK(l.out_h == 55 && l.out_w == 55);
  l = P("c=1,h=1,w=1,k=1,pad=1");        // kernel exactly the padded input
  CHECK(l.out_h == 1 && l.out_w == 1);
  l = P("c=1,h=3,w=3,k=1,kh=1,kw=1,pad=5,stride=4");   // windows wholly in the padding are allowed
  CHECK(l.out_h == 4 && l.out_w == 4);   // (3+10-1)/4+1
  // each side its own (ONNX's pads): the output counts both
  l = P("c=3,h=8,w=8,k=2,stride=2,pad_top=0,pad_bottom=1,pad_left=1,pad_right=0");
  CHECK(l.pad_h == 0 && layer_pad_bottom(&l) == 1 && l.pad_w == 1 && layer_pad_right(&l) == 0);
  CHECK(l.out_h == 4 && l.out_w == 4 && !layer_pad_symmetric(&l));   // (8+1-3)/2+1
  CHECK_STR(fmt(&l), "n=1,c=3,h=8,w=8,k=2,kh=3,kw=3,stride=2,pad_top=0,pad_left=1,pad_bottom=1,pad_right=0,bias=0,relu=0");
  l = P("c=3,h=8,w=8,k=2,pad=2,pad_right=4");   // one side over pad's
  CHECK(l.pad_h == 2 && layer_pad_bottom(&l) == 2 && l.pad_w == 2 && layer_pad_right(&l) == 4 && l.out_w == 12);
  l = P("c=3,h=8,w=8,k=2,pad_top=1,pad_bottom=1,pad_left=2,pad_right=2");   // alike after all: the short form
  CHECK(layer_pad_symmetric(&l));
  CHECK_STR(fmt(&l), "n=1,c=3,h=8,w=8,k=2,kh=3,kw=3,stride=1,pad_h=1,pad_w=2,bias=0,relu=0");
  l = P("c=3,h=13,w=17,k=2,kh=3,kw=3,pad=2,dilation=2");   // taps 2 apart: a 5x5 window
  CHECK(l.dil_h == 2 && l.dil_w == 2 && l.out_h == 13 && l.out_w == 17);
  CHECK_STR(fmt(&l), "n=1,c=3,h=13,w=17,k=2,kh=3,kw=3,stride=1,pad=2,dilation=2,bias=0,relu=0");
  l = P("c=3,h=13,w=17,k=2,kh=3,kw=2,stride=2,dilation_h=3,dilation_w=1");
  CHECK(l.out_h == 4 && l.out_w == 8);   // (13-7)/2+1, (17-2)/2+1
  CHECK_STR(fmt(&l), "n=1,c=3,h=13,w=17,k=2,kh=3,kw=2,stride=2,pad=0,dilation_h=3,dilation_w=1,bias=0,relu=0");
  l = P("c=3,h=13,w=17,k=2,dilation=1");   // none: the canonical form has no dilation
  CHECK_STR(fmt(&l), "n=1,c=3,h=13,w=17,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=0");
  l = P("c=6,h=8,w=8,k=9,groups=3,pad=1");   // three groups of 2 input and 3 output channels
  CHECK(l.groups == 3 && layer_groups(&l) == 3 && layer_group_c(&l) == 2 && layer_group_k(&l) == 3);
  CHECK(layer_elems(&l, LAYER_WEIGHTS) == 9 * 2 * 9 && layer_flops(&l) == 2.0 * 9 * 64 * 2 * 9);
  CHECK_STR(fmt(&l), "n=1,c=6,h=8,w=8,k=9,kh=3,kw=3,stride=1,pad=1,groups=3,bias=0,relu=0");
  Layer g = layer_group(&l);
  CHECK(g.c == 2 && g.k == 3 && g.groups == 1 && g.out_h == 8);
  l = P("c=32,h=8,w=8,k=32,groups=32");   // depthwise
  CHECK(layer_group_c(&l) == 1 && layer_group_k(&l) == 1);
  l = P("c=6,h=8,w=8,k=9,groups=1");   // dense: the canonical form has no groups
  CHECK_STR(fmt(&l), "n=1,c=6,h=8,w=8,k=9,kh=3,kw=3,stride=1,pad=0,bias=0,relu=0");
  Layer hand = {.n = 1, .c = 4, .h = 5, .w = 5, .k = 4, .kh = 3, .kw = 3, .stride_h = 1, .stride_w = 1};
  CHECK(layer_check(&hand, NULL) && hand.groups == 1);   // built by hand without groups: dense
  l = P("vgg16.conv3_2,pad_bottom=2");
  CHECK(l.out_h == 57 && l.out_w == 56);
  CHECK_STR(l.name, "vgg16.conv3_2,pad_top=1,pad_left=1,pad_bottom=2,pad_right=1");
}

static void test_round_trip(void) {
  const char *specs[] = {
      "c=3,h=5,w=7,k=2",
      "n=2,c=5,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=3,pad_h=2,pad_w=0,bias=1",
      "n=3,c=1,h=9,w=4,k=1,kh=1,kw=2,stride_h=4,stride_w=4,pad_h=5,pad_w=1,relu=1",
      "c=7,h=8,w=8,k=3,kh=2,kw=2,stride_h=1,stride_w=2,pad=0,bias=1,relu=1",
      "vgg16.conv3_2", "vgg16.conv3_2,n=2,bias=0", "alexnet.conv1", "alexnet.conv2,stride_w=3",
      "c=3,h=5,w=7,k=2,act=relu6", "c=3,h=5,w=7,k=2,bias=1,act=clip(-0.1,6.5)", "c=3,h=5,w=7,k=2,act=leaky(0.01)",
      "c=3,h=5,w=7,k=2,act=sigmoid", "vgg16.conv3_2,act=hardswish", "c=3,h=5,w=7,k=2,act=clip(1e-07,3e+05)",
      "c=3,h=5,w=7,k=2,act=silu", "c=3,h=5,w=7,k=2,bias=1,act=hardsigmoid(0.2,0.5)",
      "c=3,h=8,w=9,k=2,stride=2,pad_top=0,pad_left=1,pad_bottom=1,pad_right=2", "vgg16.conv3_2,pad_right=0",
      "c=3,h=13,w=17,k=2,pad=2,dilation=2", "c=3,h=13,w=17,k=2,dilation_h=2,dilation_w=3", "vgg16.conv5_1,dilation=2",
      "c=6,h=8,w=8,k=9,groups=3", "vgg16.conv3_2,groups=256", "c=4,h=7,w=7,k=8,groups=4,dilation=2,pad=2,act=relu6",
      "c=3,h=5,w=7,k=2,residual=1", "c=3,h=5,w=7,k=2,bias=1,relu=1,residual=1", "resnet50.layer1.0.conv3,residual=1",
      "c=4,h=9,w=9,k=6,groups=2,stride=2,dilation=2,act=relu6,residual=1",
      "c=3,h=5,w=7,k=2,precision=fp16", "vgg16.conv3_2,precision=fp16", "c=3,h=5,w=7,k=2,residual=1,precision=fp16",
      "c=3,h=5,w=7,k=2,scale=1", "c=3,h=5,w=7,k=2,residual=1,scale=1,precision=fp16",
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    Layer a = P(specs[i]), b = P(fmt(&a));
    CHECK(layer_equal(&a, &b));
    CHECK(a.out_h == b.out_h && a.out_w == b.out_w);
    CHECK_STR(b.name, "");
    char once[512];
    snprintf(once, sizeof once, "%s", fmt(&a));
    CHECK_STR(fmt(&b), once);   // the canonical form is a fixed point
  }
  Layer a = P("c=3,h=5,w=7,k=2"), b = P("c=3,h=5,w=7,k=2,relu=1");
  CHECK(!layer_equal(&a, &b));
  // act=relu is relu=1 and act=none relu=0: the keys of the layers of before act= stay
  Layer r = P("c=3,h=5,w=7,k=2,act=relu"), n = P("c=3,h=5,w=7,k=2, act = none");
  CHECK(layer_equal(&r, &b) && layer_equal(&n, &a));
  CHECK_STR(fmt(&r), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=1");
  Layer c = P("c=3,h=5,w=7,k=2,bias=1,act=clip( 0 , 6 )");
  CHECK(c.act == ACT_CLIP && c.act_a == 0 && c.act_b == 6);
  CHECK_STR(fmt(&c), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=1,act=clip(0,6)");
  Layer v = P("vgg16.conv3_2,act=relu6");
  CHECK_STR(v.name, "vgg16.conv3_2,act=relu6");
  Layer c2 = P("c=3,h=5,w=7,k=2,bias=1,act=clip(0,6.5)");
  CHECK(!layer_equal(&c, &c2));
  // residual=1 is written only when set (the keys of the layers of before it stay), last
  Layer r0 = P("c=3,h=5,w=7,k=2,residual=0"), r1 = P("residual = 1,c=3,h=5,w=7,k=2,relu=1");
  CHECK(!r0.residual && r1.residual && layer_equal(&r0, &a) && !layer_equal(&r1, &b));
  CHECK_STR(fmt(&r0), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=0");
  CHECK_STR(fmt(&r1), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=1,residual=1");
  Layer rv = P("resnet18.layer2.0.conv2,residual=1");   // (its downsample takes the block's Add)
  CHECK_STR(rv.name, "resnet18.layer2.0.conv2,residual=1");
  CHECK_STR(fmt(&rv), "n=1,c=128,h=28,w=28,k=128,kh=3,kw=3,stride=1,pad=1,bias=1,relu=0,residual=1");
  Layer rn = P("resnet18.layer1.0.conv2,residual=1");   // an identity block's last has it: no override
  CHECK_STR(rn.name, "resnet18.layer1.0.conv2");
  CHECK_STR(fmt(&rn), "n=1,c=64,h=56,w=56,k=64,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,residual=1");
  // scale=1 likewise, after residual=; its tensor is n*c; a grouped layer refuses it
  Layer s1 = P("scale=1,n=2,c=3,h=5,w=7,k=2,relu=1,residual=1"), s0 = P("c=3,h=5,w=7,k=2,scale=0");
  CHECK(s1.scale && !s0.scale && layer_equal(&s0, &a) && !layer_equal(&s1, &r1));
  CHECK_STR(fmt(&s1), "n=2,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=1,residual=1,scale=1");
  CHECK(layer_elems(&s1, LAYER_SCALE) == 6 && layer_elems(&s0, LAYER_SCALE) == 0);
  CHECK_STR(layer_tensor_name(LAYER_SCALE), "scale");
  // precision= is written only when not fp32 (an fp32 layer keeps its key), last; fp16 is another layer
  Layer p32 = P("c=3,h=5,w=7,k=2,precision=fp32"), p16 = P("precision = fp16 ,c=3,h=5,w=7,k=2,relu=1");
  CHECK(p32.precision == PREC_FP32 && p16.precision == PREC_FP16 && layer_equal(&p32, &a) && !layer_equal(&p16, &b));
  CHECK_STR(fmt(&p32), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=0");
  CHECK_STR(fmt(&p16), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=1,precision=fp16");
  Layer pv = P("vgg16.conv3_2,precision=fp16");
  CHECK_STR(pv.name, "vgg16.conv3_2,precision=fp16");
  CHECK(layer_elem(&pv)->kind == ELEM_FP16 && layer_elem(&a)->kind == ELEM_FP32);
  CHECK_STR(layer_precision_name(PREC_FP16), "fp16");
  // tf32: float in memory, another layer than fp32's
  Layer pt = P("c=3,h=5,w=7,k=2,relu=1,precision=tf32");
  CHECK(pt.precision == PREC_TF32 && layer_elem(&pt)->kind == ELEM_FP32 && !layer_equal(&pt, &b));
  CHECK_STR(fmt(&pt), "n=1,c=3,h=5,w=7,k=2,kh=3,kw=3,stride=1,pad=0,bias=0,relu=1,precision=tf32");
  CHECK(layer_bytes(&pt, LAYER_INPUT) == layer_bytes(&b, LAYER_INPUT));
}

/* ---- Sizes, FLOPs, networks -------------------------------------------------------------- */

static void test_sizes(void) {
  Layer l = P("vgg16.conv1_1");
  CHECK(layer_flops(&l) == 2.0 * 64 * 224 * 224 * 3 * 9);
  CHECK(layer_flops(&l) == 173408256.0);
  CHECK(layer_elems(&l, LAYER_INPUT) == 3 * 224 * 224);
  CHECK(layer_bytes(&l, LAYER_INPUT) == 602112);
  CHECK(layer_bytes(&l, LAYER_WEIGHTS) == 6912);
  CHECK(layer_bytes(&l, LAYER_BIAS) == 256);
  Layer lh = P("vgg16.conv1_1,precision=fp16");   // half: two bytes a value
  CHECK(layer_bytes(&lh, LAYER_INPUT) == 301056 && layer_bytes(&lh, LAYER_WEIGHTS) == 3456);
  CHECK(layer_bytes(&l, LAYER_OUTPUT) == 12845056);
  l = P("vgg16.conv1_1,bias=0");
  CHECK(layer_bytes(&l, LAYER_BIAS) == 0 && layer_elems(&l, LAYER_BIAS) == 0);

  l = P("n=2,c=5,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=3,pad_h=2");
  CHECK(layer_elems(&l, LAYER_INPUT) == 2 * 5 * 13 * 17);
  CHECK(layer_elems(&l, LAYER_WEIGHTS) == 7 * 5 * 5 * 3);
  CHECK(layer_elems(&l, LAYER_OUTPUT) == 2 * 7 * 7 * 5);
  CHECK(layer_flops(&l) == 2.0 * 2 * 7 * 7 * 5 * 5 * 5 * 3);

  Layer a = P("alexnet.conv1");
  CHECK(layer_flops(&a) == 2.0 * 64 * 55 * 55 * 3 * 121);
  CHECK_STR(layer_tensor_name(LAYER_INPUT), "input");
  CHECK_STR(layer_tensor_name(LAYER_WEIGHTS), "weights");
  CHECK_STR(layer_tensor_name(LAYER_BIAS), "bias");
  CHECK_STR(layer_tensor_name(LAYER_OUTPUT), "output");
  CHECK_STR(layer_tensor_name(LAYER_RESIDUAL), "residual");
  CHECK(layer_elems(&l, LAYER_RESIDUAL) == 0 && layer_bytes(&l, LAYER_RESIDUAL) == 0);
  l = P("n=2,c=5,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=3,pad_h=2,residual=1");
  CHECK(layer_elems(&l, LAYER_RESIDUAL) == 2 * 7 * 7 * 5 && layer_bytes(&l, LAYER_RESIDUAL) == 4 * 2 * 7 * 7 * 5);
}

static void test_networks(void) {
  CHECK_STR(layer_network_name(0), "vgg16");
  CHECK_STR(layer_network_name(1), "alexnet");
  CHECK_STR(layer_network_name(5), "mobilenet_v2");
  CHECK(layer_network_name(6) == NULL && layer_network_name(-1) == NULL);

  // ResNet and MobileNet: every convolution, its distinct shapes, and their
  // multiply-adds against the published counts (torchvision's ResNet-18
  // 1.81 G, ResNet-50 4.09 G, MobileNet V2 0.30 G, MobileNet V1 569 M, each
  // less its classifier's)
  static const struct {
    const char *net;
    int n, distinct;
    double macs;
  } nets[] = {{"resnet18", 20, 18, 1813561344.0}, {"resnet50", 53, 27, 4087136256.0},
              {"mobilenet_v1", 27, 19, 567716352.0}, {"mobilenet_v2", 52, 30, 299494272.0}};
  for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
    Layer all[64];
    int n = layer_network(nets[i].net, all, 64);
    CHECK(n == nets[i].n);
    double macs = 0;
    for (int j = 0; j < n && j < 64; j++) macs += layer_flops(&all[j]) / 2;
    CHECK(macs == nets[i].macs);
    CHECK(layer_dedup(all, n, NULL) == nets[i].distinct);
  }
  Layer dw = P("mobilenet_v2.features.4.dw");   // 144 channels, stride 2, depthwise, ReLU6
  CHECK(dw.c == 144 && dw.k == 144 && dw.groups == 144 && dw.stride_h == 2 && dw.out_h == 28 && dw.act == ACT_RELU6);
  CHECK_STR(fmt(&dw), "n=1,c=144,h=56,w=56,k=144,kh=3,kw=3,stride=2,pad=1,groups=144,bias=1,act=relu6");
  // the block's Add fused into the later branch, as import does: a downsampling block's downsample
  // (its last convolution then bare), an identity block's last, MobileNet V2's projection where the
  // shape stays (no activation)
  Layer r3 = P("resnet50.layer2.0.conv3"), d3 = P("resnet50.layer2.0.downsample"), i3 = P("resnet50.layer2.1.conv3");
  CHECK(r3.c == 128 && r3.k == 512 && r3.h == 28 && r3.kh == 1 && r3.act == ACT_NONE && r3.bias && !r3.residual);
  CHECK(d3.act == ACT_RELU && d3.residual && i3.act == ACT_RELU && i3.residual);
  Layer p3 = P("mobilenet_v2.features.3.project"), p4 = P("mobilenet_v2.features.4.project");
  CHECK(p3.act == ACT_NONE && p3.residual && p4.act == ACT_NONE && !p4.residual);

  Layer ls[32];
  CHECK(layer_network("vgg16", ls, 32) == 13);
  for (int i = 0; i < 13; i++) {
    CHECK_STR(ls[i].name, table[i].name);
    Layer want = P(table[i].name);
    CHECK(layer_equal(&ls[i], &want) && ls[i].out_h == want.out_h);
  }
  CHECK(layer_network("alexnet", ls, 32) == 5);
  for (int i = 0; i < 5; i++) CHECK_STR(ls[i].name, table[13 + i].name);
  CHECK(layer_network("resnet34", ls, 32) == -1);
  CHECK(layer_network("vgg16", NULL, 0) == 13);
  Layer few[2] = {{.n = 0}, {.n = 0}};
  CHECK(layer_network("vgg16", few, 1) == 13);   // fills only what fits
  CHECK_STR(few[0].name, "vgg16.conv1_1");
  CHECK(few[1].n == 0);

  int reps[32];
  int n = layer_network("vgg16", ls, 32);
  int u = layer_dedup(ls, n, reps);
  CHECK(u == 9);
  const char *names[] = {"vgg16.conv1_1", "vgg16.conv1_2", "vgg16.conv2_1", "vgg16.conv2_2", "vgg16.conv3_1",
                         "vgg16.conv3_2", "vgg16.conv4_1", "vgg16.conv4_2", "vgg16.conv5_1"};
  const int want_reps[] = {1, 1, 1, 1, 1, 2, 1, 2, 3};
  for (int i = 0; i < 9 && i < u; i++) {
    CHECK_STR(ls[i].name, names[i]);
    CHECK(reps[i] == want_reps[i]);
  }
  n = layer_network("alexnet", ls, 32);
  CHECK(layer_dedup(ls, n, NULL) == 5);
}

/* ---- Errors ---------------------------------------------------------------------------- */

#define KEYS "n, c, h, w, k, kh, kw, stride, stride_h, stride_w, pad, pad_h, pad_w, pad_top, pad_left, pad_bottom, pad_right, dilation, dilation_h, dilation_w, groups, bias, relu, act, residual, scale, precision"
#define VGG_LAYERS \
  "conv1_1, conv1_2, conv2_1, conv2_2, conv3_1, conv3_2, conv3_3, conv4_1, conv4_2, conv4_3, conv5_1, conv5_2, conv5_3"
#define EMPTY_MSG \
  "empty layer spec (give a named layer such as vgg16.conv3_2, or the plain form " \
  "n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1)"

static const struct {
  const char *spec, *msg;
} errors[] = {
    // Unknown keys and names.
    {"n=1,q=3", "unknown key 'q' in layer spec 'n=1,q=3' (keys: " KEYS ")"},
    {"c=3,h=4,w=4,k=2,C=3", "unknown key 'C' in layer spec 'c=3,h=4,w=4,k=2,C=3' (keys: " KEYS ")"},
    {"vgg16.conv9", "unknown layer 'conv9' of vgg16 in layer spec 'vgg16.conv9' (vgg16 layers: " VGG_LAYERS ")"},
    {"alexnet.conv6,n=2", "unknown layer 'conv6' of alexnet in layer spec 'alexnet.conv6,n=2' "
                          "(alexnet layers: conv1, conv2, conv3, conv4, conv5)"},
    {"resnet34.conv1", "unknown network 'resnet34' in layer spec 'resnet34.conv1' (networks: vgg16, alexnet, resnet18, "
                       "resnet50, mobilenet_v1, mobilenet_v2)"},
    {"vgg16", "'vgg16' names a network, not a layer, in layer spec 'vgg16' (vgg16 layers: " VGG_LAYERS ")"},
    {"foo", "expected key=value or a named layer (network.layer), got 'foo' in layer spec 'foo' "
            "(networks: vgg16, alexnet, resnet18, resnet50, mobilenet_v1, mobilenet_v2; keys: " KEYS ")"},
    {"n=1,vgg16.conv1_1", "named layer 'vgg16.conv1_1' must come first in layer spec 'n=1,vgg16.conv1_1'"},
    {"c=3,h=4,w=4,k=2,relu", "expected key=value, got 'relu' in layer spec 'c=3,h=4,w=4,k=2,relu'"},
    // Malformed values and trailing garbage.
    {"c=x3,h=4,w=4,k=2", "malformed value 'x3' for key 'c' in layer spec 'c=x3,h=4,w=4,k=2' (expected a whole number)"},
    {"c=3,h=4,w=4,k=2,bias=yes",
     "malformed value 'yes' for key 'bias' in layer spec 'c=3,h=4,w=4,k=2,bias=yes' (expected 0 or 1)"},
    {"c=3,h=4.5,w=4,k=2", "trailing characters '.5' after h=4 in layer spec 'c=3,h=4.5,w=4,k=2'"},
    {"c=3,h=4,w=4,k=2 x", "trailing characters ' x' after k=2 in layer spec 'c=3,h=4,w=4,k=2 x'"},
    {"c=3,h=4,w=4,k=2,", "trailing ',' at the end of layer spec 'c=3,h=4,w=4,k=2,'"},
    {"vgg16.conv1_1 x", "trailing characters ' x' after layer name 'vgg16.conv1_1' in layer spec 'vgg16.conv1_1 x'"},
    {"vgg16.conv1_1;n=2",
     "trailing characters ';n=2' after layer name 'vgg16.conv1_1' in layer spec 'vgg16.conv1_1;n=2'"},
    {"c=3,,h=4,w=4,k=2", "empty item in layer spec 'c=3,,h=4,w=4,k=2'"},
    // Activations.
    {"c=3,h=4,w=4,k=2,act=tanh", "unknown activation 'tanh' in layer spec 'c=3,h=4,w=4,k=2,act=tanh' (act: none, relu, "
                                 "relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid, hardswish, silu, hardsigmoid(ALPHA,BETA))"},
    {"c=3,h=4,w=4,k=2,act=clip(6,0)", "clip(MIN,MAX) needs MIN < MAX (got clip(6,0)) in layer spec "
                                      "'c=3,h=4,w=4,k=2,act=clip(6,0)'"},
    {"c=3,h=4,w=4,k=2,act=clip(0)", "act=clip takes 2 arguments, not 1, in layer spec 'c=3,h=4,w=4,k=2,act=clip(0)' "
                                    "(act: none, relu, relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid, hardswish, silu, hardsigmoid(ALPHA,BETA))"},
    {"c=3,h=4,w=4,k=2,act=clip", "act=clip takes 2 arguments, not 0, in layer spec 'c=3,h=4,w=4,k=2,act=clip' "
                                 "(act: none, relu, relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid, hardswish, silu, hardsigmoid(ALPHA,BETA))"},
    {"c=3,h=4,w=4,k=2,act=leaky(1.5)", "leaky(ALPHA) needs 0 < ALPHA < 1 (got leaky(1.5)) in layer spec "
                                       "'c=3,h=4,w=4,k=2,act=leaky(1.5)'"},
    {"c=3,h=4,w=4,k=2,act=leaky(x)", "malformed argument 'x' of act=leaky in layer spec 'c=3,h=4,w=4,k=2,act=leaky(x)' "
                                     "(expected a number within +-1e+06)"},
    {"c=3,h=4,w=4,k=2,act=clip(0,inf)", "malformed argument 'inf' of act=clip in layer spec "
                                        "'c=3,h=4,w=4,k=2,act=clip(0,inf)' (expected a number within +-1e+06)"},
    {"c=3,h=4,w=4,k=2,act=relu6(1)", "act=relu6 takes 0 arguments, not 1, in layer spec 'c=3,h=4,w=4,k=2,act=relu6(1)' "
                                     "(act: none, relu, relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid, hardswish, silu, hardsigmoid(ALPHA,BETA))"},
    {"c=3,h=4,w=4,k=2,act=clip(0,6", "malformed act=clip(0,6 in layer spec 'c=3,h=4,w=4,k=2,act=clip(0,6' (expected "
                                     "clip(MIN,MAX))"},
    {"c=3,h=4,w=4,k=2,relu=1,act=relu6", "'relu' and 'act' both set the activation in layer spec "
                                         "'c=3,h=4,w=4,k=2,relu=1,act=relu6'"},
    // The residual input.
    {"c=3,h=4,w=4,k=2,residual=2", "residual must be 0 or 1 (got 2) in layer spec 'c=3,h=4,w=4,k=2,residual=2'"},
    {"c=3,h=4,w=4,k=2,scale=2", "scale must be 0 or 1 (got 2) in layer spec 'c=3,h=4,w=4,k=2,scale=2'"},
    {"c=4,h=4,w=4,k=2,groups=2,scale=1",
     "scale=1 is for a dense layer (groups=1), not one of 2 groups, in layer spec 'c=4,h=4,w=4,k=2,groups=2,scale=1'"},
    {"c=3,h=4,w=4,k=2,residual=on",
     "malformed value 'on' for key 'residual' in layer spec 'c=3,h=4,w=4,k=2,residual=on' (expected 0 or 1)"},
    {"c=3,h=4,w=4,k=2,residual=1,residual=0", "duplicate key 'residual' in layer spec "
                                              "'c=3,h=4,w=4,k=2,residual=1,residual=0'"},
    // The element type.
    {"c=3,h=4,w=4,k=2,precision=fp8", "unknown precision 'fp8' in layer spec 'c=3,h=4,w=4,k=2,precision=fp8' "
                                      "(precision: fp32, fp16, tf32)"},
    {"c=3,h=4,w=4,k=2,precision=bf16", "precision=bf16 is not built yet in layer spec "
                                       "'c=3,h=4,w=4,k=2,precision=bf16' (precision: fp32, fp16, tf32)"},
    {"c=3,h=4,w=4,k=2,precision=FP16", "unknown precision 'FP16' in layer spec 'c=3,h=4,w=4,k=2,precision=FP16' "
                                       "(precision: fp32, fp16, tf32)"},
    {"c=,h=4,w=4,k=2", "missing value for key 'c' in layer spec 'c=,h=4,w=4,k=2'"},
    {"=3,h=4", "missing key before '=' in '=3' in layer spec '=3,h=4'"},
    {"c=-,h=4,w=4,k=2", "malformed value '-' for key 'c' in layer spec 'c=-,h=4,w=4,k=2' (expected a whole number)"},
    {"", EMPTY_MSG},
    {"   ", EMPTY_MSG},
    // Zero, negative and too large.
    {"c=0,h=4,w=4,k=2", "c must be at least 1 (got 0) in layer spec 'c=0,h=4,w=4,k=2'"},
    {"n=0,c=3,h=4,w=4,k=2", "n must be at least 1 (got 0) in layer spec 'n=0,c=3,h=4,w=4,k=2'"},
    {"c=3,h=-4,w=4,k=2", "h must be at least 1 (got -4) in layer spec 'c=3,h=-4,w=4,k=2'"},
    {"c=3,h=4,w=0,k=2", "w must be at least 1 (got 0) in layer spec 'c=3,h=4,w=0,k=2'"},
    {"c=3,h=4,w=4,k=0", "k must be at least 1 (got 0) in layer spec 'c=3,h=4,w=4,k=0'"},
    {"c=3,h=4,w=4,k=2,kh=0,kw=1", "kh must be at least 1 (got 0) in layer spec 'c=3,h=4,w=4,k=2,kh=0,kw=1'"},
    {"c=3,h=4,w=4,k=2000000", "k must be at most 1000000 (got 2000000) in layer spec 'c=3,h=4,w=4,k=2000000'"},
    {"c=99999999999999999999,h=4,w=4,k=2",
     "c must be at most 1000000 (got 99999999999999999999) in layer spec 'c=99999999999999999999,h=4,w=4,k=2'"},
    {"vgg16.conv5_1,c=0", "c must be at least 1 (got 0) in layer spec 'vgg16.conv5_1,c=0'"},
    // Stride, pad, bias, relu ranges.
    {"c=3,h=4,w=4,k=2,stride=5", "stride must be between 1 and 4 (got 5) in layer spec 'c=3,h=4,w=4,k=2,stride=5'"},
    {"c=3,h=4,w=4,k=2,stride_w=0",
     "stride_w must be between 1 and 4 (got 0) in layer spec 'c=3,h=4,w=4,k=2,stride_w=0'"},
    {"vgg16.conv1_1,stride=9", "stride must be between 1 and 4 (got 9) in layer spec 'vgg16.conv1_1,stride=9'"},
    {"c=3,h=4,w=4,k=2,pad=65", "pad must be between 0 and 64 (got 65) in layer spec 'c=3,h=4,w=4,k=2,pad=65'"},
    {"c=3,h=4,w=4,k=2,pad_h=-1", "pad_h must be between 0 and 64 (got -1) in layer spec 'c=3,h=4,w=4,k=2,pad_h=-1'"},
    {"c=3,h=4,w=4,k=2,pad_bottom=65", "pad_bottom must be between 0 and 64 (got 65) in layer spec 'c=3,h=4,w=4,k=2,pad_bottom=65'"},
    {"c=3,h=4,w=4,k=2,dilation=0", "dilation must be between 1 and 64 (got 0) in layer spec 'c=3,h=4,w=4,k=2,dilation=0'"},
    {"c=6,h=4,w=4,k=8,groups=4", "groups=4 does not divide the input channels c=6 (each group takes c/groups of them) "
                                 "in layer spec 'c=6,h=4,w=4,k=8,groups=4'"},
    {"c=6,h=4,w=4,k=8,groups=3", "groups=3 does not divide the output channels k=8 (each group makes k/groups of "
                                 "them) in layer spec 'c=6,h=4,w=4,k=8,groups=3'"},
    {"c=6,h=4,w=4,k=8,groups=0", "groups must be at least 1 (got 0) in layer spec 'c=6,h=4,w=4,k=8,groups=0'"},
    {"c=3,h=4,w=4,k=2,dilation_w=65", "dilation_w must be between 1 and 64 (got 65) in layer spec 'c=3,h=4,w=4,k=2,dilation_w=65'"},
    {"c=3,h=6,w=9,k=2,pad=1,dilation=4",
     "the dilated window's height (kh-1)*dilation_h+1 = 9 is larger than the padded input height 8 (h=6, kh=3, "
     "dilation_h=4), so there are no output rows, in layer spec 'c=3,h=6,w=9,k=2,pad=1,dilation=4'"},
    {"c=3,h=2,w=8,k=2,kh=5,kw=3,pad_top=1,pad_bottom=1,pad_left=1",
     "kernel height kh=5 is larger than the padded input height 4 (h=2, pad_h=1), so there are no output rows, in "
     "layer spec 'c=3,h=2,w=8,k=2,kh=5,kw=3,pad_top=1,pad_bottom=1,pad_left=1'"},
    {"c=3,h=2,w=8,k=2,kh=5,kw=3,pad_top=2,pad_bottom=0",
     "kernel height kh=5 is larger than the padded input height 4 (h=2, pad_top=2, pad_bottom=0), so there are no output "
     "rows, in layer spec 'c=3,h=2,w=8,k=2,kh=5,kw=3,pad_top=2,pad_bottom=0'"},
    {"c=3,h=4,w=4,k=2,bias=2", "bias must be 0 or 1 (got 2) in layer spec 'c=3,h=4,w=4,k=2,bias=2'"},
    {"c=3,h=4,w=4,k=2,relu=-1", "relu must be 0 or 1 (got -1) in layer spec 'c=3,h=4,w=4,k=2,relu=-1'"},
    // Kernel larger than the padded input (the output would be empty).
    {"c=3,h=4,w=4,k=2,kh=7,kw=3,pad=1",
     "kernel height kh=7 is larger than the padded input height 6 (h=4, pad_h=1), so there are no output rows, "
     "in layer spec 'c=3,h=4,w=4,k=2,kh=7,kw=3,pad=1'"},
    {"c=3,h=9,w=2,k=2", "kernel width kw=3 is larger than the padded input width 2 (w=2, pad_w=0), so there are "
                        "no output columns, in layer spec 'c=3,h=9,w=2,k=2'"},
    {"vgg16.conv5_1,kh=17", "kernel height kh=17 is larger than the padded input height 16 (h=14, pad_h=1), so "
                            "there are no output rows, in layer spec 'vgg16.conv5_1,kh=17'"},
    {"alexnet.conv1,h=6", "kernel height kh=11 is larger than the padded input height 10 (h=6, pad_h=2), so "
                          "there are no output rows, in layer spec 'alexnet.conv1,h=6'"},
    // Duplicates and conflicts.
    {"c=3,c=4,h=4,w=4,k=2", "duplicate key 'c' in layer spec 'c=3,c=4,h=4,w=4,k=2'"},
    {"vgg16.conv1_1,n=2,n=3", "duplicate key 'n' in layer spec 'vgg16.conv1_1,n=2,n=3'"},
    {"c=3,h=4,w=4,k=2,stride=2,stride_h=1",
     "'stride' and 'stride_h' both set stride_h in layer spec 'c=3,h=4,w=4,k=2,stride=2,stride_h=1'"},
    {"c=3,h=4,w=4,k=2,pad_w=1,pad=1", "'pad_w' and 'pad' both set pad_w in layer spec 'c=3,h=4,w=4,k=2,pad_w=1,pad=1'"},
    // Missing keys.
    {"n=1,c=3", "missing h, w, k in layer spec 'n=1,c=3' (required: c, h, w, k; or start with a named layer such "
                "as vgg16.conv3_2)"},
    {"c=3,h=4,w=4,k=2,kh=1", "kh given without kw in layer spec 'c=3,h=4,w=4,k=2,kh=1' (give both, or neither for 3x3)"},
    {"c=3,h=4,w=4,k=2,kw=1", "kw given without kh in layer spec 'c=3,h=4,w=4,k=2,kw=1' (give both, or neither for 3x3)"},
    // Tensors past 32-bit indexing.
    {"c=1000000,h=1000,w=1000,k=1", "the input tensor has 1000000000000 elements, more than 2147483647 (the kernels index "
                                    "with 32-bit int), in layer spec 'c=1000000,h=1000,w=1000,k=1'"},
    {"c=1,h=46340,w=46340,k=1,kh=1,kw=1,pad=5",
     "the padded input tensor has 2148322500 elements, more than 2147483647 (the kernels index with 32-bit int), in "
     "layer spec 'c=1,h=46340,w=46340,k=1,kh=1,kw=1,pad=5'"},
    {"c=1000,h=50,w=50,k=1000,kh=50,kw=50", "the weights tensor has 2500000000 elements, more than 2147483647 (the kernels "
                                           "index with 32-bit int), in layer spec 'c=1000,h=50,w=50,k=1000,kh=50,kw=50'"},
    {"c=1,h=1000,w=1000,k=3000,kh=1,kw=1", "the output tensor has 3000000000 elements, more than 2147483647 (the kernels "
                                           "index with 32-bit int), in layer spec 'c=1,h=1000,w=1000,k=3000,kh=1,kw=1'"},
};

static void test_errors(void) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++) CHECK_STR(error_of(errors[i].spec), errors[i].msg);
  Layer l;
  Diag d = {0};
  CHECK(!layer_parse(NULL, &l, &d));
  CHECK_STR(d.msg, EMPTY_MSG);
  CHECK(!layer_parse("c=0,h=1,w=1,k=1", &l, NULL));   // no Diag: still refused, no crash
  CHECK(layer_parse("c=1,h=1,w=1,k=1,kh=1,kw=1", &l, NULL));
}

/* ---- Hand-built layers ---------------------------------------------------------------------- */

static void test_check(void) {
  Layer l = {.n = 1, .c = 3, .h = 13, .w = 17, .k = 7, .kh = 5, .kw = 3, .stride_h = 2, .stride_w = 1,
             .pad_h = 1, .pad_w = 3, .bias = true};
  Diag d = {0};
  CHECK(layer_check(&l, &d));
  CHECK(l.out_h == 6 && l.out_w == 21);   // (13+2-5)/2+1, (17+6-3)/1+1
  Layer p = P(fmt(&l));
  CHECK(layer_equal(&l, &p));

  l.c = 0;
  CHECK(!layer_check(&l, &d));
  CHECK_STR(d.msg, "c must be at least 1 (got 0) in layer spec "
                   "'n=1,c=0,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=1,pad_h=1,pad_w=3,bias=1,relu=0'");
  l.c = 3;
  l.stride_w = 0;
  d = (Diag){0};
  CHECK(!layer_check(&l, &d));
  CHECK_STR(d.msg, "stride_w must be between 1 and 4 (got 0) in layer spec "
                   "'n=1,c=3,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=0,pad_h=1,pad_w=3,bias=1,relu=0'");
}

int main(void) {
  test_named();
  test_overrides();
  test_plain();
  test_round_trip();
  test_sizes();
  test_networks();
  test_errors();
  test_check();
  TEST_MAIN_END();
}
