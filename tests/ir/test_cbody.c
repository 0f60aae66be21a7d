/* test_cbody.c: user-function bodies: evaluation of the supported subset, and
 * the exact message of each error the parser and checker report.
 *
 * With CBODY_CL=file set, every body that must be accepted is also written to
 * that file as an OpenCL C function, so that "a body that checks here builds
 * on the device" can be confirmed with an OpenCL compiler, e.g.
 *   clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only file
 */
#include "ir/cbody.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

#define F_ {false, 1}
#define I_ {true, 1}
#define F2_ {false, 2}
#define F4_ {false, 4}
#define F8_ {false, 8}

static const CbType F = F_, I = I_, F2 = F2_, F4 = F4_;

typedef struct Par {
  const char *name;  // parameter name
  CbType type;       // parameter type
} Par;

static const Par XY[] = {{"x", F_}, {"y", F_}};
static const Par IJ[] = {{"i", I_}, {"j", I_}};
static const Par AB[] = {{"a", F4_}, {"b", F4_}};
static const Par MIX[] = {{"x", F_}, {"i", I_}, {"a", F4_}, {"b", F2_}, {"w", F8_}};
#define NPAR(ps) ((int)(sizeof(ps) / sizeof *(ps)))

static Arena *arena;

static const char *tname(CbType t) {
  static const char *const names[17] = {[1] = "float", [2] = "float2", [3] = "float3",
                                        [4] = "float4", [8] = "float8", [16] = "float16"};
  return t.is_int ? "int" : names[t.width];
}

static void dump_cl(const char *fname, const char *text, CbType ret, int n, const Par *ps) {
  static int count;
  const char *path = getenv("CBODY_CL");
  if (!path) return;
  FILE *f = fopen(path, count++ ? "a" : "w");
  if (!f) return;
  fprintf(f, "%s %s_%d(", tname(ret), fname, count);
  for (int i = 0; i < n; i++) fprintf(f, "%s%s %s", i ? ", " : "", tname(ps[i].type), ps[i].name);
  fprintf(f, ") {\n%s\n}\n", text);
  fclose(f);
}

static CBody *parse(const char *fname, const char *text, CbType ret, int n, const Par *ps, Diag *d) {
  const char *names[8];
  CbType types[8];
  for (int i = 0; i < n; i++) names[i] = ps[i].name, types[i] = ps[i].type;
  return cb_parse(arena, fname, text, n, names, types, ret, d);
}

static CBody *parse_ok(const char *fname, const char *text, CbType ret, int n, const Par *ps) {
  Diag d = {0};
  CBody *b = parse(fname, text, ret, n, ps, &d);
  CHECK(b != NULL && !d.set);
  if (!b) fprintf(stderr, "  unexpected error: %s\n", d.msg);
  if (b) dump_cl(fname, text, ret, n, ps);
  return b;
}

static const char *parse_err(const char *fname, const char *text, CbType ret, int n, const Par *ps) {
  Diag d = {0};
  CBody *b = parse(fname, text, ret, n, ps, &d);
  if (b || !d.set) return "(accepted)";
  return arena_strdup(arena, d.msg);
}

static CbValue scalar(double x) { return (CbValue){1, {x}}; }

static CbValue vec(int w, ...) {
  CbValue v = {w, {0}};
  va_list ap;
  va_start(ap, w);
  for (int i = 0; i < w; i++) v.v[i] = va_arg(ap, double);
  va_end(ap);
  return v;
}

/* Evaluates b on scalar arguments; NAN when it fails. */
static double eval_s(const CBody *b, int n, ...) {
  CbValue args[8], out;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) args[i] = scalar(va_arg(ap, double));
  va_end(ap);
  Diag d = {0};
  if (!b || !cb_eval(b, args, &out, &d)) return NAN;
  return out.v[0];
}

static CbValue eval_v(const CBody *b, const CbValue *args) {
  CbValue out = {0, {0}};
  Diag d = {0};
  if (b && !cb_eval(b, args, &out, &d)) fprintf(stderr, "  eval failed: %s\n", d.msg);
  return out;
}

