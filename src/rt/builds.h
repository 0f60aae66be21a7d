/* builds.h: programs built on threads of their own while the caller goes on.
 *
 * A network's start compiles one program per distinct layer and operator
 * (ResNet-50: 30); each build is seconds of a driver's compiler (NVRTC,
 * NVIDIA's or PoCL's OpenCL compiler) that need nothing from the next
 * node's preparation. rt_builds_add queues a source and returns at once;
 * rt_builds_take waits for that build and hands over its program (the
 * caller frees it). The builds run on up to rt_build_threads() threads, in
 * the order they were added; with one thread or none, take builds in the
 * caller's thread, as rt_build does. OpenCL allows builds of distinct
 * programs at once from several threads; under CUDA each build thread
 * makes the device's context its own (rt_cuda.c, current()).
 */
#ifndef CONVGEN_RT_BUILDS_H
#define CONVGEN_RT_BUILDS_H

#include "rt/rt.h"

typedef struct RtBuilds RtBuilds;

/* How many builds run at once: $CONVGEN_BUILD_THREADS (1 to
 * RT_BUILD_THREADS_MAX; 1 builds each program when it is taken), else the
 * machine's online processors, at most RT_BUILD_THREADS_MAX; -1 with the
 * Diag (the user's) when the variable is not such a number. */
enum { RT_BUILD_THREADS_MAX = 16 };
int rt_build_threads(Diag *d);

/* A pool of threads (threads <= 1: none) building for dev with options
 * (NULL: rt_build's defaults). */
RtBuilds *rt_builds_new(RtDevice *dev, const char *options, int threads);

/* Queues source (copied); returns its ticket for rt_builds_take. */
int rt_builds_add(RtBuilds *b, const char *source);

/* The program of ticket, waited for: the caller's to free (rt_program_free);
 * NULL with the build's Diag when it failed. Each ticket is taken once. */
RtProgram *rt_builds_take(RtBuilds *b, int ticket, Diag *d);

/* Seconds the caller has waited in rt_builds_take so far, and the builds'
 * own seconds summed over the threads. */
double rt_builds_waited_s(const RtBuilds *b);
double rt_builds_busy_s(const RtBuilds *b);
int rt_builds_count(const RtBuilds *b);
int rt_builds_nthreads(const RtBuilds *b);

/* Waits for the builds in flight, frees the programs no one took. */
void rt_builds_free(RtBuilds *b);

#endif
