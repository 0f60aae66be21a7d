/* version.c: what this build of convgen is, for --version and for the
 * provenance of every measurement the tuner records. The Makefile compiles
 * this file on every build with the commit it was built from. */
#include "util/util.h"

#ifndef CONVGEN_COMMIT
#define CONVGEN_COMMIT "unknown"
#endif

const char *cg_version(void) { return "0.2.0 (" CONVGEN_COMMIT ")"; }
