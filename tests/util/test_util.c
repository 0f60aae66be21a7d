/* test_util.c: the kinds of a Diag (docs/design.md, "Errors"): each recorder
 * sets its own, the first error wins with its kind, and a zeroed Diag is
 * empty; the hash is FNV-1a, the same in pieces as in one. */
#include "test.h"
#include "util/elem.h"
#include "util/util.h"

#include <stdlib.h>

static void test_kinds(void) {
  Diag u = {0}, r = {0}, v = {0};
  CHECK(!u.set);
  CHECK(!diag_error(&u, "bad %s", "input") && u.set && u.kind == DIAG_USER);
  CHECK_STR(u.msg, "bad input");
  CHECK(!diag_reject(&r, "over %d", 3) && r.set && r.kind == DIAG_REJECT);
  CHECK_STR(r.msg, "over 3");
  CHECK(!diag_device(&v, "lost") && v.set && v.kind == DIAG_DEVICE);
  CHECK_STR(diag_kind_name(DIAG_USER), "user");
  CHECK_STR(diag_kind_name(DIAG_REJECT), "rejected");
  CHECK_STR(diag_kind_name(DIAG_DEVICE), "device");
}

/* The first error wins, kind and all: a later one of another kind changes nothing. */
static void test_first_wins(void) {
  Diag d = {0};
  diag_reject(&d, "first");
  diag_error(&d, "second");
  diag_device(&d, "third");
  CHECK(d.kind == DIAG_REJECT);
  CHECK_STR(d.msg, "first");
  CHECK(!diag_error(NULL, "nowhere") && !diag_reject(NULL, "nowhere") && !diag_device(NULL, "nowhere"));
}

/* FNV-1a 64's published values, a text hashed in two pieces as in one, and
 * cg_hash_str as the seeds of existing databases need it. */
