/* dl.h: dlsym into tables of function pointers, for the libraries loaded at run time (the CUDA driver
 * and NVRTC in rt/, CLBlast and cuDNN in bench/). */
#ifndef CONVGEN_RT_DL_H
#define CONVGEN_RT_DL_H

#include <stdbool.h>
#include <stddef.h>

/* Stores symbol sym of lib into the function pointer at fn; false (fn left
 * as it was) when lib has no such symbol. ISO C has no cast from void * to a
 * function pointer, so the pointer's bytes are copied. */
bool rt_dl_fn(void *lib, const char *sym, void *fn);

/* A symbol and where its function pointer goes in a table of them. */
typedef struct RtSym {
  const char *name;
  size_t offset;   // of the function pointer in the table
} RtSym;

/* Binds every symbol of syms into the table at api; false with why naming
 * the first one libname lacks. */
bool rt_dl_bind(void *lib, const char *libname, void *api, const RtSym *syms, size_t n, char *why, size_t cap);

#endif
