/* main.c: the convgen program, git-style subcommands over the library.
 *
 *   convgen devices                      list OpenCL devices and their limits
 *   convgen compile FILE [-p N=V]... [-o OUT] [--dump-after PASS]... [--dump-all] [--dump-ir]
 *   convgen run FILE [-p N=V]... [--device SEL] [--sample N] [--runs N] ...
 *   convgen space FILE [-p N=V]... [--param N=LO..HI]... [--check-lowering] [--sample N]
 *   convgen gen FILE [-p N=V]... -o DIR
 * With --strategy S, FILE is a convolution layer and the program is the one
 * strategy S derives from the layer's high-level convolution (program_text).
 *
 * The compilation is the library's pipeline (compile/compile.h), called once
 * in compile_program(): parse (sizes bound by -p), type inference, the size
 * check, lowering, the buffer check, emission, with a dump after any pass
 * (--dump-after, --dump-all, --dump-ir).
 * Errors are of two kinds here: usage errors ("convgen: message" and a hint
 * naming the command's help) and errors in the program, which the library
 * returns as Diag messages that already name the file and position and are
 * printed as they are after "convgen: ". Both exit 2; `run` exits 1 when the
 * device run does not pass. Nothing is written to -o OUT unless the whole compilation succeeded.
 */
#include "codegen/codegen.h"
#include "compile/compile.h"
#include "conv/program.h"
#include "conv/reference.h"
#include "ir/ir.h"
#include "ir/interp.h"
#include "lower/lower.h"
#include "measure/measure.h"
#include "net/export_net.h"
#include "net/net.h"
#include "onnx/onnx.h"
#include "onnx/ops.h"
#include "rewrite/strategy.h"
#include "space/layer_space.h"
#include "bench/bench.h"
#include "tune/export.h"
#include "tune/tune.h"
#include "tune/worker.h"
#include "rt/builds.h"
#include "rt/rt.h"
#include "space/space.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The exit statuses (docs/design.md, "Errors"; each command's EXIT STATUS):
 * 1 the answer is no (a check that failed, nothing found or recorded); the
 * others one kind of error each. A broken invariant aborts (cg_die: 134). */
enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_REJECTED = 3, EXIT_DEVICE = 4 };

/* The exit status of an error. A program the user wrote (FILE) is input: a
 * legality rule or a device limit refusing it is an error in that input (2),
 * while the same refusal of a strategy's point rejects the point (3). */
static int exit_status(DiagKind k, bool users_program) {
  switch (k) {
  case DIAG_USER: return EXIT_USAGE;
  case DIAG_REJECT: return users_program ? EXIT_USAGE : EXIT_REJECTED;
  case DIAG_DEVICE: return EXIT_DEVICE;
  }
  cg_die("a Diag of no kind (%d)", (int)k);
}

/* The Diag's message on standard error, and its kind's exit status. */
static int fail_with(const Diag *d) {
  fprintf(stderr, "convgen: %s\n", d->msg);
  return exit_status(d->kind, false);
}

/* ---- help texts ----------------------------------------------------------------- */

/* --untuned, as infer, export and bench take it. */
#define HELP_UNTUNED \
    "    --untuned default|nearest\n" \
    "        What a convolution with no record on the device runs: 'default' (the\n" \
    "        default) its default point, chosen by rules without measuring;\n" \
    "        'nearest' the best point of the most alike tuned layer that is a\n" \
    "        point of its space, else its default point (docs/tune.md, 'Untuned\n" \
    "        layers': on the H100 the default points ran a ResNeXt-50 with 16\n" \
    "        untuned convolutions 1.36x faster). Its record under the other\n" \
    "        target, when there is one, is taken either way.\n"

/* --memory, as infer, export and bench take it. */
#define HELP_MEMORY \
    "    --memory lean|fast\n" \
    "        Which of a tuned convolution's records it runs: 'lean' (the default)\n" \
    "        of its 8 fastest the fastest whose temporaries (split-K's partial\n" \
    "        sums, Winograd's tiles) fit in the activation buffers that no value\n" \
    "        holds while it runs, so that they add no device memory (the fastest\n" \
    "        when none does, or when those that do take more than twice its\n" \
    "        time; -v says when one was passed over); 'fast' its fastest,\n" \
    "        whatever its temporaries (docs/onnx.md, 'Memory').\n"

/* The --strategy option, as compile and gen describe it. */
#define HELP_STRATEGY                                                                   \
  "    -s S, --strategy S\n"                                                            \
  "        FILE is not a program but a convolution layer: a named layer\n"              \
  "        (vgg16.conv1_1 ... vgg16.conv5_3, alexnet.conv1 ... alexnet.conv5,\n"        \
  "        resnet18.*, resnet50.*, mobilenet_v1.*, mobilenet_v2.*, with\n"           \
  "        overrides such as vgg16.conv3_2,n=2) or the plain form\n"                     \
  "        n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1[,bias=1][,relu=1];\n"     \
  "        act=relu6, clip(MIN,MAX), leaky(ALPHA), sigmoid or hardswish in\n"          \
  "        place of relu=1 for another activation; groups=G (depthwise: G=c),\n"      \
  "        dilation=D and each side's padding (pad_top=...) also; residual=1 adds\n" \
  "        an input of the output's shape before the activation; scale=1\n"        \
  "        multiplies each input channel of each image by an input of n*c values\n" \
  "        first (a squeeze-excite's scale); precision=fp16 keeps every tensor\n"   \
  "        in half, computed in fp32 (docs/conv.md).\n"                             \
  "        The program is derived by strategy S from the layer's high-level\n"          \
  "        convolution (strategies: direct, s1, s2, s3, dw, tc, wino;\n"              \
  "        docs/rewrite.md).\n"                                                        \
  "        The strategy's choices and tuning parameters are given with -p (e.g.\n"     \
  "        -p LK=1 -p LH=1 -p LW=1 -p RK=8 -p RW=4 for s2) or drawn with --random;\n"  \
  "        the point must lie in the layer's space ('convgen space LAYER\n"          \
  "        --strategy S'): one outside it is refused with the constraint it breaks\n" \
  "        and where that comes from.\n"                                              \
  "    --random SEED\n"                                                              \
  "        With --strategy: a random point of the layer's space, drawn by seed SEED\n" \
  "        (a positive integer; the same seed gives the same point) among the\n"      \
  "        points that meet every constraint and pass the lowering. Parameters\n"     \
  "        given with -p keep their values.\n"                                       \
  "    --device SEL\n"                                                               \
  "        The device whose limits the point must meet (work-group size, local\n"     \
  "        memory); see 'convgen run'. Default: as for 'convgen run'. A program\n"     \
  "        FILE needs no device, but SEL must still match one.\n"                      \
  "    --profile NAME\n"                                                              \
  "        Make the point for a GPU that is not here: the limits are those of\n"      \
  "        the device profile NAME (mali-g72, mali-g78, adreno-640, adreno-740;\n"     \
  "        'convgen devices --profiles' lists them with their sources), taken as\n"    \
  "        a device's are, and no device is opened. Not with --device; it\n"          \
  "        overrides $CONVGEN_DEVICE. An unknown NAME is a usage error that lists\n"   \
  "        the profiles.\n"

/* --precision of the commands that take layers. */
#define HELP_PRECISION                                                                  \
  "    --precision fp32|fp16|tf32\n"                                                   \
  "        The layers' precision: fp32 (default); fp16, half values in memory\n"     \
  "        computed in fp32 with the output rounded once when stored; or tf32,\n"    \
  "        float in memory, the products' operands allowed TF32's rounding on\n"    \
  "        tensor cores (strategy tc; PyTorch's and cuDNN's default for fp32\n"     \
  "        convolutions), checked within 1e-4 + 4 * 2^-11. precision=P in each\n"  \
  "        layer spec, and in each convolution of a NETWORK or MODEL.onnx where\n"   \
  "        the command takes one. A spec that gives another precision itself is\n"  \
  "        an error. Each precision's layer is a layer of its own in the\n"        \
  "        database (docs/conv.md).\n"

/* The dump options of compile, run and gen: the compile pipeline's passes
 * (compile/compile.h), in the order they run. */
#define HELP_DUMP                                                                       \
  "    --dump-after PASS\n"                                                             \
  "        Print to standard error what pass PASS made, after a line\n"                \
  "        '// convgen: after PASS': up to check-sizes, the program in the text\n"     \
  "        form (docs/ir.md), which parses back to the same program (its sizes\n"      \
  "        still declared: give them the same -p values); from kernels on, the\n"     \
  "        lowered program as OpenCL C. The passes, in order: parse (the text\n"      \
  "        read, the sizes bound), store (the tensors kept in memory in the\n"       \
  "        storage type a caller asks for: an fp16 network's half; on the\n"         \
  "        command line, the program as parsed), infer (the types), check-sizes\n"   \
  "        (every size has a value), the lowering's kernels (each with its\n"         \
  "        ND-range, statements and barriers), scalarise (private arrays as\n"        \
  "        registers), prefetch (reduceSeqPrefetch's loads one step ahead) and\n"     \
  "        combine-loads (float4 local loads), then lower (the lowering done),\n"     \
  "        check-buffers (every buffer within int indices) and emit (the source).\n"  \
  "        Repeat it for several passes; the dumps come in the order the passes\n"   \
  "        run, and a pass that fails ends them with its error. An unknown PASS\n"    \
  "        is a usage error that lists the passes.\n"                                 \
  "    --dump-all\n"                                                                  \
  "        The dump after every pass.\n"                                              \
  "    --dump-ir\n"                                                                   \
  "        Print the parsed program, in the text form, to standard error: the\n"      \
  "        dump after parse without its first line.\n"                                \
  "    --derivation\n"                                                                \
  "        With a LAYER and --strategy: print to standard error, after a line\n"      \
  "        '// convgen: derivation of LAYER (strategy S; VARIANT)', the rules\n"      \
  "        the strategy applied to the layer's high-level expression to reach\n"      \
  "        the point's program, one per line in the order applied, each with\n"      \
  "        its arguments and the position it rewrote ('split-join RK at\n"           \
  "        /1/1/1'; positions as docs/rewrite.md says). A program FILE has no\n"     \
  "        derivation: a usage error.\n"

static const char help_main[] =
    "NAME\n"
    "    convgen - OpenCL and CUDA kernels from a functional data-parallel IR, run and\n"
    "    checked\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen COMMAND [OPTIONS] [ARGS]\n"
    "    convgen help COMMAND\n"
    "    convgen --help | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    convgen compiles programs written in a Lift-style functional IR (docs/ir.md)\n"
    "    to OpenCL C 1.2 kernels (or CUDA C: --target cuda), runs them on a device on\n"
    "    random inputs and checks every result against a float64 reference\n"
    "    interpreter before timing it.\n"
    "\n"
    "COMMANDS\n"
    "    devices   list the devices (OpenCL, and CUDA's) with their limits\n"
    "    compile   print the OpenCL C (or CUDA C) for a program\n"
    "    run       run a program on a device: check it, then time it\n"
    "    space     a program's parameter space: constraints, count, samples\n"
    "    gen       write the kernels and their launch description into a folder\n"
    "    tune      search for the fastest correct kernels of layers; keep them\n"
    "    best      the best kernel recorded for layers on a device\n"
    "    export    the best kernels, or a whole ONNX model, with a C host program\n"
    "              that runs them\n"
    "    bench     the tuned kernels side by side with naive, CLBlast and cuDNN\n"
    "    import    read an ONNX model: its graph and convolution layers as convgen\n"
    "              sees them\n"
    "    infer     run an ONNX model on the device with the generated kernels\n"
    "    worker    (internal) the process tune measures candidates in\n"
    "    help      show the help of a command\n"
    "\n"
    "    'convgen COMMAND --help' (or 'convgen help COMMAND') describes each one.\n"
    "\n"
    "ENVIRONMENT\n"
    "    CONVGEN_DEVICE\n"
    "        The device to use when --device is not given (same forms as --device).\n"
    "    CONVGEN_REMOTE_TIMEOUT\n"
    "        Seconds a remote device (--device HOST:PORT) may take to answer a\n"
    "        request before its connection counts as lost (default 120).\n"
    "    CONVGEN_DB, XDG_DATA_HOME, HOME\n"
    "        Where the tuning database is when --db is not given: $CONVGEN_DB, else\n"
    "        $XDG_DATA_HOME/convgen/tune.db, else $HOME/.local/share/convgen/tune.db;\n"
    "        with none of them set, tune, best, export and bench need --db.\n"
    "    TMPDIR\n"
    "        Where tune --jobs makes its device lock file (default /tmp; the file is\n"
    "        unlinked at once).\n"
    "    CONVGEN_WORKER_STDERR\n"
    "        When set, tune's workers keep their standard error (by default it goes\n"
    "        to /dev/null), for debugging a candidate.\n"
    "    CONVGEN_COMBINE_LOADS\n"
    "        0 turns off the lowering pass that loads neighbouring floats of local\n"
    "        memory as one float4 (src/lower/loads.c), to measure what it gives.\n"
    "    CONVGEN_CLBLAST, CONVGEN_CUDNN\n"
    "        The CLBlast or cuDNN library bench loads, instead of the usual sonames.\n"
    "    CONVGEN_NVRTC\n"
    "        The NVRTC library --target cuda loads, instead of libnvrtc.so, .so.13 or\n"
    "        .so.12.\n"
    "    CONVGEN_BUILD_THREADS\n"
    "        How many kernel builds infer, bench and export run at once (1 to 16;\n"
    "        default: one a processor, at most 16).\n"
    "    CONVGEN_PROGRAM\n"
    "        The convgen program the library's cg_tune runs (src/api/convgen.h),\n"
    "        instead of convgen on PATH.\n"
    "    CONVGEN_FAULT\n"
    "        For the test suite: crash:S, hang:S or hold:S (comma-separated) make\n"
    "        tune's worker crash or hang on every candidate of strategy S;\n"
    "        lost:FILE makes workers that start find no device (docs/tune.md);\n"
    "        nolaunch:NODE makes the first point infer or export chose for the\n"
    "        convolution NODE without building it fail to launch (docs/onnx.md).\n"
    "    OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK\n"
    "        Set by mpirun: tune is then one rank of several (docs/tune.md).\n"
    "\n"
    "EXIT STATUS\n"
    "    One code per kind of error (each command's help says which it uses):\n"
    "    0 success; 1 the answer is no (a check that did not pass, nothing found\n"
    "    or recorded); 2 bad input (a usage error; a malformed program, layer,\n"
    "    point, option or file; no device matching --device); 3 a rejected point\n"
    "    (a strategy's point that its domains, its constraints or the lowering's\n"
    "    legality refuse); 4 a device failure (no OpenCL device, a build or launch\n"
    "    that failed, a device lost); 134 (abort, 'internal error at FILE:LINE')\n"
    "    a bug in convgen.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen devices\n"
    "    convgen compile examples/ir/matmul_naive.cg -p M=64 -p N=48 -p K=80\n"
    "    convgen run examples/ir/matmul_naive.cg -p M=64 -p N=48 -p K=80 --device pocl\n"
    "    convgen space examples/ir/matmul_tiled.cg -p M=2048 -p N=2048 -p K=2048\n"
    "    convgen run vgg16.conv5_1 --strategy direct\n";

static const char help_devices[] =
    "NAME\n"
    "    convgen devices - list the OpenCL (and CUDA) devices with their limits\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen devices [--profiles]\n"
    "\n"
    "DESCRIPTION\n"
    "    Prints one block per OpenCL device of every platform the ICD loader finds:\n"
    "    its index, platform, name, type, driver, OpenCL C version, compute units,\n"
    "    clock, work-group and work-item limits, local and global memory and the\n"
    "    largest allocation. Then a line names the device that 'convgen run' uses\n"
    "    by default: $CONVGEN_DEVICE if set, else the first GPU, else the first device.\n"
    "    Last, the devices of the CUDA target (--target cuda: through the CUDA\n"
    "    driver and NVRTC), or a line saying why there are none here.\n"
    "\n"
    "OPTIONS\n"
    "    --profiles\n"
    "        List the device profiles instead (no OpenCL needed): GPUs convgen has\n"
    "        no device for, whose limits --profile NAME gives to 'convgen space',\n"
    "        'compile', 'gen' and 'export'. Each block: the name, the device, its\n"
    "        vendor and architecture, OpenCL version, work-group and work-item\n"
    "        limits, local memory, preferred float vector width, registers per\n"
    "        work-item (where published), the extensions, and where the figures\n"
    "        come from and which are not published but chosen conservatively\n"
    "        (docs/profiles.md).\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 at least one device was found (with --profiles: always); 1 no OpenCL\n"
    "    device (install an ICD, e.g. pocl-opencl-icd); 2 a usage error.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen devices\n"
    "    convgen devices --profiles\n"
    "    CONVGEN_DEVICE=nvidia convgen devices | tail -n 1\n";

static const char help_compile[] =
    "NAME\n"
    "    convgen compile - print the OpenCL C (or CUDA C) for a program\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen compile FILE [-p NAME=VALUE]... [-o OUT] [--target opencl|cuda]\n"
    "                    [--dump-after PASS]... [--dump-all] [--dump-ir]\n"
    "    convgen compile LAYER --strategy S (-p NAME=VALUE... | --random SEED) [-o OUT]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads the program in FILE ('-' reads standard input; the text form is in\n"
    "    docs/ir.md), binds its sizes, infers its types, lowers it to kernels and\n"
    "    prints them as OpenCL C 1.2. The source starts with a comment naming the\n"
    "    program and its sizes, and builds on its own. Every size the program\n"
    "    declares needs a value. The passes are the library's compile pipeline\n"
    "    (docs/design.md); --dump-after shows what any of them made.\n"
    "\n"
    "OPTIONS\n"
    "    -p NAME=VALUE, --param NAME=VALUE\n"
    "        Give the size NAME the value VALUE, a positive integer. Repeat it for\n"
    "        each size.\n"
    "    -o OUT, --output OUT\n"
    "        Write the source to OUT instead of standard output. OUT is replaced\n"
    "        atomically; when compilation fails it is left as it was.\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The language of the source: OpenCL C 1.2 (default), or CUDA C for\n"
    "        NVRTC (or nvcc): the same kernels, each an extern \"C\" __global__\n"
    "        function launched with the work-group size as its block and the\n"
    "        global size over it as its grid, after a prelude that defines what\n"
    "        CUDA lacks of OpenCL C (vector arithmetic, vloadN/vstoreN, math on\n"
    "        vectors). CUDA has float2 and float4 only: a program with wider\n"
    "        vectors is refused (exit 2).\n"
    HELP_STRATEGY
    HELP_DUMP
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the source was written; 2 a usage error, an unreadable FILE or an error\n"
    "    in the program (syntax, names, types, an unbound size, an illegal mapping),\n"
    "    reported as FILE:LINE:COL: message; 3 a layer's point (--strategy) that\n"
    "    the space rejects: outside a domain, breaking a constraint, or refused by\n"
    "    the lowering (an illegal mapping of the strategy's); 4 no OpenCL device to\n"
    "    take the limits from.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen compile examples/ir/matmul_naive.cg -p M=64 -p N=48 -p K=80\n"
    "    convgen compile examples/ir/matmul_naive.cg -p M=512 -p N=512 -p K=512 -o mm.cl\n"
    "    convgen compile examples/ir/matmul_naive.cg -p M=64 -p N=48 -p K=80 --dump-after infer\n"
    "    convgen compile vgg16.conv3_2 --strategy s2 --random 7 --dump-after scalarise >/dev/null\n";

