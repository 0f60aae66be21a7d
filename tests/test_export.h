/* test_export.h: what the tests of the two exports (tests/tune/test_export.c,
 * tests/net/test_export_net.c) both ask of the files they write and of the
 * machine that builds them. */
#ifndef CONVGEN_TEST_EXPORT_H
#define CONVGEN_TEST_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The CUDA toolkit the CUDA files are built against: $CUDA, else /usr/local/cuda. */
static inline const char *cuda_root(void) {
  const char *r = getenv("CUDA");
  return r && *r ? r : "/usr/local/cuda";
}

/* Whether dir/file exists and can be read. */
static inline bool have(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  return access(p, R_OK) == 0;
}

#endif
