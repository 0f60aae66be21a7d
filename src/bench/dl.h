/* dl.h: what the baselines loaded at run time (clblast.c, cudnn.c) share. */
#ifndef CONVGEN_BENCH_DL_H
#define CONVGEN_BENCH_DL_H

#include <stdbool.h>
#include <stddef.h>

/* Stores symbol sym of lib into the function pointer at fn; false (fn left
 * as it was) when lib has no such symbol. ISO C has no cast from void * to a
 * function pointer, so the pointer's bytes are copied. */
bool bench_dl_fn(void *lib, const char *sym, void *fn);

/* A symbol and where its function pointer goes in a table of them. */
typedef struct BenchSym {
  const char *name;
  size_t offset;   // of the function pointer in the table
} BenchSym;

/* Binds every symbol of syms into the table at api; false with why naming
 * the first one libname lacks. */
bool bench_dl_bind(void *lib, const char *libname, void *api, const BenchSym *syms, size_t n, char *why, size_t cap);

#endif