static const char help_run[] =
    "NAME\n"
    "    convgen run - run a program on a device: check it, then time it\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen run FILE [-p NAME=VALUE]... [--device SEL] [--target T] [--sample N] [--runs N]\n"
    "                [--reps R] [--warmup N] [--seed S] [--tol X] [--dump-after PASS]...\n"
    "                [--dump-all] [--dump-ir]\n"
    "    convgen run LAYER --strategy S (-p NAME=VALUE... | --random SEED) [--device SEL] ...\n"
    "\n"
    "DESCRIPTION\n"
    "    Compiles FILE as 'convgen compile' does, then follows the measurement\n"
    "    protocol: fresh random inputs in [-1, 1), output and temporary buffers\n"
    "    poisoned with NaN, every kernel launched once in order, and the output\n"
    "    compared with the float64 reference interpreter by relative L2 error\n"
    "    ||out - ref|| / ||ref|| (absolute when ref is all zeros); any NaN or Inf\n"
    "    fails. Only a correct program is timed: warm-up runs, then timed batches\n"
    "    of R runs queued back to back, each timed by the device from its first\n"
    "    kernel's start to its last kernel's end, over R (the protocol every\n"
    "    method of 'convgen bench' follows).\n"
    "\n"
    "    It prints the program and device, a 'check' line (PASS or FAIL with the\n"
    "    error), a 'time' line (median in microseconds, min, max, spread) and one\n"
    "    line per kernel (its median, spread and ND-range). A failure's reason goes\n"
    "    to standard error.\n"
    "\n"
    "OPTIONS\n"
    "    -p NAME=VALUE, --param NAME=VALUE\n"
    "        Give the size NAME the value VALUE (see 'convgen compile').\n"
    "    -s S, --strategy S\n"
    "        FILE is a convolution layer, and the program is the one strategy S\n"
    "        derives for it (see 'convgen compile'). The check is then against the\n"
    "        plain float64 convolution instead of the interpreter.\n"
    "    --random SEED\n"
    "        With --strategy: run a random point of the layer's space (see 'convgen\n"
    "        compile').\n"
    "    --device SEL\n"
    "        The device: an index from 'convgen devices', or a case-insensitive part\n"
    "        of its platform, vendor or name ('nvidia', 'pocl'), or HOST:PORT: the\n"
    "        OpenCL device a convgen-server serves on another machine ([::1]:PORT\n"
    "        for an IPv6 host; docs/remote.md), its limits and records its own.\n"
    "        Default: $CONVGEN_DEVICE, else the first GPU, else the first device.\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The runtime and the kernels' language: OpenCL (default), or CUDA: the\n"
    "        kernels as CUDA C (see 'convgen compile'), compiled by NVRTC for the\n"
    "        GPU's architecture and run through the CUDA driver, both loaded at\n"
    "        run time (libcuda.so.1; libnvrtc.so, .so.13 or .so.12, or\n"
    "        $CONVGEN_NVRTC); --device then picks among the CUDA devices (an\n"
    "        ordinal or a part of the name). Without them: exit 4, saying which\n"
    "        is missing.\n"
    "    --sample N\n"
    "        Check N random output positions (plus the first and last) instead of\n"
    "        all; for problems too large for the interpreter. 0 checks all (default).\n"
    "    --runs N\n"
    "        Timed batches, at least 10 (default 10).\n"
    "    --reps N\n"
    "        Runs per batch, queued back to back and timed as one span from the\n"
    "        first kernel's start to the last one's end (default: chosen from the\n"
    "        checked run so that a batch spans about 2 ms, 1 to 200 runs).\n"
    "        A batch is queued whole behind a hold before the device starts it,\n"
    "        so its time is the device's, not the rate at which the host queues,\n"
    "        and timed by the first launch's start and a marker after the last,\n"
    "        with no events between its launches (under --target cuda: captured\n"
    "        into a CUDA graph and replayed, as cuDNN's users replay theirs);\n"
    "        each kernel's own time comes from one more batch with an event for\n"
    "        every launch.\n"
    "    --host-paced\n"
    "        Do not hold batches: the device starts on the first launch while the\n"
    "        host still queues the rest (the protocol before round 24); small\n"
    "        kernels then wait for the host between launches. Under --target\n"
    "        cuda, no graph either: every launch on the stream between events.\n"
    "    --warmup N\n"
    "        Untimed runs before timing (default 3).\n"
    "    --seed S\n"
    "        Seed of the random inputs, a positive integer. Default: a fresh one,\n"
    "        printed on the check line so that a failure can be reproduced.\n"
    "    --tol X\n"
    "        Largest passing error. Default: from the output's element type,\n"
    "        1e-4 for fp32, and 1e-4 plus 2^-11 (5.9e-4) for an output stored in\n"
    "        half, whose every value is rounded once (docs/conv.md).\n"
    HELP_DUMP
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the check passed and the program was timed; 1 the check failed (a wrong\n"
    "    result, or a reference that could not be computed); 2 a usage error, an\n"
    "    error in the program (a FILE whose work-group is larger than the kernel's\n"
    "    build allows included), or no such device; 3 a layer's point that the\n"
    "    space rejects, or whose work-group is larger than its build allows; 4 a\n"
    "    build or launch failure on the device, or no device to open.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen run examples/ir/matmul_naive.cg -p M=64 -p N=48 -p K=80\n"
    "    convgen run vgg16.conv3_2 --strategy s2 --random 7 --device nvidia\n"
    "    convgen run examples/ir/matmul_naive.cg -p M=2048 -p N=2048 -p K=2048 \\\n"
    "        --device nvidia --sample 4096 --runs 50\n";

static const char help_space[] =
    "NAME\n"
    "    convgen space - a program's parameter space: constraints, count, samples\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen space FILE [-p NAME=VALUE]... [--param NAME=DOMAIN]...\n"
    "                  [--device SEL] [--check-lowering] [--sample N] [--seed S]\n"
    "    convgen space LAYER --strategy S [--param NAME=DOMAIN]... [--device SEL] ...\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads the program in FILE with the problem sizes given by -p bound; the\n"
    "    sizes left without a value are its tuning parameters. Prints the\n"
    "    parameters in the order they are enumerated, with their domains and the\n"
    "    place the program first uses them; every constraint on them with its\n"
    "    origin; and the number of points (one value per parameter) that meet\n"
    "    every constraint.\n"
    "\n"
    "    Constraints come from the program and the device: split[n] and\n"
    "    asVector[n] on an array of length L need L % n == 0 and n >= 1; slide[s, t]\n"
    "    needs L >= s (windows need not cover L exactly); zip needs equal lengths; an\n"
    "    unrolled nest (mapSeqUnroll, reduceSeqUnroll) may unroll at most 200000\n"
    "    iterations, the lowering's cap on statements per kernel; a work-item's\n"
    "    reduction over an array of accumulators (a register block) holds at most\n"
    "    128 of them; the workgroup line must fit the device's work-group size and\n"
    "    work-item sizes (without one, each mapLcl must fit the work-item size of\n"
    "    its dimension, and a nest of them the work-group size). A\n"
    "    condition that the domains alone make true is listed as implied and not\n"
    "    checked; one that is false for every point makes the space empty, and the\n"
    "    report says which.\n"
    "\n"
    "    Parameters are enumerated in dependency order (a size after the length it\n"
    "    divides), each over its domain in increasing order, and a constraint is\n"
    "    checked as soon as its parameters have values. Parameters that share no\n"
    "    constraint are counted apart and the counts multiplied.\n"
    "\n"
    "OPTIONS\n"
    "    -p NAME=VALUE\n"
    "        Bind the problem size NAME to VALUE (see 'convgen compile').\n"
    "    --param NAME=DOMAIN\n"
    "        The domain of the tuning parameter NAME: LO..HI (every integer from LO\n"
    "        to HI), V1,V2,... (those values) or V (that value only); values are\n"
    "        positive integers. Default: 1..the largest size bound with -p.\n"
    "    -s S, --strategy S\n"
    "        FILE is a convolution layer: the space of the program strategy S\n"
    "        derives for it (see 'convgen compile'). A strategy's choices (the\n"
    "        parallel level of a map: s2's LK, LH, LW; s2's local staging LS and\n"
    "        how it copies the chunks LC, 1 when not given) decide which rules it\n"
    "        applies, so each assignment is a variant with its own program; the\n"
    "        report lists every variant with its parameters, constraints and\n"
    "        points, or the reason it has none (an illegal mapping), then the\n"
    "        total. Tuning parameters get\n"
    "        the strategy's default domains unless --param gives one (--param also\n"
    "        fixes a choice, e.g. --param LK=2): s1 KPG 1..k, WPT 1..output width, SO\n"
    "        1..c*kh*kw; s2 RK and TK 1..k, RW and TW 1..output width, TH 1..output\n"
    "        height, CC 1..c; s3 CG 1..c; dw RH 1..min(output height, 8), RW\n"
    "        1..min(output width, 16); tc RW 1..min(output width, 64), RK\n"
    "        1..min(k, 32) (each rounded up to 16 first), TH 1..min(output\n"
    "        height, 8), CS 1..min(c*kh*kw/8, 16) (LS=2), CB 1..min(c/8, 4) (LS=3;\n"
    "        c/16 in fp16; each rounded up).\n"
    "        --strategy all prints one line per strategy: its usable variants and\n"
    "        its number of points, or why it does not take the layer (dw takes\n"
    "        depthwise layers only).\n"
    "    --device SEL\n"
    "        The device whose limits apply (see 'convgen run'). Default:\n"
    "        $CONVGEN_DEVICE, else the first GPU, else the first device.\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        Take the limits of the target's device (see 'convgen run').\n"
    "    --profile NAME\n"
    "        The limits of the device profile NAME instead (mali-g72, mali-g78,\n"
    "        adreno-640, adreno-740; 'convgen devices --profiles'): the space of a\n"
    "        GPU that is not here, its points and samples within that GPU's\n"
    "        work-group size, work-item sizes and local memory. Not with --device.\n"
    "    --check-lowering\n"
    "        Also lower every point that meets the constraints, each in a child\n"
    "        process with at most 2048 MiB and 60 s, as many at once as there are\n"
    "        CPUs; count those that lower and fit the device (each kernel's local\n"
    "        memory, work-group and work-item sizes, each buffer's size), and the\n"
    "        rejected points per reason, with the first point each reason rejected.\n"
    "        Progress goes to standard error when it is a terminal.\n"
    "    --sample N\n"
    "        Print N distinct points instead of the report, one per line as\n"
    "        '-p NAME=VALUE ...' options that 'convgen run FILE' accepts (the bound\n"
    "        sizes included). When every group of dependent parameters has at\n"
    "        most 2000000 points, they are drawn uniformly without replacement;\n"
    "        otherwise by random descent with backtracking, which favours points\n"
    "        in sparse parts of the space. With --check-lowering, only points that\n"
    "        pass the lowering checks are kept (still uniform among those).\n"
    "    --seed S\n"
    "        Seed of the sampler, a positive integer (default 1): the same seed gives\n"
    "        the same points.\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the report or the points were printed (fewer than N when the space has\n"
    "    fewer; a note on standard error says so); 1 --sample found no point; 2 a\n"
    "    usage error, an error in the program or a domain, or no such device; 4 no\n"
    "    OpenCL device to take the limits from. Points the lowering rejects are\n"
    "    counted in the report, not errors.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen space examples/ir/matmul_tiled.cg -p M=2048 -p N=2048 -p K=2048\n"
    "    convgen space examples/ir/matmul_tiled.cg -p M=256 -p N=256 -p K=256 \\\n"
    "        --param TS=16..128 --param RM=1,2,4,8 --check-lowering --device pocl\n"
    "    convgen space vgg16.conv3_2 --strategy s2 --profile mali-g72\n"
    "    convgen space examples/ir/matmul_tiled.cg -p M=256 -p N=256 -p K=256 \\\n"
    "        --sample 5 --seed 7 | while read -r args; do\n"
    "        convgen run examples/ir/matmul_tiled.cg $args; done\n";

static const char help_gen[] =
    "NAME\n"
    "    convgen gen - write the kernels and their launch description into a folder\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen gen FILE [-p NAME=VALUE]... -o DIR [--target opencl|cuda]\n"
    "                [--dump-after PASS]... [--dump-all] [--dump-ir]\n"
    "    convgen gen LAYER --strategy S (-p NAME=VALUE... | --random SEED) -o DIR\n"
    "                [--target opencl|cuda]\n"
    "\n"
    "DESCRIPTION\n"
    "    Compiles as 'convgen compile' does and writes DIR/kernels.cl (the OpenCL C;\n"
    "    DIR/kernels.cu, the CUDA C for NVRTC, under --target cuda) and\n"
    "    DIR/manifest.json: the kernels in launch order with their ND-ranges and\n"
    "    arguments (under CUDA a kernel's grid is its global size over its local\n"
    "    size, its block the local size), the buffers with their roles and sizes\n"
    "    in bytes, and the parameter values. A host program can run the kernels\n"
    "    from these two files without convgen. DIR is created, with the folders above it, if missing;\n"
    "    a new DIR appears only when both files are written (a failed write, a\n"
    "    full disk, leaves none), in an existing one each file is replaced\n"
    "    atomically, and nothing is written when compilation fails. A new DIR is\n"
    "    written as .DIR.tmp.PID beside it first; one a killed run left (its PID\n"
    "    not running) is removed by the next gen or export into DIR.\n"
    "\n"
    "OPTIONS\n"
    "    -p NAME=VALUE, --param NAME=VALUE\n"
    "        Give the size NAME the value VALUE.\n"
    "    -o DIR, --output DIR\n"
    "        The folder to write into (required; made when missing).\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The kernels' language (default opencl); the limits they meet are those\n"
    "        of --device's OpenCL device either way, as for 'convgen compile'.\n"
    HELP_STRATEGY
    HELP_DUMP
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the files were written; 2 a usage error, an error in the program or a\n"
    "    file that cannot be written; 3 a layer's point (--strategy) that the space\n"
    "    rejects; 4 no OpenCL device to take the limits from.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen gen vgg16.conv3_2 --strategy direct -o out/conv3_2\n"
    "    convgen gen vgg16.conv3_2 --strategy s2 --random 7 -o out/conv3_2\n"
    "    convgen gen vgg16.conv3_2 --strategy s2 --random 7 --profile adreno-640 -o out/a640\n"
    "    convgen gen examples/ir/dot.cg -p N=65536 -o out/dot\n";

static const char help_tune[] =
    "NAME\n"
    "    convgen tune - search for the fastest correct kernels of layers; keep them\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen tune LAYER|NETWORK... [--strategy S|all] [--search random|evolve|model]\n"
    "                [--budget N | --time SECONDS] [--device SEL] [--db PATH]\n"
    "                [--build-timeout SECONDS] [--timeout SECONDS] [--retry-faults AGE]\n"
    "                [--remeasure-unknown] [--cutoff X] [--seed S] [--jobs N]\n"
    "                [--param NAME=DOMAIN]... [--warm-start N] [--transfer N]\n"
    "                [--target opencl|cuda] [--warm-from opencl|cuda]\n"
    "                [--shape NAME=DIMS]...\n"
    "\n"
    "DESCRIPTION\n"
    "    For each layer (a NETWORK, vgg16, alexnet, resnet18, resnet50,\n"
    "    mobilenet_v1 or mobilenet_v2, names all its convolution layers,\n"
    "    identical shapes once; so does a MODEL.onnx, the convolutions of an ONNX\n"
    "    model as 'convgen import' reads them), a search proposes candidates from the\n"
    "    spaces of the chosen strategies, and each is measured: random inputs (one\n"
    "    draw per layer), its output poisoned, checked against the float64\n"
    "    convolution, then timed (3 warm-up runs, then the median of 10 batches\n"
    "    of R runs back to back, as 'convgen run' times them).\n"
    "    Every result is recorded in the database as it is made: correct or not,\n"
    "    with its error, times, status and reason. Candidates run in a worker\n"
    "    process: a build failure, a device limit, a crash or a hang (not built\n"
    "    within --build-timeout, or no result within --timeout of the run) is\n"
    "    recorded and tuning goes on with a fresh worker.\n"
    "\n"
    "    The candidates come in a fixed order for a given --seed and results, and\n"
    "    those already recorded for the device are not measured again (their\n"
    "    recorded result is used), so a tune that was stopped (Ctrl-C, kill -9: at\n"
    "    most the candidate in flight is lost) resumes when run again. A crash or\n"
    "    a hang is a record like the others, not measured again unless\n"
    "    --retry-faults says so.\n"
    "\n"
    "    Each record keeps a hash of the kernels it measured (their source, the\n"
    "    driver's build options, their ND-ranges). A recorded candidate whose\n"
    "    kernels this convgen makes differently (the compiler changed since) is\n"
    "    measured again, and the new result replaces the record. Finding that out\n"
    "    compiles the candidate on the host (a lowering and an emission, no\n"
    "    device). A record made before the database kept the hash (schema 1,\n"
    "    migrated to 2 when a tune first opens it) is taken as it is, unless\n"
    "    --remeasure-unknown says otherwise.\n"
    "\n"
    "    Under mpirun ('mpirun -np N convgen tune ...', Open MPI) the N ranks share\n"
    "    the layers (rank r tunes layers r, r+N, ...), each on the device --device\n"
    "    selects on its host; rank 0 alone writes the database (the others send\n"
    "    it their measurements) and prints the table. The ranks must see the same\n"
    "    database file.\n"
    "\n"
    "    Progress goes to standard error: on a terminal a live line (candidates, the\n"
    "    best time so far, the rate, the time left), otherwise one line per\n"
    "    candidate. At the end, the best kernel of each layer is printed as a table:\n"
    "    strategy, median time, GFLOP/s, error, measurements, and the point (give it\n"
    "    to 'convgen run LAYER --strategy S' with -p to run it again).\n"
    "\n"
    "OPTIONS\n"
    "    -s S, --strategy S\n"
    "        Search strategy S only (direct, s1, s2, s3, dw, tc, wino), or all of\n"
    "        them (default; a strategy that does not take a layer, dw a dense one,\n"
    "        tc one without a bias, wino one of stride 2, is passed over).\n"
    "    --search random|evolve|model\n"
    "        evolve (default): a quarter of the budget (at least 8) random, then\n"
    "        mostly mutations of the fastest correct candidates (one parameter\n"
    "        moved to a neighbouring or any valid value, or one in four times one\n"
    "        choice moved, the shared parameters kept), one candidate in five\n"
    "        still random: a strategy, then a variant, drawn first, each by its\n"
    "        results so far (strategies and choice values far behind the best\n"
    "        get a small share), then a point of it. random: every strategy's\n"
    "        points drawn uniformly among those that pass the lowering, the\n"
    "        strategies in turn (the baseline).\n"
    "        model: evolve's start, then each candidate the best of a pool of 24\n"
    "        mutations and 8 random points as a cost model predicts it (boosted\n"
    "        regression trees over the strategy, variant and parameters, refitted\n"
    "        on every result), one in five still random.\n"
    "    --param NAME=DOMAIN\n"
    "        Search only the points whose choice or parameter NAME is in DOMAIN:\n"
    "        LO..HI, V1,V2,... or V, as 'convgen space --param' gives it (LX=2:\n"
    "        s2's split-K variants only). Every strategy searched must have NAME.\n"
    "    --warm-start N\n"
    "        evolve and model begin from the N fastest records of the layer on the\n"
    "        device (those that are points of the spaces searched): they count as\n"
    "        measured, the mutations start from them at once, and they are not\n"
    "        measured again. Default 0: a fresh walk from the seed. The walk then\n"
    "        depends on the records at its start, so a stopped tune resumes\n"
    "        without walking the same candidates (none is measured twice).\n"
    "        --budget counts the records: a layer with 20 gets 10 more with\n"
    "        --budget 30.\n"
    "    --warm-from opencl|cuda\n"
    "        Measure first the N fastest records (--warm-start N, default 8) of\n"
    "        the same GPU (by name) under the other target, then search from\n"
    "        them: a tune under --target cuda starts from what OpenCL found.\n"
    "    --transfer N\n"
    "        For a layer with no correct record on the device yet: measure first\n"
    "        the N fastest records (default 3; 0: none) of each of the six\n"
    "        layers tuned on the device most like it (the same window, stride\n"
    "        and grouping first, then the nearest channel and output sizes),\n"
    "        where their points are points of this layer's spaces: a network's\n"
    "        layers tuned one after another start from the tiles that won on\n"
    "        the layers before. Recorded with search 'transfer'.\n"
    "        Before these (not with --search random), a layer with no correct\n"
    "        record measures its default point, the point infer and export run\n"
    "        for it untuned (docs/tune.md, 'Untuned layers'), so a short tune\n"
    "        never leaves a layer slower than it ran untuned. Recorded with\n"
    "        search 'default'.\n"
    "    --budget N\n"
    "        Candidates per layer, counting those already recorded (default 20 when\n"
    "        --time is not given): a layer with N candidates of the strategies\n"
    "        searched recorded on the device gets no new one, so the same tune\n"
    "        run again measures nothing (with --jobs too); a larger N adds the\n"
    "        difference.\n"
    "    --time SECONDS\n"
    "        Stop after SECONDS of wall-clock time; the layers share it evenly (each\n"
    "        gets its share of what is left). With --budget too, whichever ends first.\n"
    "        A layer with no correct kernel on the device goes on past its share, and\n"
    "        past SECONDS, until its first correct one (10 s more at most), so that\n"
    "        no layer of a network is left without one.\n"
    "    --device SEL\n"
    "        The device (see 'convgen run'). Records are kept per device, identified\n"
    "        by its platform, name, driver and limits.\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The runtime and the kernels' language (see 'convgen run'). A CUDA\n"
    "        device is a device of its own in the database (platform CUDA), so\n"
    "        the two targets' records stay apart.\n"
    "    --shape NAME=D1xD2x...\n"
    "        For a MODEL.onnx argument (the convolutions of an ONNX model, see\n"
    "        'convgen import'): the shape of its graph input NAME.\n"
    "    --db PATH\n"
    "        The database, a SQLite file (made when missing, with the folders\n"
    "        its path names). Default:\n"
    "        $CONVGEN_DB, else $XDG_DATA_HOME/convgen/tune.db, else\n"
    "        $HOME/.local/share/convgen/tune.db; with none of the three set, --db\n"
    "        is needed. Its schema is in docs/tune.md.\n"
    "    --build-timeout SECONDS\n"
    "        The build's limit: a candidate not built within SECONDS of being sent\n"
    "        to its worker is a hang, and the worker is killed (default 120). The\n"
    "        build is the OpenCL compiler's (on the CPU, for a GPU too), with the\n"
    "        random inputs drawn and, for a layer's first candidate in a worker,\n"
    "        its float64 reference computed.\n"
    "    --timeout SECONDS\n"
    "        The run's limit: a built candidate whose check and timing on the\n"
    "        device give no result within SECONDS is a hang, and its worker is\n"
    "        killed (default 120). With --jobs, the wait for the device (another\n"
    "        worker measuring) is counted by neither limit.\n"
    "    --retry-faults AGE\n"
    "        Measure again the candidates recorded as crash or hang on the device\n"
    "        at least AGE seconds before this tune began (0: any from before it);\n"
    "        the new result replaces the record. A record this tune makes is not\n"
    "        retried by it, so a fault is measured again once per tune at most.\n"
    "        For faults that may have been transient: a driver that recovered, a\n"
    "        machine that was loaded. By default they are never measured again.\n"
    "    --remeasure-unknown\n"
    "        Measure again the candidates whose record does not say which kernels\n"
    "        it measured (made before the database kept their hash); the new\n"
    "        result, with its hash, replaces the record. By default such records\n"
    "        are used as they are.\n"
    "    -j N, --jobs N\n"
    "        N workers (1 to 64): each builds its candidate while the others do,\n"
    "        and they take turns on the device (a lock file in $TMPDIR or /tmp),\n"
    "        so only one candidate is checked or timed at a time. For a GPU, where\n"
    "        building (the OpenCL compiler, on the CPU) takes longer than\n"
    "        measuring; not for a CPU device, whose timing the builds would\n"
    "        disturb. Default: on a GPU one per online CPU, at most 16; on a CPU\n"
    "        device 1. The search then sees results in the order the measurements\n"
    "        end, so a rerun may walk other candidates (none is measured twice).\n"
    "    --cutoff X\n"
    "        A correct candidate whose checked run took more than X times the best\n"
    "        time so far (and more than 1 ms) is recorded as slow and not timed\n"
    "        (default 10; 0: time every correct candidate).\n"
    "    --seed S\n"
    "        Seed of the search, a positive integer (default 1). The inputs of a\n"
    "        layer's candidates are drawn from a seed derived from it and the layer\n"
    "        (one for all of them, so that their float64 reference is computed once).\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 every layer has a correct kernel recorded; 1 some layer has none; 2 a\n"
    "    usage error, a bad layer, no such device, or the database cannot be used;\n"
    "    4 the device cannot be used. A worker that cannot start after a crash or a\n"
    "    hang (the device gone) is tried again 4 times over 15 s; when the device\n"
    "    stays lost, the tune stops, prints the table of what is recorded, says so\n"
    "    and exits 4. Candidates that fail (rejected, wrong, a build failure, a\n"
    "    crash) are recorded with their status, not errors.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen tune vgg16.conv3_2 --budget 50 --device nvidia\n"
    "    convgen tune vgg16.conv4_2 --strategy s2 --param LX=2 --warm-start 8 --time 60\n"
    "    convgen tune vgg16 --time 600 --device nvidia\n"
    "    convgen tune 'n=1,c=16,h=28,w=28,k=32' --strategy s2 --db /tmp/t.db\n"
    "    mpirun -np 2 convgen tune vgg16 --search evolve --budget 100\n";

static const char help_best[] =
    "NAME\n"
    "    convgen best - the best kernel recorded for layers on a device\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen best LAYER|NETWORK... [--device SEL] [--db PATH] [--shape NAME=DIMS]...\n"
    "\n"
    "DESCRIPTION\n"
    "    Prints, for each layer, the fastest correct measurement that 'convgen\n"
    "    tune' recorded on the device: strategy, median time, GFLOP/s, relative\n"
    "    error, how many candidates were measured, and the point. When nothing\n"
    "    is recorded under the device's driver but the same hardware has records\n"
    "    under another driver, those are used, with a warning naming both.\n"
    "    A record whose kernels differ from those this convgen makes for its\n"
    "    point (by the hash the record keeps: the compiler changed since it was\n"
    "    measured) is still shown, with a warning naming the layer and both\n"
    "    hashes: its time is the old kernels' ('convgen tune' measures it again).\n"
    "    export and bench warn the same way. A damaged record (its strategy not\n"
    "    one convgen has, or its point not a point of that strategy for the\n"
    "    layer: the candidates table edited by hand) is passed over with a\n"
    "    warning that names it, and the fastest sound record is shown.\n"
    "\n"
    "OPTIONS\n"
    "    --device SEL\n"
    "        The device (see 'convgen run').\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The records of the target's device (a CUDA device's are its own).\n"
    "    --shape NAME=D1xD2x...\n"
    "        For a MODEL.onnx argument (the convolutions of an ONNX model, see\n"
    "        'convgen import'): the shape of its graph input NAME.\n"
    "    --db PATH\n"
    "        The database (see 'convgen tune').\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 every layer has a record; 1 some layer has none, or there is no\n"
    "    database; 2 a usage error, a bad layer, no such device, or a database\n"
    "    that cannot be read; 4 no OpenCL device.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen best vgg16 --device nvidia\n";

static const char help_export[] =
    "NAME\n"
    "    convgen export - the best kernels, or a whole model, with a C host program\n"
    "    that runs them\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen export LAYER|NETWORK... -o DIR [--device SEL] [--db PATH]\n"
    "                   [--target opencl|cuda] [--profile NAME]\n"
    "    convgen export MODEL.onnx -o DIR [--input FILE.pb]... [--seed N]\n"
    "                   [--device SEL] [--db PATH] [--target opencl|cuda]\n"
    "                   [--shape NAME=DIMS]... [--untuned default|nearest]\n"
    "                   [--memory lean|fast] [-v]\n"
    "    convgen export --layers MODEL.onnx|LAYER|NETWORK... -o DIR [...]\n"
    "\n"
    "DESCRIPTION\n"
    "    For layers: takes the fastest correct record of each layer on the device\n"
    "    (see 'convgen best'), derives and lowers its kernels again, and writes into\n"
    "    DIR: NAME_I.cl and NAME_I.json for layer I (0, 1, ...; NAME is the layer's\n"
    "    name with every character but letters and digits an '_', e.g.\n"
    "    alexnet_conv5_0.cl: the OpenCL C and its launch description, as 'convgen\n"
    "    gen' writes them); convgen_kernels.h and\n"
    "    convgen_kernels.c, which embed the kernels and build and launch them\n"
    "    through OpenCL without convgen (cgk_create, cgk_run, cgk_release; NCHW\n"
    "    input, KCRS weights, NCHW output; cgk_run_residual for a layer with\n"
    "    residual=1, its NCHW residual too); example.c, which runs every layer on\n"
    "    random inputs, checks the output against a float64 convolution and times\n"
    "    it; and a Makefile for the example ('make && ./example'). When some layer\n"
    "    has no record nothing is written.\n"
    "\n"
    "    A MODEL.onnx, alone, is exported whole: it runs on the device as 'convgen\n"
    "    infer' runs it (each convolution's best record in the database, else its\n"
    "    default point, or with --untuned nearest a similar tuned layer's point\n"
    "    first; every other operator's program of the IR), on the --input\n"
    "    tensors, else on random ones (uniform in [-1, 1) from --seed), and what\n"
    "    that run took is written into DIR:\n"
    "    NODE_I.cl, each distinct kernel source (NODE the first node that runs\n"
    "    it); weights.bin, every array the kernels read (the convolutions'\n"
    "    weights and biases with their batch norms folded in, the other\n"
    "    operators' constants) as float32 little-endian; input_K.bin and\n"
    "    output_K.bin, the run's inputs and the outputs it computed, in the same\n"
    "    form; convgen_net.h and convgen_net.c, which embed the sources and a\n"
    "    launch table and build, bind and run the network without convgen\n"
    "    (cgn_create, cgn_enqueue, cgn_run, cgn_release) on the device buffers\n"
    "    infer planned by liveness; main.c, a program that runs it and checks its\n"
    "    outputs against output_K.bin (relative L2 error at most 1e-4: PASS, else\n"
    "    FAIL and exit 1; in fp16 or tf32 within the bound infer takes), or with\n"
    "    -i IN (.npy, or raw float32) runs it on other inputs (-o writes the\n"
    "    outputs, .npy or raw); and a Makefile ('make && ./network'). In fp16\n"
    "    every tensor is half on the device, as infer ran it: the files stay\n"
    "    float32, and the program rounds the weights and the inputs to half as it\n"
    "    uploads them and widens the outputs. Prints the device memory: the\n"
    "    activations' buffers, the weights, the temporaries. A model infer does\n"
    "    not run, or one whose program would be compiled with values that come\n"
    "    from its inputs (a Clip's bounds given as graph inputs), is refused.\n"
    "    With --layers a model stands for its distinct convolutions, as above.\n"
    "\n"
    "    A new DIR, and the folders above it, are made; it appears only when every\n"
    "    file is written (a failed write, a full disk, leaves none). In an\n"
    "    existing DIR each file is replaced atomically, and none when the export\n"
    "    fails. A new DIR is written as .DIR.tmp.PID beside it first; one a\n"
    "    killed export left (its PID not running) is removed by the next gen or\n"
    "    export into DIR, a running one's is kept.\n"
    "\n"
    "OPTIONS\n"
    "    -o DIR, --output DIR\n"
    "        The folder to write into (required; made when missing).\n"
    "    --device SEL\n"
    "        The device whose records to take, and a model's device (see 'convgen\n"
    "        run').\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        The records of the device under this target (default opencl). With\n"
    "        cuda the kernels are CUDA C (.cu) and the host code\n"
    "        compiles them with NVRTC for the device's architecture at run time\n"
    "        and launches them through the CUDA driver API, each with the grid\n"
    "        and block convgen measured; the Makefile links libcuda and libnvrtc\n"
    "        from $(CUDA) (default /usr/local/cuda).\n"
    "    --profile NAME\n"
    "        Write kernels for the device profile NAME ('convgen devices\n"
    "        --profiles'), a GPU that is not here: the records are still those of\n"
    "        the device (the default one, or $CONVGEN_DEVICE), and each layer\n"
    "        gets the fastest of its 64 fastest records whose point the profile's\n"
    "        limits allow, lowered again and checked against them; the kernels'\n"
    "        first comment names the profile. A layer with none exits 1. Not with\n"
    "        --device, nor for a model exported whole.\n"
    "    --input FILE.pb\n"
    "        A model's graph input, once per input in order (see 'convgen infer':\n"
    "        an int64 or int32 input is bound as a constant from its file).\n"
    "    --seed N\n"
    "        Without --input: the random inputs' seed (default 1).\n"
    "    --layers\n"
    "        A MODEL.onnx argument stands for its distinct convolutions: their best\n"
    "        kernels are exported as layers, with other LAYER|NETWORK arguments.\n"
    "    --shape NAME=D1xD2x...\n"
    "        For a MODEL.onnx argument: the shape of its graph input NAME (see\n"
    "        'convgen import').\n"
    "    --db PATH\n"
    "        The database (see 'convgen tune'). A model without one runs each\n"
    "        layer's default point; a --db that is not a convgen database (another\n"
    "        program's file, a damaged one, a folder, one it cannot read) is\n"
    "        refused (exit 2) before anything is run or written.\n"
    HELP_UNTUNED
    HELP_MEMORY
    "    -v, --verbose\n"
    "        For a model: say on standard error which kernel each node runs.\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the files were written; 1 some layer has no record, or a model's node\n"
    "    failed to build or run; 2 a usage error, a bad layer, a model export does\n"
    "    not take, no such device, or a file that cannot be read or written; 4 no\n"
    "    device (for --target cuda: no CUDA driver or NVRTC).\n"
    "\n"
    "EXAMPLES\n"
    "    convgen export vgg16 -o vgg16-kernels --device nvidia\n"
    "    convgen export vgg16 -o vgg16-cuda --target cuda\n"
    "    CONVGEN_DEVICE=nvidia convgen export vgg16 -o vgg16-mali --profile mali-g78\n"
    "    convgen export resnet50.onnx --input x.pb -o resnet50-net\n"
    "    make -C resnet50-net && resnet50-net/network\n";

static const char help_import[] =
    "NAME\n"
    "    convgen import - read an ONNX model: its graph and convolution layers as\n"
    "    convgen sees them\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen import MODEL.onnx [--shape NAME=D1xD2x...]... [--input FILE.pb]...\n"
    "    convgen import --operators\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads MODEL.onnx (an ONNX ModelProto, IR version 3 or later, operators of\n"
    "    the default domain), infers the shape of every tensor node by node, and\n"
    "    prints the model (IR version, opset, producer), its inputs and outputs\n"
    "    (initializers excluded) and every node: its operator, name and output\n"
    "    shape; a convolution as the layer spec convgen tunes and runs it\n"
    "    (docs/conv.md), with the BatchNormalization folded into its bias, a\n"
    "    residual Add (of its output and a value of its shape made before it:\n"
    "    residual=1, the value named) and the activation (Relu, Clip, LeakyRelu,\n"
    "    Sigmoid, HardSwish, HardSigmoid, or x * Sigmoid(x) and\n"
    "    x * HardSigmoid(x) as act=silu and act=hardswish) fused into it when\n"
    "    its output alone feeds them (those nodes say which node they are fused\n"
    "    into). An elementwise node whose output one elementwise node alone\n"
    "    reads is computed in that node's kernel: it says which node it is\n"
    "    fused into, and that node's line lists what it computes ('computing\n"
    "    +Div +Erf ...'). The last line counts the convolutions and the\n"
    "    distinct layers. A Gemm whose B is an initializer (transA 0, alpha 1,\n"
    "    C one value per column) is listed and run as a 1x1 convolution layer;\n"
    "    a MatMul whose B is an initializer is one too (docs/onnx.md);\n"
    "    Constant nodes, and Identity nodes of initializers, become\n"
    "    initializers and are not listed. A ConvTranspose is listed as the\n"
    "    nodes it is derived into: a layout node inserting zeros into its input\n"
    "    (and one computing its weights when they are not constants), then a\n"
    "    Conv whose line says it came from a ConvTranspose.\n"
    "    The operators read are those --operators lists (Conv with every\n"
    "    attribute: group, dilations, pads, strides, auto_pad, an absent bias;\n"
    "    Dropout in inference). Any other operator, an attribute out of range,\n"
    "    inputs of shapes an operator does not take, weights that are not\n"
    "    initializers, or a convolution outside convgen's layer limits is\n"
    "    refused with the node, its operator and the reason.\n"
    "    'convgen infer' runs the whole network, 'convgen export' writes it\n"
    "    with a host program (docs/onnx.md).\n"
    "\n"
    "OPTIONS\n"
    "    --shape NAME=D1xD2x...\n"
    "        The shape of graph input NAME, for one whose dimensions are symbolic\n"
    "        ('batch') or absent, or to override them: --shape input=1x3x224x224.\n"
    "        Repeatable; a NAME the graph has no input of is an error.\n"
    "    --input FILE.pb\n"
    "        A graph input's values, once per input, in order (see 'convgen\n"
    "        infer'): an int64 or int32 input is bound as a constant from its file\n"
    "        and listed so; the others' files are not read here.\n"
    "    --operators\n"
    "        List the operators convgen claims instead of reading a model (no\n"
    "        MODEL.onnx): a line each, in the order of the operator table\n"
    "        (src/onnx/ops.c; docs/onnx.md), after a header line: its ONNX name,\n"
    "        its role (convolution, elementwise, affine, reduction, contraction,\n"
    "        layout, view or constant) and what a node of it becomes when a model\n"
    "        runs: a convolution's kernels, a program of the IR (where infer\n"
    "        refuses some nodes of it, such as a MaxPool's Indices, it says so),\n"
    "        a view that moves no data, folded at import, not run by infer; what\n"
    "        import rewrites a node of it into (ConvTranspose); and what fuses\n"
    "        into a convolution that it follows (a batch norm into its weights,\n"
    "        an activation or a residual Add into its store).\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the model was read (or the operators listed); 2 a usage error, a file\n"
    "    that cannot be read, not an ONNX model, or a model convgen does not take\n"
    "    (the message says which node and why).\n"
    "\n"
    "EXAMPLES\n"
    "    convgen import resnet50.onnx\n"
    "    convgen import mobilenet_v2.onnx --shape input=1x3x224x224\n"
    "    convgen import --operators | grep elementwise\n";

static const char help_infer[] =
    "NAME\n"
    "    convgen infer - run an ONNX model on the device with the generated kernels\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen infer MODEL.onnx --input FILE.pb... [-o OUT.pb]... [--expect FILE.pb]...\n"
    "                  [--device SEL] [--target opencl|cuda] [--db PATH] [--shape NAME=DIMS]...\n"
    "                  [--runs N] [--untuned default|nearest] [--memory lean|fast]\n"
    "                  [--precision fp32|fp16|tf32] [-v]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads MODEL.onnx as 'convgen import' does and runs its nodes in order on\n"
    "    the device, each as kernels convgen generates: a convolution with the\n"
    "    batch norm folded into its weights and bias and the activation in its\n"
    "    kernel, as the layer's best record in the database (--db) when there is\n"
    "    one for this device; else its record on the same GPU under the other\n"
    "    target; else (with --untuned nearest) the best point of the most alike\n"
    "    tuned layer that is a point of its space; else its default point,\n"
    "    chosen without measuring by rules on the layer's shape and the\n"
    "    device's limits (dw for a depthwise layer, s1 for one output pixel,\n"
    "    else s2 staged in local memory; see docs/tune.md, \"Untuned layers\");\n"
    "    and the direct strategy's kernel only when none of those compiles. When some convolutions have no record of\n"
    "    their own, a note on standard error says how many, what they ran\n"
    "    instead and the 'convgen tune' command that tunes them. Every other\n"
    "    operator ('convgen import --operators' lists them) runs as a program of\n"
    "    the IR written for the node (docs/onnx.md), a view (Identity, Dropout,\n"
    "    Flatten, Reshape, Squeeze, Unsqueeze) moves no data, and the shape\n"
    "    arithmetic of constants is computed at import. A node whose attributes infer\n"
    "    does not take is refused before anything runs, with the node and the\n"
    "    reason (exit 2). Inputs and outputs are serialized ONNX TensorProto files\n"
    "    (float32 or float16; the format of ONNX's own test data) or numpy's .npy\n"
    "    files (np.save's: float32, float16, or float64 rounded to float32, in C\n"
    "    order; known by their first bytes), the inputs in the graph's order,\n"
    "    initializers excluded. A model in float16 runs as it is, in fp16 (its\n"
    "    tensors read as float32, each half exactly, and kept as half on the\n"
    "    device; --precision fp32 computes it in float32). The values stay on\n"
    "    the device between nodes, in buffers planned by liveness: a value's\n"
    "    buffer is taken by a later one once its last reader has run; only the\n"
    "    graph's inputs are written and its outputs read back. Prints the device\n"
    "    memory this takes (the activations' buffers against every value in a\n"
    "    buffer of its own, the weights, and the nodes' temporaries: split-K's\n"
    "    partial sums, each in an activation buffer free while its node runs, or\n"
    "    else in a slot shared by the nodes, which run one after another), each\n"
    "    output's shape, and with --expect its relative L2 error against the\n"
    "    given tensor.\n"
    "\n"
    "OPTIONS\n"
    "    --input FILE.pb\n"
    "        A graph input's values, once per input, in order. An input of integer\n"
    "        type (int64 or int32: a Reshape's shape, a Slice's starts, a Gather's\n"
    "        indices, as ONNX's node tests give them) is bound as a constant of the\n"
    "        model from its file at import, as if it were an initializer: the\n"
    "        shape arithmetic folds it and the model is specialised to it (-v says\n"
    "        so); the file must hold a tensor of the input's type and shape (a\n"
    "        TensorProto, not a .npy file). Such an input without its file is\n"
    "        refused.\n"
    "    -o OUT.pb, --output OUT.pb\n"
    "        Where to write a graph output, once per output, in order (none: not\n"
    "        written): a .npy file (float32) when OUT ends in .npy, else a\n"
    "        TensorProto. Each file is written atomically. An output written\n"
    "        nowhere has its first 8 values printed, and, when it is a row of\n"
    "        scores (1 x N or N, N >= 5: a classifier's), its 5 largest with\n"
    "        their indices (top-5).\n"
    "    --expect FILE.pb\n"
    "        The values a graph output should have, once per output: PASS when\n"
    "        the relative L2 error is at most 1e-4 (in fp16: the bound below),\n"
    "        else FAIL and exit 1.\n"
    "    --device SEL, --target opencl|cuda\n"
    "        The device (see 'convgen run').\n"
    "    --db PATH\n"
    "        The database of tuned kernels (see 'convgen tune'); none: every\n"
    "        convolution runs its default point. One that is not a convgen\n"
    "        database (another program's file, a damaged one, a folder, one it\n"
    "        cannot read) is refused (exit 2) before the device is used.\n"
    HELP_UNTUNED
    HELP_MEMORY
    "    --precision fp32|fp16|tf32\n"
    "        The element type of every tensor in device memory: fp32 (default;\n"
    "        fp16 for a model in float16), or fp16: the inputs rounded to half as\n"
    "        they are uploaded, the weights\n"
    "        (batch norms folded in first) converted once, every node's output\n"
    "        stored as half and the outputs widened to float32 when read back;\n"
    "        every sum and function computed in fp32. The activations' and the\n"
    "        weights' memory halves. Each convolution is its fp16 layer\n"
    "        (precision=fp16), whose records 'convgen tune MODEL.onnx --precision\n"
    "        fp16' makes. --expect then passes within 1e-4 plus 2^-11 for each\n"
    "        rounding to half on the output's longest path from an input (each\n"
    "        node's output, a convolution's weights, the input): the first-order\n"
    "        bound where each node's gain is about 1 (docs/onnx.md). tf32: float\n"
    "        in memory, each convolution its tf32 layer (precision=tf32), whose\n"
    "        products may round their operands to TF32 (2^-11 each): --expect\n"
    "        passes within 1e-4 plus 2^-11 for each of those roundings on the\n"
    "        longest path, two a convolution.\n"
    "    --shape NAME=D1xD2x...\n"
    "        The shape of graph input NAME (see 'convgen import').\n"
    "    --runs N\n"
    "        Also time the whole network, after the checked run: warm-up, then N\n"
    "        batches (at least 10) of R runs back to back, R chosen so that a batch\n"
    "        spans about 2 ms, each batch timed whole by the device with no events\n"
    "        between its launches (the protocol of 'convgen run' and 'convgen\n"
    "        bench'); prints, after the outputs' lines, the median time a run with\n"
    "        its spread, the sum of the nodes' own times (one more batch, an event\n"
    "        on every launch) and the slowest node, then those times summed by\n"
    "        operator, the largest first, each with its share (-v: first a table\n"
    "        of every node in order, its kernels a run, time, share and kernel:\n"
    "        tuned, or not and what it ran instead).\n"
    "    -v, --verbose\n"
    "        Say on standard error which kernel each node runs (and with --runs,\n"
    "        on standard output, each node's time).\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the model ran (and every --expect passed); 1 an output differs from its\n"
    "    --expect, or a node failed to build or run; 2 a usage error, a file that\n"
    "    cannot be read or written, or a model infer does not run; 4 no device,\n"
    "    or the device failed while the model ran.\n"
    "\n"
    "EXAMPLES\n"
    "    D=/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding\n"
    "    convgen infer $D/model.onnx --input $D/test_data_set_0/input_0.pb \\\n"
    "        --input $D/test_data_set_0/input_1.pb --expect $D/test_data_set_0/output_0.pb\n";

static const char help_bench[] =
    "NAME\n"
    "    convgen bench - the tuned kernels side by side with a naive kernel,\n"
    "    CLBlast's im2col+GEMM and cuDNN: time and memory\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen bench LAYER|NETWORK... [--device SEL] [--db PATH] [--csv FILE]\n"
    "                  [--plot FILE.svg] [--budget N] [--runs N] [--reps R]\n"
    "                  [--warmup N] [--seed N] [--untuned default|nearest]\n"
    "                  [--memory lean|fast] [--shape NAME=DIMS]...\n"
    "\n"
    "DESCRIPTION\n"
    "    Runs, in one process on one device, for each layer (NETWORK is vgg16,\n"
    "    alexnet, resnet18, resnet50, mobilenet_v1 or mobilenet_v2: their\n"
    "    convolution layers, identical shapes once):\n"
    "      convgen  the three best kernels 'convgen tune' recorded for the layer on\n"
    "               the device, each measured here, the fastest kept (a record's\n"
    "               time is its lease's: machines of one kind differ by a few per\n"
    "               cent); a layer with none is first tuned briefly (--budget\n"
    "               candidates, evolve search), and bench says so\n"
    "      naive    the direct strategy: one work-item per output, its window\n"
    "               summed in a loop\n"
    "      clblast  im2col then SGEMM through CLBlast (libclblast.so.1, loaded at\n"
    "               run time; $CONVGEN_CLBLAST names another file), then a bias and\n"
    "               ReLU kernel when the layer has them\n"
    "      cudnn    cuDNN's forward convolution, as its best users get it: every\n"
    "               forward algorithm in FMA math (no TF32; for a precision=fp16\n"
    "               layer half tensors summed in float on tensor cores, for a\n"
    "               precision=tf32 layer float tensors in default math, TF32,\n"
    "               each in NCHW and in NHWC), each with bias and ReLU fused into\n"
    "               cudnnConvolutionBiasActivationForward and as the convolution\n"
    "               followed by cudnnAddTensor and cudnnActivationForward, each\n"
    "               called on a stream and replayed from a CUDA graph; the\n"
    "               fastest correct one counts and its row names it (every\n"
    "               one's time goes to standard error). NVIDIA\n"
    "               devices only, through the CUDA driver (libcuda.so.1) and\n"
    "               libcudnn.so.9, loaded at run time ($CONVGEN_CUDNN names the\n"
    "               cuDNN file)\n"
    "    Every method is checked first: fresh random inputs (one set per layer,\n"
    "    the same for every method), the output poisoned with NaN, the result\n"
    "    compared with a float64 convolution (relative L2 error at most 1e-4,\n"
    "    no NaN); a wrong result gets no time. Then one timing protocol for\n"
    "    every method: warm-up runs, then --runs batches of R runs queued back\n"
    "    to back, each batch timed by the device from the start of its first\n"
    "    kernel to the end of its last (gaps between kernels included), over R;\n"
    "    the median over the batches, with the spread. R (--reps) is by default\n"
    "    chosen from the checked run so that a batch spans about 2 ms (1 to 200\n"
    "    runs). OpenCL methods are timed by their events' timestamps, each batch\n"
    "    queued whole behind a hold before the device starts it (the counterpart\n"
    "    of replaying a CUDA graph; with no events between their launches: the\n"
    "    first one's start to a marker's end); cuDNN by CUDA events on its\n"
    "    stream, called and replayed from a CUDA graph; convgen and naive under\n"
    "    --target cuda by CUDA events around the batch captured into a graph,\n"
    "    uploaded, then replayed.\n"
    "    A method that cannot run (library missing, not an NVIDIA device) says\n"
    "    why in its row and the others go on.\n"
    "\n"
    "    Per layer and method: the median time and its spread ((max - min) /\n"
    "    median), GFLOP/s (2 n k out_h out_w c kh kw / time), the time over\n"
    "    convgen's (above 1: convgen is faster), the error, and the device memory\n"
    "    the method allocates: input, weights, bias, output, and beyond them the\n"
    "    partial sums (convgen's s3), the im2col buffer (CLBlast) or the workspace\n"
    "    (cuDNN; CLBlast's own GEMM temporaries are not visible and not counted).\n"
    "    A summary gives each baseline's geometric-mean time over\n"
    "    convgen's, on how many layers convgen was faster, and the memory ratios.\n"
    "    A MODEL.onnx argument is also run whole after its layers: every node on\n"
    "    the device on random inputs, as 'convgen infer' runs it (each layer's\n"
    "    best kernel, its default point where none is tuned), each operator's\n"
    "    program first checked against the float64 interpreter on random inputs,\n"
    "    then the network timed by the same protocol, a run being every node's\n"
    "    kernels in order ('convgen infer --runs': --runs batches after 3\n"
    "    warm-up runs, R chosen by the protocol; --reps, --warmup and\n"
    "    --host-paced apply to the layers only); with its device memory (the\n"
    "    activations' planned buffers against every value in a buffer of its own).\n"
    "    Progress goes to standard error, the tables to standard output.\n"
    "\n"
    "OPTIONS\n"
    "    --device SEL\n"
    "        The device (see 'convgen run').\n"
    HELP_PRECISION
    "    --target opencl|cuda\n"
    "        convgen's and the naive kernels' runtime and language (see 'convgen\n"
    "        run'): under cuda they run as CUDA C through NVRTC, CLBlast (an\n"
    "        OpenCL library) does not run, and the records are the CUDA device's.\n"
    "    --shape NAME=D1xD2x...\n"
    "        For a MODEL.onnx argument (the convolutions of an ONNX model, see\n"
    "        'convgen import'): the shape of its graph input NAME.\n"
    "    --db PATH\n"
    "        The tuning database (see 'convgen tune'); made when missing, with\n"
    "        the folders its path names.\n"
    HELP_UNTUNED
    HELP_MEMORY
    "    --csv FILE\n"
    "        Also write every figure as CSV: one row per layer and method; for a\n"
    "        MODEL.onnx then the network's row (method network: a run's time, its\n"
    "        memory) and one per node in order (method node: its own time, its\n"
    "        kernel in detail). bench/table.py makes the tables of them.\n"
    "    --plot FILE\n"
    "        Also draw time (log scale) and memory per layer and method as SVG.\n"
    "    --budget N\n"
    "        Candidates for a layer that has no tuned kernel yet (default 20).\n"
    "    --runs N\n"
    "        Timed batches per method (default 20, at least 10).\n"
    "    --reps N\n"
    "        Runs per timed batch, back to back (default: chosen so that a batch\n"
    "        spans about 2 ms, 1 to 200 runs).\n"
    "    --host-paced\n"
    "        OpenCL methods' batches not held until queued whole (see 'convgen\n"
    "        run'): the protocol before round 24, for comparison.\n"
    "    --warmup N\n"
    "        Untimed runs after the check (default 3).\n"
    "    --seed N\n"
    "        Seed of the inputs (default 1; each layer draws its own from it).\n"
    "\n"
    "    Files are written whole or not at all, the CSV and the plot both or\n"
    "    neither; their folders are checked before anything is measured. A layer\n"
    "    with no tuned kernel needs the database writable; otherwise it is only\n"
    "    read.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 convgen's kernel of every layer is correct; 1 some layer has no correct\n"
    "    kernel; 2 a usage error, a bad layer, no such device, or the database or an\n"
    "    output file cannot be used; 4 the device cannot be used (as tune's). A\n"
    "    baseline that is missing or wrong does not change the status: its row\n"
    "    says so.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen bench vgg16 --device nvidia --csv vgg16.csv --plot vgg16.svg\n"
    "    convgen bench alexnet.conv3 'n=1,c=64,h=56,w=56,k=64,pad=1' --runs 50\n";

static const char help_worker[] =
    "NAME\n"
    "    convgen worker - (internal) the process tune measures candidates in\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen worker [--target opencl|cuda] [--device SEL] [--lock FILE]\n"
    "\n"
    "DESCRIPTION\n"
    "    Opens the device, prints 'ready<TAB>DEVICE', then reads one request per\n"
    "    line on standard input, LAYER<TAB>STRATEGY<TAB>POINT<TAB>SEED (POINT as\n"
    "    'NAME=V NAME=V ...'), measures that candidate and prints one line:\n"
    "    result<TAB>STATUS<TAB>ERROR<TAB>MEDIAN_US<TAB>MIN_US<TAB>MAX_US<TAB>SPREAD\n"
    "    <TAB>RUNS<TAB>REASON. Before it, 'built' once the candidate is built (and\n"
    "    its reference computed) and 'measuring' once it has the device: where\n"
    "    tune's watchdog moves from --build-timeout to --timeout. It ends at the\n"
    "    end of its input. 'convgen tune' starts it; it is documented for\n"
    "    debugging.\n"
    "\n"
    "OPTIONS\n"
    "    --target opencl|cuda\n"
    "        The runtime and the kernels' language (see 'convgen run').\n"
    "    --device SEL\n"
    "        The device (see 'convgen run').\n"
    "    --lock FILE\n"
    "        Share the device with other workers (tune --jobs): between 'built'\n"
    "        and 'measuring', wait for a write lock on FILE (fcntl); release it\n"
    "        once the candidate is checked and timed.\n"
    "    -h, --help\n"
    "        Show this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 at the end of its input; 4 when the device (or the device lock) cannot\n"
    "    be opened.\n";

static const char help_help[] =
    "NAME\n"
    "    convgen help - show the help of a command\n"
    "\n"
    "SYNOPSIS\n"
    "    convgen help [COMMAND]\n"
    "\n"
    "DESCRIPTION\n"
    "    Prints the help of COMMAND (devices, compile, run, space, gen, tune, best,\n"
    "    export, worker, help), or the overview of convgen without one. 'convgen\n"
    "    COMMAND --help' prints the same.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the help was printed; 2 no such command.\n"
    "\n"
    "EXAMPLES\n"
    "    convgen help run\n";

/* ---- command line ------------------------------------------------------------------ */

typedef enum Cmd {
  CMD_DEVICES = 1, CMD_COMPILE = 2, CMD_RUN = 4, CMD_HELP = 8, CMD_SPACE = 16, CMD_GEN = 32, CMD_TUNE = 64,
  CMD_BEST = 128, CMD_WORKER = 256, CMD_EXPORT = 512, CMD_BENCH = 1024, CMD_IMPORT = 2048, CMD_INFER = 4096,
} Cmd;

typedef enum OptId {
  O_HELP, O_PARAM, O_OUTPUT, O_DUMP_IR, O_DUMP_AFTER, O_DUMP_ALL, O_DERIVATION, O_DEVICE, O_SAMPLE, O_RUNS, O_WARMUP, O_SEED, O_TOL,
  O_DOMAIN, O_CHECK_LOWERING, O_POINTS, O_STRATEGY, O_RANDOM, O_BUDGET, O_TIME, O_DB, O_TIMEOUT, O_TUNE_STRATEGY, O_SEARCH, O_CUTOFF,
  O_CSV, O_PLOT, O_JOBS, O_LOCK, O_REPS, O_HOST_PACED, O_WARM_START, O_TRANSFER, O_UNTUNED, O_MEMORY, O_SHAPE, O_INPUT, O_EXPECT, O_VERBOSE, O_TARGET, O_WARM_FROM, O_BUILD_TIMEOUT, O_RETRY_FAULTS, O_REMEASURE_UNKNOWN, O_PROFILE, O_PROFILES, O_LAYERS,
  O_OPERATORS, O_PRECISION,
} OptId;

typedef struct OptSpec {
  OptId id;
  const char *shrt;    // "-p" or NULL
  const char *lng;     // "--param" or NULL
  bool arg;            // takes a value
  unsigned cmds;       // the commands that accept it
} OptSpec;

/* An option's meaning may depend on the command: for `space`, -p binds a
 * problem size and --param gives a tuning parameter's domain. */
static const OptSpec opt_specs[] = {
    {O_HELP, "-h", "--help", false,
     CMD_DEVICES | CMD_COMPILE | CMD_RUN | CMD_HELP | CMD_SPACE | CMD_GEN | CMD_TUNE | CMD_BEST | CMD_WORKER | CMD_EXPORT |
         CMD_BENCH | CMD_IMPORT},
    {O_TUNE_STRATEGY, "-s", "--strategy", true, CMD_TUNE},
    {O_SHAPE, NULL, "--shape", true, CMD_IMPORT | CMD_TUNE | CMD_BEST | CMD_BENCH | CMD_EXPORT | CMD_INFER},
    {O_INPUT, NULL, "--input", true, CMD_INFER | CMD_EXPORT | CMD_IMPORT},
    {O_EXPECT, NULL, "--expect", true, CMD_INFER},
    {O_VERBOSE, "-v", "--verbose", false, CMD_INFER | CMD_EXPORT},
    {O_LAYERS, NULL, "--layers", false, CMD_EXPORT},
    {O_OPERATORS, NULL, "--operators", false, CMD_IMPORT},
    {O_BUDGET, NULL, "--budget", true, CMD_TUNE | CMD_BENCH},
    {O_SEARCH, NULL, "--search", true, CMD_TUNE},
    {O_CUTOFF, NULL, "--cutoff", true, CMD_TUNE},
    {O_TIME, NULL, "--time", true, CMD_TUNE},
    {O_TIMEOUT, NULL, "--timeout", true, CMD_TUNE},
    {O_BUILD_TIMEOUT, NULL, "--build-timeout", true, CMD_TUNE},
    {O_RETRY_FAULTS, NULL, "--retry-faults", true, CMD_TUNE},
    {O_REMEASURE_UNKNOWN, NULL, "--remeasure-unknown", false, CMD_TUNE},
    {O_JOBS, "-j", "--jobs", true, CMD_TUNE},
    {O_LOCK, NULL, "--lock", true, CMD_WORKER},
    {O_DB, NULL, "--db", true, CMD_TUNE | CMD_BEST | CMD_EXPORT | CMD_BENCH | CMD_INFER},
    {O_CSV, NULL, "--csv", true, CMD_BENCH},
    {O_PLOT, NULL, "--plot", true, CMD_BENCH},
    {O_PARAM, "-p", "--param", true, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_STRATEGY, "-s", "--strategy", true, CMD_COMPILE | CMD_RUN | CMD_SPACE | CMD_GEN},
    {O_PARAM, "-p", NULL, true, CMD_SPACE},
    {O_DOMAIN, NULL, "--param", true, CMD_SPACE | CMD_TUNE},
    {O_WARM_START, NULL, "--warm-start", true, CMD_TUNE},
    {O_TRANSFER, NULL, "--transfer", true, CMD_TUNE},
    {O_UNTUNED, NULL, "--untuned", true, CMD_INFER | CMD_EXPORT | CMD_BENCH},
    {O_MEMORY, NULL, "--memory", true, CMD_INFER | CMD_EXPORT | CMD_BENCH},
    {O_WARM_FROM, NULL, "--warm-from", true, CMD_TUNE},
    {O_OUTPUT, "-o", "--output", true, CMD_COMPILE | CMD_GEN | CMD_EXPORT | CMD_INFER},
    {O_DUMP_IR, NULL, "--dump-ir", false, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_DUMP_AFTER, NULL, "--dump-after", true, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_DUMP_ALL, NULL, "--dump-all", false, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_DERIVATION, NULL, "--derivation", false, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_DEVICE, NULL, "--device", true,
     CMD_RUN | CMD_SPACE | CMD_COMPILE | CMD_GEN | CMD_TUNE | CMD_BEST | CMD_WORKER | CMD_EXPORT | CMD_BENCH | CMD_INFER},
    {O_PROFILE, NULL, "--profile", true, CMD_SPACE | CMD_COMPILE | CMD_GEN | CMD_EXPORT},
    {O_TARGET, NULL, "--target", true,
     CMD_COMPILE | CMD_GEN | CMD_RUN | CMD_TUNE | CMD_WORKER | CMD_SPACE | CMD_BEST | CMD_BENCH | CMD_EXPORT | CMD_INFER},
    {O_PROFILES, NULL, "--profiles", false, CMD_DEVICES},
    {O_PRECISION, NULL, "--precision", true,
     CMD_COMPILE | CMD_GEN | CMD_RUN | CMD_SPACE | CMD_TUNE | CMD_BEST | CMD_BENCH | CMD_EXPORT | CMD_INFER},
    {O_RANDOM, NULL, "--random", true, CMD_COMPILE | CMD_RUN | CMD_GEN},
    {O_SAMPLE, NULL, "--sample", true, CMD_RUN},
    {O_POINTS, NULL, "--sample", true, CMD_SPACE},
    {O_RUNS, NULL, "--runs", true, CMD_RUN | CMD_BENCH | CMD_INFER},
    {O_REPS, NULL, "--reps", true, CMD_RUN | CMD_BENCH},
    {O_HOST_PACED, NULL, "--host-paced", false, CMD_RUN | CMD_BENCH},
    {O_WARMUP, NULL, "--warmup", true, CMD_RUN | CMD_BENCH},
    {O_SEED, NULL, "--seed", true, CMD_RUN | CMD_SPACE | CMD_TUNE | CMD_BENCH | CMD_EXPORT},
    {O_TOL, NULL, "--tol", true, CMD_RUN},
    {O_CHECK_LOWERING, NULL, "--check-lowering", false, CMD_SPACE},
};

/* Everything the command line says. */
enum { MAX_SHAPES = 32 };

typedef struct Opts {
  Cmd cmd;
  const char *cmd_name;
  int npos;
  const char **pos;            // positional arguments
  int nbind;
  const char **bnames;         // -p names
  int64_t *bvals;              // -p values
  const char *output;          // -o
  bool dump_ir;                // --dump-ir: the parse dump without its banner
  int ndump;
  const char **dump;           // --dump-after PASS, in the order given
  bool dump_all;               // --dump-all
  bool derivation;             // --derivation: the rules a strategy applied
  const char *device;          // --device (NULL: default)
  const char *profile;         // --profile NAME: the limits of a device profile (rt.h), not a device's
  const Dialect *target;       // --target opencl|cuda (NULL: OpenCL): the language
  const char *target_name;     // and its name, the runtime's target (NULL: "opencl")
  bool profiles;               // devices --profiles
  MeasOptions meas;
  int ndomains;
  SpaceDomain *domains;        // space --param
  bool check_lowering;         // space --check-lowering
  int64_t points;              // space --sample (0: the report)
  const char *strategy;        // --strategy: FILE is a layer, the program is derived
  uint64_t random;             // --random SEED: a random point of the layer's space (0: none)
  const char *tune_strategy;   // tune --strategy: a name or "all"
  int64_t budget;              // tune --budget (0: none)
  double time_s;               // tune --time (0: none)
  int64_t timeout_s;           // tune --timeout
  int64_t build_timeout_s;     // tune --build-timeout
  int64_t retry_age_s;         // tune --retry-faults AGE (-1: not given)
  bool remeasure_unknown;      // tune --remeasure-unknown
  int64_t jobs;                // tune --jobs
  const char *lock;            // worker --lock
  const char *db;              // --db (NULL: the default path)
  SearchKind search;           // tune --search
  int64_t cutoff;              // tune --cutoff (0: off)
  int warm_start;              // tune --warm-start N
  int transfer;                // tune --transfer N (-1: not given, the default)
  bool memory_fast;            // --memory fast: a tuned layer's fastest record, whatever its temporaries
  bool untuned_nearest;        // --untuned nearest: an untuned layer runs a similar tuned layer's point, else its
                               // default point (default: its default point)
  const char *shapes[MAX_SHAPES];   // import --shape NAME=DIMS
  int nshapes;
  const char *ins[MAX_SHAPES], *outs[MAX_SHAPES], *expects[MAX_SHAPES];   // infer --input, -o, --expect
  int nins, nouts, nexpects;
  bool verbose;                // infer -v
  bool layers;                 // export --layers: a MODEL.onnx's convolutions, not the network
  bool precision_given;        // --precision P: every layer's precision (a spec's own must agree)
  LayerPrecision precision;
  bool operators;              // import --operators: the operator table, not a model
  const char *warm_from;       // tune --warm-from TARGET
  const char *csv;             // bench --csv
  const char *plot;            // bench --plot
  bool runs_given;             // --runs was given
} Opts;

static int usage_error(const Opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const Opts *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("convgen: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (o && o->cmd_name) fprintf(stderr, "\ntry 'convgen %s --help'\n", o->cmd_name);
  else fputs("\ntry 'convgen --help'\n", stderr);
  return EXIT_USAGE;
}

static bool parse_i64(const char *s, int64_t *out) {
  if (!*s || isspace((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static bool is_ident(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
  return true;
}

/* -p NAME=VALUE */
static int add_param(Arena *a, Opts *o, const char *opt, const char *v) {
  const char *eq = strchr(v, '=');
  if (!eq) return usage_error(o, "%s %s: expected NAME=VALUE", opt, v);
  size_t n = (size_t)(eq - v);
  if (!is_ident(v, n)) return usage_error(o, "%s %s: '%.*s' is not a size name", opt, v, (int)n, v);
  int64_t val;
  if (!parse_i64(eq + 1, &val)) return usage_error(o, "%s %s: '%s' is not an integer", opt, v, eq + 1);
  if (val < 1) return usage_error(o, "%s %s: a size must be at least 1", opt, v);
  char *name = arena_strndup(a, v, n);
  for (int i = 0; i < o->nbind; i++)
    if (strcmp(o->bnames[i], name) == 0) return usage_error(o, "%s %s: size '%s' is given twice", opt, v, name);
  o->bnames[o->nbind] = name;
  o->bvals[o->nbind++] = val;
  return 0;
}

/* --dump-after PASS: one of the compile pipeline's passes. */
static int add_dump(Opts *o, const char *opt, const char *v) {
  if (!cp_is_pass(v)) {
    const char *names[32];
    int n = cp_pass_names(names, 32);
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < n; i++) sb_printf(&sb, "%s%s", i ? ", " : "", names[i]);
    int rc = usage_error(o, "%s %s: no such pass; the passes are %s", opt, v, sb_str(&sb));
    sb_free(&sb);
    return rc;
  }
  o->dump[o->ndump++] = v;
  return 0;
}

/* The values of --param NAME=V1,V2,...: positive integers. */
static int domain_values(Arena *a, const Opts *o, const char *opt, const char *v, const char *list, SpaceDomain *dm) {
  int n = 1;
  for (const char *q = list; *q; q++) n += *q == ',';
  int64_t *vals = ARENA_ARRAY(a, int64_t, n);
  const char *q = list;
  for (int i = 0; i < n; i++) {
    size_t len = strcspn(q, ",");
    char *item = arena_strndup(a, q, len);
    if (!parse_i64(item, &vals[i]) || vals[i] < 1)
      return usage_error(o, "%s %s: '%s' is not a positive integer", opt, v, item);
    q += len + 1;
  }
  dm->nvalues = n;
  dm->values = vals;
  return 0;
}

/* --param NAME=LO..HI, NAME=V1,V2,... or NAME=V (space). */
static int add_domain(Arena *a, Opts *o, const char *opt, const char *v) {
  const char *eq = strchr(v, '=');
  if (!eq) return usage_error(o, "%s %s: expected NAME=LO..HI, NAME=V1,V2,... or NAME=V", opt, v);
  size_t n = (size_t)(eq - v);
  if (!is_ident(v, n)) return usage_error(o, "%s %s: '%.*s' is not a size name", opt, v, (int)n, v);
  SpaceDomain *dm = &o->domains[o->ndomains];
  *dm = (SpaceDomain){.name = arena_strndup(a, v, n)};
  for (int i = 0; i < o->ndomains; i++)
    if (strcmp(o->domains[i].name, dm->name) == 0)
      return usage_error(o, "%s %s: '%s' is given twice", opt, v, dm->name);
  const char *dots = strstr(eq + 1, "..");
  if (!dots) {
    int rc = domain_values(a, o, opt, v, eq + 1, dm);
    if (!rc) o->ndomains++;
    return rc;
  }
  char *lo = arena_strndup(a, eq + 1, (size_t)(dots - eq - 1));
  if (!parse_i64(lo, &dm->lo) || !parse_i64(dots + 2, &dm->hi))
    return usage_error(o, "%s %s: expected LO..HI with integers LO and HI", opt, v);
  if (dm->lo < 1 || dm->lo > dm->hi) return usage_error(o, "%s %s: want 1 <= LO <= HI", opt, v);
  o->ndomains++;
  return 0;
}

/* An integer option value in [lo, hi]; `what` says what the limit means. */
static int int_value(const Opts *o, const char *opt, const char *v, int64_t lo, int64_t hi, const char *what,
                     int64_t *out) {
  if (!parse_i64(v, out)) return usage_error(o, "%s %s: not an integer", opt, v);
  if (*out < lo || *out > hi) return usage_error(o, "%s %s: %s", opt, v, what);
  return 0;
}

static int set_option(Arena *a, Opts *o, const OptSpec *s, const char *opt, const char *v) {
  int64_t n = 0;
  int rc = 0;
  switch (s->id) {
  case O_HELP: break;   // handled in main
  case O_PARAM: rc = add_param(a, o, opt, v); break;
  case O_DOMAIN: rc = add_domain(a, o, opt, v); break;
  case O_CHECK_LOWERING: o->check_lowering = true; break;
  case O_POINTS: rc = int_value(o, opt, v, 1, 10000000, "must be 1 to 10000000", &o->points); break;
  case O_OUTPUT:
    if (o->cmd == CMD_INFER) {   // one per graph output
      if (o->nouts == MAX_SHAPES) return usage_error(o, "%s: more than %d", opt, MAX_SHAPES);
      if (!*v) return usage_error(o, "%s: an empty path", opt);
      o->outs[o->nouts++] = v;
    }
    o->output = v;
    break;
  case O_INPUT:
  case O_EXPECT: {
    const char **list = s->id == O_INPUT ? o->ins : o->expects;
    int *count = s->id == O_INPUT ? &o->nins : &o->nexpects;
    if (*count == MAX_SHAPES) return usage_error(o, "%s: more than %d", opt, MAX_SHAPES);
    list[(*count)++] = v;
    break;
  }
  case O_VERBOSE: o->verbose = true; break;
  case O_LAYERS: o->layers = true; break;
  case O_PRECISION: {
    Diag d = {0};
    if (!layer_precision_parse(v, &o->precision, &d)) return usage_error(o, "%s %s: %s", opt, v, d.msg);
    o->precision_given = true;
    break;
  }
  case O_OPERATORS: o->operators = true; break;
  case O_CSV:
  case O_PLOT:
    if (!*v) return usage_error(o, "%s: an empty path", opt);
    *(s->id == O_CSV ? &o->csv : &o->plot) = v;
    break;
  case O_STRATEGY: o->strategy = v; break;
  case O_TUNE_STRATEGY: o->tune_strategy = v; break;
  case O_CUTOFF: rc = int_value(o, opt, v, 0, 1000000, "must be 0 (off) to 1000000", &o->cutoff); break;
  case O_SEARCH:
    if (!search_parse(v, &o->search)) return usage_error(o, "%s %s: the searches are random, evolve and model", opt, v);
    break;
  case O_BUDGET: rc = int_value(o, opt, v, 1, 100000000, "must be 1 to 100000000 candidates per layer", &o->budget); break;
  case O_TIME:
    if (!(rc = int_value(o, opt, v, 1, 100000000, "must be 1 to 100000000 seconds", &n))) o->time_s = (double)n;
    break;
  case O_TIMEOUT: rc = int_value(o, opt, v, 1, 86400, "must be 1 to 86400 seconds", &o->timeout_s); break;
  case O_RETRY_FAULTS: rc = int_value(o, opt, v, 0, 100000000, "must be 0 to 100000000 seconds", &o->retry_age_s); break;
  case O_REMEASURE_UNKNOWN: o->remeasure_unknown = true; break;
  case O_BUILD_TIMEOUT: rc = int_value(o, opt, v, 1, 86400, "must be 1 to 86400 seconds", &o->build_timeout_s); break;
  case O_JOBS: rc = int_value(o, opt, v, 1, TUNE_MAX_JOBS, "must be 1 to 64", &o->jobs); break;
  case O_LOCK: o->lock = v; break;
  case O_DB:
    if (!*v) return usage_error(o, "%s: an empty path", opt);
    o->db = v;
    break;
  case O_RANDOM:
    if (!(rc = int_value(o, opt, v, 1, INT64_MAX, "a seed is a positive integer", &n))) o->random = (uint64_t)n;
    break;
  case O_DUMP_IR: o->dump_ir = true; break;
  case O_DUMP_AFTER: rc = add_dump(o, opt, v); break;
  case O_DUMP_ALL: o->dump_all = true; break;
  case O_SHAPE:
    if (o->nshapes == MAX_SHAPES) return usage_error(o, "%s: more than %d", opt, MAX_SHAPES);
    if (!strchr(v, '=')) return usage_error(o, "%s %s: expected NAME=D1xD2x... (x=1x3x224x224)", opt, v);
    o->shapes[o->nshapes++] = v;
    break;
  case O_DERIVATION: o->derivation = true; break;
  case O_DEVICE:
    if (!*v) return usage_error(o, "%s: an empty selector; give a device index or part of its name ('convgen devices' "
                                "lists them)", opt);
    o->device = v;
    break;
  case O_PROFILE:
    if (!rt_profile_find(v)) {
      Diag d = {0};
      RtDeviceInfo info;
      rt_profile_select(v, &info, &d);
      return usage_error(o, "%s %s: %s", opt, v, d.msg);
    }
    o->profile = v;
    break;
  case O_PROFILES: o->profiles = true; break;
  case O_SAMPLE:
    if (!(rc = int_value(o, opt, v, 0, INT64_MAX, "must be 0 (check all) or more", &n))) o->meas.sample = n;
    break;
  case O_RUNS:
    if (!(rc = int_value(o, opt, v, MEAS_MIN_RUNS, 1000000, "the protocol times 10 to 1000000 runs", &n)))
      o->meas.runs = (int)n, o->runs_given = true;
    break;
  case O_REPS:
    if (!(rc = int_value(o, opt, v, 1, 100000, "a batch is 1 to 100000 runs", &n))) o->meas.reps = (int)n;
    break;
  case O_HOST_PACED: o->meas.host_paced = true; break;
  case O_TARGET:
    if (!(o->target = cg_dialect(v))) return usage_error(o, "%s %s: unknown target (targets: opencl, cuda)", opt, v);
    o->target_name = v;
    break;
  case O_WARM_FROM:
    if (!rt_target_known(v)) return usage_error(o, "%s %s: unknown target (targets: opencl, cuda)", opt, v);
    o->warm_from = v;
    break;
  case O_WARM_START:
    if (!(rc = int_value(o, opt, v, 0, 1000, "must be 0 to 1000 records", &n))) o->warm_start = (int)n;
    break;
  case O_TRANSFER:
    if (!(rc = int_value(o, opt, v, 0, 100, "must be 0 to 100 records per layer", &n))) o->transfer = (int)n;
    break;
  case O_UNTUNED:
    if (strcmp(v, "nearest") != 0 && strcmp(v, "default") != 0)
      return usage_error(o, "%s %s: must be 'default' or 'nearest'", opt, v);
    o->untuned_nearest = strcmp(v, "nearest") == 0;
    break;
  case O_MEMORY:
    if (strcmp(v, "lean") != 0 && strcmp(v, "fast") != 0)
      return usage_error(o, "%s %s: must be 'lean' or 'fast'", opt, v);
    o->memory_fast = strcmp(v, "fast") == 0;
    break;
  case O_WARMUP:
    if (!(rc = int_value(o, opt, v, 0, 1000000, "must be 0 to 1000000", &n))) o->meas.warmup = (int)n;
    break;
  case O_SEED:
    if (!(rc = int_value(o, opt, v, 1, INT64_MAX, "a seed is a positive integer", &n))) o->meas.seed = (uint64_t)n;
    break;
  case O_TOL: {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(x) || x <= 0) return usage_error(o, "%s %s: not a positive number", opt, v);
    o->meas.tol = x;
    break;
  }
  }
  return rc;
}

/* Matches arg against the options of command cmd: "-p X", "-pX", "--param X",
 * "--param=X". Sets *spec and *inline_val (NULL when the value is the next argument). */
static bool match_option(const char *arg, Cmd cmd, const OptSpec **spec, const char **inline_val) {
  for (size_t i = 0; i < sizeof opt_specs / sizeof *opt_specs; i++) {
    const OptSpec *s = &opt_specs[i];
    if (!(s->cmds & cmd)) continue;
    size_t n = s->lng ? strlen(s->lng) : 0;
    *spec = s;
    *inline_val = NULL;
    if ((s->lng && strcmp(arg, s->lng) == 0) || (s->shrt && strcmp(arg, s->shrt) == 0)) return true;
    if (s->lng && strncmp(arg, s->lng, n) == 0 && arg[n] == '=') {   // a value given to a flag is refused later
      *inline_val = arg + n + 1;
      return true;
    }
    if (s->arg && s->shrt && strncmp(arg, s->shrt, 2) == 0 && arg[2]) {
      *inline_val = arg + 2;
      return true;
    }
  }
  return false;
}

/* Parses the arguments after the command name. Returns 0, or the exit status of a usage error. */
static int parse_args(Arena *a, Opts *o, int argc, char **argv) {
  o->pos = ARENA_ARRAY(a, const char *, argc + 1);
  o->bnames = ARENA_ARRAY(a, const char *, argc + 1);
  o->bvals = ARENA_ARRAY(a, int64_t, argc + 1);
  o->domains = ARENA_ARRAY(a, SpaceDomain, argc + 1);
  o->dump = ARENA_ARRAY(a, const char *, argc + 2);
  bool only_pos = false;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (only_pos || arg[0] != '-' || strcmp(arg, "-") == 0) {
      o->pos[o->npos++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      only_pos = true;
      continue;
    }
    const OptSpec *s;
    const char *v;
    if (!match_option(arg, o->cmd, &s, &v)) {
      const char *eq = strchr(arg, '=');
      return usage_error(o, "unknown option '%.*s' for '%s'", eq ? (int)(eq - arg) : (int)strlen(arg), arg,
                         o->cmd_name);
    }
    if (!s->arg && v) return usage_error(o, "option '%s' takes no value", s->lng);
    if (s->arg && !v) {
      if (i + 1 >= argc) return usage_error(o, "option '%s' needs a value", arg);
      v = argv[++i];
    }
    const char *name = !v || v == argv[i] ? arg : v[-1] == '=' ? s->lng : s->shrt;   // "--runs=x" -> "--runs"
    int rc = set_option(a, o, s, name, v);
    if (rc) return rc;
  }
  return 0;
}

/* ---- the pipeline ------------------------------------------------------------------- */

/* "direct, s1, s2, s3, dw, tc": the strategies' names, for messages (in a). */
static const char *strategy_names(Arena *a) {
  int n;
  const Strategy *all = st_strategies(&n);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < n; i++) sb_printf(&sb, "%s%s", i ? ", " : "", all[i].name);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* The program text, in the arena; at most IR_MAX_TEXT bytes. */
static const char *read_program(Arena *a, const char *file, Diag *d) {
  bool is_stdin = strcmp(file, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : file;
  FILE *f = is_stdin ? stdin : fopen(file, "rb");
  if (!f) {
    int err = errno;
    Layer l;
    Diag ld = {0};
    if (err == ENOENT && layer_parse(file, &l, &ld))   // a layer spec where a FILE goes: say what it lacks
      return diag_error(d, "%s: no such file; it reads as a layer spec, which needs --strategy S (%s) to name the "
                        "strategy that derives its kernels", file, strategy_names(a)), NULL;
    return diag_error(d, "%s: cannot open: %s", file, strerror(err)), NULL;
  }
  size_t len = 0;
  char *text = stream_read(f, name, IR_MAX_TEXT, &len, d);
  if (!is_stdin) fclose(f);
  if (!text) return NULL;
  bool nul = strlen(text) != len;
  char *copy = arena_strdup(a, text);
  free(text);
  if (nul) return diag_error(d, "%s: contains a NUL byte; not a program text", name), NULL;
  return copy;
}

/* A layer's name in precision p as the commands print it: with
 * ",precision=P" after it when p is not fp32 and the name does not say. */
static const char *name_in(Arena *a, LayerPrecision p, const char *name) {
  if (p == PREC_FP32 || layer_spec_gives(name, "precision")) return name;
  return arena_printf(a, "%s,precision=%s", name, layer_precision_name(p));
}

/* A layer's name as the commands print it: in --precision's precision. */
static const char *precision_name(Arena *a, const Opts *o, const char *name) {
  return o->precision_given ? name_in(a, o->precision, name) : name;
}

/* The precision a model runs in (infer, bench, export, tune MODEL.onnx):
 * --precision's; else a model in float16 (onnx_in_half: its graph takes
 * float16 inputs) runs as it is, in fp16 (half on the device), and any
 * other in fp32. */
static LayerPrecision model_precision(const Opts *o, const OnnxModel *m) {
  if (o->precision_given) return o->precision;
  return onnx_in_half(m) ? PREC_FP16 : PREC_FP32;
}

/* The layer a spec names, in --precision's precision when given (a spec
 * that gives another itself is an error); false with a Diag. */
static bool layer_of_spec(const Opts *o, const char *spec, Layer *l, Diag *d) {
  if (!layer_parse(spec, l, d)) return false;
  if (!o->precision_given || l->precision == o->precision) return true;
  if (layer_spec_gives(spec, "precision"))
    return diag_error(d, "layer spec '%s' gives precision=%s, and --precision %s another", spec,
                      layer_precision_name(l->precision), layer_precision_name(o->precision));
  layer_set_precision(l, o->precision);
  return true;
}

/* With --strategy: the layer FILE names and the strategy; false with a Diag. */
static bool layer_input(Arena *a, const Opts *o, Layer *layer, const Strategy **st, Diag *d) {
  if (!(*st = st_strategy(o->strategy)))
    return diag_error(d, "unknown strategy '%s' (strategies: %s)", o->strategy, strategy_names(a));
  return layer_of_spec(o, o->pos[0], layer, d);
}

typedef struct Compiled {
  Program *prog;
  LProgram *lp;
  const char *header;
  const char *source;  // the emitted OpenCL C
  bool is_layer;     // derived by a strategy for a convolution layer
  Layer layer;       // then: the layer (the reference is the plain convolution)
  int nchoices;      // and the strategy's choices for this point (not sizes of the program)
  const char *choice_names[ST_MAX_CHOICES];
  int64_t choice_vals[ST_MAX_CHOICES];
} Compiled;


/* The limits the kernels must meet: the profile's with --profile, else the
 * device's that --device (or $CONVGEN_DEVICE, or the default) selects. */
static bool target_info(const Opts *o, RtDeviceInfo *info, Diag *d) {
  if (o->profile) return rt_profile_select(o->profile, info, d);
  // compile and gen only write: their limits are --device's OpenCL device's, whatever the language
  return o->cmd == CMD_COMPILE || o->cmd == CMD_GEN ? rt_select_info(o->device, info, d)
                                                    : rt_select_info_target(o->target_name, o->device, info, d);
}

/* The point of the layer's space that -p or --random picks (ls_pick), as
 * the compile pipeline's input, named with its variant's label; c gets the
 * point's choices. With --derivation the rules applied go to standard error. */
static bool layer_program(Arena *a, const Opts *o, const Layer *l, const Strategy *st, CpInput *in, Compiled *c,
                          Diag *d) {
  RtDeviceInfo info;
  if (!target_info(o, &info, d)) return false;
  const char *lname = arena_printf(a, "%s (strategy %s)", precision_name(a, o, o->pos[0]), st->name);
  LsPoint pt;
  LayerSpace *ls = ls_pick(a, st, l, lname, &info, o->nbind, o->bnames, o->bvals, o->random, &pt, d);
  if (!ls) return false;
  const LsVariant *v = &ls->v[pt.variant];
  *in = ls_point_input(ls, a, &pt);
  if (st->nchoices) in->name = arena_printf(a, "%s (strategy %s; %s)", precision_name(a, o, o->pos[0]), st->name, v->label);
  c->nchoices = st->nchoices;
  for (int i = 0; i < st->nchoices; i++) c->choice_names[i] = st->choices[i].name, c->choice_vals[i] = v->choice[i];
  bool ok = true;
  if (o->derivation) {
    StrBuf log;
    sb_init(&log);
    if ((ok = ls_derivation(ls, a, &pt, &log, d))) fprintf(stderr, "// convgen: derivation of %s\n%s", in->name, sb_str(&log));
    sb_free(&log);
  }
  ls_free(ls);
  return ok;
}

/* A dump of the compile pipeline, to standard error: after a banner line
 * that is a comment in the text form and in the source alike, except for
 * --dump-ir's, which shows the program as it always has. */
static void dump_to_stderr(void *ctx, const char *pass, const char *text) {
  const Opts *o = ctx;
  bool asked = o->dump_all;
  for (int i = 0; i < o->ndump; i++) asked |= strcmp(o->dump[i], pass) == 0;
  if (asked) fprintf(stderr, "// convgen: after %s\n", pass);
  fputs(text, stderr);
}

/* The kernels enable no extension that the device (or profile) whose limits
 * they meet does not report; one that does is refused like a limit. */
static bool uses_reported_extensions(const Opts *o, const char *source, Diag *d) {
  RtDeviceInfo info;
  char name[128];
  if (!target_info(o, &info, d)) return false;
  if (!rt_missing_extension(source, &info, name, sizeof name)) return true;
  return diag_reject(d, "the kernels enable the extension %s, which %s does not report", name, info.name);
}

/* The program FILE, or the layer's point, through the compile pipeline
 * (compile/compile.h) to its source. */
static bool compile_program(Arena *a, const Opts *o, Compiled *c, Diag *d) {
  CpInput in = {strcmp(o->pos[0], "-") == 0 ? "<stdin>" : o->pos[0], NULL, o->nbind, o->bnames, o->bvals};
  const Strategy *st;
  c->is_layer = o->strategy != NULL;
  if (!c->is_layer && o->derivation)
    return diag_error(d, "--derivation needs a LAYER and --strategy S: a program FILE is not derived by a strategy");
  if (c->is_layer ? !layer_input(a, o, &c->layer, &st, d) || !layer_program(a, o, &c->layer, st, &in, c, d)
                  : !(in.text = read_program(a, o->pos[0], d)))
    return false;
  const char **dump = ARENA_ARRAY(a, const char *, (size_t)o->ndump + 1);
  int ndump = o->ndump;
  memcpy(dump, o->dump, sizeof *dump * (size_t)ndump);
  if (o->dump_ir) dump[ndump++] = cp_pass_name(CP_PARSE);
  CpOptions co = {.through = CP_EMIT, .ndump = ndump, .dump = dump, .dump_all = o->dump_all, .dump_to = dump_to_stderr,
                  .dump_ctx = (void *)o, .target = o->target};
  CpResult r;
  bool ok = cp_compile(a, &in, &co, &r, d);
  c->prog = r.prog, c->lp = r.lp, c->header = r.header, c->source = r.source;
  return ok && (!c->is_layer && !o->profile ? true : uses_reported_extensions(o, c->source, d));
}

/* A Diag from the library, as it is. Most name the file and position already;
 * the others get the file's name, so that a line in a batch says which program. */
static void report(const char *file, const Diag *d) {
  if (strcmp(file, "-") == 0) file = "<stdin>";
  if (strncmp(d->msg, file, strlen(file)) == 0)
    fprintf(stderr, "convgen: %s\n", d->msg);
  else
    fprintf(stderr, "convgen: %s: %s\n", file, d->msg);
}

/* ---- commands --------------------------------------------------------------------- */

static int need_file(const Opts *o) {
  if (o->npos == 0) return usage_error(o, "missing FILE");
  if (o->npos > 1) return usage_error(o, "unexpected argument '%s' (one FILE at a time)", o->pos[1]);
  if (o->precision_given && !o->strategy)
    return usage_error(o, "--precision is a layer's (with --strategy S); a program FILE declares its element types "
                          "(input x: [half]N)");
  return 0;
}

static int cmd_devices(Arena *a, const Opts *o) {
  (void)a;
  if (o->npos) return usage_error(o, "unexpected argument '%s'", o->pos[0]);
  if (o->profiles) {
    StrBuf sb;
    sb_init(&sb);
    rt_print_profiles(&sb);
    fputs(sb_str(&sb), stdout);
    sb_free(&sb);
    return fflush(stdout) == 0 ? 0 : EXIT_FAIL;
  }
  Diag d = {0};
  int n = rt_list_devices(NULL, 0, &d);
  if (n <= 0) {
    fprintf(stderr, "convgen: no OpenCL device%s%s (is an ICD such as pocl-opencl-icd installed?)\n",
            d.set ? ": " : "", d.set ? d.msg : "");
    return EXIT_FAIL;
  }
  RtDeviceInfo *devs = calloc((size_t)n, sizeof *devs);
  if (!devs) cg_die("out of memory");
  n = rt_list_devices(devs, n, &d);
  StrBuf sb;
  sb_init(&sb);
  rt_print_devices(&sb, devs, n);
  fputs(sb_str(&sb), stdout);
  sb_free(&sb);
  free(devs);
  Diag dd = {0};
  RtDevice *dev = rt_open(NULL, &dd);
  if (dev) {
    printf("default: device %d (%s)\n", rt_info(dev)->index, rt_info(dev)->name);
    rt_close(dev);
  } else {
    printf("default: none: %s\n", dd.msg);
  }
  // the CUDA target's devices, or why there are none here
  Diag cd = {0};
  RtDeviceInfo cuda[16];
  int nc = rt_list_devices_target("cuda", cuda, 16, &cd);
  if (nc <= 0) {
    printf("CUDA (--target cuda): none: %s\n", cd.set ? cd.msg : "no CUDA device");
  } else {
    sb_init(&sb);
    rt_print_devices(&sb, cuda, nc < 16 ? nc : 16);
    printf("CUDA devices (--target cuda):\n%s", sb_str(&sb));
    sb_free(&sb);
  }
  return fflush(stdout) == 0 ? 0 : EXIT_FAIL;
}

/* The start of compile, run and gen: one FILE, compiled; a non-zero exit
 * status (the error reported) when that fails. */
static int compile_file(Arena *a, const Opts *o, Compiled *c) {
  int rc = need_file(o);
  if (rc) return rc;
  Diag d = {0};
  if (compile_program(a, o, c, &d)) return 0;
  report(o->pos[0], &d);
  return exit_status(d.kind, !o->strategy);
}

/* compile and gen use a device only for a layer's space (layer_program); a
 * --device that matches none is an error for a program too, not ignored. */
static int check_device(const Opts *o, const Compiled *c) {
  Diag d = {0};
  RtDeviceInfo info;
  if (!o->device || c->is_layer || rt_select_info(o->device, &info, &d)) return 0;
  return fail_with(&d);
}

static int cmd_compile(Arena *a, const Opts *o) {
  Compiled c = {0};
  Diag d = {0};
  int rc = compile_file(a, o, &c);
  if (!rc) rc = check_device(o, &c);
  if (rc) return rc;
  const char *src = c.source;
  if (o->output && strcmp(o->output, "-") != 0) {
    bool ok = file_write(o->output, src, strlen(src), &d);
    if (!ok) fprintf(stderr, "convgen: %s\n", d.msg);
    return ok ? 0 : EXIT_USAGE;
  }
  fputs(src, stdout);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "convgen: writing standard output: %s\n", strerror(errno));
    return EXIT_FAIL;
  }
  return 0;
}

static void print_dims(int n, const size_t *v) {
  for (int i = 0; i < n; i++) printf("%s%zu", i ? "x" : "", v[i]);
}

static void print_result(const Compiled *c, const RtDevice *dev, const MeasResult *r) {
  const RtDeviceInfo *di = rt_info(dev);
  printf("program   %s\n", c->header);
  printf("device    %d: %s (%s)\n", di->index, di->name, di->platform);
  bool pass = r->status == MEAS_OK;
  if (isnan(r->error))
    printf("check     FAIL  %s (seed %llu)\n", meas_status_name(r->status), (unsigned long long)r->seed);
  else
    printf("check     %s  %s L2 error %.3g over %lld of %lld outputs (tolerance %.3g, seed %llu)\n",
           pass ? "PASS" : "FAIL", r->error_abs ? "absolute" : "relative", r->error, (long long)r->checked,
           (long long)r->outputs, r->tol, (unsigned long long)r->seed);
  if (!pass) return;
  printf("time      %.1f us median, min %.1f, max %.1f, spread %.1f%% (%d batches of %d runs back to back, after %d "
         "warm-up)\n", r->ms.median * 1e3, r->ms.min * 1e3, r->ms.max * 1e3, r->ms.spread * 100, r->runs, r->reps,
         r->warmup);
  for (int k = 0; k < r->nkernels; k++) {
    const LKernel *lk = c->lp->kernels[k];
    if (r->kernels[k].once)   // computed from the weights alone: once, as a network runs it, not in the time above
      printf("  %-7s %.1f us once (the weights' alone, not in each run), global ", r->kernels[k].name,
             r->kernels[k].ms.median * 1e3);
    else
      printf("  %-7s %.1f us median, spread %.1f%%, global ", r->kernels[k].name, r->kernels[k].ms.median * 1e3,
             r->kernels[k].ms.spread * 100);
    print_dims(lk->work_dim, lk->global);
    fputs(", local ", stdout);
    if (lk->uses_groups) print_dims(lk->work_dim, lk->local);
    else fputs("driver's choice", stdout);
    putchar('\n');
  }
}

static double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

/* What the host holds for a run (measure.c): the inputs as floats, the output
 * read back and its float64 reference; a usage error when that is more than
 * the machine's memory or the process's address-space limit (ulimit -v). */
static int check_host_memory(const Compiled *c) {
  double need = 12.0 * (double)ir_flat_count(c->prog->body->type);
  for (int i = 0; i < c->prog->ninputs; i++) need += 4.0 * (double)ir_flat_count(c->prog->inputs[i]->type);
  double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  const char *what = "this machine has";
  struct rlimit lim;
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && (double)lim.rlim_cur < have)
    have = (double)lim.rlim_cur, what = "this process may use (ulimit -v)";
  if (have <= 0 || need <= have) return 0;
  fprintf(stderr, "convgen: %s: the run needs at least %.0f MiB of host memory (the inputs, the output and its float64 "
          "reference), more than the %.0f MiB %s\n", c->header, mib(need), mib(have), what);
  return EXIT_USAGE;
}

/* Every buffer within the device's largest allocation, all of them within its
 * global memory. */
static int check_device_memory(const Compiled *c, const RtDeviceInfo *di) {
  double total = 0;
  for (int i = 0; i < c->lp->nbuffers; i++) {
    const Mem *m = c->lp->buffers[i];
    double bytes = (double)lw_mem_bytes(m);
    total += bytes;
    if (di->max_alloc && bytes > (double)di->max_alloc)
      return fprintf(stderr, "convgen: %s: buffer '%s' needs %.0f MiB, more than the largest allocation of %s "
                     "(%.0f MiB)\n", c->header, m->name, mib(bytes), di->name, mib((double)di->max_alloc)), EXIT_USAGE;
  }
  if (di->global_mem && total > (double)di->global_mem)
    return fprintf(stderr, "convgen: %s: the buffers need %.0f MiB, more than the global memory of %s (%.0f MiB)\n",
                   c->header, mib(total), di->name, mib((double)di->global_mem)), EXIT_USAGE;
  return 0;
}

/* A run's exit status: 1 when the check did not pass (a wrong result, or a
 * reference or setup that failed), else its error's kind: a failed build or
 * launch is the device's, a work-group over what the build allows a device
 * limit refusing the program (exit_status). */
static int run_status(MeasStatus st, bool users_program) {
  switch (st) {
  case MEAS_OK: return 0;
  case MEAS_BUILD_FAILED:
  case MEAS_LAUNCH_FAILED: return EXIT_DEVICE;
  case MEAS_OVER_LIMIT: return exit_status(DIAG_REJECT, users_program);
  default: return EXIT_FAIL;
  }
}

static int cmd_run(Arena *a, const Opts *o) {
  Compiled c = {0};
  Diag d = {0};
  int rc = compile_file(a, o, &c);
  if (!rc) rc = check_host_memory(&c);
  if (rc) return rc;
  RtDevice *dev = rt_open_target(o->target_name, o->device, &d);
  if (!dev) return fail_with(&d);
  if ((rc = check_device_memory(&c, rt_info(dev)))) {
    rt_close(dev);
    return rc;
  }
  MeasOptions mo = o->meas;
  mo.header = c.header;
  mo.source = c.source;
  if (c.is_layer) {  // a layer is checked against the plain float64 convolution; its filter transform runs once
    mo.reference = conv_reference_fn;
    mo.reference_ctx = &c.layer;
    mo.fixed_inputs = conv_fixed_inputs(c.lp->prog);
  }
  MeasResult r = meas_run(a, dev, c.lp, &mo);
  print_result(&c, dev, &r);
  fflush(stdout);
  if (r.status != MEAS_OK)
    fprintf(stderr, "convgen: %s: %s: %s\n", o->pos[0], meas_status_name(r.status), r.reason);
  rt_close(dev);
  return run_status(r.status, !c.is_layer);
}

/* ---- space ---------------------------------------------------------------------------- */


/* "-p M=256 -p TS=32 ...": the bound sizes, then the point's values. */
static void print_point(const Space *s, const int64_t *vals) {
  for (int i = 0; i < s->in.nbind; i++)
    printf("%s-p %s=%lld", i ? " " : "", s->in.bnames[i], (long long)s->in.bvals[i]);
  for (int i = 0; i < s->nparams; i++)
    printf("%s-p %s=%lld", i || s->in.nbind ? " " : "", s->params[i].name, (long long)vals[i]);
  putchar('\n');
}

static void show_progress(void *ctx, uint64_t done, uint64_t total) {
  (void)ctx;
  if (total) fprintf(stderr, "\rlowering: %llu of %llu points", (unsigned long long)done, (unsigned long long)total);
  else fprintf(stderr, "\rlowering: %llu points", (unsigned long long)done);
  fflush(stderr);
}

static SpaceCheckOptions check_options(void) {
  SpaceCheckOptions co = space_check_defaults();
  if (isatty(2)) co.progress = show_progress;
  return co;
}

static void end_progress(const SpaceCheckOptions *co) {
  if (co->progress) fputs("\r                                                  \r", stderr);
}

static void print_rejects(const Space *s, const SpaceCheck *c) {
  for (int i = 0; i < c->nreasons; i++) {
    const SpaceReason *r = &c->reasons[i];
    printf("  %10llu  %s\n              first:", (unsigned long long)r->count, r->key);
    for (int k = 0; k < s->nparams; k++) printf(" %s=%lld", s->params[k].name, (long long)r->point[k]);
    printf(": %s\n", r->example);
  }
}

/* "0: NAME (PLATFORM)", or "profile mali-g72: Mali-G72 (no device)". */
static const char *device_name(Arena *a, const RtDeviceInfo *dv) {
  if (dv->profile[0]) return arena_printf(a, "profile %s: %s (no device)", dv->profile, dv->name);
  return arena_printf(a, "%d: %s (%s)", dv->index, dv->name, dv->platform);
}

/* The line naming the device (or profile) whose limits a space meets. */
static void print_device(const RtDeviceInfo *dv) {
  Arena *a = arena_new();
  printf("device    %s: work-groups of at most %zu, work-items %zu x %zu x %zu, local memory %llu bytes\n",
         device_name(a, dv), dv->max_wg_size, dv->max_wi_sizes[0], dv->max_wi_sizes[1], dv->max_wi_sizes[2],
         (unsigned long long)dv->local_mem);
  arena_free(a);
}

static void print_header(const Space *s) {
  printf("program   %s", s->in.file);
  for (int i = 0; i < s->in.nbind; i++)
    printf("%s%s=%lld", i ? ", " : ": ", s->in.bnames[i], (long long)s->in.bvals[i]);
  putchar('\n');
  print_device(&s->dev);
}

static int space_report(Space *s, const Opts *o) {
  print_header(s);
  StrBuf sb;
  sb_init(&sb);
  space_print(&sb, s);
  fputs(sb_str(&sb), stdout);
  sb_free(&sb);
  bool exact;
  uint64_t n = space_count(s, &exact), dom = space_domain_size(s);
  printf("points:\n  in the domains           %s%llu\n", dom == UINT64_MAX ? "more than " : "",
         (unsigned long long)dom);
  printf("  meeting the constraints  %s%llu\n", exact ? "" : "at least ", (unsigned long long)n);
  if (!o->check_lowering) return 0;
  SpaceCheckOptions co = check_options();
  SpaceCheck c;
  Diag d = {0};
  bool ok = space_check_all(s, &co, &c, &d);
  end_progress(&co);
  fflush(stdout);
  if (!ok) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  printf("  passing the lowering     %llu (%llu rejected)\n", (unsigned long long)c.passed,
         (unsigned long long)(c.checked - c.passed));
  print_rejects(s, &c);
  return 0;
}

static int space_points(Space *s, const Opts *o) {
  int n = (int)o->points, k;
  uint64_t seed = o->meas.seed ? o->meas.seed : 1;
  int64_t *pts = calloc((size_t)n * (size_t)(s->nparams + 1), sizeof *pts);
  if (!pts) cg_die("out of memory");
  if (o->check_lowering) {
    SpaceCheckOptions co = check_options();
    SpaceCheck c;
    k = space_sample_checked(s, seed, n, pts, &co, &c);
    end_progress(&co);
  } else {
    k = space_sample(s, seed, n, pts);
  }
  for (int i = 0; i < k; i++) print_point(s, pts + (size_t)i * (size_t)s->nparams);
  free(pts);
  fflush(stdout);
  if (k == 0)
    fprintf(stderr, "convgen: %s: no point to sample: %s\n", s->in.file,
            s->empty ? s->empty : o->check_lowering ? "none passes the lowering" : "none meets the constraints");
  else if (k < n)
    fprintf(stderr, "convgen: note: the space has only %d point%s%s\n", k, k == 1 ? "" : "s",
            o->check_lowering ? " that pass the lowering" : "");
  return k ? 0 : EXIT_FAIL;
}

/* gen: the kernels and their launch description, written into a folder. */
static int cmd_gen(Arena *a, const Opts *o) {
  if (o->npos == 1 && !o->output) return usage_error(o, "missing -o DIR (the folder to write into)");
  Compiled c = {0};
  Diag d = {0};
  int rc = compile_file(a, o, &c);
  if (!rc) rc = check_device(o, &c);
  if (rc) return rc;
  // the parameters: a layer's choices first, then the program's sizes
  int np = c.nchoices + c.prog->nsizes;
  int64_t *vals = ARENA_ARRAY(a, int64_t, (size_t)np + 1);
  const char **pnames = ARENA_ARRAY(a, const char *, (size_t)np + 1);
  for (int i = 0; i < c.nchoices; i++) pnames[i] = c.choice_names[i], vals[i] = c.choice_vals[i];
  for (int i = 0; i < c.prog->nsizes; i++) {
    pnames[c.nchoices + i] = c.prog->size_names[i];
    ax_is_cst(c.prog->sizes[i], &vals[c.nchoices + i]);
  }
  const char *src = c.source;
  char *json = cg_manifest_json(c.lp, c.header, np, pnames, vals);
  // the kernels' file is named by their language: OpenCL C, or CUDA C under --target cuda
  const char *kname = o->target_name && strcmp(o->target_name, "cuda") == 0 ? "kernels.cu" : "kernels.cl";
  const char *kpath = arena_printf(a, "%s/%s", o->output, kname), *mpath = arena_printf(a, "%s/manifest.json", o->output);
  DirWrite w;
  bool ok = dir_begin(&w, o->output, &d);
  if (ok && dir_put(&w, kname, src, strlen(src), &d) && dir_put(&w, "manifest.json", json, strlen(json), &d))
    ok = dir_commit(&w, &d);
  else if (ok)
    ok = false, dir_abort(&w);
  free(json);
  if (!ok) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  printf("wrote %s and %s (%d kernel%s)\n", kpath, mpath, c.lp->nkernels, c.lp->nkernels == 1 ? "" : "s");
  return 0;
}

/* space LAYER --strategy S: the variants, each with its parameters,
 * constraints and points, and the total. */
static int layer_space_report(LayerSpace *ls, const Opts *o, const RtDeviceInfo *dv) {
  const Strategy *st = ls->st;
  Arena *a = arena_new();
  printf("layer     %s\n", precision_name(a, o, o->pos[0]));
  arena_free(a);
  printf("strategy  %s: %s\n", st->name, st->summary);
  print_device(dv);
  if (st->nchoices) {
    printf("choices (%d): each assignment is a variant with a program of its own\n", st->nchoices);
    for (int i = 0; i < st->nchoices; i++) {
      printf("  %s  %s:", st->choices[i].name, st->choices[i].meaning);
      for (int v = 0; v < st->choices[i].nvalues; v++) printf(" %d %s%s", v + 1, st->choices[i].labels[v], v + 1 < st->choices[i].nvalues ? "," : "");
      putchar('\n');
    }
  }
  int usable = 0, rc = 0;
  for (int i = 0; i < ls->nvariants; i++) {
    const LsVariant *v = &ls->v[i];
    if (st->nchoices) printf("\nvariant %d: %s\n", i + 1, v->label);
    if (v->space) {
      StrBuf sb;
      sb_init(&sb);
      space_print(&sb, v->space);
      fputs(sb_str(&sb), stdout);
      sb_free(&sb);
    }
    if (v->rejected) {
      printf("no points: %s\n", v->rejected);
      continue;
    }
    usable++;
    printf("points meeting the constraints: %s%llu\n", v->exact ? "" : "at least ", (unsigned long long)v->count);
    if (o->check_lowering) {
      SpaceCheckOptions co = check_options();
      SpaceCheck c;
      Diag d = {0};
      bool ok = space_check_all(v->space, &co, &c, &d);
      end_progress(&co);
      if (!ok) {
        fprintf(stderr, "convgen: %s\n", d.msg);
        rc = EXIT_USAGE;
        continue;
      }
      printf("passing the lowering: %llu (%llu rejected)\n", (unsigned long long)c.passed,
             (unsigned long long)(c.checked - c.passed));
      print_rejects(v->space, &c);
    }
  }
  bool exact;
  uint64_t n = ls_count(ls, &exact);
  printf("\npoints:\n  variants                 %d of %d usable\n  meeting the constraints  %s%llu\n", usable,
         ls->nvariants, exact ? "" : "at least ", (unsigned long long)n);
  return rc;
}

static int layer_space_points(LayerSpace *ls, const Opts *o) {
  int n = (int)o->points;
  LsPoint *pts = calloc((size_t)n, sizeof *pts);
  if (!pts) cg_die("out of memory");
  int k = ls_sample(ls, o->meas.seed ? o->meas.seed : 1, n, pts);
  for (int i = 0; i < k; i++) {
    int nb;
    const char **names;
    int64_t *vals;
    ls_bindings(ls, &pts[i], &nb, &names, &vals);
    for (int j = 0; j < nb; j++) printf("%s-p %s=%lld", j ? " " : "", names[j], (long long)vals[j]);
    putchar('\n');
  }
  free(pts);
  fflush(stdout);
  if (k == 0) fprintf(stderr, "convgen: %s: no point to sample: none passes the lowering\n", ls->name);
  else if (k < n) fprintf(stderr, "convgen: note: the space has only %d point%s that pass the lowering\n", k, k == 1 ? "" : "s");
  return k ? 0 : EXIT_FAIL;
}

/* space LAYER --strategy all: one line per strategy. */
static int layer_space_all(Arena *a, const Opts *o) {
  Diag d = {0};
  Layer layer;
  RtDeviceInfo info;
  if (!layer_of_spec(o, o->pos[0], &layer, &d)) return report(o->pos[0], &d), EXIT_USAGE;
  if (o->ndomains || o->nbind) return usage_error(o, "--strategy all takes no --param or -p (give one strategy)");
  if (o->points) return usage_error(o, "--strategy all does not sample (give one strategy)");
  if (!target_info(o, &info, &d)) return fail_with(&d);
  printf("layer     %s\ndevice    %s\n\n", precision_name(a, o, o->pos[0]), device_name(a, &info));
  printf("%-9s %-9s %-26s  %s\n", "strategy", "variants", "points meeting constraints", "what it derives");
  int n;
  const Strategy *all = st_strategies(&n);
  for (int i = 0; i < n; i++) {
    const char *name = arena_printf(a, "%s (strategy %s)", precision_name(a, o, o->pos[0]), all[i].name);
    LayerSpace *ls = ls_new(a, &all[i], &layer, name, 0, NULL, &info, &d);
    if (!ls) return report(o->pos[0], &d), EXIT_USAGE;
    int usable = 0;
    for (int v = 0; v < ls->nvariants; v++) usable += !ls->v[v].rejected;
    bool exact;
    uint64_t count = ls_count(ls, &exact);
    char variants[32], points[40];
    snprintf(variants, sizeof variants, "%d of %d", usable, ls->nvariants);
    snprintf(points, sizeof points, "%s%llu", exact ? "" : "at least ", (unsigned long long)count);
    if (ls->refused) printf("%-9s %-9s %-26s  %s\n", all[i].name, "-", "-", ls->refused);
    else printf("%-9s %-9s %-26s  %s\n", all[i].name, variants, points, all[i].summary);
    ls_free(ls);
  }
  printf("\n'convgen space %s --strategy S' lists a strategy's parameters and constraints.\n", o->pos[0]);
  return 0;
}

static int cmd_space(Arena *a, const Opts *o) {
  int rc = need_file(o);
  if (rc) return rc;
  Diag d = {0};
  RtDeviceInfo info;
  if (o->strategy && strcmp(o->strategy, "all") == 0) return layer_space_all(a, o);
  if (o->strategy) {
    Layer layer;
    const Strategy *st;
    if (!layer_input(a, o, &layer, &st, &d)) return report(o->pos[0], &d), EXIT_USAGE;
    if (o->nbind) return usage_error(o, "-p binds a program's problem sizes; a layer has none (use --param)");
    if (!target_info(o, &info, &d)) return fail_with(&d);
    const char *name = arena_printf(a, "%s (strategy %s)", precision_name(a, o, o->pos[0]), st->name);
    LayerSpace *ls = ls_new(a, st, &layer, name, o->ndomains, o->domains, &info, &d);
    if (ls && ls->refused) diag_error(&d, "%s: %s", name, ls->refused), ls = NULL;
    if (!ls) return report(o->pos[0], &d), EXIT_USAGE;
    rc = o->points ? layer_space_points(ls, o) : layer_space_report(ls, o, &info);
    ls_free(ls);
    return rc;
  }
  const char *name = strcmp(o->pos[0], "-") == 0 ? "<stdin>" : o->pos[0];
  const char *text = read_program(a, o->pos[0], &d);
  SpaceInput in = {name, text, o->nbind, o->bnames, o->bvals, o->ndomains, o->domains, NULL};
  Space *s = text ? space_new(a, &in, &d) : NULL;
  if (!s) return report(o->pos[0], &d), EXIT_USAGE;   // the program is checked before the device is opened
  space_free(s);
  if (!target_info(o, &info, &d)) return fail_with(&d);
  in.dev = &info;
  s = space_new(a, &in, &d);
  if (!s) return report(o->pos[0], &d), EXIT_USAGE;
  rc = o->points ? space_points(s, o) : space_report(s, o);
  space_free(s);
  return rc;
}

/* ---- tune, best, worker ------------------------------------------------------------ */

enum { MAX_LAYERS = 256 };   // distinct layers one command takes

/* Adds l under name unless a layer of its shape is there (the first name
 * kept); false with a Diag when there are MAX_LAYERS already. */
static bool add_layer(Layer *out, const char **names, int *n, const Layer *l, const char *name, Diag *d) {
  for (int j = 0; j < *n; j++)
    if (layer_equal(&out[j], l)) return true;
  if (*n == MAX_LAYERS) return diag_error(d, "more than %d distinct layers", MAX_LAYERS);
  out[*n] = *l, names[(*n)++] = name;
  return true;
}


/* The layers the arguments name: layers, or networks (vgg16, resnet50, ...) whose
 * identical shapes are kept once; -1 with a Diag on a bad one. */
static int layers_of(Arena *a, const Opts *o, Layer *out, const char **names, Diag *d) {
  int n = 0;
  for (int i = 0; i < o->npos; i++) {
    Layer net[MAX_LAYERS], one;
    size_t len = strlen(o->pos[i]);
    if (len > 5 && strcmp(o->pos[i] + len - 5, ".onnx") == 0) {   // a model: its convolutions
      OnnxModel *m = onnx_load(a, o->pos[i], o->nshapes, o->shapes, d);
      if (!m) return -1;
      const char *mnames[MAX_LAYERS];
      int k = onnx_layers(m, a, net, mnames, MAX_LAYERS);
      if (k > MAX_LAYERS) return diag_error(d, "%s: more than %d distinct layers", o->pos[i], MAX_LAYERS), -1;
      LayerPrecision p = model_precision(o, m);
      for (int j = 0; j < k; j++) {
        layer_set_precision(&net[j], p);
        if (!add_layer(out, names, &n, &net[j], name_in(a, p, mnames[j]), d)) return -1;
      }
      continue;
    }
    int k = layer_network(o->pos[i], net, MAX_LAYERS);
    if (k < 0) {
      if (!layer_of_spec(o, o->pos[i], &one, d) || !add_layer(out, names, &n, &one, precision_name(a, o, o->pos[i]), d))
        return -1;
      continue;
    }
    cg_assert(k <= MAX_LAYERS);
    for (int j = 0; j < k; j++) {
      if (o->precision_given) layer_set_precision(&net[j], o->precision);
      if (!add_layer(out, names, &n, &net[j], arena_strdup(a, net[j].name), d)) return -1;
    }
  }
  return n;
}

/* --db, else the default path; NULL after a usage error when there is none
 * (HOME unset: the database would have gone into the current folder). */
static const char *db_path(Arena *a, const Opts *o) {
  if (o->db) return o->db;
  char *p = db_default_path();
  if (!p) {
    usage_error(o, "no database path: $HOME is not set (nor $XDG_DATA_HOME); give one with --db PATH or $CONVGEN_DB");
    return NULL;
  }
  const char *s = arena_strdup(a, p);
  free(p);
  return s;
}

/* The layers of a command's LAYER|NETWORK... arguments; -1 after the error
 * (none given, or a bad one) is reported. */
static int layer_args(Arena *a, const Opts *o, Layer *layers, const char **names) {
  if (o->npos == 0) return usage_error(o, "missing LAYER or NETWORK"), -1;
  Diag d = {0};
  int n = layers_of(a, o, layers, names, &d);
  if (n < 0) fprintf(stderr, "convgen: %s\n", d.msg);
  return n;
}

static int cmd_tune(Arena *a, const Opts *o) {
  Diag d = {0};
  Layer layers[MAX_LAYERS];
  const char *names[MAX_LAYERS];
  int n = layer_args(a, o, layers, names);
  if (n < 0) return EXIT_USAGE;
  const char *path = db_path(a, o);
  if (!path) return EXIT_USAGE;
  TuneOptions to = {.device = o->device, .db_path = path, .budget = o->budget, .time_s = o->time_s,
                    .timeout_s = (int)o->timeout_s,
                    .build_timeout_s = (int)o->build_timeout_s, .retry_faults = o->retry_age_s >= 0,
                    .retry_age_s = o->retry_age_s, .remeasure_unknown = o->remeasure_unknown, .jobs = (int)o->jobs, .seed = o->meas.seed ? o->meas.seed : 1, .live = isatty(2),
                    .search = o->search, .cutoff = (double)o->cutoff, .ndomains = o->ndomains,
                    .domains = o->domains, .warm_start = o->warm_start, .target = o->target_name,
                    .warm_from = o->warm_from, .transfer = o->transfer >= 0 ? o->transfer : TUNE_TRANSFER_DEFAULT};
  if (to.warm_from && !to.warm_start) to.warm_start = 8;   // --warm-from alone: its 8 fastest
  if (!to.budget && !to.time_s) to.budget = 20;
  const char *which = o->tune_strategy ? o->tune_strategy : "all";
  int ns;
  const Strategy *all = st_strategies(&ns);
  for (int i = 0; i < ns && to.nstrategies < TUNE_MAX_STRATEGIES; i++)
    if (strcmp(which, "all") == 0 || strcmp(which, all[i].name) == 0) to.strategies[to.nstrategies++] = &all[i];
  if (to.nstrategies == 0) {
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < ns; i++) sb_printf(&sb, "%s, ", all[i].name);
    usage_error(o, "unknown strategy '%s' (strategies: %sor all)", which, sb_str(&sb));
    sb_free(&sb);
    return EXIT_USAGE;
  }
  Team team;
  team_init(&team, NULL, NULL);   // under mpirun: this process is one rank of several
  int rc = tune_run(&to, &team, layers, names, n, &d);
  if (rc == 2) rc = fail_with(&d);
  team_finish(&team);
  return rc;
}

/* What best and export read: the layers the arguments name, and the
 * database opened for reading with the device's row. */
typedef struct Records {
  Layer layers[MAX_LAYERS];
  const char *names[MAX_LAYERS];
  int n;
  const char *path;
  RtDeviceInfo info;
  Db *db;
  int64_t dev;
} Records;

/* The command the notes on untuned layers end with: `convgen tune ARGS
 * [--db PATH] [--target cuda] [--precision P]`, into sb (path NULL: no
 * --db; fp32 names no precision). */
static void tune_command(StrBuf *sb, const char *const *args, int nargs, const char *path, const char *target,
                         LayerPrecision p, bool say_fp32) {
  sb_puts(sb, "convgen tune");
  for (int i = 0; i < nargs; i++) sb_printf(sb, " %s", args[i]);
  if (path) sb_printf(sb, " --db %s", path);
  if (strcmp(target, "cuda") == 0) sb_puts(sb, " --target cuda");
  if (p != PREC_FP32 || say_fp32) sb_printf(sb, " --precision %s", layer_precision_name(p));
}

/* The rule for layers without a record (best, export --layers; infer's and
 * export's note_untuned, bench's note): how many of the n on this device and
 * target, why, and the command that tunes them. */
static void note_untuned_layers(const Opts *o, const Records *r, int untuned, const char *why) {
  const char *target = rt_info_target(&r->info);
  StrBuf cmd;
  sb_init(&cmd);
  // a --precision given is said again: fp32 is not the default of a model in float16
  tune_command(&cmd, o->pos, o->npos, r->path, target, o->precision_given ? o->precision : PREC_FP32, o->precision_given);
  fprintf(stderr, "convgen: %s%d of %d layer%s untuned on %s (%s)%s%s; `%s` tunes them\n", why ? "" : "note: ",
          untuned, r->n, r->n == 1 ? "" : "s", r->info.name, target, why ? ": " : "", why ? why : "", sb_str(&cmd));
  sb_free(&cmd);
}

/* 0, or the exit status with the error reported (nothing left open). */
static int open_records(Arena *a, const Opts *o, Records *r) {
  Diag d = {0};
  if ((r->n = layer_args(a, o, r->layers, r->names)) < 0) return EXIT_USAGE;
  if (!(r->path = db_path(a, o))) return EXIT_USAGE;
  if (!rt_select_info_target(o->target_name, o->device, &r->info, &d)) return fail_with(&d);
  if (access(r->path, F_OK) != 0)
    return note_untuned_layers(o, r, r->n, arena_printf(a, "no tuning database at %s", r->path)), EXIT_FAIL;
  r->db = db_open_readonly(r->path, &d);
  const char *other = NULL;
  r->dev = r->db ? db_find_device_or_like(r->db, a, &r->info, &other, &d) : -1;
  if (r->dev > 0 && other)
    fprintf(stderr, "convgen: warning: %s: nothing recorded on %s under driver %s; these are the records made under "
                    "driver %s, whose kernels may run differently under this one (convgen tune measures them again)\n",
            r->path, r->info.name, r->info.driver, other);
  if (r->dev > 0) return 0;
  db_close(r->db);
  if (r->dev == 0)
    return note_untuned_layers(o, r, r->n, arena_printf(a, "nothing recorded on %s in %s yet", r->info.name, r->path)),
           EXIT_FAIL;
  return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
}

static int cmd_best(Arena *a, const Opts *o) {
  Records r;
  int rc = open_records(a, o, &r);
  if (rc) return rc;
  printf("best kernels on %s (database %s):\n", r.info.name, r.path);
  int found = tune_print_best(r.db, r.dev, &r.info, r.layers, r.names, r.n);
  db_close(r.db);
  if (found < r.n) note_untuned_layers(o, &r, r.n - found, NULL);
  return found == r.n ? 0 : EXIT_FAIL;
}

/* export LAYER|NETWORK...: the best record of each layer, lowered again and
 * written with a host program (tune/export.h). With --profile the records
 * are still the device's (the profile's GPU is not here to tune on), and
 * the kernels the profile's. */
static int export_layers(Arena *a, const Opts *o) {
  if (o->nins || o->meas.seed)
    return usage_error(o, "%s is for a MODEL.onnx exported whole", o->nins ? "--input" : "--seed");
  Records r;
  int rc = open_records(a, o, &r);
  if (rc) return rc;
  for (int i = 0; i < r.n; i++)
    if (r.layers[i].precision != PREC_FP32) {   // the host code writes and reads float32 buffers, checked to fp32's bound
      db_close(r.db);
      return usage_error(o, "%s: a layer in %s is not exported yet (the exported host code is fp32, and checks to "
                            "fp32's bound); --precision fp32 exports it in fp32 (a model in float16 runs in fp16 "
                            "unless told)", r.names[i], layer_precision_name(r.layers[i].precision));
    }
  Diag d = {0};
  RtDeviceInfo target = r.info;
  if (o->profile) rt_profile_select(o->profile, &target, &d);   // checked when the option was read
  ExportLayer *ex = ARENA_ARRAY(a, ExportLayer, (size_t)r.n);
  int missing = 0, untuned = 0;   // layers not exported; of those, the ones with no record (not a kernel that fails)
  for (int i = 0; i < r.n; i++) {
    d = (Diag){0};
    if (export_layer(a, r.db, r.dev, &r.layers[i], r.names[i], &r.info, &target, &ex[i], &d)) continue;
    fprintf(stderr, "convgen: %s\n", d.msg), missing++;
    DbBest b;
    Diag dl = {0};
    int64_t lid = db_find_layer(r.db, &r.layers[i], &dl);
    untuned += lid <= 0 || !db_best(r.db, a, lid, r.dev, &b);
  }
  db_close(r.db);
  if (untuned) note_untuned_layers(o, &r, untuned, NULL);
  if (missing) return fprintf(stderr, "convgen: nothing written\n"), EXIT_FAIL;
  const char *for_dev = o->profile ? arena_printf(a, "%s (profile %s; tuned on %s)", target.name, o->profile, r.info.name)
                                   : r.info.name;
  if (!export_write(o->output, ex, r.n, for_dev, &target, &d)) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  printf("wrote %d layer%s into %s: convgen_kernels.c, convgen_kernels.h, example.c, Makefile, and a .%s and .json "
         "per layer (cd %s && make && ./example)\n", r.n, r.n == 1 ? "" : "s", o->output,
         strcmp(rt_info_target(&target), "cuda") == 0 ? "cu" : "cl", o->output);
  return 0;
}

/* The command's one MODEL.onnx, read with its --shape bindings and its
 * --input files (those of integer inputs bound as constants, said with -v);
 * NULL after the error is reported (*rc its exit status). */
static OnnxModel *model_arg(Arena *a, const Opts *o, int *rc) {
  Diag d = {0};
  OnnxModel *m = NULL;
  if (o->npos == 0) *rc = usage_error(o, "missing MODEL.onnx");
  else if (o->npos > 1) *rc = usage_error(o, "unexpected argument '%s' (one model at a time)", o->pos[1]);
  else if (!(m = onnx_load_inputs(a, o->pos[0], o->nshapes, o->shapes, o->nins, o->ins, &d)))
    *rc = EXIT_USAGE, fprintf(stderr, "convgen: %s\n", d.msg);
  for (int i = 0; m && o->verbose && i < m->nbound; i++) {
    const OnnxValue *v = &m->values[m->bound[i].value];
    fprintf(stderr, "convgen: input '%s' (%s [", v->name, m->bound[i].type);
    for (int k = 0; k < v->rank; k++) fprintf(stderr, "%s%lld", k ? ", " : "", (long long)v->dims[k]);
    fprintf(stderr, "]) bound as a constant from %s: the model is specialised to it\n", m->bound[i].file);
  }
  return m;
}

/* What a node of row d becomes when a model runs, from the row's columns:
 * its role, program, fold and fusion columns (import --operators). */
static const char *op_runs_as(Arena *a, const OpDef *d) {
  StrBuf sb;
  sb_init(&sb);
  if (d->rewrite) sb_printf(&sb, "rewritten at import into %s; those nodes of it ", d->rewrite);
  switch (d->role) {
  case ROLE_CONV: sb_puts(&sb, "a convolution: a layer's kernels (tuned ones from --db, or its default point)"); break;
  case ROLE_VIEW: sb_puts(&sb, "a view: moves no data"); break;
  case ROLE_CONSTANT:   // a Constant; or computed at import by its fold (Shape, Cast of constants)
    sb_puts(&sb, d->fold ? "computed at import, its output an initializer" : "folded into an initializer at import");
    break;
  default:
    if (d->program) sb_puts(&sb, d->refusal ? "a program of the IR (infer refuses some nodes)" : "a program of the IR");
    else sb_puts(&sb, "not run by infer (import reads it)");
  }
  if (d->fold && d->role != ROLE_CONSTANT) sb_puts(&sb, "; folded at import when its inputs are constants");
  if (d->role == ROLE_AFFINE) sb_puts(&sb, "; folded into a convolution's weights when it follows one");
  if (d->act) sb_puts(&sb, "; fused into a convolution's store when it follows one");
  if (d->residual) sb_puts(&sb, "; a convolution's residual, fused into its store, when it follows one");
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* import --operators: the operator table (src/onnx/ops.c), a row a line. */
static int list_operators(Arena *a, const Opts *o) {
  if (o->npos) return usage_error(o, "unexpected argument '%s' (--operators lists the table; it reads no model)", o->pos[0]);
  if (o->nshapes) return usage_error(o, "--shape: --operators reads no model");
  printf("%-19s %-12s %s\n", "operator", "role", "at run time");
  for (int i = 0; i < op_count(); i++) {
    const OpDef *d = op_at(i);
    printf("%-19s %-12s %s\n", d->name, op_role_name(d->role), op_runs_as(a, d));
  }
  if (!onnx_available())
    printf("(this convgen has no ONNX reader: it reads no model, and fuses nothing; install protobuf-c-compiler, "
           "libprotobuf-c-dev and libonnx-dev and rebuild)\n");
  return fflush(stdout) == 0 ? 0 : EXIT_FAIL;
}

static int cmd_import(Arena *a, const Opts *o) {
  if (o->operators) return list_operators(a, o);
  int rc = 0;
  OnnxModel *m = model_arg(a, o, &rc);
  if (!m) return rc;
  StrBuf sb;
  sb_init(&sb);
  onnx_print(&sb, m);
  fputs(sb_str(&sb), stdout);
  sb_free(&sb);
  return 0;
}

/* How many of the model's convolutions ran without a record of their own on
 * the device, what each ran instead, and the command that tunes them
 * (infer, export, bench): never silent, since an untuned network runs
 * slower than a tuned one. */
static void note_untuned(const OnnxModel *m, const char *model, const NetOptions *no, const NetStats *st,
                         RtDevice *dev) {
  if (st->untuned == 0) return;
  const char *target = rt_target(dev), *path = no->db_path;
  int direct = st->untuned - st->transferred - st->defaulted;
  StrBuf cmd;
  sb_init(&cmd);
  tune_command(&cmd, &model, 1, path, target, no->precision, onnx_in_half(m));   // (a float16 model's default: fp16)
  if (!no->db)
    fprintf(stderr, "convgen: note: %s: no tuning database%s%s: its %d convolution%s ran untuned: %d its default "
            "point, %d the direct kernel; `%s` tunes them\n", model, path ? " at " : "", path ? path : "",
            st->nconvs, st->nconvs == 1 ? "" : "s", st->defaulted, direct, sb_str(&cmd));
  else
    fprintf(stderr, "convgen: note: %s: %d of %d convolutions have no record on %s (%s) in %s: %d ran a record of "
            "this device under the other target or the best point of a similar tuned layer, %d its default point, "
            "%d the direct kernel; `%s` tunes them\n",
            model, st->untuned, st->nconvs, rt_info(dev)->name, target, path, st->transferred, st->defaulted, direct,
            sb_str(&cmd));
  sb_free(&cmd);
}

/* A network run's device memory (infer's line, bench's network), after lead. */
static void print_net_memory(const char *lead, const NetStats *st) {
  printf("%sactivations %.3f MB in %d buffers (each its own: %.3f MB), weights %.3f MB, the nodes' temporaries "
         "%.3f MB\n", lead, st->planned_bytes / 1e6, st->nbuffers, st->tensor_bytes / 1e6, st->weights_bytes / 1e6,
         st->temp_bytes / 1e6);
}

/* The tuned kernels' database for infer, export and bench's network,
 * opened for reading before the device is: path (--db), else the default
 * one; a file that does not exist is none (no->db NULL: every layer runs
 * its default point). 0, or EXIT_USAGE after the error is reported as best
 * reports it: a path that cannot be looked at, a folder, a file that is not
 * a convgen database (random bytes, a truncated or damaged one, another
 * program's SQLite file, a newer schema) or cannot be read. */
/* no->build_threads from $CONVGEN_BUILD_THREADS (rt/builds.h): 0, or
 * EXIT_USAGE after the error is reported. */
static int build_threads(NetOptions *no) {
  Diag d = {0};
  no->build_threads = rt_build_threads(&d);
  return no->build_threads < 0 ? fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE : 0;
}

static int open_kernels_db(Arena *a, const char *path, NetOptions *no) {
  Diag d = {0};
  return net_records_open(a, path, no, &d) ? 0 : (fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE);
}

/* no->db's row of dev, once the device is open (0: nothing recorded on it).
 * 0, or EXIT_USAGE after the error (a query of a damaged file) is reported,
 * no->db closed. */
static int kernels_device(RtDevice *dev, NetOptions *no) {
  Diag d = {0};
  return net_records_device(no, dev, &d) ? 0 : (fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE);
}

static bool is_model(const char *arg) {
  size_t len = strlen(arg);
  return len > 5 && strcmp(arg + len - 5, ".onnx") == 0;
}

/* m's graph inputs: the --input files, else random (--seed); NULL after the
 * error is reported (*rc its exit status). */
static OnnxTensor *model_inputs(Arena *a, const Opts *o, const OnnxModel *m, int *rc) {
  if (!o->nins) return net_random_inputs(a, m, o->meas.seed ? o->meas.seed : 1);
  if (o->nins != m->ninputs + m->nbound) {
    *rc = usage_error(o, "%s has %d input%s; %d --input given (in the graph's order, initializers excluded)",
                      o->pos[0], m->ninputs + m->nbound, m->ninputs + m->nbound == 1 ? "" : "s", o->nins);
    return NULL;
  }
  OnnxTensor *in = ARENA_ARRAY(a, OnnxTensor, (size_t)m->ninputs + 1);
  Diag d = {0};
  for (int i = 0; i < m->ninputs; i++)   // (a bound input's file was read at import)
    if (!onnx_tensor_read(a, o->ins[m->input_file[i]], &in[i], &d))
      return *rc = EXIT_USAGE, fprintf(stderr, "convgen: %s\n", d.msg), NULL;
  if (!net_check_inputs(m, in, &d)) return *rc = EXIT_USAGE, fprintf(stderr, "convgen: %s\n", d.msg), NULL;
  return in;
}

/* Whether some node of m runs a kernel (a model of views alone has nothing
 * to export). */
static bool runs_kernels(const OnnxModel *m) {
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].fused_into < 0 && !net_is_view(&m->nodes[i])) return true;
  return false;
}

