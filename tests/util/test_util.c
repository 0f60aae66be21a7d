/* test_util.c: the kinds of a Diag (docs/design.md, "Errors"): each recorder
 * sets its own, the first error wins with its kind, and a zeroed Diag is
 * empty. */
#include "test.h"
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

int main(void) {
  test_kinds();
  test_first_wins();
  TEST_MAIN_END();
}
