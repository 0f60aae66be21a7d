/* registry.c: the list of rule families, and lookup of a rule by name.
 *
 * Each family file owns its rules (name, equation, matcher, builder) in one
 * static table; this file only concatenates the tables, once, in the order of
 * the pipeline: grouping (a grouped layer's map over its groups), algebraic
 * rules (fusion, maps through layout primitives, tiling, slides, reductions),
 * then vector and reorder rules, then the lowering rules that pick parallel
 * levels and memories. Rule names are unique (checked when the table is made).
 */
#include "rewrite/rules.h"

#include <pthread.h>
#include <string.h>

enum { MAX_RULES = 64 };

static Rule table[MAX_RULES];
static int ntable;
static pthread_once_t made = PTHREAD_ONCE_INIT;

static void add_family(const Rule *rules, int n) {
  for (int i = 0; i < n; i++) {
    cg_assert(ntable < MAX_RULES);
    for (int k = 0; k < ntable; k++)
      if (strcmp(table[k].name, rules[i].name) == 0) cg_die("rule '%s' is defined twice", rules[i].name);
    table[ntable++] = rules[i];
  }
}

static void make_table(void) {
  const Rule *(*const families[])(int *) = {rw_group_rules,  rw_fusion_rules,      rw_layout_rules, rw_splitjoin_rules,
                                             rw_slide_rules,  rw_reduce_rules,      rw_vector_rules, rw_reorder_rules,
                                             rw_lower_rules,  rw_interchange_rules, rw_patch_rules,
                                             rw_mma_rules,    rw_winograd_rules};
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
    int n;
    const Rule *rules = families[f](&n);
    add_family(rules, n);
  }
}

const Rule *rw_rules(int *n) {
  pthread_once(&made, make_table);
  *n = ntable;
  return table;
}

const Rule *rw_rule(const char *name) {
  int n;
  const Rule *rules = rw_rules(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(rules[i].name, name) == 0) return &rules[i];
  return NULL;
}