/* export MODEL.onnx: the network whole (net/export_net.h): infer's run on
 * the device, the steps it prepared written with a host program that runs
 * them and checks itself against the outputs of that run. DIR is begun
 * first, so that a folder that cannot be made fails before the run. */
static int export_model(Arena *a, const Opts *o) {
  if (o->profile)
    return usage_error(o, "--profile: a model is exported for the device it runs on (--layers exports its "
                          "convolutions' kernels for a profile); for a device convgen is not built on, run "
                          "convgen-server there and export with --device HOST:PORT (docs/remote.md)");
  int rc = 0;
  OnnxModel *m = model_arg(a, o, &rc);
  if (!m) return rc;
  const char *why = net_unsupported(a, m);
  if (!why) why = net_unexportable(a, m);
  if (!why && !runs_kernels(m)) why = "no node runs a kernel (each is a view of its input): nothing to export";
  if (why) return fprintf(stderr, "convgen: %s: %s\n", o->pos[0], why), EXIT_USAGE;
  Diag d = {0};
  NetPrepared net;
  NetStats st = {0};
  NetOptions no = {.verbose = o->verbose, .stats = &st, .prepared = &net, .nearest = o->untuned_nearest, .memory_fast = o->memory_fast,
                   .precision = model_precision(o, m)};
  if ((rc = build_threads(&no)) || (rc = open_kernels_db(a, o->db, &no))) return rc;   // before the device: a bad --db writes nothing
  RtDevice *dev = rt_open_target(o->target_name, o->device, &d);
  if (!dev) return db_close(no.db), fail_with(&d);
  if ((rc = kernels_device(dev, &no))) return rt_close(dev), rc;
  // the run within the device's and the host's memory before its inputs are made
  if (!net_memory_check(a, m, elem_fp32(), dev, &d))
    return db_close(no.db), rt_close(dev), fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  OnnxTensor *in = model_inputs(a, o, m, &rc), *out = ARENA_ARRAY(a, OnnxTensor, (size_t)m->noutputs + 1);
  if (!in) return db_close(no.db), rt_close(dev), rc;
  DirWrite w;
  NetExport ex;
  rc = !dir_begin(&w, o->output, &d) ? EXIT_USAGE : 0;
  if (!rc && !net_infer(a, dev, m, in, out, &no, &d)) {
    dir_abort(&w);
    rc = d.kind == DIAG_DEVICE ? EXIT_DEVICE : EXIT_FAIL;
  }
  if (!rc && !net_export_write(&w, &net, in, out, rt_info(dev)->name, rt_info(dev), &ex, &d)) rc = EXIT_USAGE;
  bool cuda = strcmp(rt_target(dev), "cuda") == 0;
  if (!rc) note_untuned(m, o->pos[0], &no, &st, dev);
  if (no.db) db_close(no.db);
  rt_close(dev);
  if (rc) return fprintf(stderr, "convgen: %s\n", d.msg), rc;
  printf("wrote network %s into %s: %d node%s run %d kernel%s (%d source%s, NODE_I.%s), weights.bin (%d arrays, "
         "%lld bytes), %d input%s and the output%s this run computed (input_K.bin, output_K.bin), convgen_net.c, "
         "convgen_net.h, main.c, Makefile (cd %s && make && ./network)\n", o->pos[0], o->output, ex.nsteps,
         ex.nsteps == 1 ? "" : "s", ex.nlaunches, ex.nlaunches == 1 ? "" : "s", ex.nsources,
         ex.nsources == 1 ? "" : "s", cuda ? "cu" : "cl", ex.nconsts, (long long)ex.weights_bytes, m->ninputs,
         m->ninputs == 1 ? "" : "s", m->noutputs == 1 ? "" : "s", o->output);
  // the temporaries as the exported program allocates them (cgn_temp_bytes): the steps' shared slots and each
  // step's kept ones
  printf("device memory: activations %lld bytes in %d buffers (each its own: %lld bytes), weights %lld bytes, "
         "temporaries %lld bytes\n", (long long)st.planned_bytes, st.nbuffers, (long long)st.tensor_bytes,
         (long long)st.weights_bytes, (long long)ex.temp_bytes);
  return 0;
}

