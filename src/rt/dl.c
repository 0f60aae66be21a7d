/* dl.c: dlsym into function pointers, for the libraries loaded at run time (dl.h). */
#include "rt/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym results are stored as function pointers");

bool rt_dl_fn(void *lib, const char *sym, void *fn) {
  void *p = dlsym(lib, sym);
  if (!p) return false;
  memcpy(fn, &p, sizeof p);
  return true;
}

bool rt_dl_bind(void *lib, const char *libname, void *api, const RtSym *syms, size_t n, char *why, size_t cap) {
  for (size_t i = 0; i < n; i++)
    if (!rt_dl_fn(lib, syms[i].name, (char *)api + syms[i].offset)) {
      snprintf(why, cap, "%s has no %s (too old?)", libname, syms[i].name);
      return false;
    }
  return true;
}
