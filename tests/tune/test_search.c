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

int main(void) {
  Arena *a = arena_new();
  test_warm_start(a);
  test_prime(a);
  arena_free(a);
  TEST_MAIN_END();
}