static bool near(double got, double want) { return fabs(got - want) <= 1e-12 * (1 + fabs(want)); }

static void test_scalar_functions(void) {
  CBody *add = parse_ok("add", "return x + y;", F, 2, XY);
  CHECK(eval_s(add, 2, 1.5, 2.25) == 3.75);
  CBody *mult = parse_ok("mult", "return x * y;", F, 2, XY);
  CHECK(eval_s(mult, 2, 1.5, -4.0) == -6.0);
  static const Par mac_ps[] = {{"acc", F_}, {"x", F_}, {"w", F_}};
  CBody *mac = parse_ok("mac", "return acc + x * w;", F, 3, mac_ps);
  CHECK(eval_s(mac, 3, 10.0, 3.0, 0.5) == 11.5);
  CBody *mad = parse_ok("madd", "return mad(x, w, acc);", F, 3, mac_ps);
  CHECK(eval_s(mad, 3, 10.0, 3.0, 0.5) == 11.5);

  static const Par x_ps[] = {{"x", F_}};
  CBody *relu = parse_ok("relu", "return fmax(x, 0.0f);", F, 1, x_ps);
  CHECK(eval_s(relu, 1, -2.0) == 0.0);
  CHECK(eval_s(relu, 1, 3.0) == 3.0);
  CBody *relu_int0 = parse_ok("relu0", "return fmax(x, 0);", F, 1, x_ps);
  CHECK(eval_s(relu_int0, 1, -2.0) == 0.0);
  CBody *relu_t = parse_ok("relu_t", "return x > 0.0f ? x : 0.0f;", F, 1, x_ps);
  CHECK(eval_s(relu_t, 1, -2.0) == 0.0);
  CHECK(eval_s(relu_t, 1, 3.0) == 3.0);
  CBody *leaky = parse_ok("leaky", "return x >= 0 ? x : 0.01f * x;", F, 1, x_ps);
  CHECK(near(eval_s(leaky, 1, -2.0), -0.02));
}

static void test_vectors(void) {
  CBody *dot4 = parse_ok("dot4", "return dot(a, b);", F, 2, AB);
  CbValue ab[2] = {vec(4, 1.0, 2.0, 3.0, 4.0), vec(4, 5.0, 6.0, 7.0, 8.0)};
  CHECK(eval_v(dot4, ab).width == 1);
  CHECK(eval_v(dot4, ab).v[0] == 70.0);

  static const Par x_ps[] = {{"x", F_}};
  CBody *lit = parse_ok("lit", "return (float4)(x, 2.0f, x * 2.0f, 4);", F4, 1, x_ps);
  CbValue x3 = scalar(3.0), r = eval_v(lit, &x3);
  CHECK(r.width == 4 && r.v[0] == 3.0 && r.v[1] == 2.0 && r.v[2] == 6.0 && r.v[3] == 4.0);
  CBody *bcast = parse_ok("bcast", "return (float4)(x);", F4, 1, x_ps);
  r = eval_v(bcast, &x3);
  CHECK(r.width == 4 && r.v[0] == 3.0 && r.v[3] == 3.0);
  CBody *lit_comp = parse_ok("lit_comp", "return (float4)(x, 1.0f, 2.0f, 3.0f).wy + (float2)(x).x;", F2, 1, x_ps);
  r = eval_v(lit_comp, &x3);
  CHECK(r.width == 2 && r.v[0] == 6.0 && r.v[1] == 4.0);
  CBody *ret_bcast = parse_ok("ret_bcast", "return x;", F4, 1, x_ps);
  r = eval_v(ret_bcast, &x3);
  CHECK(r.width == 4 && r.v[1] == 3.0 && r.v[2] == 3.0);

  CBody *comp = parse_ok("comp", "return a.x + a.w * 10.0f + a.s2 * 100 + b.S1 * 1000;", F, 2, AB);
  CHECK(eval_v(comp, ab).v[0] == 1.0 + 40.0 + 300.0 + 6000.0);
  CBody *swz = parse_ok("swz", "return (float4)(a.wz, b.s01);", F4, 2, AB);
  r = eval_v(swz, ab);
  CHECK(r.v[0] == 4.0 && r.v[1] == 3.0 && r.v[2] == 5.0 && r.v[3] == 6.0);

  CBody *axpb = parse_ok("axpb", "return a * 2.0f + b - 1;", F4, 2, AB);
  r = eval_v(axpb, ab);
  CHECK(r.width == 4 && r.v[0] == 6.0 && r.v[3] == 15.0);
  CBody *vfn = parse_ok("vfn", "return clamp(fabs(a - b) * 0.5f, 0.0f, 1.75f) + fmax(a, 2.5f);", F4, 2, AB);
  r = eval_v(vfn, ab);
  CHECK(r.v[0] == 1.75 + 2.5 && r.v[3] == 1.75 + 4.0);
}

