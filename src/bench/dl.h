/* dl.h: what the baselines loaded at run time (clblast.c, cudnn.c) share. */
#ifndef CONVGEN_BENCH_DL_H
#define CONVGEN_BENCH_DL_H

#include <stdbool.h>

/* Stores symbol sym of lib into the function pointer at fn; false (fn left
 * as it was) when lib has no such symbol. ISO C has no cast from void * to a
 * function pointer, so the pointer's bytes are copied. */
bool bench_dl_fn(void *lib, const char *sym, void *fn);

#endif
