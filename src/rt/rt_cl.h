/* rt_cl.h: the raw OpenCL handles behind an RtDevice, an RtBuffer and an
 * RtProgram, for code that needs them (CLBlast in `convgen bench`; the built
 * program's binary, PTX on NVIDIA, in bench/ptxrun). Everything else goes
 * through rt.h; only code that talks to such a library includes this. */
#ifndef CONVGEN_RT_CL_H
#define CONVGEN_RT_CL_H

#include <CL/cl.h>

#include "rt/rt.h"

cl_context rt_cl_context(const RtDevice *dev);
cl_command_queue rt_cl_queue(const RtDevice *dev);   // in order, profiling enabled
cl_mem rt_cl_mem(const RtBuffer *b);
cl_program rt_cl_program(const RtProgram *p);   // built for the device's one device

/* Adds an event of the device's queue (a library's launch, e.g. CLBlast's)
 * to a span; the span retains it. NULL: a launch queued without one (a
 * replayed span's after its first: rt_span_event_slot). */
void rt_span_add_cl_event(RtSpan *s, cl_event ev);
/* Where the span's next launch should put its event: ev (set to NULL), or
 * NULL when the span wants none (replayed, past its first launch). */
cl_event *rt_span_event_slot(const RtSpan *s, cl_event *ev);

#endif
