# h200-env.sh: sourced on the GPU machine (a bare image with CUDA, PyTorch and
# NVIDIA's OpenCL, but no package manager or network) to build convgen there
# and point it at its baselines:
#
#     . bench/h200-env.sh DEBS     # DEBS: a folder of .deb files carried along
#
# DEBS holds Debian's packages that the image lacks, fetched on a Debian
# machine with `apt-get download libclblast1 libsqlite3-dev ocl-icd-opencl-dev
# ocl-icd-libopencl1 opencl-c-headers opencl-clhpp-headers` (and for the ONNX
# reader protobuf-c-compiler libprotobuf-c-dev libprotobuf-c1 libprotoc32
# libprotobuf32 libonnx-dev); they are
# unpacked under /tmp/sys (never over /) and found through CPATH,
# LIBRARY_PATH and LD_LIBRARY_PATH; NVIDIA's OpenCL is registered with the
# ICD loader through OCL_ICD_VENDORS. Then `make` builds build/convgen, and
# CONVGEN_CLBLAST (Debian's CLBlast), CONVGEN_NVRTC and CONVGEN_CUDNN (the cuDNN of the
# machine's PyTorch) are set for `convgen bench`. It says what it did on
# standard error and returns non-zero when the build fails.
h200_debs=${1:?usage: . bench/h200-env.sh DEBS}
mkdir -p /tmp/sys
for f in "$h200_debs"/*.deb; do dpkg -x "$f" /tmp/sys || return 1; done
h200_lib=/tmp/sys/usr/lib/x86_64-linux-gnu
export CPATH=/tmp/sys/usr/include${CPATH:+:$CPATH}
export LIBRARY_PATH=$h200_lib${LIBRARY_PATH:+:$LIBRARY_PATH}
export LD_LIBRARY_PATH=$h200_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# libsqlite3-dev's libsqlite3.so points at the runtime the image has
[ -e "$h200_lib/libsqlite3.so.0" ] || ln -sf "$(ldconfig -p | awk '/libsqlite3.so.0 / { print $NF; exit }')" "$h200_lib/libsqlite3.so.0"
# the image has NVIDIA's OpenCL library but registers only PoCL with the ICD
# loader: both registered in a folder of our own
mkdir -p /tmp/sys/icd
cp /etc/OpenCL/vendors/*.icd /tmp/sys/icd/ 2>/dev/null
[ -n "$(ls /tmp/sys/icd/ | grep -i nvidia)" ] || echo libnvidia-opencl.so.1 >/tmp/sys/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/sys/icd
# the ONNX reader's build (Makefile): protoc-c and its libraries, protobuf-c's
# header and library, and onnx.proto, from the packages when they are there
export PATH=/tmp/sys/usr/bin:$PATH
[ -f /tmp/sys/usr/include/onnx/onnx.proto ] && export ONNX_PROTO=/tmp/sys/usr/include/onnx/onnx.proto
[ -f /tmp/sys/usr/include/protobuf-c/protobuf-c.h ] && export PROTOBUF_C_H=/tmp/sys/usr/include/protobuf-c/protobuf-c.h
export CONVGEN_CLBLAST=$h200_lib/libclblast.so.1
CONVGEN_CUDNN=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(nvidia.cudnn.__path__[0], "lib", "libcudnn.so.9"))' 2>/dev/null) ||
  CONVGEN_CUDNN=libcudnn.so.9
export CONVGEN_CUDNN
# NVRTC for --target cuda: the toolkit's, else the one PyTorch's wheels bring
CONVGEN_NVRTC=$(ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null | grep -v builtins | head -n 1)
[ -n "$CONVGEN_NVRTC" ] || CONVGEN_NVRTC=$(python3 -c 'import nvidia.cuda_nvrtc, os, glob; print(sorted(glob.glob(os.path.join(nvidia.cuda_nvrtc.__path__[0], "lib", "libnvrtc.so*")))[0])' 2>/dev/null)
export CONVGEN_NVRTC
export PYTHONUNBUFFERED=1
echo "h200-env: packages from $h200_debs under /tmp/sys; CONVGEN_CLBLAST=$CONVGEN_CLBLAST CONVGEN_CUDNN=$CONVGEN_CUDNN CONVGEN_NVRTC=$CONVGEN_NVRTC" >&2
make -j"$(nproc)" build/convgen >/tmp/h200-make.log 2>&1 || { tail -30 /tmp/h200-make.log >&2; return 1; }
if build/convgen import /dev/null 2>&1 | grep -q "without an ONNX reader"; then
  echo "h200-env: built WITHOUT the ONNX reader (its packages missing from $h200_debs)" >&2
else echo "h200-env: built with the ONNX reader" >&2; fi
