/* winograd.h: the matrices of Winograd's minimal filtering F(m, r)
 * (issue 32, item 2; docs/conv.md, "Winograd"): m outputs of an r-tap
 * correlation from n = m + r - 1 inputs with n multiplications,
 *
 *   y = A^T [(G g) .* (B^T d)],   y[p] = sum_t d[p + t] g[t],  p < m,
 *
 * A^T m x n, G n x r, B^T n x n; in two dimensions the same on rows and
 * columns (Y = A^T [(G g G^T) .* (B^T d B)] A). The matrices are computed,
 * not typed: Toom-Cook's construction from n - 1 interpolation points and
 * the point at infinity, in exact rational arithmetic, so any m and r (up
 * to WINO_MAX_N inputs) come from one routine and the identity is checked
 * exactly (tests/conv/test_winograd.c).
 *
 * Strategy wino uses them (rules_winograd.c: rule winograd makes them const
 * arrays of the program). */
#ifndef CONVGEN_WINOGRAD_H
#define CONVGEN_WINOGRAD_H

#include "util/util.h"

#include <stdint.h>

enum { WINO_MAX_N = 12 };   // inputs of a tile: m + r - 1 (F(6, 3) is 8, F(4, 5) 8)

/* An exact fraction num/den, den > 0, in lowest terms. */
typedef struct WinoQ {
  int64_t num, den;
} WinoQ;

typedef struct WinoMatrices {
  int m, r, n;                             // n = m + r - 1
  WinoQ points[WINO_MAX_N];                // the n - 1 finite interpolation points
  WinoQ at[WINO_MAX_N][WINO_MAX_N];        // A^T: m rows of n
  WinoQ g[WINO_MAX_N][WINO_MAX_N];         // G: n rows of r
  WinoQ bt[WINO_MAX_N][WINO_MAX_N];        // B^T: n rows of n
} WinoMatrices;

/* F(m, r)'s matrices from the points 0, 1, -1, 1/2, -1/2, 2, -2, 1/4, -1/4,
 * 4, -4 (the first n - 1; small values keep the transforms' rounding
 * small) and infinity. False with a Diag when m or r is below 1 or m + r -
 * 1 exceeds WINO_MAX_N. */
bool wino_matrices(int m, int r, WinoMatrices *out, Diag *d);

/* A fraction's value. */
double wino_value(WinoQ q);

#endif
