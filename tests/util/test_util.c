/* test_util.c: the kinds of a Diag (docs/design.md, "Errors"): each recorder
 * sets its own, the first error wins with its kind, and a zeroed Diag is
 * empty; the hash is FNV-1a, the same in pieces as in one. */
#include "test.h"
#include "util/elem.h"
#include "util/util.h"

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
  CHECK(f == elem_type(ELEM_FP32) && f == elem_lookup("float") && !elem_lookup("float4") && !elem_lookup("half"));
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
}

int main(void) {
  test_kinds();
  test_first_wins();
  test_hash();
  test_elem();
  TEST_MAIN_END();
}
