/* search.h: which candidate to measure next (docs/design.md section 7).
 *
 * A Search walks the spaces of a layer's strategies (space/layer_space.h):
 *
 *   random  the baseline: every strategy's points drawn by its own seeded
 *           sampler (uniform among the points that pass the lowering), the
 *           strategies in turn;
 *   evolve  an evolutionary search on top of it: the first quarter of the
 *           budget (at least 8) as random, then each candidate either a
 *           mutation of a parent picked by a tournament among the fastest
 *           correct ones (one parameter moved to a neighbouring valid value,
 *           or to any valid value; or, one time in four, one choice moved,
 *           the parameters both variants have kept; the point must meet
 *           every constraint and pass the lowering), or, one time in five,
 *           the next random one. Its random points are drawn by results:
 *           a strategy, then a variant of it, each with a share by how far
 *           its best (for a variant, each of its choice values' best) is
 *           behind the best so far, then a point of it (search.c,
 *           draw_weighted).
 *   model   evolve's start and its one-in-five random candidates; otherwise
 *           a pool of 24 mutations of parents picked as evolve picks them
 *           and 8 random points, each scored by a cost model (model.h:
 *           boosted trees over the strategy, the variant and the logarithm
 *           of each parameter, refitted on every result back: a correct
 *           candidate's log time, a failed one's as twice the slowest), and
 *           the best predicted one that lowers is measured; the pool's
 *           random points not taken come first in the random stream later.
 *
 * Both are deterministic given the seed and the results fed back in order, so
 * a tune that replays recorded results (instead of measuring them again)
 * walks the same candidates: that is how a stopped tune resumes. (With
 * several candidates in flight the results come back in the order the
 * measurements end, and the walk after the random start depends on it: its
 * mutations' parents and its random draws' shares come from the results
 * back when each is proposed. One worker proposes each with every result
 * before it back, as a replay does.)
 */
#ifndef CONVGEN_TUNE_SEARCH_H
#define CONVGEN_TUNE_SEARCH_H

#include "space/layer_space.h"

typedef enum SearchKind { SEARCH_RANDOM, SEARCH_EVOLVE, SEARCH_MODEL } SearchKind;

const char *search_name(SearchKind k);                 // "random", "evolve", "model"
bool search_parse(const char *name, SearchKind *out);

typedef struct Search Search;

typedef struct Cand {
  int64_t id;              // its place in the search's sequence, for search_result
  int strategy;            // index into the strategies given to search_new
  LsPoint pt;
  const char *point;       // ls_point_text
  const char *how;         // "random", "mutation", "model"
} Cand;

/* The spaces of the strategies on layer l (with the device's limits, and
 * the ndoms domains doms, as `convgen space --param` gives them: each must
 * name a choice or parameter of every strategy); budget is the number of
 * candidates the caller means to ask for (it sizes the random stream). NULL
 * with a Diag when a space cannot be made. */
Search *search_new(Arena *a, SearchKind kind, const Strategy *const *st, int nst, const Layer *l,
                   const RtDeviceInfo *dev, int ndoms, const SpaceDomain *doms, int64_t budget, uint64_t seed,
                   Diag *d);
/* A warm start: a point of strategy i measured before (a record), with its
 * time, joins the candidates as if given and measured, so that evolve and
 * model mutate it and the model learns from it; it is not given again. It
 * counts towards the random start (seeds enough, the mutations begin at
 * once). False when its text is not a point of the space (another version's
 * point, outside --param's domains) or it was given already. */
bool search_seed(Search *s, int i, const char *point, double median_us);
/* A point of strategy i to measure first: the next search_next gives the
 * primed points, in the order primed, before any other (how says where it
 * came from: "seed", "transfer"); once measured they are candidates like the
 * rest. For points known good elsewhere (the same GPU under the other
 * --target, a similar layer). False when the text is not a point of the
 * space or was given or primed already. */
bool search_prime(Search *s, int i, const char *point, const char *how);
void search_free(Search *s);
/* The space of strategy i (an index into the strategies given to search_new). */
const LayerSpace *search_space(const Search *s, int i);
/* The next candidate, never one given before; false when the spaces are used up. */
bool search_next(Search *s, Cand *out);
/* The result of candidate id (results may come in any order: tune --jobs
 * measures several at once): its median time, or INFINITY when it was not
 * correct. A candidate without a result yet is no parent. */
void search_result(Search *s, int64_t id, double median_us);

#endif