static void test_statements(void) {
  CBody *locals = parse_ok("locals",
                           "float s = 0.0f;\n"
                           "s += a.x;      // 1\n"
                           "s -= 3;        // -2\n"
                           "s *= 3.0f;     /* -6 */\n"
                           "s /= 4;        // -1.5\n"
                           "float4 t = a;\n"
                           "t += 1.0f;\n"
                           "t = t * b;\n"
                           "int n = 7;\n"
                           "n /= 2;\n"
                           "return s + t.y + n;",
                           F, 2, AB);
  CbValue ab[2] = {vec(4, 1.0, 2.0, 3.0, 4.0), vec(4, 5.0, 6.0, 7.0, 8.0)};
  CHECK(eval_v(locals, ab).v[0] == -1.5 + 18.0 + 3.0);

  CBody *ifelse = parse_ok("ifelse",
                           "if (x > y) return x - y;\n"
                           "else { float d = y - x; return -d; }",
                           F, 2, XY);
  CHECK(eval_s(ifelse, 2, 5.0, 2.0) == 3.0);
  CHECK(eval_s(ifelse, 2, 2.0, 5.0) == -3.0);
  CBody *chain = parse_ok("chain",
                          "if (x < 0.0f) x = -x;\n"
                          "if (y < 0.0f) { y = -y; } else if (y > 10.0f) y = 10.0f; else ;\n"
                          "{ float x2 = x * x; x = x2; }\n"
                          "return x + y;",
                          F, 2, XY);
  CHECK(eval_s(chain, 2, -3.0, -1.0) == 10.0);
  CHECK(eval_s(chain, 2, 2.0, 12.0) == 14.0);
  CBody *nested = parse_ok("nested",
                           "if (x > 0.0f) { if (y > 0.0f) return 1; else return 2; }\n"
                           "else return 3;",
                           F, 2, XY);
  CHECK(eval_s(nested, 2, 1.0, 1.0) == 1.0 && eval_s(nested, 2, 1.0, -1.0) == 2.0 &&
        eval_s(nested, 2, -1.0, 1.0) == 3.0);
  CBody *logic = parse_ok("logic", "return (x > 0.0f && y > 0.0f) || !(x != y) ? 1.0f : -1.0f;", F, 2, XY);
  CHECK(eval_s(logic, 2, 1.0, 1.0) == 1.0 && eval_s(logic, 2, -1.0, -1.0) == 1.0 &&
        eval_s(logic, 2, -1.0, 1.0) == -1.0);
}

