/* test_space.c: the parameter space: constraints collected from the IR and a
 * device, counts checked against brute force, samples, empty spaces and the
 * lowering stage. The device is a fake one with small limits, so that the
 * results do not depend on the machine. */
#include "codegen/codegen.h"
#include "rewrite/strategy.h"
#include "space/layer_space.h"
#include "space/space.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char *MATMUL = "examples/ir/matmul_tiled.cg";

static RtDeviceInfo fake_device(void) {
  RtDeviceInfo d = {0};
  snprintf(d.name, sizeof d.name, "Fake GPU");
  d.max_wg_size = 1024;
  d.max_wi_sizes[0] = d.max_wi_sizes[1] = 1024;
  d.max_wi_sizes[2] = 64;
  d.local_mem = 49152;
  d.max_alloc = (uint64_t)1 << 30;
  return d;
}

static const char *read_text(Arena *a, const char *path) {
  Diag d = {0};
  char *t = file_read(path, NULL, &d);
  if (!t) {
    fprintf(stderr, "%s\n", d.msg);
    exit(1);
  }
  const char *copy = arena_strdup(a, t);
  free(t);
  return copy;
}

/* The space of text with sizes bound from "M=256,N=256" style lists. */
static Space *make(Arena *a, const char *file, const char *text, int nbind, const char *const *names,
                   const int64_t *vals, int ndom, const SpaceDomain *doms, const RtDeviceInfo *dev, Diag *d) {
  SpaceInput in = {file, text, nbind, names, vals, ndom, doms, dev};
  return space_new(a, &in, d);
}

static const char *const MNK[] = {"M", "N", "K"};
static const int64_t V256[] = {256, 256, 256};

static Space *matmul(Arena *a, int ndom, const SpaceDomain *doms, const RtDeviceInfo *dev) {
  Diag d = {0};
  Space *s = make(a, MATMUL, read_text(a, MATMUL), 3, MNK, V256, ndom, doms, dev, &d);
  if (!s) fprintf(stderr, "%s\n", d.msg);
  return s;
}

/* ---- Constraints ------------------------------------------------------------------ */

static void test_matmul_constraints(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  Space *s = matmul(a, 0, NULL, &dev);
  CHECK(s != NULL);
  if (!s) return;
  const char *names[] = {"TS", "TK", "RM", "RN"};
  CHECK(s->nparams == 4);
  for (int i = 0; i < 4 && i < s->nparams; i++) {
    CHECK_STR(s->params[i].name, names[i]);
    CHECK(s->params[i].lo == 1 && s->params[i].hi == 256);
  }
  CHECK_STR(s->params[0].meaning, "split[TS] at examples/ir/matmul_tiled.cg:17:12 on length 256");
  const char *want[][2] = {
      {"256 % TS == 0", "split[TS] at examples/ir/matmul_tiled.cg:17:12, 18:25 on length 256"},
      {"TS % RM == 0", "split[RM] at examples/ir/matmul_tiled.cg:30:24, 22:30 on length TS"},
      {"TS % RN == 0", "split[RN] at examples/ir/matmul_tiled.cg:31:26 on length TS"},
      {"256 % TK == 0", "split[TK] at examples/ir/matmul_tiled.cg:33:28, 33:79 on length 256"},
      {"RM*RN <= 128", "private memory: a work-item's share of the accumulators of the reduceSeq at "
                       "examples/ir/matmul_tiled.cg:19:11, at most 128 values; also private memory: the accumulators "
                       "of the reduceSeq at examples/ir/matmul_tiled.cg:24:19, at most 128 values per work-item"},
      {"TS % (TS/RN) == 0", "split[TS/RN] at examples/ir/matmul_tiled.cg:23:56 on length TS"},
      {"TS/RN >= 1", "split[TS/RN] at examples/ir/matmul_tiled.cg:23:56 on length TS; also the workgroup line at "
                     "examples/ir/matmul_tiled.cg:16: at least one work-item in dimension 0"},
      {"RN == TS/(TS/RN)", "zip at examples/ir/matmul_tiled.cg:26:25: argument 2 as long as the first"},
      {"TS/RM >= 1", "the workgroup line at examples/ir/matmul_tiled.cg:16: at least one work-item in dimension 1"},
      {"TS/RM*(TS/RN) <= 1024",
       "device: work-group size of the workgroup line at examples/ir/matmul_tiled.cg:16, at most 1024 (Fake GPU)"},
  };
  int n = (int)(sizeof want / sizeof *want);
  CHECK(s->ncons == n);
  for (int i = 0; i < n && i < s->ncons; i++) {
    CHECK_STR(s->cons[i].text, want[i][0]);
    CHECK_STR(s->cons[i].origin, want[i][1]);
  }
  // What the domains already guarantee is listed apart, never checked.
  const char *implied[] = {"TS >= 1", "RM >= 1", "RN >= 1", "RM*RN <= 200000", "TK >= 1", "TS/RN <= 1024",
                           "TS/RM <= 1024"};
  CHECK(s->nimplied == 7);
  for (int i = 0; i < 7 && i < s->nimplied; i++) CHECK_STR(s->implied[i].text, implied[i]);
  CHECK_STR(s->implied[3].origin, "code size: the unrolled nest ending in mapSeqUnroll at examples/ir/"
                                  "matmul_tiled.cg:32:54, 26:58, 36:26, at most 200000 statements per kernel");
  CHECK(s->empty == NULL);
  space_free(s);
  arena_free(a);
}

