/* winograd.c: F(m, r)'s matrices by Toom-Cook (winograd.h).
 *
 * The correlation y = g (*) d is the transpose of the linear convolution
 * s = g * h of g (r taps) and h (m values): s's n = m + r - 1 coefficients
 * are found from its values at n points, each the product g(a) h(a) of the
 * two polynomials' values. With n - 1 finite points a_i and infinity (where
 * a polynomial's value is its leading coefficient),
 *
 *   s(x) = sum_i g(a_i) h(a_i) M_i(x) / N_i + g_{r-1} h_{m-1} M(x),
 *
 * M(x) = prod_k (x - a_k), M_i(x) = M(x) / (x - a_i), N_i = M_i(a_i) =
 * prod_{k != i} (a_i - a_k). So s = C [(E_g g) .* (E_h h)] with E the
 * evaluations (Vandermonde rows a_i^j; infinity's row picks the last
 * coefficient) and C's column i the coefficients of M_i / N_i (of M for
 * infinity). Transposing in h gives the correlation:
 *
 *   y = E_h^T [(E_g g) .* (C^T d)],  so A^T = E_h^T, G = E_g, B^T = C^T,
 *
 * the 1/N_i moved from C into G's row i (a row of B^T is then the plain
 * coefficients of M_i, small integers for small points). */
#include "conv/winograd.h"

#include <string.h>

static const WinoQ POINTS[] = {{0, 1}, {1, 1}, {-1, 1}, {1, 2}, {-1, 2}, {2, 1}, {-2, 1}, {1, 4}, {-1, 4}, {4, 1}, {-4, 1}};

static int64_t gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* num/den in lowest terms, den > 0; the values here stay far within int64
 * (WINO_MAX_N points of magnitude at most 4), so an overflow is a bug. */
static WinoQ q_make(int64_t num, int64_t den) {
  cg_assert(den != 0);
  if (den < 0) num = -num, den = -den;
  int64_t g = gcd(num, den);
  return g > 1 ? (WinoQ){num / g, den / g} : (WinoQ){num, den};
}

static int64_t mul64(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) cg_die("winograd: a fraction overflows int64");
  return r;
}

static WinoQ q_mul(WinoQ a, WinoQ b) { return q_make(mul64(a.num, b.num), mul64(a.den, b.den)); }
static WinoQ q_div(WinoQ a, WinoQ b) { return q_make(mul64(a.num, b.den), mul64(a.den, b.num)); }
static WinoQ q_neg(WinoQ a) { return (WinoQ){-a.num, a.den}; }

static WinoQ q_add(WinoQ a, WinoQ b) {
  int64_t s;
  if (__builtin_add_overflow(mul64(a.num, b.den), mul64(b.num, a.den), &s)) cg_die("winograd: a sum overflows int64");
  return q_make(s, mul64(a.den, b.den));
}

static WinoQ q_int(int64_t v) { return (WinoQ){v, 1}; }

double wino_value(WinoQ q) { return (double)q.num / (double)q.den; }

/* The coefficients (ascending powers, n of them) of prod_{k < np, k != skip}
 * (x - pts[k]). */
static void product_poly(const WinoQ *pts, int np, int skip, int n, WinoQ *coef) {
  for (int j = 0; j < n; j++) coef[j] = q_int(j == 0);
  int deg = 0;
  for (int k = 0; k < np; k++) {
    if (k == skip) continue;
    for (int j = deg + 1; j >= 0; j--) {   // coef *= (x - a): c_j = c_{j-1} - a c_j
      WinoQ shifted = j > 0 ? coef[j - 1] : q_int(0), scaled = j <= deg ? q_mul(pts[k], coef[j]) : q_int(0);
      coef[j] = q_add(shifted, q_neg(scaled));
    }
    deg++;
  }
}

bool wino_matrices(int m, int r, WinoMatrices *out, Diag *d) {
  if (m < 1 || r < 1) return diag_error(d, "F(%d, %d): m and r must be at least 1", m, r);
  int n = m + r - 1;
  if (n > WINO_MAX_N)
    return diag_error(d, "F(%d, %d) takes %d inputs a tile, more than %d: its transforms' rounding would grow past use",
                      m, r, n, WINO_MAX_N);
  memset(out, 0, sizeof *out);
  out->m = m, out->r = r, out->n = n;
  const int np = n - 1;   // the finite points; the last row or column is infinity's
  for (int i = 0; i < np; i++) out->points[i] = POINTS[i];
  for (int p = 0; p < m; p++) {   // A^T = E_h^T: a_i^p, infinity's column the last coefficient
    for (int i = 0; i < np; i++) {
      WinoQ v = q_int(1);
      for (int k = 0; k < p; k++) v = q_mul(v, out->points[i]);
      out->at[p][i] = v;
    }
    out->at[p][np] = q_int(p == m - 1);
  }
  for (int i = 0; i < np; i++) {   // G = E_g with 1/N_i: a_i^j / prod_{k != i} (a_i - a_k)
    WinoQ norm = q_int(1), v = q_int(1);
    for (int k = 0; k < np; k++)
      if (k != i) norm = q_mul(norm, q_add(out->points[i], q_neg(out->points[k])));
    for (int j = 0; j < r; j++) {
      out->g[i][j] = q_div(v, norm);
      v = q_mul(v, out->points[i]);
    }
  }
  for (int j = 0; j < r; j++) out->g[np][j] = q_int(j == r - 1);
  for (int i = 0; i < np; i++) product_poly(out->points, np, i, n, out->bt[i]);   // B^T = C^T: M_i's coefficients
  product_poly(out->points, np, -1, n, out->bt[np]);                              // and M's for infinity
  return true;
}
