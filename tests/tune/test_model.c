/* test_model.c: the cost model of the model search (src/tune/model.c):
 * boosted trees fit a step and a slope, predict unseen points between the
 * samples, are deterministic, and an empty model predicts 0. */
#include "tune/model.h"
#include "test.h"

#include <math.h>

/* y = 3 [x0 > 2.5] + 0.5 x1, x2 noise-free but irrelevant. */
static double target(const double *x) { return 3.0 * (x[0] > 2.5) + 0.5 * x[1]; }

static Model *fitted(void) {
  Model *m = model_new(3);
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++)
      for (int c = 0; c < 2; c++) {
        double x[3] = {a, b, c};
        model_add(m, x, target(x));
      }
  model_fit(m);
  return m;
}

static void test_fit(void) {
  Model *m = fitted();
  CHECK(model_samples(m) == 72);
  double worst = 0;
  for (double a = 0.25; a < 6; a += 0.5)   // between the samples, never on the step itself
    for (double b = 0; b < 6; b += 0.5) {
      double x[3] = {a, b, 0.5};
      worst = fmax(worst, fabs(model_predict(m, x) - target(x)));
    }
  CHECK(worst < 0.6);   // the step of 3 is found; the slope of 0.5 is followed within a step
  double lo[3] = {1, 2, 0}, hi[3] = {4, 2, 0};
  CHECK(model_predict(m, hi) - model_predict(m, lo) > 2.5);   // ranks across the step
  Model *again = fitted();
  double x[3] = {3.3, 1.7, 1};
  CHECK(model_predict(m, x) == model_predict(again, x));   // deterministic
  model_free(m);
  model_free(again);
}

static void test_empty(void) {
  Model *m = model_new(2);
  double x[2] = {1, 2};
  CHECK(model_predict(m, x) == 0);
  model_fit(m);
  CHECK(model_predict(m, x) == 0);
  model_add(m, x, 5);
  CHECK(model_predict(m, x) == 5);   // the mean before a fit
  model_fit(m);
  CHECK(fabs(model_predict(m, x) - 5) < 1e-9);   // one sample: a leaf at it
  model_free(m);
}

int main(void) {
  test_fit();
  test_empty();
  TEST_MAIN_END();
}
