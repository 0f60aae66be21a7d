/* cbody.h: user-function bodies, a small subset of OpenCL C, checked at parse
 * time and evaluated by the reference interpreter in float64.
 *
 * A user function is declared with typed parameters, a return type and a C body
 * ("return x + y;"). The body is emitted verbatim into kernels, so it must be
 * valid OpenCL C; the interpreter must also be able to run it on the CPU, so it
 * is restricted to this subset:
 *   statements: `T name = expr;`, `name = expr;`, `name += expr;` (also -= *= /=),
 *               `if (expr) stmt [else stmt]`, `{ ... }`, `return expr;`
 *   types:      float, int, floatN (N = 2, 3, 4, 8, 16)
 *   expressions: float literals (1.0f, 2.5, 1e-3f), int literals, names,
 *               + - * / (unary -), < <= > >= == != && || !, ?:, (expr),
 *               casts `(float)e`, `(int)e`, vector literals `(float4)(a, b, c, d)`
 *               (and `(float4)(s)` broadcast), components `.x .y .z .w .s0 .. .sf`,
 *               calls of: fmax fmin max min fabs sqrt rsqrt exp log log1p pow
 *               tanh erf mad fma dot clamp select floor ceil.
 * Arithmetic on vectors is element-wise with scalar broadcast, as in OpenCL C.
 */
#ifndef CONVGEN_CBODY_H
#define CONVGEN_CBODY_H

#include "util/util.h"

typedef struct CbType {
  bool is_int;   // int (width 1 only) rather than float
  int width;     // 1 for a scalar, else the vector width
} CbType;

typedef struct CbValue {
  int width;        // 1 for a scalar
  double v[16];     // components (an int is held as an integral double)
} CbValue;

typedef struct CBody CBody;

/* Where OpenCL C is stricter than C, the checker follows an OpenCL C 1.2
 * compiler, so that a body that checks also builds: the condition of ?: is an
 * int; a float built-in needs a float argument (sqrt(2.0f), not sqrt(2));
 * max/min/clamp take all-int or all-float arguments; an unsuffixed literal
 * (2.5) is a double, allowed in scalar arithmetic and assignments but not
 * beside a vector or as a built-in's argument (write 2.5f); float to int needs
 * an explicit (int). Ints are 32-bit and wrap; int division truncates. */

/* Parse and check a body. Errors name the user function and the offending
 * construct: "user function 'add': unknown name 'z'". */
CBody *cb_parse(Arena *a, const char *fname, const char *text, int nparams,
                const char *const *pnames, const CbType *ptypes, CbType ret, Diag *d);

/* Evaluate in float64. Returns false with a Diag for run-time faults the
 * checker cannot rule out (a body that falls off the end without return). */
bool cb_eval(const CBody *b, const CbValue *args, CbValue *out, Diag *d);

#endif
