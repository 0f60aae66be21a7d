/* test.h: a minimal unit-test harness. Each tests/<module>/test_*.c is one
 * program; CHECK records a failure and goes on; the program's exit status is
 * non-zero when any check failed, and it prints "N passed, N failed". */
#ifndef CONVGEN_TEST_H
#define CONVGEN_TEST_H

#include <stdio.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) {                                                            \
      test_passed++;                                                       \
    } else {                                                               \
      test_failed++;                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

#define CHECK_STR(got, want)                                                        \
  do {                                                                              \
    const char *g_ = (got), *w_ = (want);                                           \
    if (g_ && w_ && strcmp(g_, w_) == 0) {                                          \
      test_passed++;                                                                \
    } else {                                                                        \
      test_failed++;                                                                \
      fprintf(stderr, "%s:%d: got  '%s'\n%*s want '%s'\n", __FILE__, __LINE__,     \
              g_ ? g_ : "(null)", (int)strlen(__FILE__) + 6, "", w_ ? w_ : "(null)"); \
    }                                                                               \
  } while (0)

#define TEST_MAIN_END()                                           \
  do {                                                            \
    printf("%d passed, %d failed\n", test_passed, test_failed);   \
    return test_failed ? 1 : 0;                                   \
  } while (0)

#endif