/* Where a timed network's time goes: the nodes' own times (NetStats) summed
 * by operator, the largest first, each with its share of their sum. */
static void print_breakdown(Arena *a, const NetStats *st, const char *indent) {
  const char **op = ARENA_ARRAY(a, const char *, (size_t)st->nsteps + 1);
  double *ms = ARENA_ARRAY(a, double, (size_t)st->nsteps + 1), sum = 0;
  int *count = ARENA_ARRAY(a, int, (size_t)st->nsteps + 1), n = 0;
  for (int i = 0; i < st->nsteps; i++) {
    int k = 0;
    while (k < n && strcmp(op[k], st->step_op[i]) != 0) k++;
    if (k == n) op[n] = st->step_op[i], ms[n] = 0, count[n++] = 0;
    ms[k] += st->step_ms[i], count[k]++, sum += st->step_ms[i];
  }
  for (int i = 1; i < n; i++)   // by time, the largest first (insertion: a network has a few dozen operators)
    for (int k = i; k > 0 && ms[k] > ms[k - 1]; k--) {
      const char *to = op[k];
      double tm = ms[k];
      int tc = count[k];
      op[k] = op[k - 1], ms[k] = ms[k - 1], count[k] = count[k - 1];
      op[k - 1] = to, ms[k - 1] = tm, count[k - 1] = tc;
    }
  printf("%swhere the time goes, by operator (the nodes' own times):\n", indent);
  printf("%s  %-24s %6s %11s %7s\n", indent, "operator", "nodes", "time (us)", "share");
  for (int k = 0; k < n; k++)
    printf("%s  %-24s %6d %11.1f %6.1f%%\n", indent, op[k], count[k], ms[k] * 1e3, sum > 0 ? 100 * ms[k] / sum : 0.0);
}

