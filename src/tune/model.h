/* model.h: the cost model of the `model` search (search.h): gradient-boosted
 * regression trees that predict a candidate's log time from features of its
 * point, trained online on the candidates measured so far.
 *
 * Why trees and not XGBoost: the samples are few (tens to a few thousand per
 * layer) and the features few (the strategy, the variant, the logarithm of
 * each parameter), so a few dozen shallow trees fit in milliseconds, in plain
 * C with no library; trees take the interactions that decide a kernel's speed
 * (tile x register block x staging) without scaling or a kernel choice, and
 * predict a smooth-enough ranking for picking the next candidate from a pool.
 * The fit is deterministic: the same samples in the same order give the same
 * trees.
 */
#ifndef CONVGEN_TUNE_MODEL_H
#define CONVGEN_TUNE_MODEL_H

#include <stdbool.h>

#define MODEL_MAX_FEATURES 32

typedef struct Model Model;

Model *model_new(int nfeatures);
void model_free(Model *m);
/* A measured sample: features x (nfeatures of them) and its target y. */
void model_add(Model *m, const double *x, double y);
int model_samples(const Model *m);
/* Fits the trees to every sample added so far (replacing the last fit). */
void model_fit(Model *m);
/* The prediction for x; the mean target before the first fit (0 with no samples). */
double model_predict(const Model *m, const double *x);

#endif
