#!/usr/bin/env python3
"""fuzz_onnx.py: fuzz convgen's ONNX reader (src/onnx) and what runs a model
(`convgen infer`, `convgen export`; src/net), with mutants of two sorts:

- byte-level (the kinds bytes, bytes-run, bytes-input, bytes-gen): the
  models of tests/onnx/*.onnx (and, when Debian's libonnx-testdata is
  there, its node tests' models), a generated model, or a tensor file
  (tests/onnx/block_input.pb), with flipped bytes, bytes set to
  0x00/0xff/0x7f/0x80 (varint edges), deleted and duplicated spans,
  truncation, and varints of 10 bytes (past int64) spliced in;
- structural: a small valid model (Conv, BatchNormalization, Relu, Clip,
  Add, MaxPool, AveragePool, GlobalAveragePool, Flatten, Reshape, Gemm,
  MatMul, Concat, Softmax, Identity, Dropout, Constant: the operators
  `convgen import` claims) built at random, written by the small protobuf
  encoder below (ONNX's ModelProto and what it holds, the field numbers of
  onnx.proto; no `onnx` package needed), then broken in one way of a kind:

    valid       none: the model must be read (and it is run or exported)
    redefine    SSA broken: a node output named as an initializer, a graph
                input or an earlier node's output (Concat(B, B) -> B read by a
                Gemm, Conv or BatchNormalization), a node's two outputs of
                one name, initializers of one name
    dims        negative and huge dimensions: initializers [-1], [-7,24],
                [2^61] and [2^31] without data, dimensions whose product
                wraps int64 (423617476 x 12956191 x 3361 is 60 mod 2^64,
                65536^4 is 0), rank past 8, data that does not fill the shape;
                graph inputs of dimensions -1, 0, 2^31, 2^32+2, wrapping
    attrs       wrapped attributes: a Conv's or pool's strides, dilations,
                pads, group, kernel_shape of 0, negative, 2^31, 2^32+1,
                2^32+2, 2^63-1; auto_pad SAME_UPPER with strides 0; Flatten,
                Concat and Softmax axes huge; a Reshape's shape [-1] as an
                initializer of dims [-1]; attributes of the wrong type
    graph       graph-level: an int64 graph input, no graph output, a graph
                output made by no node, a Dropout's mask used, an unknown
                operator, another domain, a required input absent, no nodes
    big         very many nodes: a chain of 20,000 Relus (and of Identities
                of an initializer, a Concat of 4,000 inputs); import must
                finish within --big-timeout (it was quadratic)
    device      device and special files: `import /dev/zero`, `infer
                --input /dev/zero`, `--expect /dev/zero`, `export --input
                /dev/zero`, and infer's -o to a null device (a mknod copy in
                the work folder when root, else a symbolic link to
                /dev/null: never /dev/null itself, which an atomic write
                would replace)
    shape       --shape bindings x=1x3x16x4294967298, x=1x3x5x2147483648,
                0, negative, past int64, rank 9, of no input

Each mutant is read by `convgen import` and, for some kinds, when that read
it, run by `convgen infer` (inputs generated for its graph inputs) or written
by `convgen export -o DIR`. A bug is a crash (a signal, an exit status of 128
or more), a sanitizer report ('Sanitizer' or 'runtime error:' on stderr), a
timeout, a run past --mem-mb of memory, or another exit status than 0, 1
and 2 (infer's 4, no device, is taken only when the unmutated model gives it
too). Each bug prints one line (its class, kind and the command, whose
mutant is saved under the output folder) and saves the mutant with the
command and stderr beside it. A mutant of a kind that should be refused
(exit 2: a broken SSA, a negative dimension, a wrapped attribute...) that
convgen takes (exit 0) is an 'accepted' finding: printed and counted apart,
not a bug (--no-refusal-check: not looked for). The last line is
'N mutants, N bugs'; the exit status is 1 when there were bugs of the
classes --fail-on names (default all), else 0.

Usage:
  make SAN=1 && scripts/fuzz_onnx.py [--seed N] [--count N] [--time S]
      [--convgen PATH] [--kinds k1,k2] [--out DIR] [--fail-on classes]
  scripts/fuzz_onnx.py SEED COUNT [CONVGEN]      (the old form)
Run from anywhere; paths are taken relative to the repository. The output
folder defaults to a new one made by tempfile.mkdtemp (printed first)."""
import argparse, glob, os, random, shutil, stat, struct, subprocess, sys, tempfile, time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

# ---------------------------------------------------------------- protobuf
# Wire types: 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit.

def varint(n):
    """A varint; a negative int64 as its 64-bit two's complement (10 bytes)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7f, n >> 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def key(field, wire):
    return varint(field << 3 | wire)

def f_int(field, n):
    return key(field, 0) + varint(n)

def f_len(field, data):
    return key(field, 2) + varint(len(data)) + data

def f_str(field, s):
    return f_len(field, s.encode() if isinstance(s, str) else s)

def f_float(field, x):
    return key(field, 5) + struct.pack('<f', x)

def f_ints(field, ns, packed=True):
    """Repeated int64/int32: packed (one length-delimited field) or one field
    each (a proto2 reader takes both)."""
    if not ns:
        return b''
    if packed:
        return f_len(field, b''.join(varint(n) for n in ns))
    return b''.join(f_int(field, n) for n in ns)

def f_floats(field, xs, packed=True):
    if not xs:
        return b''
    if packed:
        return f_len(field, struct.pack('<%df' % len(xs), *xs))
    return b''.join(f_float(field, x) for x in xs)

# ONNX (onnx.proto): TensorProto.DataType and AttributeProto.AttributeType
FLOAT, INT32, INT64 = 1, 6, 7
A_FLOAT, A_INT, A_STRING, A_TENSOR, A_FLOATS, A_INTS = 1, 2, 3, 4, 6, 7

class RawAttr:
    """An attribute's encoded body as given (a type that lies, say)."""
    def __init__(self, data):
        self.data = data

def enc_tensor(t, packed=True):
    """TensorProto: dims 1, data_type 2, float_data 4, int64_data 7, name 8,
    raw_data 9 (float_data and int64_data are [packed = true])."""
    b = f_ints(1, t['dims'], t.get('packed_dims', packed)) + f_int(2, t.get('dtype', FLOAT))
    if t.get('floats') is not None:
        b += f_floats(4, t['floats'])
    if t.get('ints') is not None:
        b += f_ints(7, t['ints'])
    if t.get('name') is not None:
        b += f_str(8, t['name'])
    if t.get('raw') is not None:
        b += f_len(9, t['raw'])
    return b

def enc_value_info(v):
    """ValueInfoProto: name 1, type 2 (TypeProto.tensor_type 1: elem_type 1,
    shape 2: TensorShapeProto.dim 1: dim_value 1 or dim_param 2)."""
    tt = f_int(1, v.get('elem', FLOAT))
    if v.get('dims') is not None:
        shape = b''
        for d in v['dims']:
            if d is None:
                shape += f_len(1, b'')
            elif isinstance(d, str):
                shape += f_len(1, f_str(2, d))
            else:
                shape += f_len(1, f_int(1, d))
        tt += f_len(2, shape)
    b = f_str(1, v['name']) if v.get('name') is not None else b''
    return b + f_len(2, f_len(1, tt))

