/* test_search.c: the search's warm start and mutations (src/tune/search.c),
 * on a small layer's s2 space without a device: a record seeds the search
 * and is not given again; a point outside the space is no seed; the
 * mutations that follow start from the seed, and some move one of its
 * choices (another variant, its added parameters drawn) while keeping the
 * parameters both variants have. */
#include "conv/layer.h"
#include "tune/search.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* How many choices of ls's variants v and w differ. */
static int choices_apart(const LayerSpace *ls, int v, int w) {
  int n = 0;
  for (int c = 0; c < ls->st->nchoices; c++) n += ls->v[v].choice[c] != ls->v[w].choice[c];
  return n;
}

static void test_warm_start(Arena *a) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=8,h=12,w=12,k=16,pad=1,bias=1,relu=1", &l, &d));
  const Strategy *st = st_strategy("s2");
  Search *s = search_new(a, SEARCH_EVOLVE, &st, 1, &l, NULL, 0, NULL, 8, 7, &d);   // 8 random first
  CHECK(s != NULL);
  if (!s) return;
  const LayerSpace *ls = search_space(s, 0);
  const char *seed = "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 RW=4 RK=4 TW=3 TH=4 TK=2 CC=2";
  LsPoint sp;
  CHECK(ls_parse_point(ls, a, seed, &sp, &d));
  CHECK(search_seed(s, 0, seed, 10.0));
  CHECK(!search_seed(s, 0, seed, 10.0));                         // given already
  CHECK(!search_seed(s, 0, "LK=2 LH=2 LW=2 RW=5", 10.0));         // not a point of the space
  CHECK(!search_seed(s, 0, seed, INFINITY));                     // not correct: no parent
  int mutations = 0, same_variant = 0, moved_choice = 0, kept = 0;
  for (int i = 0; i < 40; i++) {
    Cand c;
    if (!search_next(s, &c)) break;
    CHECK(strcmp(c.point, seed) != 0);
    search_result(s, c.id, INFINITY);   // none correct: the seed stays the only parent
    if (strcmp(c.how, "mutation") != 0) continue;
    mutations++;
    if (c.pt.variant == sp.variant) {
      same_variant++;
      continue;
    }
    moved_choice += choices_apart(ls, c.pt.variant, sp.variant) == 1;
    // the parameters both variants have keep the seed's values
    const Space *from = ls->v[sp.variant].space, *to = ls->v[c.pt.variant].space;
    bool same = true;
    for (int j = 0; j < to->nparams; j++) {
      int k = space_param_index(from, to->params[j].name);
      if (k >= 0) same &= c.pt.vals[j] == sp.vals[k];
    }
    kept += same;
  }
  CHECK(mutations >= 15);   // after the 7 random ones the seed leaves, 4 in 5
  CHECK(same_variant > 0);
  CHECK(moved_choice > 0 && moved_choice == mutations - same_variant);
  CHECK(kept == moved_choice);
  search_free(s);
}

/* Primed points come first, in order, as "seed" candidates, each once. */
static void test_prime(Arena *a) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=8,h=12,w=12,k=16,pad=1", &l, &d));
  const Strategy *st = st_strategy("s2");
  Search *s = search_new(a, SEARCH_EVOLVE, &st, 1, &l, NULL, 0, NULL, 8, 3, &d);
  CHECK(s != NULL);
  if (!s) return;
  const char *p1 = "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 RW=4 RK=4 TW=3 TH=4 TK=2 CC=2";
  const char *p2 = "LK=2 LH=2 LW=2 LS=2 LC=1 RW=2 RK=2 TW=6 TH=4 TK=2 CC=4";
  CHECK(search_prime(s, 0, p1, "seed") && search_prime(s, 0, p2, "transfer"));
  CHECK(!search_prime(s, 0, p1, "seed"));                 // primed already
  CHECK(!search_prime(s, 0, "LK=2 RW=5", "seed"));        // not a point
  Cand c;
  CHECK(search_next(s, &c) && strcmp(c.point, p1) == 0 && strcmp(c.how, "seed") == 0 && c.id == 0);
  CHECK(search_next(s, &c) && strcmp(c.point, p2) == 0 && c.id == 1);
  CHECK(search_next(s, &c) && strcmp(c.how, "seed") != 0 && strcmp(c.point, p1) && strcmp(c.point, p2));
  search_free(s);
}

/* The share of a search's random draws whose variant has choice `name`
 * at `value`, among the draws after the first `after` candidates; every
 * candidate's result is 10 us with that choice value, else 100 us. */
static double share_of(Arena *a, SearchKind kind, const char *name, int value, int after) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=8,h=12,w=12,k=16,pad=1,bias=1,relu=1", &l, &d));
  const Strategy *st = st_strategy("s2");
  Search *s = search_new(a, kind, &st, 1, &l, NULL, 0, NULL, 8, 5, &d);
  CHECK(s != NULL);
  if (!s) return 0;
  const LayerSpace *ls = search_space(s, 0);
  int c = 0;
  while (c < ls->st->nchoices && strcmp(ls->st->choices[c].name, name) != 0) c++;
  CHECK(c < ls->st->nchoices);
  int draws = 0, with = 0;
  for (int i = 0; i < 400 && c < ls->st->nchoices; i++) {
    Cand cd;
    if (!search_next(s, &cd)) break;
    bool has = ls->v[cd.pt.variant].choice[c] == value;
    search_result(s, cd.id, has ? 10.0 : 100.0);
    if (i < after || strcmp(cd.how, "random") != 0) continue;
    draws++, with += has;
  }
  search_free(s);
  CHECK(draws >= 20);
  return draws ? (double)with / draws : 0;
}

/* evolve's random draws weigh the choices by their results: once LS=3 is
 * seen to be ten times faster than the rest, far more of its draws land
 * there than uniform draws over the points do (s2's LS=3 variants hold few
 * of its points). */
static void test_weighted_draws(Arena *a) {
  double uniform = share_of(a, SEARCH_RANDOM, "LS", 3, 40), weighted = share_of(a, SEARCH_EVOLVE, "LS", 3, 40);
  printf("LS=3 among the random draws: %.2f uniform over points, %.2f weighted by results\n", uniform, weighted);
  CHECK(weighted > 2 * uniform);
  CHECK(weighted > 0.5);
}

int main(void) {
  Arena *a = arena_new();
  test_warm_start(a);
  test_prime(a);
  test_weighted_draws(a);
  arena_free(a);
  TEST_MAIN_END();
}
