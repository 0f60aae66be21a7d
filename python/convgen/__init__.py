"""convgen for Python: an ONNX model run with convgen's generated kernels.

    import numpy as np, convgen
    model = convgen.Model("mobilenet_v3.onnx", db="mv3.db")   # device="nvidia", target="cuda"
    model.tune(seconds=600)                        # runs `convgen tune`
    y = model(np.random.rand(*model.inputs[0][1]).astype(np.float32))

or the parts one by one:

    model = convgen.Model("mobilenet_v3.onnx")
    device = convgen.Device()                      # or Device("nvidia", target="cuda")
    convgen.tune(model, device, db="mv3.db", seconds=600)   # runs `convgen tune`
    session = convgen.Session(model, device, db="mv3.db")
    (y,) = session.run(np.random.rand(*model.inputs[0][1]).astype(np.float32))

A thin layer over the C library's public header (src/api/convgen.h)
through ctypes: the same calls, numpy arrays of float32 in and out, and
convgen.Error (with the C code and message) where the C call failed. The
library is libconvgen.so: $CONVGEN_LIB names it, else the copy in this
package's folder (`make python`, then `pip install ./python`), else the one
installed beside this package (make install: PREFIX/lib), else the
repository's build/libconvgen.so, else the system's
(ctypes.util.find_library).
"""
import ctypes
import ctypes.util
import os

import numpy as np

__all__ = ["Error", "Model", "Device", "Session", "tune", "version"]
__version__ = "0.2.0"   # convgen's, as src/util/version.c says (tests/cli/python.sh compares them)

MAX_RANK = 8


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 2048)]


class Error(Exception):
    """A convgen call failed: code is the C library's (CG_E*, the convgen
    program's exit statuses: 1 a failed check, 2 bad input, 4 the device)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("CONVGEN_LIB"),
                  os.path.join(here, "libconvgen.so"),                                  # make python; pip install ./python
                  os.path.join(here, "..", "..", "..", "..", "lib", "libconvgen.so"),   # PREFIX/share/convgen/python/convgen
                  os.path.join(here, "..", "..", "build", "libconvgen.so"),            # the repository's python/convgen
                  ctypes.util.find_library("convgen")]
    for path in candidates:
        if path and (os.path.exists(path) or not os.path.dirname(path)):
            return ctypes.CDLL(path)
    raise ImportError("convgen: libconvgen.so not found: build it (make), install it (make install, or make "
                      "python then pip install ./python) or name it in $CONVGEN_LIB")


_lib = _library()
_P = ctypes.c_void_p
_E = ctypes.POINTER(_Error)
_I64 = ctypes.c_int64 * MAX_RANK
for name, res, args in [
        ("cg_version", ctypes.c_char_p, []),
        ("cg_model_load", _P, [ctypes.c_char_p, _E]),
        ("cg_model_inputs", ctypes.c_int, [_P]),
        ("cg_model_outputs", ctypes.c_int, [_P]),
        ("cg_model_input_name", ctypes.c_char_p, [_P, ctypes.c_int]),
        ("cg_model_output_name", ctypes.c_char_p, [_P, ctypes.c_int]),
        ("cg_model_input_shape", ctypes.c_int, [_P, ctypes.c_int, _I64, ctypes.POINTER(ctypes.c_int64)]),
        ("cg_model_output_shape", ctypes.c_int, [_P, ctypes.c_int, _I64, ctypes.POINTER(ctypes.c_int64)]),
        ("cg_model_free", None, [_P]),
        ("cg_device_open", _P, [ctypes.c_char_p, ctypes.c_char_p, _E]),
        ("cg_device_name", ctypes.c_char_p, [_P]),
        ("cg_device_close", None, [_P]),
        ("cg_tune", ctypes.c_int, [_P, _P, ctypes.c_char_p, ctypes.c_double, _E]),
        ("cg_session_new", _P, [_P, _P, ctypes.c_char_p, _E]),
        ("cg_session_untuned", ctypes.c_int, [_P]),
        ("cg_session_run", ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p), _E]),
        ("cg_session_free", None, [_P])]:
    fn = getattr(_lib, name)
    fn.restype, fn.argtypes = res, args


def _text(s):
    return None if s is None else os.fsencode(s)


def _raise(err):
    raise Error(err.code, err.msg.decode(errors="replace"))


def version():
    """This library's version, "0.2.0 (COMMIT)"."""
    return _lib.cg_version().decode()