/* export: a MODEL.onnx alone is the network whole; LAYER|NETWORK arguments
 * (or a model's convolutions with --layers) the layers' best kernels. */
static int cmd_export(Arena *a, const Opts *o) {
  if (o->npos == 0) return usage_error(o, "missing LAYER, NETWORK or MODEL.onnx");
  if (!o->output) return usage_error(o, "missing -o DIR (the folder to write into)");
  int models = 0;
  for (int i = 0; i < o->npos; i++) models += is_model(o->pos[i]);
  if (o->layers || !models) return export_layers(a, o);
  if (o->npos > 1)
    return usage_error(o, "a MODEL.onnx is exported whole, alone (--layers exports its convolutions' kernels, with "
                          "other layers)");
  return export_model(a, o);
}

/* An output written nowhere (no -o): its first values, and for a row of
 * scores (a classifier's: 1 x N or N, N >= 5) the five largest with their
 * indices. */
static void print_values(const OnnxTensor *t) {
  enum { FIRST = 8, TOP = 5 };
  printf("  values:");
  for (int64_t k = 0; k < t->n && k < FIRST; k++) printf(" %.6g", t->data[k]);
  if (t->n > FIRST) printf(" ... (the first %d of %lld)", FIRST, (long long)t->n);
  printf("\n");
  bool row = t->rank == 1 || (t->rank == 2 && t->dims[0] == 1);
  if (!row || t->n < TOP) return;
  int64_t best[TOP];
  for (int j = 0; j < TOP; j++) {   // the j-th largest: the largest not yet taken (ties: the lower index)
    best[j] = -1;
    for (int64_t k = 0; k < t->n; k++) {
      bool taken = false;
      for (int q = 0; q < j && !taken; q++) taken = best[q] == k;
      if (!taken && !isnan(t->data[k]) && (best[j] < 0 || t->data[k] > t->data[best[j]])) best[j] = k;
    }
  }
  printf("  top-%d (index: value):", TOP);
  for (int j = 0; j < TOP && best[j] >= 0; j++) printf("%s %lld: %.6g", j ? "," : "", (long long)best[j], t->data[best[j]]);
  printf("\n");
}

