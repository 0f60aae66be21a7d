/* profiles.c: the limits of GPUs convgen has no device for (see rt.h).
 *
 * A profile stands in for a live device: rt_profile_info fills the same
 * RtDeviceInfo that rt_select_info fills from OpenCL, so the space's
 * constraints, the lowering's checks and the emitted kernels obey the
 * profile exactly as they obey a device (src/space/constraints.c, check.c).
 * Invariant: every figure either is a vendor's published one, with its
 * source next to it, or is marked "not published" with the conservative
 * value chosen (one no smaller device of the family goes below: a kernel
 * legal here is legal on the device; a few legal ones may be refused).
 * docs/profiles.md gives the same table with the sources.
 *
 * Sources:
 *   [arm-ds]  Arm, "Arm GPU datasheet" (Mali GPU processor comparison
 *             table): architecture, maximum threads per shader core, the
 *             OpenCL versions each GPU supports.
 *   [arm-cl]  Arm, "Mali GPU OpenCL Developer Guide" (101574, section
 *             5.8.3 "Determining the local work-group size", 7.2.2 "About
 *             Mali GPU architectures"): CL_DEVICE_MAX_WORK_GROUP_SIZE and
 *             CL_DEVICE_MAX_WORK_ITEM_SIZES are to be read from the device;
 *             Bifrost and Valhall execute scalar code (no need to vectorise).
 *   [arm-bp]  Arm, "Mali GPU Best Practices Developer Guide" 8.1-8.2: a
 *             work-group that uses barriers or shared (local) memory runs
 *             whole in one shader core, so it is at most a core's threads.
 *   [mali-cl] clinfo of Mali drivers (Mali-G71, Bifrost: HiKey 960; a
 *             Valhall Mali-G610): CL_DEVICE_LOCAL_MEM_SIZE 32 KiB; the
 *             extension lists below are the cl_khr_ part of those lists.
 *   [qc-650]  Qualcomm, Adreno 650 graphics overview (80-88500-4) and the
 *             QCS6490 graphics overview (80-70014-19): Adreno 6xx support
 *             OpenCL 1.2 FP and 2.0 FP.
 *   [qc-730]  clinfo of an Adreno 730 (Qualcomm's driver, OpenCL 3.0): the
 *             Adreno 7xx report OpenCL 3.0 and OpenCL C 1.2 among their
 *             OpenCL C versions.
 *   [cl12]    The OpenCL 1.2 specification, table 4.3: a full-profile
 *             device has at least 32 KiB of local memory and allocates at
 *             least max(1/4 of its global memory, 128 MiB) at once.
 */
#include "rt/rt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The cl_khr extensions that are core in OpenCL 1.1 and 1.2 and that every
 * driver below reports ([mali-cl]; for Adreno assumed, see the entries). */
#define KHR_CORE                                                                           \
  "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "                \
  "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "                  \
  "cl_khr_byte_addressable_store"

enum { MIB = 1024 * 1024 };

static const RtProfile profiles[] = {
    {
        .name = "mali-g72",
        .device = "Mali-G72",
        .vendor = "ARM",
        .architecture = "Bifrost (2nd generation)",
        // [arm-ds]: 384 threads per core at most; [arm-bp]: a work-group
        // with barriers fits one core. The same bound per dimension.
        .max_wg_size = 384,
        .max_wi_sizes = {384, 384, 384},
        .local_mem = 32768,          // [mali-cl] (G71, the same Bifrost core); not published for G72
        .pref_float_width = 1,       // [arm-cl] 7.2.2: scalar execution; the driver's figure not published
        .registers = 0,              // not published
        .version = "OpenCL 2.0",     // [arm-ds]: G72 has 2.0, not 2.1 or 3.0
        .extensions = KHR_CORE " cl_khr_3d_image_writes cl_khr_fp16 cl_khr_icd",   // [mali-cl] G71
        .sources = "[arm-ds] [arm-bp] [mali-cl]; local memory and vector width not published for the G72",
    },
    {
        .name = "mali-g78",
        .device = "Mali-G78",
        .vendor = "ARM",
        .architecture = "Valhall (2nd generation)",
        // [arm-ds]: 1024 threads per core; the work-group size the G78's
        // driver reports is not published: 512, half a core, is the
        // conservative choice (Valhall drivers report 512 or 1024).
        .max_wg_size = 512,
        .max_wi_sizes = {512, 512, 512},
        .local_mem = 32768,          // [mali-cl] (a Valhall G610); not published for G78
        .pref_float_width = 1,       // [arm-cl] 7.2.2: scalar execution
        .registers = 0,              // not published
        .version = "OpenCL 3.0",     // [arm-ds]
        .extensions = KHR_CORE " cl_khr_3d_image_writes cl_khr_fp16 cl_khr_icd",   // [mali-cl]
        .sources = "[arm-ds] [arm-bp] [mali-cl]; work-group size (conservative 512) and local memory "
                   "not published for the G78",
    },
    {
        .name = "adreno-640",
        .device = "QUALCOMM Adreno(TM) 640",
        .vendor = "QUALCOMM",
        .architecture = "Adreno 6xx",
        // Not published: the OpenCL guide of the Adreno 6xx leaves
        // CL_DEVICE_MAX_WORK_GROUP_SIZE to the device (and a kernel's own
        // limit to its registers). 256 is the conservative choice.
        .max_wg_size = 256,
        .max_wi_sizes = {256, 256, 256},
        .local_mem = 32768,          // not published: [cl12]'s minimum for a full profile
        .pref_float_width = 1,       // not published: 1, vectorising left to the kernel's own choice
        .registers = 0,              // not published
        .version = "OpenCL 2.0",     // [qc-650] (Adreno 6xx: OpenCL 1.2 FP, 2.0 FP)
        .extensions = KHR_CORE " cl_khr_fp16",   // not published: the core ones and fp16, assumed
        .sources = "[qc-650] [cl12]; work-group size (conservative 256), local memory and extensions "
                   "not published",
    },
    {
        .name = "adreno-740",
        .device = "QUALCOMM Adreno(TM) 740",
        .vendor = "QUALCOMM",
        .architecture = "Adreno 7xx",
        .max_wg_size = 256,          // not published: conservative, as for the Adreno 640
        .max_wi_sizes = {256, 256, 256},
        .local_mem = 32768,          // not published: [cl12]'s minimum for a full profile
        .pref_float_width = 1,       // not published
        .registers = 0,              // not published
        .version = "OpenCL 3.0",     // [qc-730] (the Adreno 7xx)
        .extensions = KHR_CORE " cl_khr_fp16",   // not published: assumed, as for the Adreno 640
        .sources = "[qc-730] [cl12]; work-group size (conservative 256), local memory and extensions "
                   "not published",
    },
};