/* A divisor is enumerated after what it divides, whatever the declaration order. */
static void test_dependency_order(void) {
  Arena *a = arena_new();
  const char *text = "size N, B, A\n"
                     "userfun id(x: float): float { return x; }\n"
                     "input x: [float]N\n"
                     "out = x |> split[A] |> map[split[B]] |> mapGlb[0, mapSeq[mapSeq[id]]] |> map[join] |> join\n";
  Diag d = {0};
  const char *n[] = {"N"};
  int64_t v[] = {48};
  Space *s = make(a, "dep.cg", text, 1, n, v, 0, NULL, NULL, &d);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(s->nparams == 2);
  CHECK_STR(s->params[0].name, "A");
  CHECK_STR(s->params[1].name, "B");
  CHECK(s->ncons == 2);
  CHECK_STR(s->cons[0].text, "48 % A == 0");
  CHECK_STR(s->cons[1].text, "A % B == 0");
  bool exact;
  // sum over the divisors A of 48 of the number of divisors of A
  CHECK(space_count(s, &exact) == 1 + 2 + 2 + 3 + 4 + 4 + 6 + 5 + 8 + 10 && exact);
  space_free(s);
  arena_free(a);
}

/* The text and origin of every constraint, one per line. */
static const char *cons_text(Arena *a, const Space *s) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < s->ncons; i++) sb_printf(&sb, "%s | %s\n", s->cons[i].text, s->cons[i].origin);
  const char *t = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return t;
}

static void test_slide_and_vector(void) {
  Arena *a = arena_new();
  Diag d = {0};
  const char *n[] = {"N"};
  int64_t v[] = {16};
  const char *slide = "size N, S, T\n"
                      "userfun add(x: float, y: float): float { return x + y; }\n"
                      "input x: [float]N\n"
                      "out = x |> slide[S, T] |> mapGlb[0, fun(w) -> reduceSeq[add](0.0f, w)] |> join\n";
  SpaceDomain wide[] = {{"S", 1, 20, 0, NULL}};
  Space *s = make(a, "slide.cg", slide, 1, n, v, 1, wide, NULL, &d);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_STR(cons_text(a, s), "16 >= S | slide[S, T] at slide.cg:4:12 on length 16: the window fits\n");
  bool exact;
  CHECK(space_count(s, &exact) == 16 * 16);   // any step: windows need not cover the array exactly
  CHECK(s->nimplied == 2);                    // S >= 1, T >= 1
  space_free(s);

  // The windows zipped with the array: as many windows as elements.
  const char *zipped = "size N, S, T\n"
                       "userfun add(x: float, y: float): float { return x + y; }\n"
                       "input x: [float]N\n"
                       "out = zip(x |> slide[S, T] |> mapGlb[0, fun(w) -> reduceSeq[add](0.0f, w)] |> join, x)\n"
                       "  |> mapGlb[0, add]\n";
  s = make(a, "zip.cg", zipped, 1, n, v, 1, wide, NULL, &d);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_STR(cons_text(a, s), "16 >= S | slide[S, T] at zip.cg:4:16 on length 16: the window fits\n"
                             "(16 - S)/T + 1 == 16 | zip at zip.cg:4:7: argument 2 as long as the first\n");
  CHECK(space_count(s, &exact) == 1);   // S = T = 1
  space_free(s);

  const char *vec = "size N, C\n"
                    "userfun add4(x: float4, y: float4): float4 { return x + y; }\n"
                    "input y: [float]N\n"
                    "out = y |> split[C] |> mapGlb[0, fun(c) -> c |> asVector[4] |> mapSeq[fun(q) -> add4(q, q)]\n"
                    "  |> asScalar] |> join\n";
  s = make(a, "vec.cg", vec, 1, n, v, 0, NULL, NULL, &d);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_STR(cons_text(a, s), "16 % C == 0 | split[C] at vec.cg:4:12 on length 16\n"
                             "C % 4 == 0 | asVector[4] at vec.cg:4:49 on length C\n");
  CHECK(space_count(s, &exact) == 3);   // 4, 8, 16
  space_free(s);
  arena_free(a);
}

