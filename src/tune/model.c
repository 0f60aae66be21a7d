/* model.c: gradient-boosted regression trees (model.h). Each round fits a
 * tree of depth MODEL_DEPTH to the residuals of the rounds before it by
 * least squares (the split of largest variance reduction, over every
 * feature and every boundary between distinct values), and adds it scaled
 * by MODEL_SHRINK. */
#include "tune/model.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

enum {
  MODEL_TREES = 60,       // rounds
  MODEL_DEPTH = 3,        // splits from the root to a leaf
  MODEL_MIN_LEAF = 2,     // samples a leaf keeps at least
  MODEL_NODES = 15,       // 2^(MODEL_DEPTH + 1) - 1
};
#define MODEL_SHRINK 0.2  // each tree's weight

typedef struct TreeNode {
  int feature;            // -1: a leaf
  double threshold;       // x[feature] < threshold goes left
  int left, right;        // node indices
  double value;           // a leaf's prediction
} TreeNode;

typedef struct Tree {
  TreeNode node[MODEL_NODES];
  int n;
} Tree;

struct Model {
  int nf;
  int n, cap;             // samples
  double *x;              // n x nf, row-major
  double *y;
  double base;            // the mean target
  Tree *trees;            // MODEL_TREES once fitted
  int ntrees;
};

static void *xrealloc(void *p, size_t bytes) {
  p = realloc(p, bytes ? bytes : 1);
  if (!p) cg_die("out of memory (%zu bytes)", bytes);
  return p;
}

Model *model_new(int nfeatures) {
  cg_assert(nfeatures > 0 && nfeatures <= MODEL_MAX_FEATURES);
  Model *m = xrealloc(NULL, sizeof *m);
  *m = (Model){.nf = nfeatures};
  return m;
}

void model_free(Model *m) {
  if (!m) return;
  free(m->x);
  free(m->y);
  free(m->trees);
  free(m);
}

void model_add(Model *m, const double *x, double y) {
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->x = xrealloc(m->x, (size_t)m->cap * (size_t)m->nf * sizeof *m->x);
    m->y = xrealloc(m->y, (size_t)m->cap * sizeof *m->y);
  }
  memcpy(m->x + (size_t)m->n * (size_t)m->nf, x, (size_t)m->nf * sizeof *x);
  m->y[m->n++] = y;
}

int model_samples(const Model *m) { return m->n; }

/* ---- fitting one tree ---- */

typedef struct Pair {
  double v;               // the feature's value
  int i;                  // the sample
} Pair;

static int cmp_pair(const void *a, const void *b) {
  const Pair *p = a, *q = b;
  if (p->v != q->v) return p->v < q->v ? -1 : 1;
  return p->i - q->i;   // a total order: the fit does not depend on qsort's
}

typedef struct Fit {
  const Model *m;
  const double *r;        // residuals
  Pair *pairs;            // scratch, n of them
  Tree *t;
} Fit;

/* The best split of the samples idx[0..n): its feature (-1: none helps) and threshold. */
static int best_split(Fit *f, const int *idx, int n, double *threshold) {
  const Model *m = f->m;
  double sum = 0, best = 1e-12;
  for (int k = 0; k < n; k++) sum += f->r[idx[k]];
  int feature = -1;
  for (int j = 0; j < m->nf; j++) {
    for (int k = 0; k < n; k++) f->pairs[k] = (Pair){m->x[(size_t)idx[k] * (size_t)m->nf + (size_t)j], idx[k]};
    qsort(f->pairs, (size_t)n, sizeof *f->pairs, cmp_pair);
    double left = 0;
    for (int k = 1; k < n; k++) {
      left += f->r[f->pairs[k - 1].i];
      if (k < MODEL_MIN_LEAF || n - k < MODEL_MIN_LEAF || f->pairs[k - 1].v == f->pairs[k].v) continue;
      double right = sum - left;
      double gain = left * left / k + right * right / (n - k) - sum * sum / n;
      if (gain > best) best = gain, feature = j, *threshold = (f->pairs[k - 1].v + f->pairs[k].v) / 2;
    }
  }
  return feature;
}

/* Grows the node for idx[0..n) at depth; returns its index. idx is reordered. */
static int grow(Fit *f, int *idx, int n, int depth) {
  int at = f->t->n++;
  TreeNode *node = &f->t->node[at];
  double sum = 0;
  for (int k = 0; k < n; k++) sum += f->r[idx[k]];
  *node = (TreeNode){.feature = -1, .value = n ? sum / n : 0};
  double thr = 0;
  int j = depth < MODEL_DEPTH && n >= 2 * MODEL_MIN_LEAF ? best_split(f, idx, n, &thr) : -1;
  if (j < 0) return at;
  int nl = 0;   // partition: x[j] < thr first
  for (int k = 0; k < n; k++)
    if (f->m->x[(size_t)idx[k] * (size_t)f->m->nf + (size_t)j] < thr) {
      int t = idx[nl];
      idx[nl++] = idx[k], idx[k] = t;
    }
  int left = grow(f, idx, nl, depth + 1), right = grow(f, idx + nl, n - nl, depth + 1);
  node = &f->t->node[at];
  node->feature = j, node->threshold = thr, node->left = left, node->right = right;
  return at;
}

static double tree_eval(const Tree *t, const double *x) {
  int i = 0;
  while (t->node[i].feature >= 0) i = x[t->node[i].feature] < t->node[i].threshold ? t->node[i].left : t->node[i].right;
  return t->node[i].value;
}

void model_fit(Model *m) {
  m->ntrees = 0;
  if (m->n == 0) return;
  double sum = 0;
  for (int i = 0; i < m->n; i++) sum += m->y[i];
  m->base = sum / m->n;
  if (!m->trees) m->trees = xrealloc(NULL, MODEL_TREES * sizeof *m->trees);
  double *pred = xrealloc(NULL, (size_t)m->n * sizeof *pred), *r = xrealloc(NULL, (size_t)m->n * sizeof *r);
  int *idx = xrealloc(NULL, (size_t)m->n * sizeof *idx);
  Pair *pairs = xrealloc(NULL, (size_t)m->n * sizeof *pairs);
  for (int i = 0; i < m->n; i++) pred[i] = m->base;
  for (int t = 0; t < MODEL_TREES; t++) {
    for (int i = 0; i < m->n; i++) r[i] = m->y[i] - pred[i], idx[i] = i;
    Fit f = {m, r, pairs, &m->trees[t]};
    m->trees[t].n = 0;
    grow(&f, idx, m->n, 0);
    for (int i = 0; i < m->n; i++) pred[i] += MODEL_SHRINK * tree_eval(&m->trees[t], m->x + (size_t)i * (size_t)m->nf);
    m->ntrees = t + 1;
  }
  free(pred);
  free(r);
  free(idx);
  free(pairs);
}

double model_predict(const Model *m, const double *x) {
  if (m->ntrees == 0) {
    double sum = 0;
    for (int i = 0; i < m->n; i++) sum += m->y[i];
    return m->n ? sum / m->n : 0;
  }
  double p = m->base;
  for (int t = 0; t < m->ntrees; t++) p += MODEL_SHRINK * tree_eval(&m->trees[t], x);
  return p;
}
