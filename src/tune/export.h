/* export.h: `convgen export`, the best kernels of layers as files that work
 * without convgen.
 *
 * For each layer: LAYER.cl (the OpenCL C of its best kernels; LAYER.cu, their
 * CUDA C, for a CUDA device) and LAYER.json
 * (their launch description, as `convgen gen` writes it); for all of them a
 * generated C source and header, convgen_kernels.{c,h}, that hold the
 * kernels' sources and launch descriptions and build and launch them through
 * the OpenCL API, or for CUDA compile them with NVRTC and launch them
 * through the driver API (cgk_create, cgk_run, cgk_release); an example program,
 * example.c, that runs every layer on random inputs and checks the output
 * against a float64 convolution it computes itself; and a Makefile. Every
 * file is written atomically.
 */
#ifndef CONVGEN_TUNE_EXPORT_H
#define CONVGEN_TUNE_EXPORT_H

#include "conv/layer.h"
#include "lower/lower.h"
#include "rt/rt.h"
#include "tune/db.h"

typedef struct ExportLayer {
  const char *label;       // how the user named it: "vgg16.conv3_2"
  Layer layer;
  const char *strategy;
  const char *point;       // "NAME=V ..." or "-"
  double median_us;        // as recorded
  const LProgram *lp;      // its kernels, lowered
  const char *source;      // cg_emit of lp
  const char *manifest;    // cg_manifest_json of lp
} ExportLayer;

/* The kernels of a layer's best record on device (of db; dev its
 * description) for target (the device, or a profile's limits on it): the
 * fastest record, or with a profile the fastest of its 64 fastest that the
 * profile's limits allow, lowered and emitted again. A record whose kernels
 * changed since it was measured is used with a warning (tune_record_current).
 * False with a Diag naming the layer when there is none. */
bool export_layer(Arena *a, Db *db, int64_t device, const Layer *l, const char *name, const RtDeviceInfo *dev,
                  const RtDeviceInfo *target, ExportLayer *out, Diag *d);

/* Writes the files into dir (made when missing) for target (the device or
 * profile the kernels were compiled for: a CUDA device's get .cu kernels and
 * a host program over the CUDA driver API and NVRTC); false with a Diag,
 * nothing written. device names it in the files' first lines. */
bool export_write(const char *dir, const ExportLayer *ls, int n, const char *device, const RtDeviceInfo *target,
                  Diag *d);

/* text as adjacent C string literals, one per line of text, each on a line
 * of its own indented by four (the model export's sources too). */
void export_c_string(StrBuf *sb, const char *text);

/* What both exports write (the layers' here, a model's in net/export_net.c):
 * a C identifier from name and i ("vgg16_conv3_2_0": every character but
 * letters and digits an '_', at most 48 of them, '_' first before a digit);
 * the host code's includes per target; and, for CUDA, the C of
 *     static char *cg_nvrtc_compile(const char *source, const char *name, CUdevice dev, CUresult *err)
 * which compiles source with NVRTC for dev's sm_XY and returns the cubin
 * (malloc'd), or NULL with NVRTC's log, under name, on stderr. */
const char *export_ident(Arena *a, const char *name, int i);
extern const char EXPORT_HEADER_OPENCL[], EXPORT_HEADER_CUDA[], EXPORT_NVRTC_COMPILE[];
/* The C of static cl_device_id cg_pick_device(int want): device want among
 * every platform's devices (-1: the first GPU, else the first), or NULL. */
extern const char EXPORT_OPENCL_PICK_DEVICE[];

#endif