enum { NPROFILES = (int)(sizeof profiles / sizeof *profiles) };

const RtProfile *rt_profiles(int *n) {
  *n = NPROFILES;
  return profiles;
}

const RtProfile *rt_profile_find(const char *name) {
  for (int i = 0; i < NPROFILES; i++) {
    const char *a = profiles[i].name, *b = name;
    while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b)) a++, b++;
    if (!*a && !*b) return &profiles[i];
  }
  return NULL;
}

/* Phones differ in memory; the profile takes 2 GiB and allocations of 512
 * MiB (not published: [cl12]'s minimum for a device of 2 GiB), more than
 * one layer's buffers need. */
void rt_profile_info(const RtProfile *p, RtDeviceInfo *o) {
  memset(o, 0, sizeof *o);
  o->index = -1;
  snprintf(o->profile, sizeof o->profile, "%s", p->name);
  snprintf(o->platform, sizeof o->platform, "profile %s (no device)", p->name);
  snprintf(o->name, sizeof o->name, "%s", p->device);
  snprintf(o->vendor, sizeof o->vendor, "%s", p->vendor);
  snprintf(o->platform_vendor, sizeof o->platform_vendor, "%s", p->vendor);
  snprintf(o->driver, sizeof o->driver, "profile");
  snprintf(o->version, sizeof o->version, "%s", p->version);
  snprintf(o->c_version, sizeof o->c_version, "OpenCL C 1.2");   // what convgen compiles with (RT_CL_STD)
  snprintf(o->extensions, sizeof o->extensions, "%s", p->extensions);
  o->is_gpu = true;
  o->max_wg_size = p->max_wg_size;
  for (int d = 0; d < 3; d++) o->max_wi_sizes[d] = p->max_wi_sizes[d];
  o->local_mem = p->local_mem;
  o->global_mem = 2048ull * MIB;
  o->max_alloc = 512ull * MIB;
  o->pref_float_width = p->pref_float_width;
}

bool rt_profile_select(const char *name, RtDeviceInfo *out, Diag *d) {
  const RtProfile *p = rt_profile_find(name);
  if (p) return rt_profile_info(p, out), true;
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < NPROFILES; i++) sb_printf(&sb, "%s%s", i ? ", " : "", profiles[i].name);
  diag_error(d, "no profile '%s'; the profiles are %s ('convgen devices --profiles' lists their limits)", name,
             sb_str(&sb));
  sb_free(&sb);
  return false;
}

void rt_print_profiles(StrBuf *sb) {
  for (int i = 0; i < NPROFILES; i++) {
    const RtProfile *p = &profiles[i];
    if (i > 0) sb_putc(sb, '\n');
    sb_printf(sb, "profile %s: %s\n", p->name, p->device);
    sb_printf(sb, "  %-20s %s\n", "vendor", p->vendor);
    sb_printf(sb, "  %-20s %s\n", "architecture", p->architecture);
    sb_printf(sb, "  %-20s %s\n", "OpenCL", p->version);
    sb_printf(sb, "  %-20s %zu\n", "max work-group size", p->max_wg_size);
    sb_printf(sb, "  %-20s %zu x %zu x %zu\n", "max work-item sizes", p->max_wi_sizes[0], p->max_wi_sizes[1],
              p->max_wi_sizes[2]);
    sb_printf(sb, "  %-20s %llu KiB\n", "local memory", (unsigned long long)(p->local_mem / 1024));
    sb_printf(sb, "  %-20s %u\n", "float vector width", p->pref_float_width);
    if (p->registers) sb_printf(sb, "  %-20s %u\n", "registers", p->registers);
    else sb_printf(sb, "  %-20s %s\n", "registers", "not published");
    sb_printf(sb, "  %-20s %s\n", "extensions", p->extensions);
    sb_printf(sb, "  %-20s %s\n", "sources", p->sources);
  }
}

const char *rt_missing_extension(const char *source, const RtDeviceInfo *dev, char *name, size_t cap) {
  static const char pragma[] = "#pragma OPENCL EXTENSION ";
  for (const char *q = strstr(source, pragma); q; q = strstr(q + 1, pragma)) {
    const char *w = q + sizeof pragma - 1;
    size_t n = strcspn(w, " \t:\r\n");
    snprintf(name, cap, "%.*s", (int)n, w);
    bool found = false;
    for (const char *e = strstr(dev->extensions, name); e && !found; e = strstr(e + 1, name))
      found = (e == dev->extensions || e[-1] == ' ') && (e[n] == 0 || e[n] == ' ');
    if (!found) return name;
  }
  return NULL;
}
