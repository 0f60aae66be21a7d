/* nearest.h: the tuned layers most like a layer (docs/tune.md, --transfer;
 * docs/onnx.md, "A layer without a record"). How unlike two layers are: a
 * different window, stride or grouping first, then the ratios of their
 * channels, outputs, plane and batch. tune --transfer measures their best
 * points first; infer, bench and export run the best of them that is a
 * point of an untuned layer's space, rather than a naive kernel. */
#ifndef CONVGEN_NEAREST_H
#define CONVGEN_NEAREST_H

#include "tune/db.h"

enum { NEAREST_MAX_TUNED = 512 };   // tuned layers of a device read, at most

double tn_unlikeness(const Layer *a, const Layer *b);

/* The layers other than `except` (0: none) with correct records on device,
 * the max most like l, most alike first: their ids into ids[max] (and their
 * specs into specs, when not NULL); returns how many. */
int tn_nearest_layers(Db *db, Arena *a, int64_t device, int64_t except, const Layer *l, int max, int64_t *ids,
                      const char **specs);

#endif