static void test_ints_and_literals(void) {
  CBody *iarith = parse_ok("iarith", "return i / j + i * 2 - 7 / 2;", I, 2, IJ);
  CHECK(eval_s(iarith, 2, -7.0, 2.0) == -3.0 - 14.0 - 3.0);
  CBody *mixed = parse_ok("mixed", "return i / 2 + 0.5f + (float)i / 2;", F, 2, IJ);
  CHECK(eval_s(mixed, 2, 5.0, 0.0) == 2.0 + 0.5 + 2.5);
  CBody *wrap = parse_ok("wrap", "return i * j + 1;", I, 2, IJ);
  CHECK(eval_s(wrap, 2, 65536.0, 32768.0) == -2147483648.0 + 1);
  CBody *imax = parse_ok("imax", "return max(i, j) - min(i, 3) + clamp(j, 0, 4) + select(i, j, i < j);", I, 2, IJ);
  CHECK(eval_s(imax, 2, 2.0, 9.0) == 9.0 - 2.0 + 4.0 + 9.0);
  static const Par x_ps[] = {{"x", F_}};
  CBody *trunc_ = parse_ok("trunc_", "return (int)x + (int)-x * 10;", I, 1, x_ps);
  CHECK(eval_s(trunc_, 1, -2.7) == -2.0 + 20.0);
  CBody *lits = parse_ok("lits", "/* all the spellings */ return 1.f + .5f + 2.5 + 1e-3f + 3.0e2 + 0 + 42 // tail\n;",
                         F, 0, NULL);
  CHECK(near(eval_s(lits, 0), 1.0 + 0.5 + 2.5 + 1e-3 + 300.0 + 42.0));
  // Unsuffixed literals are doubles in OpenCL C: fine in scalar arithmetic,
  // in assignments and as vector literal components.
  CBody *dbl = parse_ok("dbl",
                        "float4 t = 2.5; t = (float4)(1, 2.5, x, 4) * (float)2.5;\n"
                        "float z = 2.5 * x; z += -1.0; return t.z + z + (x < 2.5 ? 1.0f : 2.5);",
                        F, 2, XY);
  CHECK(eval_s(dbl, 2, 2.0, 0.0) == 5.0 + 4.0 + 1.0);
  CBody *math = parse_ok("math",
                         "return sqrt(x) + rsqrt(x) + exp(y) + log(x) + pow(x, 2) + tanh(y)"
                         " + floor(-y) + ceil(y) + fma(x, y, 1.0f) + fmin(x, y) + fabs(-y);",
                         F, 2, XY);
  double xv = 4.0, yv = 0.25;
  CHECK(near(eval_s(math, 2, xv, yv), 2.0 + 0.5 + exp(yv) + log(xv) + 16.0 + tanh(yv) - 1.0 + 1.0 +
                                          (xv * yv + 1.0) + yv + yv));
  CBody *erfs = parse_ok("erfs", "return erf(x) + log1p(y);", F, 2, XY);
  CHECK(near(eval_s(erfs, 2, 0.5, 1e-9), erf(0.5) + 1e-9));   // log1p: exact where log(1 + y) is not
  CBody *sel = parse_ok("sel", "return select(x, y, x < y) + select(1.0f, 2.0f, 0);", F, 2, XY);
  CHECK(eval_s(sel, 2, 1.0, 5.0) == 5.0 + 1.0);
}

static void test_run_time_faults(void) {
  Diag d = {0};
  CBody *divz = parse_ok("divz", "return i / j;", I, 2, IJ);
  CbValue args[2] = {scalar(1.0), scalar(0.0)}, out;
  CHECK(!cb_eval(divz, args, &out, &d));
  CHECK_STR(d.msg, "user function 'divz': integer division by zero in '/'");
  // The untaken side of && and ?: is not evaluated, as in C.
  CBody *guard = parse_ok("guard", "return j != 0 && i / j > 2 ? i / j : 0;", I, 2, IJ);
  CHECK(eval_s(guard, 2, 9.0, 0.0) == 0.0);
  CHECK(eval_s(guard, 2, 9.0, 3.0) == 3.0);
  static const Par x_ps[] = {{"x", F_}};
  CBody *toint = parse_ok("toint", "return (int)x;", I, 1, x_ps);
  Diag d2 = {0};
  CbValue big = scalar(1e10);
  CHECK(!cb_eval(toint, &big, &out, &d2));
  CHECK_STR(d2.msg, "user function 'toint': (int) of a value out of int range");
}