/* ---- Counting against brute force ---------------------------------------------------- */

/* The matmul constraints on the fake device, written out by hand. */
static bool matmul_ok(int64_t ts, int64_t tk, int64_t rm, int64_t rn) {
  if (256 % ts || 256 % tk || ts % rm || ts % rn) return false;
  int64_t wx = ts / rn, wy = ts / rm;
  if (wx < 1 || wy < 1 || ts % wx || rn != ts / wx) return false;
  return wx * wy <= 1024 && wx <= 1024 && wy <= 1024 && rm * rn <= 128;
}

static void test_count_brute_force(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  SpaceDomain small[] = {{"TS", 1, 32, 0, NULL}, {"TK", 1, 32, 0, NULL}, {"RM", 1, 32, 0, NULL},
                         {"RN", 1, 32, 0, NULL}};
  Space *s = matmul(a, 4, small, &dev);
  CHECK(s != NULL);
  if (!s) return;
  // Every point of the small domains, checked by hand and by the space.
  uint64_t brute = 0, agree = 0;
  int64_t p[4];
  const SpaceCon *why;
  for (p[0] = 1; p[0] <= 32; p[0]++)
    for (p[1] = 1; p[1] <= 32; p[1]++)
      for (p[2] = 1; p[2] <= 32; p[2]++)
        for (p[3] = 1; p[3] <= 32; p[3]++) {
          bool ok = matmul_ok(p[0], p[1], p[2], p[3]);
          brute += ok;
          agree += ok == space_satisfies(s, p, &why);
        }
  bool exact;
  CHECK(agree == 32 * 32 * 32 * 32);
  CHECK(space_count(s, &exact) == brute && exact);
  CHECK(brute == 6 * 84);   // TK and TS in 1..32 dividing 256 (6 each); RM, RN divide TS with RM*RN <= 128
  space_free(s);

  // The whole default domain 1..256: the same hand-written checks, every value tried.
  s = matmul(a, 0, NULL, &dev);
  brute = 0;
  for (int64_t ts = 1; ts <= 256; ts++)
    for (int64_t rm = 1; rm <= 256; rm++) {
      if (256 % ts || ts % rm) continue;   // no value of TK or RN can help
      for (int64_t rn = 1; rn <= 256; rn++)
        for (int64_t tk = 1; tk <= 256; tk++) brute += matmul_ok(ts, tk, rm, rn);
    }
  CHECK(space_count(s, &exact) == brute && exact);
  CHECK(brute == 9 * 156);   // the same count, worked out independently (in Python)
  CHECK(space_domain_size(s) == (uint64_t)1 << 32);
  space_free(s);
  arena_free(a);
}

