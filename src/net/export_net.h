/* export_net.h: `convgen export MODEL.onnx`, a whole network as files that
 * run it without convgen (docs/onnx.md, "Export").
 *
 * What infer prepared and ran (net.h's NetPrepared: every node's kernels,
 * the constant arrays they read, the buffers plan.c planned) is written as:
 * each distinct source (NODE_I.cl, or .cu under CUDA); weights.bin, every
 * constant array (the convolutions' batch-norm-folded weights and biases,
 * the other arrays a program reads) as float32 little-endian; the inputs
 * the run took and the outputs it computed (input_K.bin, output_K.bin);
 * convgen_net.{c,h}, which embed the sources and the launch table and
 * build, bind and run the network (cgn_create, cgn_enqueue, cgn_run,
 * cgn_release) through OpenCL, or under CUDA through the driver API and
 * NVRTC; main.c, a program that runs it on the exported inputs and checks
 * the outputs against the exported ones (or on other inputs, -i); and a
 * Makefile. The files go into a DirWrite, committed as one.
 */
#ifndef CONVGEN_EXPORT_NET_H
#define CONVGEN_EXPORT_NET_H

#include "net/net.h"

typedef struct NetExport {   // what net_export_write wrote
  int nsteps;                // nodes that run kernels
  int nlaunches;             // kernels a run launches
  int nsources;              // distinct sources (files NODE_I.cl)
  int nconsts;               // arrays in weights.bin,
  int64_t weights_bytes;     // its size
  int64_t temp_bytes;        // the temporaries it allocates: the shared slots and each step's kept ones
} NetExport;

/* Writes net (prepared by net_infer on dev: info its device's limits, its
 * name device) with inputs (m->inputs order) and the outputs that run
 * computed into w, and commits it; the kernels are of info's target
 * (rt_info_target). False with a Diag, w aborted: nothing written (a
 * CUDA launch that does not fit the device, a file that cannot be
 * written). */
bool net_export_write(DirWrite *w, const NetPrepared *net, const OnnxTensor *inputs, const OnnxTensor *outputs,
                      const char *device, const RtDeviceInfo *info, NetExport *ex, Diag *d);

#endif