static void test_errors(void) {
  static const Par x_ps[] = {{"x", F_}};
  static const Par dup_ps[] = {{"x", F_}, {"x", F_}};
  // The examples of the brief, verbatim.
  CHECK_STR(parse_err("add", "return x + z;", F, 2, XY), "user function 'add': unknown name 'z'");
  CHECK_STR(parse_err("f", "return a + b;", F4, 2, (const Par[]){{"a", F4_}, {"b", F2_}}),
            "user function 'f': type mismatch in '+': float4 and float2");
  CHECK_STR(parse_err("g", "return foo(x);", F, 1, x_ps), "user function 'g': unknown function 'foo'");
  CHECK_STR(parse_err("h", "return x", F, 1, x_ps), "user function 'h': expected ';' after 'return x'");
  CHECK_STR(parse_err("k", "return a;", F, 2, AB),
            "user function 'k': returns float4 but is declared to return float");
  CHECK_STR(parse_err("m", "if (x > 0.0f) return x;", F, 1, x_ps),
            "user function 'm': not every path returns a value");
  CHECK_STR(parse_err("m", "if (x > 0.0f) return x; else x = 1.0f;", F, 1, x_ps),
            "user function 'm': not every path returns a value");
  CHECK_STR(parse_err("m", "", F, 1, x_ps), "user function 'm': not every path returns a value");

  // Lexical and syntax errors.
  CHECK_STR(parse_err("e", "return x @ y;", F, 2, XY), "user function 'e': unexpected character '@'");
  CHECK_STR(parse_err("e", "return x; /* open", F, 1, x_ps), "user function 'e': unterminated comment");
  CHECK_STR(parse_err("e", "return 1f;", F, 0, NULL), "user function 'e': bad number '1f'");
  CHECK_STR(parse_err("e", "return 3000000000;", I, 0, NULL),
            "user function 'e': integer literal '3000000000' is too large for int");
  CHECK_STR(parse_err("e", "return fmax(x,\n   y;", F, 2, XY), "user function 'e': expected ')' after 'fmax(x, y'");
  CHECK_STR(parse_err("e", "return x +;", F, 1, x_ps), "user function 'e': expected an expression, found ';'");
  CHECK_STR(parse_err("e", "return (x", F, 1, x_ps), "user function 'e': expected ')' after '(x'");
  CHECK_STR(parse_err("e", "return;", F, 0, NULL), "user function 'e': 'return' needs a value");
  CHECK_STR(parse_err("e", "{ return x;", F, 1, x_ps), "user function 'e': expected '}' after '{ return x;'");
  CHECK_STR(parse_err("e", "return x; }", F, 1, x_ps), "user function 'e': unexpected '}'");
  CHECK_STR(parse_err("e", "float y = x return y;", F, 1, x_ps),
            "user function 'e': expected ';' after 'float y = x'");
  CHECK_STR(parse_err("e", "float y; return x;", F, 1, x_ps),
            "user function 'e': declaration of 'y' needs an initializer");
  CHECK_STR(parse_err("e", "double y = x; return y;", F, 1, x_ps), "user function 'e': unknown type 'double'");
  CHECK_STR(parse_err("e", "x + 1.0f; return x;", F, 1, x_ps),
            "user function 'e': expression statement 'x + 1.0f' has no effect");
  CHECK_STR(parse_err("e", "a.x = 1.0f; return a;", F4, 2, AB),
            "user function 'e': cannot assign to 'a.x': only a local variable or parameter can be assigned");
  CHECK_STR(parse_err("e", "+x = 1.0f; return x;", F, 1, x_ps),
            "user function 'e': cannot assign to '+x': only a local variable or parameter can be assigned");
  CHECK_STR(parse_err("e", "x++; return x;", F, 1, x_ps), "user function 'e': operator '++' is not supported");
  CHECK_STR(parse_err("e", "for (;;) return x;", F, 1, x_ps), "user function 'e': 'for' is not supported");
  CHECK_STR(parse_err("e", "if (x > 0.0f) float y = x; return x;", F, 1, x_ps),
            "user function 'e': a declaration cannot be the body of 'if' or 'else'; add braces");
  CHECK_STR(parse_err("e", "else return x;", F, 1, x_ps), "user function 'e': 'else' without 'if'");

  // Names and scopes.
  CHECK_STR(parse_err("s", "float y = 1.0f; float y = 2.0f; return y;", F, 1, x_ps),
            "user function 's': redeclaration of 'y'");
  CHECK_STR(parse_err("s", "float x = 1.0f; return x;", F, 1, x_ps), "user function 's': redeclaration of 'x'");
  CHECK_STR(parse_err("s", "return x;", F, 2, dup_ps), "user function 's': redeclaration of 'x'");
  CHECK_STR(parse_err("s", "{ float y = x; } return y;", F, 1, x_ps), "user function 's': unknown name 'y'");
  CHECK_STR(parse_err("s", "float y = y; return y;", F, 1, x_ps), "user function 's': unknown name 'y'");
  CHECK_STR(parse_err("s", "z = 1.0f; return x;", F, 1, x_ps), "user function 's': unknown name 'z'");
  CHECK_STR(parse_err("s", "float max = x; return max(max, x);", F, 1, x_ps),
            "user function 's': 'max' is a variable, not a function");

  // Types.
  CHECK_STR(parse_err("t", "return x;", I, 1, x_ps), "user function 't': returns float but is declared to return int");
  CHECK_STR(parse_err("t", "int i = 1.5f; return i;", I, 0, NULL),
            "user function 't': cannot initialize 'i' of type int with float");
  CHECK_STR(parse_err("t", "x = a; return x;", F, 3, MIX), "user function 't': cannot assign float4 to 'x' of type float");
  CHECK_STR(parse_err("t", "i += 0.5f; return i;", I, 3, MIX),
            "user function 't': cannot assign float to 'i' of type int");
  CHECK_STR(parse_err("t", "a += b; return a;", F4, 4, MIX), "user function 't': type mismatch in '+=': float4 and float2");
  CHECK_STR(parse_err("t", "return x > 0.0f ? a : b;", F4, 4, MIX),
            "user function 't': type mismatch in '?:': float4 and float2");
  CHECK_STR(parse_err("t", "return x ? 1.0f : 0.0f;", F, 1, x_ps),
            "user function 't': condition of '?:' must be int, got float");
  CHECK_STR(parse_err("t", "if (a) return x; return 0.0f;", F, 3, MIX),
            "user function 't': condition of 'if' must be a scalar, got float4");
  CHECK_STR(parse_err("t", "return a < b ? 1.0f : 0.0f;", F, 2, AB),
            "user function 't': operator '<' needs scalar operands, got float4 and float4");
  CHECK_STR(parse_err("t", "return !a;", I, 2, AB), "user function 't': operator '!' needs a scalar operand, got float4");
  CHECK_STR(parse_err("t", "return a * 2.5;", F4, 2, AB),
            "user function 't': type mismatch in '*': float4 and double "
            "(the literal '2.5' is a double in OpenCL C; write '2.5f')");
  CHECK_STR(parse_err("t", "a += -1.0; return a;", F4, 2, AB),
            "user function 't': type mismatch in '+=': float4 and double "
            "(the literal '1.0' is a double in OpenCL C; write '1.0f')");
  CHECK_STR(parse_err("t", "return (float)a;", F, 2, AB), "user function 't': cannot cast float4 to float");
  CHECK_STR(parse_err("t", "return (float4)b;", F4, 4, MIX), "user function 't': cannot cast float2 to float4");
  CHECK_STR(parse_err("t", "return (float4)(x, x, x);", F4, 1, x_ps),
            "user function 't': vector literal (float4) has 3 components, needs 4");
  CHECK_STR(parse_err("t", "return a.q;", F, 2, AB), "user function 't': unknown component '.q' of float4");
  CHECK_STR(parse_err("t", "return b.z;", F, 4, MIX), "user function 't': component '.z' is out of range for float2");
  CHECK_STR(parse_err("t", "return x.x;", F, 1, x_ps), "user function 't': '.x' applied to float, which is not a vector");

  // Built-in calls: arity and the overloads an OpenCL compiler would reject.
  CHECK_STR(parse_err("c", "return fmax(x, y, x);", F, 2, XY), "user function 'c': 'fmax' takes 2 arguments, got 3");
  CHECK_STR(parse_err("c", "return sqrt();", F, 0, NULL), "user function 'c': 'sqrt' takes 1 argument, got 0");
  CHECK_STR(parse_err("c", "return sqrt(2);", F, 0, NULL), "user function 'c': 'sqrt' needs a float argument, got (int)");
  CHECK_STR(parse_err("c", "return max(x, 0);", F, 1, x_ps),
            "user function 'c': 'max' mixes int and float arguments (float, int); add a cast");
  CHECK_STR(parse_err("c", "return fmax(a, b);", F4, 4, MIX), "user function 'c': bad argument types for 'fmax': (float4, float2)");
  CHECK_STR(parse_err("c", "return dot(w, w);", F, 5, MIX), "user function 'c': bad argument types for 'dot': (float8, float8)");
  CHECK_STR(parse_err("c", "return fmax(x, 0.7);", F, 1, x_ps),
            "user function 'c': 'fmax' cannot take a double argument "
            "(the literal '0.7' is a double in OpenCL C; write '0.7f')");
  CHECK_STR(parse_err("c", "return sqrt(x * 3.0e2);", F, 1, x_ps),
            "user function 'c': 'sqrt' cannot take a double argument "
            "(the literal '3.0e2' is a double in OpenCL C; write '3.0e2f')");
  CHECK_STR(parse_err("c", "return select(a, a, i);", F4, 3, MIX),
            "user function 'c': bad argument types for 'select': (float4, float4, int)");
  CHECK_STR(parse_err("c", "return select(x, 1.0f, x);", F, 1, x_ps),
            "user function 'c': bad argument types for 'select': (float, float, float)");
}