/* After an fp16 run's failed check: whether the expected values lie
 * outside what half holds, which no fp16 run can match (a model of random
 * weights whose logits are 1e-10: every one flushes to zero). */
static void half_range_note(const char *file, const double *ref, int64_t n) {
  const ElemType *h = elem_type(ELEM_FP16);
  double most = 0;
  for (int64_t k = 0; k < n; k++) most = fmax(most, fabs(ref[k]));
  const double smallest_normal = 0x1p-14;   // half's: 6.1e-05 (subnormals reach 6e-08, with fewer bits)
  if (most > h->max)
    fprintf(stderr, "convgen: note: %s holds values up to %.3g, past half's largest (%.5g): an fp16 run overflows "
            "there; run it in fp32 (--precision fp32)\n", file, most, h->max);
  else if (most < smallest_normal)
    fprintf(stderr, "convgen: note: %s holds values of at most %.3g, below half's smallest normal value (%.3g): an "
            "fp16 run loses them, or flushes them to zero; run it in fp32 (--precision fp32)\n", file, most,
            smallest_normal);
}

static int cmd_infer(Arena *a, const Opts *o) {
  int rc = 0;
  OnnxModel *m = model_arg(a, o, &rc);
  if (!m) return rc;
  Diag d = {0};
  if (o->nins != m->ninputs + m->nbound)
    return usage_error(o, "%s has %d input%s; %d --input given (in the graph's order, initializers excluded)",
                       o->pos[0], m->ninputs + m->nbound, m->ninputs + m->nbound == 1 ? "" : "s", o->nins);
  if (o->nouts && o->nouts != m->noutputs)
    return usage_error(o, "%s has %d output%s; give -o once for each, or not at all", o->pos[0], m->noutputs,
                       m->noutputs == 1 ? "" : "s");
  if (o->nexpects && o->nexpects != m->noutputs)
    return usage_error(o, "%s has %d output%s; give --expect once for each, or not at all", o->pos[0], m->noutputs,
                       m->noutputs == 1 ? "" : "s");
  const char *why = net_unsupported(a, m);
  if (why) return fprintf(stderr, "convgen: %s: %s\n", o->pos[0], why), EXIT_USAGE;
  OnnxTensor *in = ARENA_ARRAY(a, OnnxTensor, (size_t)m->ninputs + 1), *want = ARENA_ARRAY(a, OnnxTensor, (size_t)o->nexpects + 1);
  for (int i = 0; i < m->ninputs; i++)   // (a bound input's file was read at import)
    if (!onnx_tensor_read(a, o->ins[m->input_file[i]], &in[i], &d)) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  if (!net_check_inputs(m, in, &d)) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  for (int i = 0; i < o->nexpects; i++)
    if (!onnx_tensor_read(a, o->expects[i], &want[i], &d)) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  NetStats st = {0};
  NetOptions no = {.verbose = o->verbose, .stats = &st, .runs = o->runs_given ? o->meas.runs : 0,
                   .nearest = o->untuned_nearest, .memory_fast = o->memory_fast, .precision = model_precision(o, m)};
  if ((rc = build_threads(&no)) || (rc = open_kernels_db(a, o->db, &no))) return rc;   // before the device
  RtDevice *dev = rt_open_target(o->target_name, o->device, &d);
  if (!dev) return db_close(no.db), fail_with(&d);
  if ((rc = kernels_device(dev, &no))) return rt_close(dev), rc;
  OnnxTensor *out = ARENA_ARRAY(a, OnnxTensor, (size_t)m->noutputs + 1);
  bool ok = net_infer(a, dev, m, in, out, &no, &d);
  if (ok) note_untuned(m, o->pos[0], &no, &st, dev);
  if (no.db) db_close(no.db);
  rt_close(dev);
  if (!ok) return fprintf(stderr, "convgen: %s\n", d.msg), d.kind == DIAG_DEVICE ? EXIT_DEVICE : EXIT_FAIL;
  print_net_memory("device memory: ", &st);
  for (int i = 0; i < m->noutputs; i++) {
    double tol = net_tolerance(m, i, no.precision);
    printf("output %s:", out[i].name);
    for (int k = 0; k < out[i].rank; k++) printf("%s%lld", k ? "x" : " ", (long long)out[i].dims[k]);
    if (i < o->nouts) {
      if (!onnx_tensor_write(o->outs[i], &out[i], &d)) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
      printf(" -> %s", o->outs[i]);
    }
    if (i < o->nexpects) {
      if (want[i].n != out[i].n) {
        printf("  FAIL: %s holds %lld values, the output %lld\n", o->expects[i], (long long)want[i].n, (long long)out[i].n);
        rc = EXIT_FAIL;
        continue;
      }
      double *ref = ARENA_ARRAY(a, double, (size_t)want[i].n + 1);   // the check's measure, conv_rel_l2
      for (int64_t k = 0; k < want[i].n; k++) ref[k] = want[i].data[k];
      double err = conv_rel_l2(out[i].data, ref, (size_t)out[i].n, NULL);
      // (fp32's as it always read; another precision's bound with the precision named)
      const char *bound = no.precision == PREC_FP32 ? "1e-4"
                                                    : arena_printf(a, "%.3g, %s", tol, layer_precision_name(no.precision));
      printf("  %s relative L2 error %.3g against %s (tolerance %s)", err <= tol ? "PASS" : "FAIL", err,
             o->expects[i], bound);
      if (!(err <= tol)) rc = EXIT_FAIL;
      if (!(err <= tol) && no.precision != PREC_FP32) half_range_note(o->expects[i], ref, want[i].n);
    }
    printf("\n");
    if (i >= o->nouts) print_values(&out[i]);
  }
  if (no.runs) {   // after the outputs' checks, which a reader wants first
    double sum = 0;
    int slowest = 0;
    for (int i = 0; i < st.nsteps; i++) {
      sum += st.step_ms[i];
      if (st.step_ms[i] > st.step_ms[slowest]) slowest = i;
    }
    if (o->verbose && st.nsteps) {   // node by node, in order: its time, share, kernels and how they were chosen
      int w = 4;
      for (int i = 0; i < st.nsteps; i++) w = (int)strlen(st.step_name[i]) > w ? (int)strlen(st.step_name[i]) : w;
      printf("where the time goes, node by node (in order):\n  %-*s %-18s %7s %10s %7s  %s\n", w, "node", "operator",
             "kernels", "time (us)", "share", "kernel");
      for (int i = 0; i < st.nsteps; i++)
        printf("  %-*s %-18s %7d %10.1f %6.1f%%  %s\n", w, st.step_name[i], st.step_op[i], st.step_kernels[i],
               st.step_ms[i] * 1e3, sum > 0 ? 100 * st.step_ms[i] / sum : 0.0, st.step_how[i] ? st.step_how[i] : "-");
    }
    printf("time: %.1f us a run, median of %d batches of %d runs back to back (spread %.1f%%); its %d nodes' own "
           "times add to %.1f us, the slowest %s (%s) %.1f us\n", st.time_ms.median * 1e3, st.time_ms.n, st.reps,
           st.time_ms.spread * 100, st.nsteps, sum * 1e3, st.nsteps ? st.step_name[slowest] : "-",
           st.nsteps ? st.step_op[slowest] : "-", st.nsteps ? st.step_ms[slowest] * 1e3 : 0.0);
    print_breakdown(a, &st, "");
  }
  return rc;
}