def enc_attr(name, v, packed=True):
    """AttributeProto: name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, type 20."""
    b = f_str(1, name)
    if isinstance(v, RawAttr):
        return b + v.data
    if isinstance(v, bool) or isinstance(v, int):
        return b + f_int(20, A_INT) + f_int(3, int(v))
    if isinstance(v, float):
        return b + f_int(20, A_FLOAT) + f_float(2, v)
    if isinstance(v, (str, bytes)):
        return b + f_int(20, A_STRING) + f_str(4, v)
    if isinstance(v, dict):
        return b + f_int(20, A_TENSOR) + f_len(5, enc_tensor(v))
    if all(isinstance(x, int) for x in v):
        return b + f_int(20, A_INTS) + f_ints(8, v, packed)
    return b + f_int(20, A_FLOATS) + f_floats(7, v, packed)

def enc_node(n, packed=True):
    """NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7."""
    b = b''.join(f_str(1, i) for i in n['ins']) + b''.join(f_str(2, o) for o in n['outs'])
    if n.get('name'):
        b += f_str(3, n['name'])
    b += f_str(4, n['op'])
    for k, v in n['attrs']:
        b += f_len(5, enc_attr(k, v, packed))
    if n.get('domain') is not None:
        b += f_str(7, n['domain'])
    return b

def encode(m):
    """ModelProto: ir_version 1, producer_name 2, graph 7 (GraphProto: node 1,
    name 2, initializer 5, input 11, output 12), opset_import 8
    (OperatorSetIdProto: domain 1, version 2)."""
    packed = m.get('packed', True)
    g = b''.join(f_len(1, enc_node(n, packed)) for n in m['nodes']) + f_str(2, 'fuzz')
    g += b''.join(f_len(5, enc_tensor(t, packed)) for t in m['inits'])
    g += b''.join(f_len(11, enc_value_info(v)) for v in m['inputs'])
    g += b''.join(f_len(12, enc_value_info(v)) for v in m['outputs'])
    return (f_int(1, m.get('ir', 8)) + f_str(2, 'fuzz_onnx') + f_len(7, g) +
            f_len(8, f_str(1, '') + f_int(2, m.get('opset', 13))))

def enc_input_tensor(name, dims, rng):
    """An input file of infer: a TensorProto of float32 raw data."""
    n = 1
    for d in dims:
        n *= d
    vals = [rng.uniform(-1, 1) for _ in range(n)]
    return enc_tensor({'name': name, 'dims': dims, 'raw': struct.pack('<%df' % n, *vals)})

# ---------------------------------------------------------------- models

def T(name, dims, floats=None, ints=None, dtype=FLOAT, raw=None):
    return {'name': name, 'dims': list(dims), 'dtype': dtype, 'floats': floats, 'ints': ints, 'raw': raw}

def N(op, ins, outs, name='', attrs=()):
    return {'op': op, 'ins': list(ins), 'outs': list(outs), 'name': name, 'attrs': list(attrs)}

def prod(ds):
    p = 1
    for d in ds:
        p *= d
    return p