static void test_hash(void) {
  CHECK(cg_hash_bytes(CG_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ull);
  CHECK(cg_hash_bytes(CG_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cull);
  CHECK(cg_hash_bytes(CG_FNV_OFFSET, "foobar", 6) == 0x85944171f73967e8ull);
  CHECK(cg_hash_bytes(cg_hash_bytes(CG_FNV_OFFSET, "foo", 3), "bar", 3) == 0x85944171f73967e8ull);
  CHECK(cg_hash_str("") == 1469598103934665603ull);
  CHECK(cg_hash_str("a") == ((1469598103934665603ull ^ 'a') * 1099511628211ull));
}

/* The element types' table (util/elem.h): fp32 is float in both targets,
 * 4 bytes a value, its literals as the text form writes them, its poison the
 * quiet NaN the runtime always wrote. */
static void test_elem(void) {
  const ElemType *f = elem_fp32();
  CHECK(f == elem_type(ELEM_FP32) && f == elem_lookup("float") && !elem_lookup("float4") && !elem_lookup("half4"));
  CHECK(f->bytes == 4 && elem_bytes(f, 3) == 12 && f->acc == ELEM_FP32 && f->nan_bits == 0x7fc00000u);
  char v[16];
  elem_vec_name(v, sizeof v, f, ELEM_OPENCL, 4);
  CHECK_STR(v, "float4");
  elem_vec_name(v, sizeof v, f, ELEM_CUDA, 2);
  CHECK_STR(v, "float2");
  CHECK_STR(f->spell[ELEM_CUDA].scalar, "float");
  StrBuf sb;
  sb_init(&sb);
  elem_literal(&sb, f, 1), sb_puts(&sb, " "), elem_literal(&sb, f, (float)0.1), sb_puts(&sb, " "), sb_float_literal(&sb, -2.5e-7);
  CHECK_STR(sb_str(&sb), "1.0f 0.100000001f -2.5e-07f");
  sb_free(&sb);
  CHECK(!elem_is_storage(f));
}

/* fp16: a storage type of 2 bytes computed in fp32, half in OpenCL C read
 * and written by vload_half and vstore_half, __half in CUDA C by
 * __half2float and __float2half_rn (defined in the source), poisoned with its quiet
 * NaN; and the host's conversions, round to nearest even, at the edges. */
static uint16_t f2h(float v) { return elem_f32_to_f16(v); }
static void test_fp16(void) {
  const ElemType *h = elem_lookup("half");
  CHECK(h && h == elem_type(ELEM_FP16) && h->bytes == 2 && elem_bytes(h, 3) == 6 && h->acc == ELEM_FP32);
  CHECK(elem_is_storage(h) && h->nan_bits == 0x7e00u && h->max == 65504.0);
  CHECK_STR(h->spell[ELEM_OPENCL].scalar, "half");
  CHECK_STR(h->spell[ELEM_OPENCL].load, "vload_half");
  CHECK_STR(h->spell[ELEM_OPENCL].store, "vstore_half");
  CHECK(h->spell[ELEM_OPENCL].by_offset && !h->spell[ELEM_OPENCL].header);
  CHECK_STR(h->spell[ELEM_CUDA].scalar, "__half");
  CHECK_STR(h->spell[ELEM_CUDA].load, "__half2float");
  CHECK_STR(h->spell[ELEM_CUDA].store, "__float2half_rn");
  CHECK(!h->spell[ELEM_CUDA].by_offset && h->spell[ELEM_CUDA].header);
  // exact values, both ways
  CHECK(f2h(0.0f) == 0x0000 && f2h(-0.0f) == 0x8000 && f2h(1.0f) == 0x3c00 && f2h(-2.0f) == 0xc000);
  CHECK(f2h(65504.0f) == 0x7bff && f2h(6.103515625e-05f) == 0x0400);         // the largest, the least normal
  CHECK(f2h(5.9604644775390625e-08f) == 0x0001 && f2h(6.0975551605224609e-05f) == 0x03ff);   // subnormals
  for (uint32_t b = 0; b < 0x10000u; b++) {   // every half but NaNs comes back as itself
    uint16_t x = (uint16_t)b;
    if ((x & 0x7c00u) == 0x7c00u && (x & 0x3ffu)) continue;
    if (f2h(elem_f16_to_f32(x)) != x) {
      CHECK(!"a half does not round-trip");
      break;
    }
  }
  CHECK(elem_f16_to_f32(0x0001) == 5.9604644775390625e-08f && elem_f16_to_f32(0x7bff) == 65504.0f);
  // ties to even: 1 + 2^-11 is half-way between 1 and 1 + 2^-10; 1 + 3*2^-11 between 1 + 2^-10 and 1 + 2^-9
  CHECK(f2h(1.0f + 0x1p-11f) == 0x3c00 && f2h(1.0f + 3 * 0x1p-11f) == 0x3c02 && f2h(1.0f + 0x1.2p-11f) == 0x3c01);
  // subnormal ties: 2^-25 (half the least) to 0, 3 * 2^-25 to 2 * 2^-24; just over 2^-25 to the least
  CHECK(f2h(0x1p-25f) == 0x0000 && f2h(3 * 0x1p-25f) == 0x0002 && f2h(0x1.02p-25f) == 0x0001 && f2h(0x1p-26f) == 0);
  CHECK(f2h(0x1.ffcp-15f) == 0x0400);   // a subnormal that rounds up to the least normal
  // overflow: 65520 (half-way to 65536) and above to infinity, below it to the largest
  CHECK(f2h(65519.0f) == 0x7bff && f2h(65520.0f) == 0x7c00 && f2h(-1e6f) == 0xfc00 && f2h(1e-30f) == 0);
  CHECK(f2h(__builtin_inff()) == 0x7c00 && f2h(-__builtin_inff()) == 0xfc00);
  uint16_t n = f2h(__builtin_nanf(""));
  CHECK((n & 0x7c00u) == 0x7c00u && (n & 0x200u));   // a quiet NaN
  CHECK(elem_f16_to_f32(0x7e00) != elem_f16_to_f32(0x7e00));
  CHECK(elem_round(h, 0.1) == 0.0999755859375 && elem_round(elem_fp32(), 0.1) == (float)0.1);
}

/* float32 little-endian bytes, whatever the host: 1.0f is 00 00 80 3f. */
static void test_le(void) {
  const float v[2] = {1.0f, -2.5f};
  unsigned char b[8];
  cg_floats_to_le(v, 2, b);
  CHECK(b[0] == 0 && b[1] == 0 && b[2] == 0x80 && b[3] == 0x3f && b[7] == 0xc0);
  float back[2];
  cg_floats_from_le(b, 2, back);
  CHECK(back[0] == 1.0f && back[1] == -2.5f);
}

/* cg_strdup: a heap copy of its own, NULL for NULL. */
static void test_strdup(void) {
  const char *s = "kernel source";
  char *c = cg_strdup(s);
  CHECK(c && c != s && strcmp(c, s) == 0);
  free(c);
  CHECK(cg_strdup(NULL) == NULL);
}

/* cg_fault_arg: KIND:ARG entries of $CONVGEN_FAULT, the argument up to a comma. */
static void test_fault_arg(void) {
  size_t n = 0;
  setenv("CONVGEN_FAULT", "crash:s1,nolaunch:conv1,lost:/tmp/f", 1);
  const char *p = cg_fault_arg("nolaunch", &n);
  CHECK(p && n == 5 && strncmp(p, "conv1", n) == 0);
  p = cg_fault_arg("lost", &n);
  CHECK(p && n == 6 && strncmp(p, "/tmp/f", n) == 0);
  CHECK(cg_fault_arg("hang", &n) == NULL);
  unsetenv("CONVGEN_FAULT");
  CHECK(cg_fault_arg("lost", &n) == NULL);
}

int main(void) {
  test_kinds();
  test_strdup();
  test_fault_arg();
  test_le();
  test_first_wins();
  test_hash();
  test_elem();
  test_fp16();
  TEST_MAIN_END();
}