/* bench --csv of a model: after the layers' rows, bench's CSV gets the
 * network's row (method "network": a run's time, its memory) and a row a
 * node in order (method "node": its own time; detail, its kernel), written
 * again whole and atomically (sum: the nodes' own times, ms). 0, or
 * EXIT_USAGE with the error said. */
static int append_network_csv(const char *path, const char *model, const NetStats *st, double sum) {
  Diag d = {0};
  size_t len;
  char *old = file_read(path, &len, &d);
  if (!old) return fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE;
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, old);
  free(old);
  const RtStats *t = &st->time_ms;
  int64_t extra = st->planned_bytes + st->temp_bytes;
  bench_csv_field(&sb, model);
  sb_printf(&sb, ",network,network,1,1,,%.3f,%.3f,%.3f,%.4f,%d,%d,,,0,%lld,0,0,%lld,%lld,activations and temporaries,",
            t->median * 1e3, t->min * 1e3, t->max * 1e3, t->spread, t->n, st->reps, (long long)st->weights_bytes,
            (long long)extra, (long long)(st->weights_bytes + extra));
  sb_printf(&sb, "%d nodes; their own times add to %.3f us,\n", st->nsteps, sum * 1e3);
  for (int i = 0; i < st->nsteps; i++) {
    bench_csv_field(&sb, st->step_name[i]);
    sb_putc(&sb, ',');
    bench_csv_field(&sb, st->step_op[i]);
    sb_printf(&sb, ",node,1,1,,%.3f,,,,,%d,,,,,,,,,,", st->step_ms[i] * 1e3, st->reps);
    bench_csv_field(&sb, st->step_how[i] ? st->step_how[i] : "");
    sb_puts(&sb, ",\n");
  }
  bool ok = file_write(path, sb_str(&sb), strlen(sb_str(&sb)), &d);
  sb_free(&sb);
  return ok ? 0 : (fprintf(stderr, "convgen: %s\n", d.msg), EXIT_USAGE);
}

