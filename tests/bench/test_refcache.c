/* test_refcache.c: bench's reference cache (src/bench/data.c). The first call
 * computes the float64 convolution; a call with the same inputs returns the
 * same values without computing again (the cached array is kept); a call with
 * other inputs computes theirs; bench_data_from_cache moves the inputs and
 * reference out, and an empty cache gives nothing. Layers with and without
 * bias. */
#include <stdlib.h>

#include "bench/bench.h"
#include "conv/reference.h"
#include "test.h"

static void check_layer(const char *spec) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(spec, &l, &d));
  BenchData a = bench_data_new(&l, 1), b = bench_data_new(&l, 2);
  // the program's inputs: x, weights, then the bias and the residual the layer has
  const float *ins_a[4] = {a.x, a.w}, *ins_b[4] = {b.x, b.w};
  int k = 2;
  if (l.bias) ins_a[k] = a.b, ins_b[k++] = b.b;
  if (l.residual) ins_a[k] = a.r, ins_b[k++] = b.r;
  double *out = calloc((size_t)a.ny, sizeof *out);
  BenchRefCache c = {.layer = &l};
  BenchData moved;
  CHECK(!bench_data_from_cache(&c, &moved));

  CHECK(bench_cached_reference(&c, ins_a, out, &d));
  bool same = true;
  for (int64_t i = 0; i < a.ny; i++) same &= out[i] == a.ref[i];
  CHECK(same);
  const double *first = c.ref;
  CHECK(bench_cached_reference(&c, ins_a, out, &d));
  CHECK(c.ref == first);   // a hit: nothing computed again

  CHECK(bench_cached_reference(&c, ins_b, out, &d));
  same = true;
  for (int64_t i = 0; i < b.ny; i++) same &= out[i] == b.ref[i];
  CHECK(same);

  CHECK(bench_data_from_cache(&c, &moved));
  CHECK(c.ref == NULL && c.in[0] == NULL && c.layer == &l);
  CHECK(moved.ny == b.ny && moved.nx == b.nx && moved.nw == b.nw && moved.nb == b.nb && moved.nr == b.nr);
  same = (moved.b == NULL) == (b.b == NULL) && (moved.r == NULL) == (b.r == NULL);
  for (int64_t i = 0; i < b.nr; i++) same &= moved.r[i] == b.r[i];
  for (int64_t i = 0; i < b.nx; i++) same &= moved.x[i] == b.x[i];
  for (int64_t i = 0; i < b.ny; i++) same &= moved.ref[i] == b.ref[i];
  CHECK(same);
  bench_data_free(&moved);
  bench_ref_cache_free(&c);
  free(out);
  bench_data_free(&a);
  bench_data_free(&b);
}

int main(void) {
  check_layer("n=1,c=3,h=9,w=7,k=4,bias=1,relu=1");
  check_layer("n=2,c=2,h=6,w=5,k=3,kh=3,kw=2,stride=2,pad=1,bias=0,relu=0");
  check_layer("n=2,c=3,h=7,w=6,k=4,stride=2,pad=1,bias=1,relu=1,residual=1");
  check_layer("n=1,c=2,h=6,w=5,k=3,kh=1,kw=1,residual=1");
  TEST_MAIN_END();
}
