#!/usr/bin/env python3
"""Writes tests/onnx/npy/: numpy's .npy files for tests/cli/npy.sh (committed,
so the suite needs no numpy): python3 tests/onnx/make_npy.py [DIR].

block_input.npy, block_output.npy: tests/onnx/block.onnx's input and output
  (block_input.pb, block_output.pb) as np.save writes them (float32).
block_input_f8.npy: the input as float64 (convgen rounds it to float32).
block_input_v2.npy: the input in format version 2.0 (a 4-byte header length).
bad_fortran.npy: the input in Fortran order.
bad_int.npy: the input as int64.
bad_short.npy: block_input.npy less its last 4 bytes.
bad_header.npy: a header length past the end of the file.
bad_magic.npy: the first byte not 0x93 (then read as a TensorProto, refused).
"""
import os
import sys

import numpy as np
import onnx
from numpy.lib import format as npf
from onnx import numpy_helper


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "npy")
    os.makedirs(out, exist_ok=True)
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(here, "block_input.pb")))
    y = numpy_helper.to_array(onnx.load_tensor(os.path.join(here, "block_output.pb")))
    path = lambda n: os.path.join(out, n)
    np.save(path("block_input.npy"), x)
    np.save(path("block_output.npy"), y)
    np.save(path("block_input_f8.npy"), x.astype(np.float64))
    with open(path("block_input_v2.npy"), "wb") as f:
        npf.write_array(f, x, version=(2, 0))
    np.save(path("bad_fortran.npy"), np.asfortranarray(x))
    np.save(path("bad_int.npy"), x.astype(np.int64))
    raw = open(path("block_input.npy"), "rb").read()
    open(path("bad_short.npy"), "wb").write(raw[:-4])
    open(path("bad_header.npy"), "wb").write(raw[:8] + bytes([0xff, 0xff]) + raw[10:60])
    open(path("bad_magic.npy"), "wb").write(b"\x92" + raw[1:])


if __name__ == "__main__":
    main()
