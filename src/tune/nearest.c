/* nearest.c: the tuned layers most like a layer (nearest.h). */
#include "tune/nearest.h"

#include <math.h>

double tn_unlikeness(const Layer *a, const Layer *b) {
  double u = 10.0 * ((a->kh != b->kh || a->kw != b->kw) + (a->stride_h != b->stride_h || a->stride_w != b->stride_w) +
                     ((layer_groups(a) > 1) != (layer_groups(b) > 1)));
  double r[] = {(double)a->c / b->c, (double)a->k / b->k, (double)a->out_h / b->out_h, (double)a->n / b->n};
  for (size_t i = 0; i < sizeof r / sizeof *r; i++) u += fabs(log(r[i]));
  return u;
}

int tn_nearest_layers(Db *db, Arena *a, int64_t device, int64_t except, const Layer *l, int max, int64_t *ids,
                      const char **specs) {
  int64_t *all = ARENA_ARRAY(a, int64_t, NEAREST_MAX_TUNED);
  const char **all_specs = ARENA_ARRAY(a, const char *, NEAREST_MAX_TUNED);
  int n = db_tuned_layers(db, a, device, except, all, all_specs, NEAREST_MAX_TUNED);
  double *u = ARENA_ARRAY(a, double, (size_t)n + 1);
  for (int i = 0; i < n; i++) {
    Layer other;
    Diag d = {0};
    u[i] = layer_parse(all_specs[i], &other, &d) ? tn_unlikeness(l, &other) : INFINITY;
  }
  int taken = 0;
  for (; taken < max; taken++) {
    int best = -1;   // the most alike of those left (the first stored among equals)
    for (int i = 0; i < n; i++)
      if (isfinite(u[i]) && (best < 0 || u[i] < u[best])) best = i;
    if (best < 0) break;
    u[best] = INFINITY;
    ids[taken] = all[best];
    if (specs) specs[taken] = all_specs[best];
  }
  return taken;
}