/* bench MODEL.onnx's whole network: every node on the device with the
 * layers' best kernels on random inputs, each operator's program checked
 * first, then timed as one (infer --runs); 0, or an exit status. */
static int bench_network(Arena *a, const Opts *o, const char *model, const char *path) {
  Diag d = {0};
  OnnxModel *m = onnx_load(a, model, o->nshapes, o->shapes, &d);
  if (!m) return fail_with(&d);
  const char *why = net_unsupported(a, m);
  if (why) return printf("\nnetwork %s: not run: %s\n", model, why), 0;
  NetStats st = {0};
  NetOptions no = {.stats = &st, .runs = o->runs_given ? o->meas.runs : 20, .check_programs = true,
                   .nearest = o->untuned_nearest, .memory_fast = o->memory_fast, .precision = model_precision(o, m)};
  int rc = build_threads(&no);
  if (!rc) rc = open_kernels_db(a, path, &no);   // (bench_run read it already)
  if (rc) return rc;
  RtDevice *dev = rt_open_target(o->target_name, o->device, &d);
  if (!dev) return db_close(no.db), fail_with(&d);
  if ((rc = kernels_device(dev, &no))) return rt_close(dev), rc;
  fprintf(stderr, "bench: network %s: every node, then timed whole\n", model);
  bool ok = net_bench(a, dev, m, &no, o->meas.seed ? o->meas.seed : 1, &d);
  if (ok) note_untuned(m, model, &no, &st, dev);
  const char *devname = arena_strdup(a, rt_info(dev)->name);
  if (no.db) db_close(no.db);
  rt_close(dev);
  if (!ok) return fprintf(stderr, "convgen: %s\n", d.msg), d.kind == DIAG_DEVICE ? EXIT_DEVICE : EXIT_FAIL;
  double sum = 0;
  for (int i = 0; i < st.nsteps; i++) sum += st.step_ms[i];
  printf("\nnetwork %s on %s%s, random inputs: %d nodes run kernels; the %d %s checked against the "
         "float64 interpreter first (each correct), the convolutions are the layers above\n", model, devname,
         no.precision != PREC_FP32 ? arena_printf(a, ", its tensors in %s", layer_precision_name(no.precision)) : "",
         st.nsteps, st.checked, st.checked == 1 ? "operator's program" : "operators' programs");
  printf("  time    %.1f us a run, median of %d batches of %d runs back to back (spread %.1f%%); the nodes' own times "
         "add to %.1f us\n", st.time_ms.median * 1e3, st.time_ms.n, st.reps, st.time_ms.spread * 100, sum * 1e3);
  print_net_memory("  memory  ", &st);
  print_breakdown(a, &st, "  ");
  return o->csv ? append_network_csv(o->csv, model, &st, sum) : 0;
}

static int cmd_bench(Arena *a, const Opts *o) {
  Diag d = {0};
  Layer layers[MAX_LAYERS];
  const char *names[MAX_LAYERS];
  int n = layer_args(a, o, layers, names);
  if (n < 0) return EXIT_USAGE;
  const char *path = db_path(a, o);
  if (!path) return EXIT_USAGE;
  BenchSetup s = {.device = o->device, .target = o->target_name, .db_path = path, .tune_budget = o->budget ? o->budget : 20,
                  .seed = o->meas.seed ? o->meas.seed : 1, .csv = o->csv, .plot = o->plot,
                  .m = {.warmup = o->meas.warmup, .runs = o->runs_given ? o->meas.runs : 20, .reps = o->meas.reps,
                        .tol = o->meas.tol, .host_paced = o->meas.host_paced}};
  int rc = bench_run(&s, layers, names, n, &d);
  if (rc == 2) return fail_with(&d);
  for (int i = 0; i < o->npos && rc != 2; i++) {   // a model: the whole network too
    size_t len = strlen(o->pos[i]);
    if (len > 5 && strcmp(o->pos[i] + len - 5, ".onnx") == 0) {
      int nrc = bench_network(a, o, o->pos[i], path);
      if (nrc) rc = nrc;
    }
  }
  return rc;
}

static int cmd_worker(Arena *a, const Opts *o) {
  (void)a;
  if (o->npos) return usage_error(o, "unexpected argument '%s'", o->pos[0]);
  return worker_main(o->target_name, o->device, o->lock);
}

typedef struct Command {
  const char *name;
  Cmd cmd;
  int (*run)(Arena *a, const Opts *o);
  const char *help;
} Command;

static int cmd_help(Arena *a, const Opts *o);

static const Command commands[] = {
    {"devices", CMD_DEVICES, cmd_devices, help_devices},
    {"compile", CMD_COMPILE, cmd_compile, help_compile},
    {"run", CMD_RUN, cmd_run, help_run},
    {"space", CMD_SPACE, cmd_space, help_space},
    {"gen", CMD_GEN, cmd_gen, help_gen},
    {"tune", CMD_TUNE, cmd_tune, help_tune},
    {"best", CMD_BEST, cmd_best, help_best},
    {"export", CMD_EXPORT, cmd_export, help_export},
    {"bench", CMD_BENCH, cmd_bench, help_bench},
    {"import", CMD_IMPORT, cmd_import, help_import},
    {"infer", CMD_INFER, cmd_infer, help_infer},
    {"worker", CMD_WORKER, cmd_worker, help_worker},
    {"help", CMD_HELP, cmd_help, help_help},
};

static const Command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static int cmd_help(Arena *a, const Opts *o) {
  (void)a;
  if (o->npos > 1) return usage_error(o, "unexpected argument '%s'", o->pos[1]);
  if (o->npos == 0) return fputs(help_main, stdout), 0;
  const Command *c = find_command(o->pos[0]);
  if (!c) return usage_error(NULL, "no command '%s'", o->pos[0]);
  fputs(c->help, stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: convgen COMMAND [OPTIONS] [ARGS]\n"
          "commands: devices, compile, run, space, gen, tune, best, export, bench, import, infer, help\n"
          "try 'convgen --help'\n", stderr);
    return EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) return fputs(help_main, stdout), 0;
  if (strcmp(name, "--version") == 0) return printf("convgen %s\n", cg_version()), 0;
  const Command *c = find_command(name);
  if (!c) {
    if (name[0] == '-') return usage_error(NULL, "unknown option '%s'; the command comes first", name);
    return usage_error(NULL, "'%s' is not a convgen command (commands: devices, compile, run, space, gen, tune, best, "
                             "export, bench, import, infer, help)", name);
  }
  for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)   // help wins over any other argument
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return fputs(c->help, stdout), 0;
  Arena *a = arena_new();
  Opts o = {.cmd = c->cmd, .cmd_name = c->name, .meas = meas_defaults(), .timeout_s = 120, .build_timeout_s = 120, .retry_age_s = -1, .transfer = -1, .jobs = 0,
            .cutoff = 10,
           .search = SEARCH_EVOLVE};
  int rc = parse_args(a, &o, argc - 2, argv + 2);
  if (!rc && o.profile && o.device)
    rc = usage_error(&o, "--profile %s and --device %s: give one (a profile stands for a device that is not here)",
                     o.profile, o.device);
  if (!rc && o.profile && o.target_name && strcmp(o.target_name, "opencl") != 0)
    rc = usage_error(&o, "--profile %s and --target %s: a profile is an OpenCL device's limits (a mobile GPU's), "
                     "not a CUDA device's", o.profile, o.target_name);
  if (!rc) rc = c->run(a, &o);
  arena_free(a);
  return rc;
}