class Gen:
    """A random valid model, its values' shapes tracked as it is built."""

    def __init__(self, rng, want=()):
        self.r = rng
        self.m = {'ir': rng.choice([7, 8]), 'opset': rng.choice([11, 13, 13, 13]), 'nodes': [], 'inits': [],
                  'inputs': [], 'outputs': [], 'packed': rng.random() < 0.8}
        self.shape = {}     # value -> dims
        self.feeds = []     # (graph input, dims): infer's --input files, in order
        self.binds = []     # --shape arguments for symbolic inputs
        self.made = []      # 4-D values made so far (for Add and Concat)
        self.k = 0
        self.build(want)

    def name(self, p):
        self.k += 1
        return '%s%d' % (p, self.k)

    def init(self, dims, p='w', positive=False, ints=None):
        nm = self.name(p)
        if ints is not None:
            self.m['inits'].append(T(nm, dims, ints=ints, dtype=INT64))
        else:
            lo = 0.5 if positive else -1.0
            self.m['inits'].append(T(nm, dims, floats=[round(self.r.uniform(lo, 1), 3) for _ in range(prod(dims))]))
        self.shape[nm] = list(dims)
        return nm

    def node(self, op, ins, shapes, attrs=(), p='v'):
        outs = [self.name(p) for _ in shapes]
        self.m['nodes'].append(N(op, ins, outs, self.name(op.lower()[:4] + '_'), attrs))
        for o, s in zip(outs, shapes):
            self.shape[o] = list(s)
        return outs[0] if len(outs) == 1 else outs

    # -- 4-D operators
    def conv(self, x):
        r = self.r
        n, c, h, w = self.shape[x]
        dw = r.random() < 0.25
        g = c if dw else 1
        k = c if dw else r.randint(1, 8)
        kh, kw = r.choice([1, 3, 3]), r.choice([1, 3, 3])
        kh, kw = min(kh, h), min(kw, w)
        s = r.choice([1, 1, 2])
        d = 2 if r.random() < 0.15 and h >= 5 and w >= 5 else 1
        attrs = []
        if r.random() < 0.3 and kh % 2 and kw % 2:   # SAME_UPPER: out = ceil(in / stride)
            attrs.append(('auto_pad', 'SAME_UPPER'))
            oh, ow = -(-h // s), -(-w // s)
        else:
            p = r.choice([0, 1]) if kh > 1 or kw > 1 else 0
            pads = [p if kh > 1 else 0, p if kw > 1 else 0] * 2
            oh = (h + 2 * pads[0] - d * (kh - 1) - 1) // s + 1
            ow = (w + 2 * pads[1] - d * (kw - 1) - 1) // s + 1
            if oh < 1 or ow < 1:
                return x
            attrs.append(('pads', pads))
        attrs += [('strides', [s, s]), ('dilations', [d, d])]
        if r.random() < 0.5:
            attrs.append(('kernel_shape', [kh, kw]))
        if g > 1 or r.random() < 0.3:
            attrs.append(('group', g))
        wt = self.init([k, c // g, kh, kw])
        ins = [x, wt] + ([self.init([k], 'b')] if r.random() < 0.7 else [])
        return self.node('Conv', ins, [[n, k, oh, ow]], attrs)

    def batchnorm(self, x):
        c = self.shape[x][1]
        ins = [x, self.init([c], 's'), self.init([c], 'b'), self.init([c], 'm'), self.init([c], 'var', positive=True)]
        return self.node('BatchNormalization', ins, [self.shape[x]], [('epsilon', 1e-5)] if self.r.random() < 0.5 else [])

    def bound(self, v):
        if self.r.random() < 0.5:
            return self.init([], 'c') if v is None else self.const(v)
        nm = self.name('k')
        val = [('value_float', v)] if self.m['opset'] >= 12 and self.r.random() < 0.5 else [('value', T(None, [], floats=[v]))]
        self.m['nodes'].append(N('Constant', [], [nm], self.name('const_'), val))
        self.shape[nm] = []
        return nm

    def const(self, v):
        nm = self.name('c')
        self.m['inits'].append(T(nm, [], floats=[v]))
        self.shape[nm] = []
        return nm

    def clip(self, x):
        lo, hi = self.r.choice([(0.0, 6.0), (-0.5, 0.75), (0.0, None)])
        if self.m['opset'] < 11:
            return self.node('Clip', [x], [self.shape[x]], [('min', lo)] + ([('max', hi)] if hi is not None else []))
        ins = [x, self.bound(lo)] + ([self.bound(hi)] if hi is not None else [])
        return self.node('Clip', ins, [self.shape[x]])

    def add(self, x):
        same = [v for v in self.made if self.shape[v] == self.shape[x] and v != x]
        if same and self.r.random() < 0.7:
            ins = [self.r.choice(same), x]
            self.r.shuffle(ins)
            return self.node('Add', ins, [self.shape[x]])
        c = self.shape[x][1]
        other = self.init(self.r.choice([[c, 1, 1], [1], [1, c, 1, 1]]), 'a')
        return self.node('Add', [x, other], [self.shape[x]])

    def pool(self, x):
        r = self.r
        n, c, h, w = self.shape[x]
        op = r.choice(['MaxPool', 'AveragePool'])
        k = min(r.choice([2, 3]), h, w)
        s = r.choice([1, 2])
        p = r.choice([0, 0, 1]) if k > 1 else 0
        oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        attrs = [('kernel_shape', [k, k]), ('strides', [s, s])]
        if p or r.random() < 0.3:
            attrs.append(('pads', [p] * 4))
        if op == 'AveragePool' and r.random() < 0.3:
            attrs.append(('count_include_pad', 1))
        return self.node(op, [x], [[n, c, oh, ow]], attrs)

    def concat(self, x):
        n, c, h, w = self.shape[x]
        same = [v for v in self.made if self.shape[v][2:] == [h, w] and self.shape[v][0] == n]
        ins = [x] + [self.r.choice(same) for _ in range(self.r.randint(1, 2))]
        self.r.shuffle(ins)
        return self.node('Concat', ins, [[n, sum(self.shape[v][1] for v in ins), h, w]], [('axis', self.r.choice([1, -3]))])

    def softmax(self, x):
        if self.m['opset'] >= 13:
            return self.node('Softmax', [x], [self.shape[x]], [('axis', self.r.choice([1, -1, 3]))])
        return self.node('Softmax', [x], [self.shape[x]], [('axis', 1)] if self.r.random() < 0.5 else [])

    def simple(self, op):
        def f(x):
            attrs = [('ratio', 0.5)] if op == 'Dropout' and self.m['opset'] < 12 and self.r.random() < 0.3 else []
            return self.node(op, [x], [self.shape[x]], attrs)
        return f

    # -- tails: 4-D to 2-D
    def gemm(self, x):
        m, kk = self.shape[x]
        nn = self.r.randint(1, 10)
        tb = self.r.random() < 0.5
        b = self.init([nn, kk] if tb else [kk, nn], 'fc')
        ins = [x, b] + ([self.init([nn], 'fb')] if self.r.random() < 0.7 else [])
        return self.node('Gemm', ins, [[m, nn]], [('transB', 1)] if tb else [])

    def tail(self, x):
        r = self.r
        n, c, h, w = self.shape[x]
        t = r.random()
        if t < 0.35:
            x = self.node('GlobalAveragePool', [x], [[n, c, 1, 1]])
            x = self.node('Flatten', [x], [[n, c]], [('axis', 1)] if r.random() < 0.5 else [])
            x = self.gemm(x)
        elif t < 0.55 and c * h * w <= 1024:
            s = self.init([2], 'shape', ints=[n, -1] if r.random() < 0.5 else [0, -1])
            x = self.node('Reshape', [x, s], [[n, c * h * w]])
            x = self.gemm(x)
        elif t < 0.7 and c * h * w <= 1024:
            x = self.node('Flatten', [x], [[n, c * h * w]])
            x = self.node('MatMul', [x, self.init([c * h * w, r.randint(1, 6)], 'mm')],
                          [[n, self.shape[self.m['inits'][-1]['name']][1]]])
        else:
            return x
        if r.random() < 0.4:
            x = self.node(r.choice(['Relu', 'Softmax']), [x], [self.shape[x]])
        return x

    def build(self, want):
        r = self.r
        c, h, w = r.randint(1, 6), r.randint(4, 14), r.randint(4, 14)
        x = 'x'
        self.shape[x] = [1, c, h, w]
        dims = [1, c, h, w]
        if r.random() < 0.2:    # a symbolic batch, bound with --shape
            dims = ['N', c, h, w]
            self.binds.append('x=1x%dx%dx%d' % (c, h, w))
        self.m['inputs'].append({'name': x, 'dims': dims})
        self.feeds.append((x, [1, c, h, w]))
        self.made.append(x)
        if r.random() < 0.2:    # a second input of x's shape
            self.m['inputs'].append({'name': 'y', 'dims': [1, c, h, w]})
            self.feeds.append(('y', [1, c, h, w]))
            self.shape['y'] = [1, c, h, w]
            self.made.append('y')
        ops = {'Conv': self.conv, 'BatchNormalization': self.batchnorm, 'Relu': self.simple('Relu'), 'Clip': self.clip,
               'Add': self.add, 'Pool': self.pool, 'Concat': self.concat, 'Softmax': self.softmax,
               'Identity': self.simple('Identity'), 'Dropout': self.simple('Dropout')}
        names = list(ops)
        plan = list(want) + [r.choice(names) for _ in range(r.randint(0, 6))]
        r.shuffle(plan)
        for op in plan:
            x = ops[op](x)
            if x not in self.made:
                self.made.append(x)
        if not self.m['nodes'] or r.random() < 0.6:
            x = self.tail(x)
        if not self.m['nodes']:
            x = self.node('Relu', [x], [self.shape[x]])
        out = {'name': x, 'dims': self.shape[x]}
        if r.random() < 0.3:
            out['dims'] = None   # declared without a shape
        self.m['outputs'].append(out)
        self.out = x

# ---------------------------------------------------------------- mutations
# Each returns a Mutant: the model (a dict to encode, or bytes), the extra
# arguments, whether a refusal (exit 2) is expected, and whether to run it.

HUGE = [0, -1, -2, -(1 << 63), (1 << 31), (1 << 32) + 1, (1 << 32) + 2, (1 << 63) - 1, (1 << 31) - 1, (1 << 16) + 1]

class Mutant:
    def __init__(self, model, what, refuse=True, args=(), run=True, feeds=None, cmds=None, timeout=None):
        self.model, self.what, self.refuse, self.args, self.run = model, what, refuse, list(args), run
        self.feeds, self.cmds, self.timeout = feeds, cmds, timeout

def rewire(m, old, new, after):
    """Every reader of value old from node index after on reads new instead."""
    for n in m['nodes'][after:]:
        n['ins'] = [new if i == old else i for i in n['ins']]
    for o in m['outputs']:
        if o['name'] == old:
            o['name'] = new

def producers(m):
    return [(i, n) for i, n in enumerate(m['nodes']) if n['op'] != 'Constant']

def mut_redefine(r, g):
    m = g.m
    nodes = producers(m)
    i, n = r.choice(nodes)
    way = r.choice(['init', 'input', 'earlier', 'concat', 'concat-new', 'dup-init', 'two-outputs', 'dup-input',
                    'init-shadows-input', 'const-redefines'])
    old = n['outs'][0]
    if way == 'init' and m['inits']:
        new = r.choice(m['inits'])['name']
    elif way == 'input':
        new = r.choice(m['inputs'])['name']
    elif way == 'earlier' and i > 0:
        new = r.choice(m['nodes'][:i])['outs'][0]
    elif way == 'concat':   # Concat(B, B) -> B, then B read as before (by a Gemm, Conv, BatchNormalization...)
        m['nodes'].insert(i + 1, N('Concat', [old, old], [old], 'redef', [('axis', r.choice([0, 1]))]))
        return Mutant(m, 'Concat(%s, %s) -> %s' % (old, old, old))
    elif way == 'concat-new':   # the templates of the brief: B defined twice and read by a weighted node
        return Mutant(concat_redef_model(r), 'Concat(B, B) -> B read by a weighted node')
    elif way == 'dup-init' and m['inits']:
        t = dict(r.choice(m['inits']))
        if r.random() < 0.5:   # the second of another size
            t['dims'] = [prod(t['dims']) * 4]
            t['floats'] = [0.5] * t['dims'][0] if t['floats'] is not None else None
            t['ints'] = [1] * t['dims'][0] if t['ints'] is not None else None
        m['inits'].insert(r.randrange(len(m['inits']) + 1), t)
        return Mutant(m, 'initializer %s twice' % t['name'])
    elif way == 'two-outputs':
        d = N('Dropout', [old], [old + '_d', old + '_d'], 'two', [])
        m['nodes'].insert(i + 1, d)
        rewire(m, old, old + '_d', i + 2)
        return Mutant(m, 'a Dropout whose two outputs have one name')
    elif way == 'dup-input':
        m['inputs'].append(dict(m['inputs'][0]))
        return Mutant(m, 'graph input %s twice' % m['inputs'][0]['name'])
    elif way == 'init-shadows-input':   # ONNX lets an initializer give a graph input's default: no refusal expected
        x = m['inputs'][0]
        dims = [d if isinstance(d, int) else 1 for d in x['dims']]
        m['inits'].append(T(x['name'], dims, floats=[0.25] * prod(dims)))
        return Mutant(m, 'an initializer named as graph input %s' % x['name'], refuse=False)
    elif way == 'const-redefines' and m['inits']:
        t = r.choice(m['inits'])
        m['nodes'].insert(0, N('Constant', [], [t['name']], 'cst', [('value_float', 2.0)]))
        return Mutant(m, 'a Constant node redefining initializer %s' % t['name'])
    else:
        new = m['inputs'][0]['name']
    n['outs'][0] = new
    rewire(m, old, new, i + 1)
    return Mutant(m, 'node %s output redefines %s' % (n['name'], new))

def concat_redef_model(r):
    """x -> [Flatten ->] B; Concat(B, B) -> B; then a Gemm, Conv or
    BatchNormalization reading B (sized for one definition or the other)."""
    c, h, w = r.randint(1, 4), r.randint(2, 8), r.randint(2, 8)
    reader = r.choice(['Gemm', 'Conv', 'BatchNormalization', 'Relu', 'Add'])
    nodes, inits = [], []
    if reader == 'Gemm':
        nodes.append(N('Flatten', ['x'], ['B'], 'fl'))
        k = c * h * w * r.choice([1, 2])
        inits.append(T('W', [k, 3], floats=[0.1] * k * 3))
        nodes.append(N('Concat', ['B', 'B'], ['B'], 'cat', [('axis', 1)]))
        nodes.append(N('Gemm', ['B', 'W'], ['y'], 'fc'))
    else:
        nodes.append(N('Relu', ['x'], ['B'], 'relu'))
        nodes.append(N('Concat', ['B', 'B'], ['B'], 'cat', [('axis', r.choice([0, 1]))]))
        cc = c * r.choice([1, 2])
        if reader == 'Conv':
            inits.append(T('W', [2, cc, 1, 1], floats=[0.1] * 2 * cc))
            nodes.append(N('Conv', ['B', 'W'], ['y'], 'conv'))
        elif reader == 'BatchNormalization':
            for p in 'sbmv':
                inits.append(T(p, [cc], floats=[1.0] * cc))
            nodes.append(N('BatchNormalization', ['B', 's', 'b', 'm', 'v'], ['y'], 'bn'))
        else:
            nodes.append(N(reader, ['B'] + (['x'] if reader == 'Add' else []), ['y'], 'rd'))
    return {'nodes': nodes, 'inits': inits, 'inputs': [{'name': 'x', 'dims': [1, c, h, w]}],
            'outputs': [{'name': 'y', 'dims': None}], 'opset': 13}

WRAP = [(1 << 31), (1 << 61), (1 << 62), (1 << 32) + 2]

def mut_dims(r, g):
    m = g.m
    way = r.choice(['init-neg', 'init-neg2', 'init-2^61', 'init-2^31-nodata', 'init-wrap60', 'init-wrap0',
                    'init-rank', 'init-short', 'input-dim', 'input-wrap', 'input-rank', 'output-dim', 'reshape-huge'])
    weights = [t for t in m['inits'] if t['dtype'] == FLOAT]
    t = r.choice(weights) if weights and r.random() < 0.8 else None
    if t is None:   # a new initializer, read by no node
        t = T('unused', [1], floats=[0.0])
        m['inits'].append(t)
    if way == 'init-neg':
        t['dims'], t['floats'], t['raw'] = [-1], [] if r.random() < 0.5 else None, None
    elif way == 'init-neg2':
        t['dims'], t['floats'] = [-7, 24], None
    elif way == 'init-2^61':
        t['dims'], t['floats'] = [1 << 61], None
    elif way == 'init-2^31-nodata':
        t['dims'], t['floats'] = r.choice([[1 << 31], [2, 1 << 30], [(1 << 31) - 1], [1 << 32]]), None
    elif way == 'init-wrap60':   # 60 mod 2^64, with the 60 floats that would fill it
        t['dims'] = r.choice([[423617476, 12956191, 3361], [3361, 12956191, 423617476]])
        t['floats'] = [0.5] * 60
    elif way == 'init-wrap0':    # 0 mod 2^64, no data
        t['dims'], t['floats'] = r.choice([[65536] * 4, [1 << 21, 1 << 21, 1 << 22], [2, 65536, 65536, 65536, 32768]]), None
    elif way == 'init-rank':
        t['dims'], t['floats'] = [1] * r.choice([9, 16, 64]), [0.5]
    elif way == 'init-short':    # the data does not fill the shape
        n = prod(t['dims'])
        if r.random() < 0.5:
            t['floats'] = (t['floats'] or [])[:max(0, n - 1)]
        else:
            t['floats'], t['raw'] = None, b'\0' * (4 * n - r.choice([1, 2, 3, 4]))
    elif way in ('input-dim', 'input-wrap', 'input-rank'):
        x = r.choice(m['inputs'])
        dims = list(x['dims'] or [1])
        if way == 'input-dim':
            dims[r.randrange(len(dims))] = r.choice([-1, 0, -(1 << 63), 1 << 31, (1 << 32) + 2, (1 << 63) - 1])
        elif way == 'input-wrap':
            dims = r.choice([[423617476, 12956191, 3361, 1], [65536, 65536, 65536, 65536], [1 << 30, 1 << 30, 16, 1],
                             [1, 3, 16, (1 << 32) + 16]])
        else:
            dims = [1] * r.choice([9, 33])
        x['dims'] = dims
        return Mutant(m, 'graph input %s dims %s' % (x['name'], dims), feeds=g.feeds)
    elif way == 'output-dim':   # a declared output shape may differ from the nodes': refused, never read wrong
        o = m['outputs'][0]
        dims = list(g.shape[o['name']])
        dims[r.randrange(len(dims))] = r.choice([-1, 0, 1 << 31, (1 << 32) + dims[-1], -(1 << 63)])
        o['dims'] = dims
        return Mutant(m, 'graph output dims %s' % dims)
    elif way == 'reshape-huge':
        m['nodes'].append(N('Reshape', [g.out, 'rs'], ['rsy'], 'rs'))
        vals = r.choice([[1 << 31, -1], [-1, 1 << 33], [65536, 65536, 65536, 65536], [423617476, 12956191, 3361],
                         [-2], [-1, -1], [0, 0, 0, 0, 0, 0, 0, 0, 0]])
        m['inits'].append(T('rs', [len(vals)], ints=vals, dtype=INT64))
        m['outputs'] = [{'name': 'rsy', 'dims': None}]
        return Mutant(m, 'Reshape to %s' % vals)
    return Mutant(m, 'initializer %s dims %s' % (t['name'], t['dims']))

def set_attr(n, k, v):
    n['attrs'] = [(a, b) for a, b in n['attrs'] if a != k] + [(k, v)]

def mut_attrs(r, g):
    m = g.m
    way = r.choice(['window', 'window', 'window', 'same-stride0', 'axis', 'reshape-neg', 'type', 'group', 'kshape'])
    wins = [n for n in m['nodes'] if n['op'] in ('Conv', 'MaxPool', 'AveragePool')]
    if way in ('window', 'same-stride0', 'type', 'group', 'kshape') and wins:
        n = r.choice(wins)
        conv = n['op'] == 'Conv'
        if way == 'same-stride0':
            n['attrs'] = [(a, b) for a, b in n['attrs'] if a != 'pads']
            set_attr(n, 'auto_pad', r.choice(['SAME_UPPER', 'SAME_LOWER']))
            set_attr(n, 'strides', r.choice([[0, 0], [1, 0], [-1, -1], [(1 << 32) + 1] * 2]))
            return Mutant(m, '%s auto_pad with strides %s' % (n['op'], dict(n['attrs'])['strides']))
        if way == 'type':   # an attribute of another type than its name's
            k = r.choice(['strides', 'pads', 'kernel_shape', 'dilations', 'group', 'auto_pad'])
            v = r.choice([2, 1.5, 'SAME', [1.0, 1.0], RawAttr(f_int(20, A_INTS)), RawAttr(f_int(20, A_INT)),
                          RawAttr(f_int(20, A_STRING)), RawAttr(f_int(20, 99) + f_int(3, 7))])
            set_attr(n, k, v)
            return Mutant(m, '%s %s of another type' % (n['op'], k), refuse=False)
        if way == 'group' and conv:
            v = r.choice(HUGE)
            set_attr(n, 'group', v)
            return Mutant(m, 'Conv group %d' % v, refuse=v != 1)
        k = r.choice(['strides', 'dilations', 'pads', 'kernel_shape'] + (['group'] if conv else []))
        if way == 'kshape':
            k = 'kernel_shape'
        v = r.choice(HUGE)
        if k == 'group':
            set_attr(n, k, v)
            return Mutant(m, 'Conv group %d' % v, refuse=v != 1)
        cur = dict(n['attrs']).get(k)
        if not isinstance(cur, list):
            cur = {'pads': [0, 0, 0, 0]}.get(k, [1, 1])
            if k == 'kernel_shape':
                w = [t for t in m['inits'] if len(n['ins']) > 1 and t['name'] == n['ins'][1]]
                cur = w[0]['dims'][2:] if w and len(w[0]['dims']) == 4 else [2, 2]
        cur = list(cur)
        if k == 'pads':
            n['attrs'] = [(a, b) for a, b in n['attrs'] if a != 'auto_pad']
        cur[r.randrange(len(cur))] = v
        set_attr(n, k, cur)
        # a pool's huge stride or pads within int32 is legal (one window, or a
        # refusal for its size); 0, negative and past int32 never are
        refuse = (v < 0 if k == 'pads' else v <= 0) or v > (1 << 31) - 1 or (conv and v > 16) or k == 'kernel_shape'
        if v == (1 << 16) + 1 and not conv and k in ('strides', 'dilations'):
            refuse = k == 'dilations'
        return Mutant(m, '%s %s=%s' % (n['op'], k, cur), refuse=refuse)
    if way == 'reshape-neg':   # shape [-1] as an initializer of dims [-1]
        m['nodes'].append(N('Reshape', [g.out, 'rs'], ['rsy'], 'rs'))
        m['inits'].append(T('rs', r.choice([[-1], [-7, 24], [1 << 32]]), ints=[-1], dtype=INT64))
        m['outputs'] = [{'name': 'rsy', 'dims': None}]
        return Mutant(m, "Reshape's shape [-1] with dims %s" % m['inits'][-1]['dims'])
    # axis huge: Flatten, Concat, Softmax after the output
    op = r.choice(['Flatten', 'Concat', 'Softmax'])
    v = r.choice([(1 << 63) - 1, -(1 << 63), (1 << 32) + 1, (1 << 31), 17, -17, -(1 << 31) - 1])
    ins = [g.out, g.out] if op == 'Concat' else [g.out]
    m['nodes'].append(N(op, ins, ['axy'], 'ax', [('axis', v)]))
    m['outputs'] = [{'name': 'axy', 'dims': None}]
    return Mutant(m, '%s axis %d' % (op, v))

def mut_graph(r, g):
    m = g.m
    way = r.choice(['int64-input', 'no-output', 'output-unmade', 'dropout-mask', 'unknown-op', 'domain',
                    'absent-input', 'no-nodes', 'output-is-input', 'output-is-init', 'nameless', 'ir-version'])
    if way == 'int64-input':
        m['inputs'][0]['elem'] = r.choice([INT64, INT32, 0, 99])
        return Mutant(m, 'graph input of element type %d' % m['inputs'][0]['elem'], feeds=g.feeds)
    if way == 'no-output':
        m['outputs'] = []
        return Mutant(m, 'no graph output')
    if way == 'output-unmade':
        m['outputs'].append({'name': 'nobody', 'dims': r.choice([None, [1]])})
        return Mutant(m, 'a graph output made by no node')
    if way == 'dropout-mask':   # the mask used: a Dropout's second output read or a graph output
        n = N('Dropout', [g.out], ['dy', 'mask'], 'drop')
        m['nodes'].append(n)
        outs = [{'name': 'dy', 'dims': None}, {'name': 'mask', 'dims': None}]
        if r.random() < 0.5:
            m['nodes'].append(N('Relu', ['mask'], ['mr'], 'maskrelu'))
            outs = [{'name': 'dy', 'dims': None}, {'name': 'mr', 'dims': None}]
        m['outputs'] = outs if r.random() < 0.7 else outs[1:]
        return Mutant(m, "a Dropout's mask used", refuse=False, feeds=g.feeds)
    if way == 'unknown-op':
        r.choice(m['nodes'])['op'] = r.choice(['Conv2', '', 'LRN', 'relu', 'Loop'])
        return Mutant(m, 'an unknown operator')
    if way == 'domain':
        r.choice(m['nodes'])['domain'] = r.choice(['com.microsoft', 'x' * 300])
        return Mutant(m, 'an operator of another domain')
    if way == 'absent-input':
        n = r.choice([n for n in m['nodes'] if n['ins']])
        n['ins'][0] = r.choice(['', 'undefined_value'])
        return Mutant(m, 'node %s input 0 %r' % (n['name'], n['ins'][0]))
    if way == 'no-nodes':
        m['nodes'] = []
        return Mutant(m, 'no nodes')
    if way == 'output-is-input':   # legal ONNX: an input passed through
        m['outputs'].append({'name': m['inputs'][0]['name'], 'dims': None})
        return Mutant(m, 'a graph input as a graph output', refuse=False, feeds=g.feeds)
    if way == 'output-is-init':
        if not m['inits']:
            m['inits'].append(T('c0', [2], floats=[1.0, 2.0]))
        m['outputs'].append({'name': m['inits'][0]['name'], 'dims': None})
        return Mutant(m, 'an initializer as a graph output', refuse=False, feeds=g.feeds)
    if way == 'nameless':
        tgt = r.choice(['input', 'init', 'output'])
        if tgt == 'input':
            m['inputs'][0]['name'] = None
        elif tgt == 'init' and m['inits']:
            m['inits'][0]['name'] = None
        else:
            m['outputs'][0]['name'] = None
        return Mutant(m, 'a nameless graph %s' % tgt)
    m['ir'] = r.choice([0, 1, 2, -1, (1 << 63) - 1])
    return Mutant(m, 'IR version %d' % m['ir'], refuse=m['ir'] < 3)

def mut_big(r, g, n=20000):
    way = r.choice(['relu-chain', 'relu-chain', 'identity-init-chain', 'concat-wide', 'add-fan'])
    if way == 'relu-chain':   # a chain of n Relus (import was quadratic in the nodes)
        nodes = [N('Relu', ['v%d' % i if i else 'x'], ['v%d' % (i + 1)], 'r%d' % i) for i in range(n)]
        return Mutant({'nodes': nodes, 'inits': [], 'inputs': [{'name': 'x', 'dims': [1, 2, 4, 4]}],
                       'outputs': [{'name': 'v%d' % n, 'dims': [1, 2, 4, 4]}]}, '%d Relus in a chain' % n,
                      refuse=False, run=False)
    if way == 'identity-init-chain':   # Identity of an initializer, n deep (each folded away)
        nodes = [N('Identity', ['c%d' % i], ['c%d' % (i + 1)], 'i%d' % i) for i in range(n)]
        nodes.append(N('Add', ['x', 'c%d' % n], ['y'], 'add'))
        return Mutant({'nodes': nodes, 'inits': [T('c0', [1], floats=[1.0])], 'inputs': [{'name': 'x', 'dims': [1, 2, 4, 4]}],
                       'outputs': [{'name': 'y', 'dims': None}]}, '%d Identities of an initializer' % n,
                      refuse=False, run=False)
    if way == 'concat-wide':
        k = n // 5
        return Mutant({'nodes': [N('Concat', ['x'] * k, ['y'], 'cat', [('axis', 1)])], 'inits': [],
                       'inputs': [{'name': 'x', 'dims': [1, 1, 2, 2]}], 'outputs': [{'name': 'y', 'dims': None}]},
                      'a Concat of %d inputs' % k, refuse=False, run=False)
    nodes = [N('Relu', ['x'], ['v%d' % i], 'r%d' % i) for i in range(n // 2)]   # one value, n/2 readers
    nodes.append(N('Concat', ['v%d' % i for i in range(0, n // 2, 97)], ['y'], 'cat', [('axis', 1)]))
    return Mutant({'nodes': nodes, 'inits': [], 'inputs': [{'name': 'x', 'dims': [1, 1, 2, 2]}],
                   'outputs': [{'name': 'y', 'dims': None}]}, '%d readers of one input' % (n // 2), refuse=False, run=False)

def mut_device(r, g, ctx):
    """Commands on special files; M stands for the (valid) model, IN for its inputs."""
    way = r.choice(['import-zero', 'input-zero', 'expect-zero', 'export-zero', 'output-null', 'import-dir',
                    'input-dir', 'output-null-twice'])
    ins = []
    for _ in g.feeds:
        ins += ['--input', '@IN']
    binds = sum((['--shape', b] for b in g.binds), [])
    if way == 'import-zero':
        cmds = [['import', '/dev/zero']]
    elif way == 'input-zero':
        cmds = [['infer', '@M', '--input', '/dev/zero'] + ins[2:] + binds]
    elif way == 'expect-zero':
        cmds = [['infer', '@M'] + ins + ['--expect', '/dev/zero'] + binds]
    elif way == 'export-zero':
        cmds = [['export', '@M', '--input', '/dev/zero'] + ins[2:] + ['-o', '@EX'] + binds]
    elif way == 'output-null':   # a null device as -o: written through, never replaced
        cmds = [['infer', '@M'] + ins + ['-o', '@NULL'] + binds]
    elif way == 'output-null-twice':
        cmds = [['infer', '@M'] + ins + ['-o', '@NULL', '-o', '@NULL'] + binds]
    elif way == 'import-dir':
        cmds = [['import', '@WORK']]
    else:
        cmds = [['infer', '@M', '--input', '@WORK'] + ins[2:] + binds]
    refuse = way not in ('output-null', 'output-null-twice')
    return Mutant(g.m, way, refuse=refuse, cmds=cmds, feeds=g.feeds)

def mut_shape(r, g):
    v = r.choice(['1x3x16x4294967298', '1x3x5x2147483648', '1x3x16x0', '1x3x-1x4', '1x3x16x18446744073709551617',
                  '1x3x16x99999999999999999999', '1x1x1x1x1x1x1x1x1', '65536x65536x65536x65536', '1x3x16x16x',
                  'x1', '2147483647x2', '46341x46341', ''])
    name = r.choice([g.m['inputs'][0]['name']] * 4 + ['nosuch'])
    bind = '%s=%s' % (name, v)
    if v in ('1x1x1x1x1x1x1x1x1',):
        pass
    args = ['--shape', bind]
    cmds = [['import', '@M'] + args]
    if r.random() < 0.4:
        cmds.append(['infer', '@M'] + sum((['--input', '@IN'] for _ in g.feeds), []) + args)
    return Mutant(g.m, '--shape %s' % bind, cmds=cmds, feeds=g.feeds)

def byte_mutate(r, data):
    data = bytearray(data)
    for _ in range(r.randint(1, 6)):
        op, pos = r.random(), r.randrange(max(1, len(data)))
        if op < 0.3 and data:
            data[pos] ^= 1 << r.randrange(8)
        elif op < 0.5 and data:
            data[pos] = r.choice([0x00, 0xff, 0x7f, 0x80])
        elif op < 0.65:
            del data[pos:pos + r.randint(1, 16)]
        elif op < 0.8:
            data[pos:pos] = data[pos:pos + r.randint(1, 32)]
        elif op < 0.9:
            data = data[:pos]
        else:   # a varint of 10 bytes (past int64) or a huge length
            data[pos:pos] = bytes([0xff] * 9 + [0x01])
    return bytes(data)

# ---------------------------------------------------------------- running

REFUSAL_KINDS = {'redefine', 'dims', 'attrs', 'graph', 'device', 'shape'}
KINDS = ['bytes', 'bytes-run', 'bytes-input', 'bytes-gen', 'valid', 'redefine', 'dims', 'attrs', 'graph', 'big',
         'device', 'shape']
WEIGHT = {'big': 0.15, 'device': 0.5, 'bytes-run': 0.5, 'bytes-input': 0.3}
CLASSES = ['crash', 'sanitizer', 'timeout', 'memory', 'status']

def rss_mb(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return 0

def run_cmd(cmd, timeout, mem_mb):
    """(status, stderr, why): why is 'timeout', 'memory' or None."""
    errf = tempfile.TemporaryFile()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, stdin=subprocess.DEVNULL, start_new_session=True)
    t0, why, delay = time.time(), None, 0.002
    while p.poll() is None:
        if time.time() - t0 > timeout:
            why = 'timeout'
        elif mem_mb and rss_mb(p.pid) > mem_mb:
            why = 'memory'
        if why:
            try:
                os.killpg(p.pid, 9)
            except OSError:
                pass
            p.wait()
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    errf.seek(0)
    err = errf.read().decode(errors='replace')
    errf.close()
    return p.returncode, err, why

def classify(rc, err, why, ok_status):
    if why:
        return why
    if 'Sanitizer' in err or 'runtime error:' in err:
        return 'sanitizer'
    if rc < 0 or rc >= 128:
        return 'crash'
    if rc not in ok_status:
        return 'status'
    return None

def signature(cls, rc, err, argv, what):
    """The first line that says what went wrong, for grouping bugs."""
    if cls in ('timeout', 'memory'):
        return '%s: convgen %s [%s]' % (cls, argv[1], what.split(' dims ')[0] if 'dims' in what else what)
    for line in err.splitlines():
        if 'runtime error:' in line or 'ERROR: AddressSanitizer' in line or 'ERROR: LeakSanitizer' in line \
                or 'internal error' in line or 'Sanitizer:' in line:
            return line.strip()[:200]
    last = err.strip().splitlines()[-1][:200] if err.strip() else ''
    return '%s (exit %s) %s' % (cls, rc, last)

def frame(err):
    """The first stack frame in convgen's sources."""
    for line in err.splitlines():
        s = line.strip()
        if s.startswith('#') and ' in ' in s and '/src/' in s:
            return s.split(' in ', 1)[1][:160]
    return ''

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='kinds: ' + ', '.join(KINDS) + '; classes: ' + ', '.join(CLASSES))
    ap.add_argument('pos', nargs='*', help='SEED COUNT [CONVGEN] (the old form)')
    ap.add_argument('--seed', type=int, default=None, help='random seed (default 1)')
    ap.add_argument('--count', type=int, default=None, help='mutants (default 1000; with --time alone, unbounded)')
    ap.add_argument('--time', type=float, default=None, help='stop starting mutants after SECONDS')
    ap.add_argument('--convgen', default=None, help='the binary (default build-san/convgen, else build/convgen)')
    ap.add_argument('--kinds', default=None, help='comma-separated kinds (default all)')
    ap.add_argument('--out', default=None, help='where bugs are saved (default: a new tempfile.mkdtemp folder)')
    ap.add_argument('--timeout', type=float, default=60, help='seconds a command may run (default 60)')
    ap.add_argument('--big-timeout', type=float, default=5, help="seconds for the kind big's import (default 5)")
    ap.add_argument('--big-nodes', type=int, default=20000, help="nodes of the kind big's models (default 20000)")
    ap.add_argument('--mem-mb', type=int, default=2048, help='resident memory a command may take (default 2048)')
    ap.add_argument('--fail-on', default=','.join(CLASSES), help='bug classes that make the exit status 1 (default all)')
    ap.add_argument('--no-refusal-check', action='store_true', help="don't report mutants that should be refused and are taken")
    ap.add_argument('--run-prob', type=float, default=0.25, help='chance that a mutant read is also run by infer (or export)')
    ap.add_argument('-v', '--verbose', action='store_true', help='a line per mutant')
    a = ap.parse_args()
    if len(a.pos) > 3:
        ap.error('at most SEED COUNT CONVGEN')
    pos = a.pos + [None] * (3 - len(a.pos))
    seed = a.seed if a.seed is not None else int(pos[0]) if pos[0] is not None else 1
    count = a.count if a.count is not None else int(pos[1]) if pos[1] is not None else (None if a.time else 1000)
    convgen = a.convgen or pos[2]
    if not convgen:
        convgen = os.path.join(ROOT, 'build-san/convgen')
        if not os.path.exists(convgen):
            convgen = os.path.join(ROOT, 'build/convgen')
    convgen = os.path.abspath(convgen)
    kinds = a.kinds.split(',') if a.kinds else KINDS
    for k in kinds:
        if k not in KINDS:
            ap.error('no kind %r; the kinds are %s' % (k, ', '.join(KINDS)))
    fail_on = set(a.fail_on.split(',')) if a.fail_on else set()
    for c in fail_on:
        if c not in CLASSES:
            ap.error('no class %r; the classes are %s' % (c, ', '.join(CLASSES)))
    out = os.path.abspath(a.out) if a.out else tempfile.mkdtemp(prefix='fuzz_onnx.')
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix='work.', dir=out)
    print('fuzz_onnx: seed %d, %s, %s; findings in %s' % (seed, '%d mutants' % count if count else 'no count',
          convgen, out), flush=True)

    # as tests/run.sh runs the sanitizer build: leaks inside PoCL and LLVM (a
    # kernel built for the first time) are theirs, not convgen's
    os.environ.setdefault('ASAN_OPTIONS', 'detect_leaks=1:intercept_tls_get_addr=0')
    os.environ.setdefault('LSAN_OPTIONS', 'suppressions=%s/tests/lsan.supp' % ROOT)
    os.environ.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1')
    M = os.path.join(ROOT, 'tests/onnx')

    # a null device for -o: never /dev/null itself (an atomic write renames over it)
    null = os.path.join(work, 'null')
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        os.symlink('/dev/null', null)

    # what the binary can do: an ONNX reader? a device for infer?
    rc, err, _ = run_cmd([convgen, 'import', os.path.join(M, 'tiny.onnx')], a.timeout, a.mem_mb)
    if rc != 0 and 'built without an ONNX reader' in err:
        print('fuzz_onnx: %s was built without an ONNX reader: nothing to fuzz' % convgen)
        print('0 mutants, 0 bugs')
        return 0
    rc, err, _ = run_cmd([convgen, 'infer', os.path.join(M, 'tiny.onnx'), '--input', os.path.join(M, 'block_input.pb')],
                         a.timeout * 3, a.mem_mb)
    can_run = rc == 0
    if not can_run:
        print('fuzz_onnx: infer of tests/onnx/tiny.onnx exits %d: mutants are not run, only read (%s)' %
              (rc, err.strip().splitlines()[-1] if err.strip() else ''), flush=True)

    files = sorted(glob.glob(os.path.join(M, '*.onnx')))
    files += sorted(glob.glob('/usr/share/libonnx-testdata/data/node/test_conv*/model.onnx'))[:40]
    runnable = [os.path.join(M, 'block.onnx'), os.path.join(M, 'tiny.onnx')]   # both take block_input.pb
    block_in = os.path.join(M, 'block_input.pb')
    weights = [WEIGHT.get(k, 1.0) for k in kinds]
    rng = random.Random(seed)
    t_start = time.time()
    nmut = nbugs = naccepted = nrefused_valid = 0
    counts = {c: 0 for c in CLASSES}
    distinct = {}   # signature -> [class, kind, count, saved path, command, status]
    it = 0
    while (count is None or it < count) and (a.time is None or time.time() - t_start < a.time):
        it += 1
        r = random.Random(rng.getrandbits(64))   # one generator a mutant: a mutant is its seed's
        kind = r.choices(kinds, weights)[0]
        mpath = os.path.join(work, 'm%d.onnx' % it)
        feeds, cmds, what, refuse, runit, tmo = None, None, '', False, False, a.timeout
        binds = []
        if kind in ('bytes', 'bytes-run', 'bytes-input'):
            if kind == 'bytes':
                src = r.choice(files)
            else:
                src = r.choice(runnable) if kind == 'bytes-run' else block_in
            data = byte_mutate(r, open(src, 'rb').read())
            what = os.path.relpath(src, ROOT)
            if kind == 'bytes-input':
                mpath = os.path.join(work, 'm%d.pb' % it)
                cmds = [['infer', runnable[0], '--input', '@M']]
            elif kind == 'bytes-run':
                cmds = [['import', '@M']]
                if can_run:
                    cmds.append(r.choice([['infer', '@M', '--input', block_in],
                                          ['export', '@M', '--input', block_in, '-o', '@EX']]))
            else:
                cmds = [['import', '@M']]
        else:
            g = Gen(r, want=r.sample(['Conv', 'Pool', 'Concat', 'Softmax', 'Clip'], r.randint(0, 2))
                    if kind != 'attrs' else [r.choice(['Conv', 'Pool'])])
            binds = sum((['--shape', b] for b in g.binds), [])
            if kind == 'valid':
                mu = Mutant(g.m, 'valid', refuse=False, feeds=g.feeds)
            elif kind == 'bytes-gen':
                mu = Mutant(byte_mutate(r, encode(g.m)), 'generated', refuse=False, feeds=g.feeds)
            elif kind == 'redefine':
                mu = mut_redefine(r, g)
            elif kind == 'dims':
                mu = mut_dims(r, g)
            elif kind == 'attrs':
                mu = mut_attrs(r, g)
            elif kind == 'graph':
                mu = mut_graph(r, g)
            elif kind == 'big':
                mu = mut_big(r, g, a.big_nodes)
                tmo = a.big_timeout
                binds = []
            elif kind == 'device':
                mu = mut_device(r, g, None)
            else:
                mu = mut_shape(r, g)
                binds = []
            data = mu.model if isinstance(mu.model, bytes) else encode(mu.model)
            what, refuse, feeds = mu.what, mu.refuse and kind in REFUSAL_KINDS, mu.feeds or g.feeds
            if binds and what.startswith('graph input'):   # a --shape binding replaces the dims the model declares
                refuse = False
            cmds = mu.cmds or [['import', '@M'] + binds]
            if mu.timeout:
                tmo = mu.timeout
            if not mu.cmds and mu.run and can_run and feeds:
                ins = sum((['--input', '@IN'] for _ in feeds), [])
                if r.random() < 0.75:
                    cmds.append(['infer', '@M'] + ins + binds + (['-o', '@NULL'] if r.random() < 0.2 else []))
                else:
                    cmds.append(['export', '@M'] + ins + binds + ['-o', '@EX'])
                runit = r.random() < a.run_prob
        with open(mpath, 'wb') as f:
            f.write(data)
        inputs = []
        for k, (nm, dims) in enumerate(feeds or []):
            p = os.path.join(work, 'm%d_in%d.pb' % (it, k))
            with open(p, 'wb') as f:
                f.write(enc_input_tensor(nm, dims, r))
            inputs.append(p)
        nmut += 1
        first_rc = None
        exdir = os.path.join(work, 'ex')
        for ci, c in enumerate(cmds):
            if ci > 0 and c[0] in ('infer', 'export') and not mu_cmds_explicit(kind):
                # run (infer, export) only what import read, and only some of it
                if first_rc != 0 or not (runit or kind in ('valid', 'bytes-run', 'bytes-input')):
                    continue
                if kind == 'valid' and r.random() > 0.5:
                    continue
            ins_iter = iter(inputs)
            argv = [convgen]
            for x in c:
                if x == '@M':
                    argv.append(mpath)
                elif x == '@IN':
                    argv.append(next(ins_iter, inputs[-1] if inputs else block_in))
                elif x == '@EX':
                    argv.append(exdir)
                elif x == '@NULL':
                    argv.append(null)
                elif x == '@WORK':
                    argv.append(work)
                else:
                    argv.append(x)
            shutil.rmtree(exdir, ignore_errors=True)
            ok = (0, 1, 2) if c[0] == 'import' else (0, 1, 2) + ((4,) if not can_run else ())
            t0 = time.time()
            rc, err, why = run_cmd(argv, tmo if c[0] == 'import' else max(tmo, a.timeout), a.mem_mb)
            dt = time.time() - t0
            if ci == 0:
                first_rc = rc
            cls = classify(rc, err, why, ok)
            if a.verbose:
                print('  %d %s [%s] %s: exit %s %.2fs%s' % (it, kind, what, ' '.join(argv[1:2]), rc, dt,
                      ' ' + cls if cls else ''), flush=True)
            if kind == 'valid' and ci == 0 and rc == 2:
                nrefused_valid += 1
                if a.verbose:
                    print('    refused: ' + err.strip()[:300])
            if cls:
                nbugs += 1
                counts[cls] += 1
                saved = save(out, cls, kind, it, mpath, inputs, argv, err, rc)
                shown = show(argv, mpath, inputs, saved, work, out)
                how = why or ('signal %d' % -rc if rc < 0 else 'exit %d' % rc)
                print('BUG %s (%s) kind %s [%s]: %s' % (cls, how, kind, what, shown), flush=True)
                sig = signature(cls, rc, err, argv, what)
                fr = frame(err)
                key_ = (cls, sig + (' @ ' + fr if fr else ''))
                if key_ not in distinct:
                    distinct[key_] = [kind, 0, saved['model'], shown, rc]
                distinct[key_][1] += 1
            elif refuse and rc == 0 and not a.no_refusal_check and (c[0] == 'import' or mu_cmds_explicit(kind)):
                naccepted += 1
                saved = save(out, 'accepted', kind, it, mpath, inputs, argv, err, rc)
                print('ACCEPTED kind %s [%s]: %s exits 0' % (kind, what, show(argv, mpath, inputs, saved, work, out)),
                      flush=True)
        for p in [mpath] + inputs:
            try:
                os.remove(p)
            except OSError:
                pass
    el = time.time() - t_start
    if distinct:
        print('distinct bugs (class, first line of the report @ first frame in src/, kind, count, reproducer):')
        for (cls, sig), (kind, n, path, shown, rc) in sorted(distinct.items()):
            print('  %s: %s\n      kind %s, %d time(s), exit %s: %s' % (cls, sig, kind, n, rc, shown))
    if nrefused_valid:
        print('(%d valid models refused: exit 2; -v shows why)' % nrefused_valid)
    print('%d accepted (should be refused, exit 2: not bugs); bugs by class: %s; %.0f s' %
          (naccepted, ', '.join('%s %d' % (c, counts[c]) for c in CLASSES), el))
    print('%d mutants, %d bugs' % (nmut, nbugs))
    failing = sum(counts[c] for c in fail_on)
    shutil.rmtree(work, ignore_errors=True)   # (the findings are copies)
    if not a.out and not os.listdir(out):
        os.rmdir(out)
    return 1 if failing else 0

def mu_cmds_explicit(kind):
    return kind in ('device', 'shape')

def save(out, cls, kind, it, mpath, inputs, argv, err, rc):
    base = os.path.join(out, '%s-%s-%d' % (cls, kind, it))
    saved = {'model': base + os.path.splitext(mpath)[1]}
    shutil.copyfile(mpath, saved['model'])
    for k, p in enumerate(inputs):
        saved[p] = '%s_in%d.pb' % (base, k)
        shutil.copyfile(p, saved[p])
    saved[mpath] = saved['model']
    with open(base + '.txt', 'w') as f:
        f.write('exit %s\n%s\n\n%s' % (rc, ' '.join(rename(argv, saved)), err[-20000:]))
    return saved

def rename(argv, saved):
    return [saved.get(x, x) for x in argv]

def show(argv, mpath, inputs, saved, work, out):
    s = ' '.join(rename(argv, saved))
    return s.replace(os.path.join(work, 'ex'), os.path.join(out, 'EXPORT_DIR'))

if __name__ == '__main__':
    sys.exit(main())