/* An allowed-values domain. */
static void test_value_list(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  int64_t rm[] = {8, 2, 8, 1};
  SpaceDomain doms[] = {{"RM", 0, 0, 4, rm}, {"TS", 64, 64, 0, NULL}};
  Space *s = matmul(a, 2, doms, &dev);
  CHECK(s != NULL);
  if (!s) return;
  int i = space_param_index(s, "RM");
  CHECK(s->params[i].nvalues == 3 && s->params[i].lo == 1 && s->params[i].hi == 8);
  bool exact;
  // TS = 64; RM in {1, 2, 8}; RN a power of two with (64/RM)*(64/RN) <= 1024; TK divides 256
  uint64_t want = 0;
  for (int64_t r = 1; r <= 8; r *= 2)
    for (int64_t n = 1; n <= 64; n *= 2) want += r != 4 && (64 / r) * (64 / n) <= 1024 && r * n <= 128;
  CHECK(space_count(s, &exact) == want * 9 && exact);
  space_free(s);
  arena_free(a);
}

/* ---- Sampling --------------------------------------------------------------------- */

static bool same_point(const int64_t *x, const int64_t *y, int n) { return memcmp(x, y, sizeof *x * (size_t)n) == 0; }

static void check_samples(Space *s, const int64_t *pts, int k) {
  const SpaceCon *why;
  int valid = 0, distinct = 1;
  for (int i = 0; i < k; i++) {
    valid += space_satisfies(s, pts + i * s->nparams, &why);
    for (int j = 0; j < i; j++) distinct &= !same_point(pts + i * s->nparams, pts + j * s->nparams, s->nparams);
  }
  CHECK(valid == k);
  CHECK(distinct);
}

static void test_sampling(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  Space *s = matmul(a, 0, NULL, &dev);
  enum { N = 200 };
  int64_t p1[N * 4], p2[N * 4], p3[N * 4];
  CHECK(space_sample(s, 42, N, p1) == N);
  CHECK(space_sample(s, 42, N, p2) == N);
  CHECK(space_sample(s, 43, N, p3) == N);
  check_samples(s, p1, N);
  CHECK(memcmp(p1, p2, sizeof p1) == 0);   // the seed decides
  CHECK(memcmp(p1, p3, sizeof p1) != 0);
  SpaceSampler *sm = space_sampler_new(s, 1);
  CHECK(space_sampler_uniform(sm));
  space_sampler_free(sm);

  // Drawing more than there are gives each point once.
  int64_t *all = calloc(2300 * 4, sizeof *all);
  CHECK(space_sample(s, 7, 2300, all) == 1404);
  check_samples(s, all, 1404);
  free(all);

  // Descent mode, when the groups are too large to list.
  space_free(s);
  s = matmul(a, 0, NULL, &dev);
  s->list_max = 10;
  sm = space_sampler_new(s, 5);
  CHECK(!space_sampler_uniform(sm));
  space_sampler_free(sm);
  CHECK(space_sample(s, 5, N, p1) == N);
  CHECK(space_sample(s, 5, N, p2) == N);
  check_samples(s, p1, N);
  CHECK(memcmp(p1, p2, sizeof p1) == 0);
  space_free(s);
  arena_free(a);
}

/* A single point: a space with every parameter fixed. */
static void test_one_point(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  SpaceDomain doms[] = {{"TS", 32, 32, 0, NULL}, {"TK", 8, 8, 0, NULL}, {"RM", 4, 4, 0, NULL}, {"RN", 4, 4, 0, NULL}};
  Space *s = matmul(a, 4, doms, &dev);
  bool exact;
  CHECK(space_count(s, &exact) == 1);
  int64_t p[8];
  CHECK(space_sample(s, 1, 2, p) == 1);
  CHECK(p[0] == 32 && p[1] == 8 && p[2] == 4 && p[3] == 4);
  space_free(s);
  arena_free(a);
}

/* ---- Empty spaces and bad domains -------------------------------------------------------- */

static const char *WG_PROGRAM = "size N, T\n"
                                "userfun id(x: float): float { return x; }\n"
                                "input x: [float]N\n"
                                "workgroup 64, 32\n"
                                "out = x |> split[T] |> mapWrg[0, mapLcl[0, id]] |> join\n";

