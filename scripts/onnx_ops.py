#!/usr/bin/env python3
"""onnx_ops.py: the operators of ONNX models, read without the onnx package.

usage: scripts/onnx_ops.py MODEL.onnx...   (or the paths one a line on stdin)

Prints a line per model: its path, a tab, and the distinct op_types of its
nodes in the order they first appear, space-separated, the nodes of
subgraphs (an If's branches, a Loop's body) included. An operator of a
domain other than the default one is written DOMAIN:OP, so it is never
taken for one of the default domain's. A file protobuf cannot read is
printed with the op list "?" (tests/cli/node-tests.sh and import.sh read
this to pick ONNX's node tests whose operators convgen claims).

The wire format alone is decoded: ModelProto.graph (field 7),
GraphProto.node (1), NodeProto.op_type (4) and domain (7),
NodeProto.attribute (5), AttributeProto.g (6) and graphs (11).
"""
import sys


def fields(buf):
    """(field number, wire type, value) of each field of a message; a
    length-delimited value is a memoryview, a varint an int."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v, i = None, i + 8
        elif wt == 2:
            ln, i = varint(buf, i)
            if i + ln > n:
                raise ValueError("a field past the end")
            v, i = buf[i:i + ln], i + ln
        elif wt == 5:
            v, i = None, i + 4
        else:
            raise ValueError("wire type %d" % wt)
        if i > n:
            raise ValueError("a field past the end")
        yield num, wt, v


def varint(buf, i):
    v = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("a bad varint")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def graph_ops(graph, ops):
    for num, wt, v in fields(graph):
        if num == 1 and wt == 2:
            node_ops(v, ops)


def node_ops(node, ops):
    """The node's operator, then its subgraphs' (an If's branches)."""
    op, domain, graphs = "", "", []
    for num, wt, v in fields(node):
        if wt != 2:
            continue
        if num == 4:
            op = bytes(v).decode("utf-8", "replace")
        elif num == 7:
            domain = bytes(v).decode("utf-8", "replace")
        elif num == 5:
            graphs += [av for anum, awt, av in fields(v) if awt == 2 and anum in (6, 11)]
    name = op if domain in ("", "ai.onnx") else domain + ":" + op
    if name not in ops:
        ops.append(name)
    for g in graphs:
        graph_ops(g, ops)


def model_ops(path):
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    ops = []
    for num, wt, v in fields(buf):
        if num == 7 and wt == 2:
            graph_ops(v, ops)
    return ops


def main():
    paths = sys.argv[1:] or [line.rstrip("\n") for line in sys.stdin if line.strip()]
    for p in paths:
        try:
            ops = " ".join(model_ops(p)) or "?"
        except (OSError, ValueError):
            ops = "?"
        print("%s\t%s" % (p, ops))


if __name__ == "__main__":
    main()
