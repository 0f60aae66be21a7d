/* test_layer.h: a layer the test itself writes, parsed; a spec that does not
 * parse is a mistake in the test, so it aborts with the message. */
#ifndef CONVGEN_TEST_LAYER_H
#define CONVGEN_TEST_LAYER_H

#include <stdio.h>
#include <stdlib.h>

#include "conv/layer.h"

static inline Layer spec_layer(const char *spec) {
  Layer l;
  Diag d = {0};
  if (!layer_parse(spec, &l, &d)) {
    fprintf(stderr, "bad spec in the test: %s\n", d.msg);
    abort();
  }
  return l;
}

#endif