static void test_empty(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  Diag d = {0};
  const char *n[] = {"N"};
  int64_t v[] = {4096};
  Space *s = make(a, "wg.cg", WG_PROGRAM, 1, n, v, 0, NULL, &dev, &d);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_STR(s->empty, "2048 <= 1024 is false (device: work-group size of the workgroup line at wg.cg:4, at most 1024 "
                      "(Fake GPU))");
  bool exact;
  CHECK(space_count(s, &exact) == 0 && exact);
  int64_t p[2];
  CHECK(space_sample(s, 1, 1, p) == 0);
  StrBuf sb;
  sb_init(&sb);
  space_print(&sb, s);
  CHECK(strstr(sb_str(&sb), "the space is empty: 2048 <= 1024 is false") != NULL);
  sb_free(&sb);
  space_free(s);

  // On a device that allows it, the constant condition holds and is dropped.
  dev.max_wg_size = 4096;
  s = make(a, "wg.cg", WG_PROGRAM, 1, n, v, 0, NULL, &dev, &d);
  CHECK(s && !s->empty && s->nconst == 5);
  CHECK(s && space_count(s, &exact) == 13);   // the divisors of 4096
  space_free(s);

  // A domain that makes a constraint false everywhere.
  SpaceDomain big[] = {{"T", 5000, 6000, 0, NULL}};
  s = make(a, "wg.cg", WG_PROGRAM, 1, n, v, 1, big, &dev, &d);
  CHECK_STR(s ? s->empty : NULL, "4096 % T == 0 is false (split[T] at wg.cg:5:12 on length 4096)");
  CHECK(s && space_count(s, &exact) == 0);
  space_free(s);
  arena_free(a);
}

static void test_bad_domains(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  Diag d = {0};
  const char *n[] = {"N"};
  int64_t v[] = {64};
  SpaceDomain bound[] = {{"N", 1, 4, 0, NULL}};
  CHECK(!make(a, "wg.cg", WG_PROGRAM, 1, n, v, 1, bound, &dev, &d));
  CHECK_STR(d.msg, "wg.cg: size 'N' is bound to 64; a bound size is not a tuning parameter");
  d = (Diag){0};
  SpaceDomain unknown[] = {{"Q", 1, 4, 0, NULL}};
  CHECK(!make(a, "wg.cg", WG_PROGRAM, 1, n, v, 1, unknown, &dev, &d));
  CHECK_STR(d.msg, "wg.cg: no size 'Q' (the program declares: N, T)");
  d = (Diag){0};
  SpaceDomain backwards[] = {{"T", 8, 4, 0, NULL}};
  CHECK(!make(a, "wg.cg", WG_PROGRAM, 1, n, v, 1, backwards, &dev, &d));
  CHECK_STR(d.msg, "wg.cg: domain 8..4 for 'T': want 1 <= LO <= HI");
  d = (Diag){0};
  CHECK(!make(a, "wg.cg", WG_PROGRAM, 0, NULL, NULL, 0, NULL, &dev, &d));
  CHECK_STR(d.msg, "wg.cg: no domain for 'N': bind the problem sizes or give one for it");
  arena_free(a);
}

/* ---- The lowering stage ----------------------------------------------------------------- */

static void test_lowering_stage(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  dev.local_mem = 16384;   // a TS x TK tile of A and of B: 8*TS*TK bytes
  int64_t ts[] = {32, 64}, tk[] = {16, 64};
  SpaceDomain doms[] = {{"TS", 0, 0, 2, ts}, {"TK", 0, 0, 2, tk}, {"RM", 4, 4, 0, NULL}, {"RN", 4, 4, 0, NULL}};
  Space *s = matmul(a, 4, doms, &dev);
  CHECK(s != NULL);
  if (!s) return;
  bool exact;
  CHECK(space_count(s, &exact) == 4);
  Arena *pa = arena_new();
  CHECK(space_check_point(s, pa, (int64_t[]){32, 64, 4, 4}) == NULL);   // 16384 bytes: exactly the limit
  CHECK_STR(space_check_point(s, pa, (int64_t[]){64, 64, 4, 4}),
            "kernel k0 uses 32768 bytes of local memory; the device has 16384");
  arena_free(pa);
  for (int jobs = 0; jobs <= 2; jobs += 2) {   // in this process, then in child processes
    SpaceCheckOptions o = space_check_defaults();
    o.jobs = jobs;
    SpaceCheck c;
    Diag d = {0};
    CHECK(space_check_all(s, &o, &c, &d));
    CHECK(c.checked == 4 && c.passed == 3 && c.nreasons == 1);
    if (c.nreasons != 1) continue;
    CHECK_STR(c.reasons[0].key, "kernel kN uses N bytes of local memory; the device has N");
    CHECK_STR(c.reasons[0].example, "kernel k0 uses 32768 bytes of local memory; the device has 16384");
    CHECK(c.reasons[0].count == 1 && c.reasons[0].point[0] == 64 && c.reasons[0].point[1] == 64);
  }
  // Sampling with the lowering: only points that pass.
  SpaceCheckOptions o = space_check_defaults();
  o.jobs = 2;
  SpaceCheck c;
  int64_t p[5 * 4];
  CHECK(space_sample_checked(s, 3, 5, p, &o, &c) == 3);
  CHECK(c.checked == 4 && c.passed == 3);
  for (int i = 0; i < 3; i++) CHECK(!(p[i * 4] == 64 && p[i * 4 + 1] == 64));
  space_free(s);
  arena_free(a);
}

