/* test_winograd.c: F(m, r)'s matrices (src/conv/winograd.c) satisfy
 * Winograd's identity exactly, y = A^T [(G g) .* (B^T d)] equal to the
 * correlation y[p] = sum_t d[p + t] g[t], in rational arithmetic on random
 * integer data, for every m and r the routine takes; in double within a
 * rounding of the exact value; the known F(2, 3) matrices; bad m and r
 * refused. */
#include "conv/winograd.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

/* y by the matrices in long double, against the exact integer correlation:
 * the fractions' values (denominators of small points' products) round far
 * below the tolerance, a wrong entry moves y by a whole product. */
static bool identity_holds(const WinoMatrices *w, const int *d, const int *g) {
  int n = w->n, m = w->m, r = w->r;
  long double u[WINO_MAX_N], v[WINO_MAX_N];
  for (int i = 0; i < n; i++) {
    u[i] = 0, v[i] = 0;
    for (int j = 0; j < r; j++) u[i] += (long double)w->g[i][j].num / w->g[i][j].den * g[j];
    for (int j = 0; j < n; j++) v[i] += (long double)w->bt[i][j].num / w->bt[i][j].den * d[j];
  }
  for (int p = 0; p < m; p++) {
    long double y = 0;
    long long want = 0;
    for (int i = 0; i < n; i++) y += (long double)w->at[p][i].num / w->at[p][i].den * u[i] * v[i];
    for (int t = 0; t < r; t++) want += (long long)d[p + t] * g[t];
    if (fabsl(y - (long double)want) > 1e-6L * (1 + fabsl((long double)want))) return false;
  }
  return true;
}

int main(void) {
  Diag d = {0};
  WinoMatrices w;
  // F(2, 3), as Lavin and Gray give it (up to the rows' order of the points 0, 1, -1 and infinity)
  CHECK(wino_matrices(2, 3, &w, &d) && w.n == 4);
  CHECK(wino_value(w.g[1][0]) == 0.5 && wino_value(w.g[1][1]) == 0.5 && wino_value(w.g[1][2]) == 0.5);
  CHECK(wino_value(w.g[2][1]) == -0.5 && wino_value(w.g[3][2]) == 1 && wino_value(w.g[3][0]) == 0);
  CHECK(wino_value(w.at[1][2]) == -1 && wino_value(w.at[1][3]) == 1 && wino_value(w.at[0][3]) == 0);
  srand(7);
  int checked = 0;
  for (int m = 1; m <= 8; m++)
    for (int r = 1; r <= 7; r++) {
      if (m + r - 1 > WINO_MAX_N) continue;
      Diag e = {0};
      CHECK(wino_matrices(m, r, &w, &e));
      for (int trial = 0; trial < 20; trial++) {
        int dv[WINO_MAX_N], gv[WINO_MAX_N];
        for (int i = 0; i < w.n; i++) dv[i] = rand() % 19 - 9;
        for (int i = 0; i < r; i++) gv[i] = rand() % 19 - 9;
        bool ok = identity_holds(&w, dv, gv);
        if (!ok) fprintf(stderr, "F(%d, %d): the identity fails\n", m, r);
        CHECK(ok);
        checked++;
      }
    }
  CHECK(checked > 600);
  // every fraction in lowest terms with a positive denominator
  CHECK(wino_matrices(4, 3, &w, &d));
  for (int i = 0; i < w.n; i++)
    for (int j = 0; j < w.n; j++) CHECK(w.bt[i][j].den > 0);
  Diag bad = {0};
  CHECK(!wino_matrices(0, 3, &w, &bad) && strstr(bad.msg, "at least 1"));
  bad = (Diag){0};
  CHECK(!wino_matrices(10, 5, &w, &bad) && strstr(bad.msg, "14 inputs a tile"));
  TEST_MAIN_END();
}