/* Pathological bodies are user errors, not stack overflows. */
static void test_limits(void) {
  static const Par x_ps[] = {{"x", F_}};
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "return ");
  for (int i = 0; i < 300; i++) sb_puts(&sb, "x + ");
  sb_puts(&sb, "x;");
  CHECK_STR(parse_err("deep", sb_str(&sb), F, 1, x_ps),
            "user function 'deep': expression is nested too deeply (the limit is 256)");
  sb_free(&sb);
  sb_puts(&sb, "return ");
  for (int i = 0; i < 300; i++) sb_puts(&sb, "(");
  sb_puts(&sb, "x");
  for (int i = 0; i < 300; i++) sb_puts(&sb, ")");
  sb_puts(&sb, ";");
  CHECK_STR(parse_err("deep", sb_str(&sb), F, 1, x_ps),
            "user function 'deep': body is nested too deeply (the limit is 256)");
  sb_free(&sb);
  for (int i = 0; i < 300; i++) sb_puts(&sb, "{");
  CHECK_STR(parse_err("deep", sb_str(&sb), F, 1, x_ps),
            "user function 'deep': body is nested too deeply (the limit is 256)");
  sb_free(&sb);
  for (int i = 0; i < 64; i++) sb_printf(&sb, "float v%d = x; ", i);
  sb_puts(&sb, "return x;");
  CHECK_STR(parse_err("many", sb_str(&sb), F, 1, x_ps),
            "user function 'many': too many variables (the limit is 64)");
  sb_free(&sb);
  sb_puts(&sb, "float s = 0.0f;");
  for (int i = 0; i < 200; i++) sb_puts(&sb, " s += x * 0.5f;");
  sb_puts(&sb, " return s + x + x + x + x + x + x + x + x + x + x;");
  CBody *ok = parse_ok("long", sb_str(&sb), F, 1, x_ps);
  CHECK(eval_s(ok, 1, 2.0) == 200.0 + 20.0);
  sb_free(&sb);
}

int main(void) {
  arena = arena_new();
  test_scalar_functions();
  test_vectors();
  test_statements();
  test_ints_and_literals();
  test_run_time_faults();
  test_errors();
  test_limits();
  arena_free(arena);
  TEST_MAIN_END();
}