/* tests/errors/lower_barrier_unreached.cg with the work-group size a
 * parameter: a barrier inside a mapLcl, which only the work-group sizes that
 * divide the rows let every work-item reach. */
static const char BARRIER_IN_ROWS[] = "size B, R, W\n"
                                      "userfun id(a: float): float { return a; }\n"
                                      "input x: [[[float]4]R]B\n"
                                      "workgroup W\n"
                                      "out = x |> mapWrg[0, fun(rows) ->\n"
                                      "  rows |> mapLcl[0, fun(row) -> row |> toLocal[mapSeq[id]] |> barrier |> mapSeq[id]]]\n";

/* Points the lowering rejects on its own: a barrier not every work-item
 * reaches (tests/errors/lower_barrier_unreached.cg with the work-group size a
 * parameter): only the work-group sizes that divide the 10 rows pass. */
static void test_lowering_reason(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  const char *text = BARRIER_IN_ROWS;
  Diag d = {0};
  const char *n[] = {"B", "R"};
  int64_t v[] = {8, 10};
  Space *s = make(a, "bar.cg", text, 2, n, v, 0, NULL, &dev, &d);
  if (!s) fprintf(stderr, "%s\n", d.msg);
  CHECK(s != NULL);
  if (!s) return;
  bool exact;
  CHECK(space_count(s, &exact) == 10);   // W in 1..10, the largest bound size
  SpaceCheckOptions o = space_check_defaults();
  o.jobs = 2;
  SpaceCheck c;
  CHECK(space_check_all(s, &o, &c, &d));
  CHECK(c.checked == 10 && c.passed == 4 && c.nreasons == 1);
  if (c.nreasons == 1) {
    CHECK_STR(c.reasons[0].key, "a barrier would not be reached by all work-items: it is inside mapLcl(N) over N "
                                "iterations with N work-items (not a multiple)");
    CHECK(c.reasons[0].count == 6 && c.reasons[0].point[0] == 3);
    CHECK(strstr(c.reasons[0].example, "bar.cg:6:") == c.reasons[0].example);
    CHECK(strstr(c.reasons[0].example, "over 10 iterations with 3 work-items") != NULL);
  }
  space_free(s);
  arena_free(a);
}

/* What refused a point, as data (Diag.kind): a legality rule of the mapping
 * is a rejection that holds at every point of the program, what the sizes
 * decide (a barrier that some work-items skip) is the lowering's refusal of
 * its input; space_check_point gives either as the point's reason. */
