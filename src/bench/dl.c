/* dl.c: dlsym into function pointers, for the libraries bench loads at run time. */
#include "bench/dl.h"

#include <dlfcn.h>
#include <string.h>

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym results are stored as function pointers");

bool bench_dl_fn(void *lib, const char *sym, void *fn) {
  void *p = dlsym(lib, sym);
  if (!p) return false;
  memcpy(fn, &p, sizeof p);
  return true;
}