class Model:
    """An ONNX model, every shape known. inputs and outputs: (name, shape)
    pairs in the graph's order. device (a Device, or a selector as
    Device's, with target) and db (the tuning database; None: the default
    one) are what model(...) runs on and model.tune(...) tunes into; the
    device is opened on first use."""

    def __init__(self, path, device=None, db=None, target=None):
        err = _Error()
        self._m = _lib.cg_model_load(_text(path), ctypes.byref(err))
        if not self._m:
            _raise(err)
        self.path, self.device, self.db, self._target, self._session = path, device, db, target, None
        self.inputs = [self._io(_lib.cg_model_input_name, _lib.cg_model_input_shape, i)
                       for i in range(_lib.cg_model_inputs(self._m))]
        self.outputs = [self._io(_lib.cg_model_output_name, _lib.cg_model_output_shape, i)
                        for i in range(_lib.cg_model_outputs(self._m))]

    def _device(self):
        if not isinstance(self.device, Device):
            self.device = Device(self.device, self._target)
        return self.device

    def __call__(self, *inputs):
        """The outputs for inputs (numpy arrays of the inputs' shapes), as
        Session.run gives them, on the model's device with the kernels of
        its database: the array itself when the model has one output."""
        if self._session is None:
            self._session = Session(self, self._device(), self.db)
        ys = self._session.run(*inputs)
        return ys[0] if len(ys) == 1 else ys

    @property
    def untuned(self):
        """How many of its convolutions have no record in the database on the
        device (each runs its default point)."""
        if self._session is None:
            self._session = Session(self, self._device(), self.db)
        return self._session.untuned

    def tune(self, seconds=600):
        """Tunes its convolutions on its device into its database (tune())."""
        tune(self, self._device(), self.db, seconds)
        self._session = None   # the next call reads the new records

    def _io(self, name, shape, i):
        dims = _I64()
        rank = shape(self._m, i, dims, None)
        return name(self._m, i).decode(), tuple(dims[k] for k in range(rank))

    def __del__(self):
        if getattr(self, "_m", None):
            _lib.cg_model_free(self._m)
            self._m = None


class Device:
    """A device: selector as convgen's --device (None: $CONVGEN_DEVICE, else
    the first GPU, else the first device), target "opencl" or "cuda"."""

    def __init__(self, selector=None, target=None):
        err = _Error()
        self._d = _lib.cg_device_open(_text(selector), _text(target), ctypes.byref(err))
        if not self._d:
            _raise(err)
        self.name = _lib.cg_device_name(self._d).decode()

    def __del__(self):
        if getattr(self, "_d", None):
            _lib.cg_device_close(self._d)
            self._d = None


def tune(model, device, db=None, seconds=600):
    """Tunes model's convolutions on device for seconds into the database db
    (None: the default one) by running `convgen tune` ($CONVGEN_PROGRAM,
    else the convgen beside this package (`make python`), else convgen on
    PATH); its output goes to standard error."""
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "convgen")
    if not os.environ.get("CONVGEN_PROGRAM") and os.access(beside, os.X_OK):
        os.environ["CONVGEN_PROGRAM"] = beside
    err = _Error()
    if _lib.cg_tune(model._m, device._d, _text(db), float(seconds), ctypes.byref(err)) != 0:
        _raise(err)


class Session:
    """model prepared on device, each convolution's kernels from the tuning
    database db (None: the default one; a missing file: none, every layer
    its default point). run(*inputs) takes numpy arrays of the inputs'
    shapes and returns the outputs as float32 arrays."""

    def __init__(self, model, device, db=None):
        err = _Error()
        self._model, self._device = model, device   # kept: the session uses both
        self._s = _lib.cg_session_new(model._m, device._d, _text(db), ctypes.byref(err))
        if not self._s:
            _raise(err)
        self.untuned = _lib.cg_session_untuned(self._s)

    def run(self, *inputs):
        want = self._model.inputs
        if len(inputs) != len(want):
            raise Error(2, f"{self._model.path} has {len(want)} input(s); {len(inputs)} given")
        xs = []
        for (name, shape), x in zip(want, inputs):
            x = np.ascontiguousarray(x, dtype=np.float32)
            if x.shape != shape:
                raise Error(2, f"input '{name}': shape {x.shape} given, {shape} wanted")
            xs.append(x)
        ys = [np.empty(shape, dtype=np.float32) for _, shape in self._model.outputs]
        ins = (ctypes.c_void_p * max(len(xs), 1))(*[x.ctypes.data for x in xs])
        outs = (ctypes.c_void_p * max(len(ys), 1))(*[y.ctypes.data for y in ys])
        err = _Error()
        if _lib.cg_session_run(self._s, ins, outs, ctypes.byref(err)) != 0:
            _raise(err)
        return ys

    def __del__(self):
        if getattr(self, "_s", None):
            _lib.cg_session_free(self._s)
            self._s = None