static void test_lowering_kinds(void) {
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  const char *bar = BARRIER_IN_ROWS;
  const char *mixed = "size N, T\n"
                      "userfun id(a: float): float { return a; }\n"
                      "input x: [float]N\n"
                      "out = x |> split[T] |> mapGlb[0, fun(t) -> t |> mapLcl[0, id]] |> join\n";
  Diag d = {0};
  const char *n[] = {"B", "R", "N"};
  int64_t v[] = {8, 10, 64};
  Space *sb = make(a, "bar.cg", bar, 2, n, v, 0, NULL, &dev, &d);
  Space *sm = make(a, "mixed.cg", mixed, 1, n + 2, v + 2, 0, NULL, &dev, &d);
  CHECK(sb && sm);
  if (!sb || !sm) return;
  Diag k3 = {0}, k5 = {0}, km = {0};
  CHECK(!space_lower_point(sb, a, (int64_t[]){3}, &k3) && k3.kind == DIAG_USER);   // 10 rows, 3 work-items
  CHECK(space_lower_point(sb, a, (int64_t[]){5}, &k5) && !k5.set);
  CHECK(!space_lower_point(sm, a, (int64_t[]){8}, &km) && km.kind == DIAG_REJECT);
  CHECK(strstr(km.msg, "illegal mapping: mapLcl(0) is mixed with mapGlb") != NULL);
  CHECK_STR(space_check_point(sm, a, (int64_t[]){8}), km.msg);   // a point's reason either way
  space_free(sb);
  space_free(sm);
  arena_free(a);
}

/* A point whose lowering needs more memory than a child may use is rejected
 * with that reason, told from a crash by the child's exit status (no
 * memory limit under AddressSanitizer, which reserves terabytes). */
static void test_lowering_memory(void) {
  if (CG_UNDER_ASAN) return;
  Arena *a = arena_new();
  RtDeviceInfo dev = fake_device();
  SpaceDomain doms[] = {{"TS", 64, 64, 0, NULL}, {"TK", 16, 16, 0, NULL}, {"RM", 8, 8, 0, NULL}, {"RN", 8, 8, 0, NULL}};
  Space *s = matmul(a, 4, doms, &dev);
  CHECK(s != NULL);
  if (!s) return;
  SpaceCheckOptions o = space_check_defaults();
  o.jobs = 1;
  o.mem_limit_mb = 1;
  SpaceCheck c;
  Diag d = {0};
  CHECK(space_check_all(s, &o, &c, &d));
  CHECK(c.checked == 1 && c.passed == 0 && c.nreasons == 1);
  if (c.nreasons == 1) CHECK_STR(c.reasons[0].example, "lowering needs more than 1 MiB of memory");
  space_free(s);
  arena_free(a);
}

/* A point lowered for a target (ls_lower, what tune's workers and bench
 * measure) takes that target's form: a tc point's tile products are
 * mma.sync's under CUDA (each lane giving its fragments), each lane's own
 * dot products under OpenCL. Lowered without the target, a CUDA device
 * once ran the lanes' form (bench/results/2026-12-07-mma, h100-run5). */
static void test_lower_for_target(void) {
  Arena *a = arena_new();
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=8,h=6,w=16,k=16,pad=1,bias=1", &l, &d));
  LayerSpace *ls = ls_new(a, st_strategy("tc"), &l, "tc layer", 0, NULL, NULL, &d);
  LsPoint pt;
  CHECK(ls && ls_parse_point(ls, a, "LT=1 RW=16 RK=8 TH=2", &pt, &d));
  CpResult cuda, opencl;
  if (ls && ls_lower(ls, a, &pt, "cuda", &cuda, &d) && ls_lower(ls, a, &pt, NULL, &opencl, &d)) {
    char *cu = cg_emit(cuda.lp, &CG_CUDA, NULL), *cl = cg_emit(opencl.lp, &CG_OPENCL, NULL);
    CHECK(cuda.lp->warp_mma && strstr(cu, "= cg_mma_3xtf32(") && !strstr(cu, "= cg_mma_3xtf32_lane("));
    CHECK(!opencl.lp->warp_mma && strstr(cl, "= cg_mma_3xtf32_lane("));
    free(cu), free(cl);
  } else {
    CHECK(!"the tc point lowers for both targets");
  }
  ls_free(ls);
  arena_free(a);
}

int main(void) {
  test_lower_for_target();
  test_matmul_constraints();
  test_dependency_order();
  test_slide_and_vector();
  test_count_brute_force();
  test_value_list();
  test_sampling();
  test_one_point();
  test_empty();
  test_bad_domains();
  test_lowering_stage();
  test_lowering_reason();
  test_lowering_kinds();
  test_lowering_memory();
  TEST_MAIN_END();
}
