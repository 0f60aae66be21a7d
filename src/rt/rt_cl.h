/* rt_cl.h: the raw OpenCL handles behind an RtDevice and an RtBuffer, for
 * libraries that take them (CLBlast in `convgen bench`). Everything else goes
 * through rt.h; only code that talks to such a library includes this. */
#ifndef CONVGEN_RT_CL_H
#define CONVGEN_RT_CL_H

#include <CL/cl.h>

#include "rt/rt.h"

cl_context rt_cl_context(const RtDevice *dev);
cl_command_queue rt_cl_queue(const RtDevice *dev);   // in order, profiling enabled
cl_mem rt_cl_mem(const RtBuffer *b);

#endif
