"""tinygpt.checkpoint — the core's checkpoint files, version 2, read and written in plain Python.

The format is core/include/tinygpt/checkpoint.h's (little-endian):

    magic "TGPTCKPT" | u32 version 2 | u32 header_bytes
    fields:   u32 count, then per field: u8 name length, name, u8 type, value
              ('i' i64, 'u' u64, 'f' f64, 's' u32 length + UTF-8)
    sections: u32 count, then per section: u8 name length, name, u8 dtype ('f' f32, 'i' i64, 'b' u8),
              u64 element count, u64 offset from the payload start
    zero padding to header_bytes | payload | u32 CRC-32 of everything before it

Fields: every field of the config schema under its own name, then the run's state: step, adam_t,
data_rng.0 .. data_rng.3, corpus_fingerprint, corpus_size, schedule_from_step, schedule_from_lr,
lr_scale (1 unless the core's NaN guard halved the learning rate), tokens_per_byte (of the validation
text: what turns nats per token into bits per byte; files written before it lack it).
Sections: params, adam_m, adam_v (f32, the core's flat parameter block: tinygpt.layout.param_specs
order for gpt), train_losses (f32, one per step), val_steps (i64) and val_losses (f32); seq2seq runs
add val_exact_match and val_cer (f32); a tokenizer bpe run adds tokenizer (u8: its compact form,
Checkpoint.tokenizer()). Sections beyond the six every run has are carried through unchanged
(Checkpoint.extra_sections), in their order.

The config is taken from the file as it is: its field names, order and types come from the
checkpoint (the schema, core/include/tinygpt/config.h, is the one place that declares them), and
serialize() writes them back unchanged, so a checkpoint read and written again is the same bytes.
Reading checks what the core's loader checks (ckpt::deserialize in core/src/checkpoint.cpp), in
the same order and with the same messages, except the config's ranges, which only the schema knows:
the core checks them when it loads the file, and for model kinds other than gpt the parameter
layout (Python knows gpt's, tinygpt.layout). Version 1 files (before the schema) are refused with
the command that rewrites them.

Standard library only (numpy, when present, checks the floats for NaN and Inf faster).
"""
import math
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Dict, List, Optional, Tuple, Union

from . import layout

MAGIC = b"TGPTCKPT"
VERSION = 2

Value = Union[int, float, str]

# The run's state after the config fields, in the core's order, with each field's type code.
STATE_FIELDS: Tuple[Tuple[str, str], ...] = (
    ("step", "i"), ("adam_t", "i"),
    ("data_rng.0", "u"), ("data_rng.1", "u"), ("data_rng.2", "u"), ("data_rng.3", "u"),
    ("corpus_fingerprint", "u"), ("corpus_size", "u"),
    ("schedule_from_step", "i"), ("schedule_from_lr", "f"), ("lr_scale", "f"), ("tokens_per_byte", "f"),
)
_STATE_TYPES = dict(STATE_FIELDS)
# The sections, in the core's order, with their dtype codes.
SECTIONS: Tuple[Tuple[str, str], ...] = (
    ("params", "f"), ("adam_m", "f"), ("adam_v", "f"), ("train_losses", "f"), ("val_steps", "i"), ("val_losses", "f"),
)
_DTYPE_SIZE = {"f": 4, "i": 8, "b": 1}
_ARRAY_CODE = {"f": "f", "i": "q", "b": "B"}
# The config fields the reader itself needs: the model's shape, to count the parameters.
_SHAPE_FIELDS = ("n_layer", "n_head", "n_embd", "block_size")


class CheckpointError(ValueError):
    """A file that is not a valid tinygpt checkpoint; the message says what is wrong (the core's words)."""


@dataclass
class Checkpoint:
    """Everything `tinygpt train --resume` needs. Arrays are array.array: 'f' float32, 'q' int64."""
    config: Dict[str, Value]                 # every schema field in the file, in its order
    config_types: Dict[str, str]             # their type codes: 'i' integer, 'f' real, 's' choice
    step: int
    adam_t: int                              # AdamW updates done (<= step)
    data_rng: Tuple[int, int, int, int]      # the batch sampler's xoshiro256** state (tinygpt.data.Rng)
    corpus_fingerprint: int                  # FNV-1a 64 of the corpus (tinygpt.data.fingerprint)
    corpus_size: int
    schedule_from_step: int                  # where the schedule was last extended (0: never)
    schedule_from_lr: float
    params: array                            # (P) float32, param_specs order
    adam_m: array                            # (P) float32
    adam_v: array                            # (P) float32
    train_losses: array                      # (step) float32
    val_steps: array = field(default_factory=lambda: array("q"))    # int64
    val_losses: array = field(default_factory=lambda: array("f"))   # float32
    lr_scale: float = 1.0                    # the learning rate is the schedule's times this (NaN guard)
    tokens_per_byte: Optional[float] = None  # of the validation text (None: the file predates it)
    # other sections, in the file's order: (name, dtype code, array), e.g. seq2seq's val_exact_match
    extra_sections: List[Tuple[str, str, array]] = field(default_factory=list)
    version: int = VERSION

    # ---- the config ----
    def field_text(self, name: str) -> str:
        """A config value as the core's field_text writes it ("4", "0.001", "gpt")."""
        v, t = self.config[name], self.config_types[name]
        if t == "s":
            return str(v)
        if t == "f":
            return "%.6g" % v
        return "%d" % v

    def metadata(self) -> Dict[str, str]:
        """The config as a model file's metadata: safetensors::config_metadata's keys and text."""
        meta = {name: self.field_text(name) for name in self.config}
        meta["format"] = "pt"
        return meta

    def shape(self) -> SimpleNamespace:
        """n_layer, n_head, n_embd, block_size, vocab_size (what tinygpt.layout and tinygpt.model need)."""
        missing = [n for n in _SHAPE_FIELDS if n not in self.config]
        if missing:
            raise CheckpointError(f"checkpoint has no config field {missing[0]} (the model's shape is read from the file)")
        return SimpleNamespace(**{n: int(self.config[n]) for n in _SHAPE_FIELDS}, vocab_size=self.vocab_size())

    def kind(self) -> str:
        return str(self.config.get("model", "gpt"))

    def num_parameters(self) -> int:
        """The parameters of the gpt model the config describes (the layout Python knows)."""
        shape = self.shape()
        shape.tie_weights = int(self.config.get("tie_weights", 0))  # the GPT-2 layout: no lm_head
        return layout.num_parameters(shape)

    def validation(self) -> List[Tuple[int, float]]:
        return list(zip(self.val_steps, self.val_losses))

    def vocab_size(self) -> int:
        return int(self.config.get("vocab_size", 256))

    def tokenizer(self):
        """A tokenizer bpe run's tokenizer (tinygpt.tokenizer.Tokenizer, from its section), or None (bytes)."""
        from .tokenizer import Tokenizer
        for name, _t, a in self.extra_sections:
            if name == "tokenizer":
                return Tokenizer.from_bytes(bytes(a))
        return None

    def set_tokenizer(self, tokenizer):
        """Stores a tokenizer as the core does (the tokenizer section, its compact form)."""
        self.extra_sections = [s for s in self.extra_sections if s[0] != "tokenizer"]
        self.extra_sections.append(("tokenizer", "b", array("B", tokenizer.to_bytes())))


# ---- reading -------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, buf: memoryview, pos: int, what: str):
        self.buf, self.pos, self.what = buf, pos, what

    def need(self, k: int):
        if self.pos + k > len(self.buf):
            raise CheckpointError(f"checkpoint is truncated: {self.what} goes past byte {len(self.buf)}")

    def unpack(self, fmt: str):
        n = struct.calcsize(fmt)
        self.need(n)
        v = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += n
        return v

    def u8(self) -> int:
        return self.unpack("<B")

    def u32(self) -> int:
        return self.unpack("<I")

    def u64(self) -> int:
        return self.unpack("<Q")

    def text(self, n: int) -> bytes:
        self.need(n)
        s = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return s


def _f32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _as_int64(u: int) -> int:
    return u - (1 << 64) if u >= 1 << 63 else u


def _section_array(buf: memoryview, dtype: str, at: int, count: int) -> array:
    a = array(_ARRAY_CODE[dtype])
    a.frombytes(buf[at:at + count * _DTYPE_SIZE[dtype]])
    if sys.byteorder == "big":
        a.byteswap()
    return a


def _first_non_finite(a: array) -> int:
    """Index of the first NaN or Inf in a float32 array, or -1."""
    try:
        import numpy as np
    except ImportError:
        for i, v in enumerate(a):
            if not math.isfinite(v):
                return i
        return -1
    bad = np.flatnonzero(~np.isfinite(np.frombuffer(a, dtype=np.float32)))
    return int(bad[0]) if bad.size else -1


def parse(data) -> Checkpoint:
    """Reads a checkpoint from bytes; raises CheckpointError with the core's message when it is bad."""
    buf = memoryview(data).cast("B")
    n = len(buf)
    if n < 12 or bytes(buf[:8]) != MAGIC:
        if n >= 8 and bytes(buf[:8]) != MAGIC:
            raise CheckpointError("not a tinygpt checkpoint: the file does not start with the TGPTCKPT magic bytes")
        raise CheckpointError(f"not a tinygpt checkpoint: the file is only {n} bytes long")
    version = struct.unpack_from("<I", buf, 8)[0]
    if version == 1:
        raise CheckpointError("checkpoint version 1 predates named fields, which the Python reader needs: "
                              "`tinygpt train --resume OLD --data CORPUS --until STEP --out NEW` (STEP: its step) "
                              "rewrites it as version 2")
    if version != VERSION:
        raise CheckpointError(f"checkpoint version {version} is not supported (this build reads versions 1 and {VERSION})")
    if n < 24:
        raise CheckpointError(f"checkpoint is truncated: {n} bytes")
    header_bytes = struct.unpack_from("<I", buf, 12)[0]
    if header_bytes % 4 != 0 or header_bytes < 24 or header_bytes > n - 4:
        raise CheckpointError(f"checkpoint is truncated or corrupt: its header claims {header_bytes} bytes "
                              f"in a file of {n}")
    h = _Reader(buf[:header_bytes], 16, "the header")

    config: Dict[str, Value] = {}
    config_types: Dict[str, str] = {}
    state: Dict[str, Value] = {}
    for _ in range(h.u32()):
        name = h.text(h.u8()).decode("latin-1")
        code = h.u8()
        t = chr(code)
        if t in ("i", "u"):
            u = h.u64()
            value: Value = _as_int64(u) if t == "i" else u
        elif t == "f":
            value = h.unpack("<d")
        elif t == "s":
            raw = h.text(h.u32())
            try:
                value = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise CheckpointError(f"checkpoint field {name} is not UTF-8 text") from None
        else:
            raise CheckpointError(f"checkpoint field {name} has an unknown type code {code}")
        if name in _STATE_TYPES:
            if t != _STATE_TYPES[name]:
                raise CheckpointError(f"checkpoint field {name} has type '{t}', expected '{_STATE_TYPES[name]}'")
            state[name] = value
        else:  # a config field: the schema's name, as the file has it
            if t == "u":
                raise CheckpointError(f"checkpoint field {name} has type 'u'; config fields are 'i', 'f' or 's'")
            if name in config:
                raise CheckpointError(f"checkpoint sets {name} twice")
            config[name], config_types[name] = value, t
    need = ("step", "adam_t", "corpus_fingerprint", "data_rng.0", "data_rng.1", "data_rng.2", "data_rng.3")
    if any(k not in state for k in need):
        raise CheckpointError("checkpoint is missing part of its state (step, adam_t, data_rng or corpus_fingerprint)")

    ck = Checkpoint(
        config=config, config_types=config_types, step=int(state["step"]), adam_t=int(state["adam_t"]),
        data_rng=tuple(int(state[f"data_rng.{i}"]) for i in range(4)),
        corpus_fingerprint=int(state["corpus_fingerprint"]), corpus_size=int(state.get("corpus_size", 0)),
        schedule_from_step=int(state.get("schedule_from_step", 0)),
        schedule_from_lr=float(state.get("schedule_from_lr", 0.0)), lr_scale=float(state.get("lr_scale", 1.0)),
        tokens_per_byte=float(state["tokens_per_byte"]) if "tokens_per_byte" in state else None,
        params=array("f"), adam_m=array("f"), adam_v=array("f"), train_losses=array("f"))
    # the config: what the reader can check without the schema (the core checks the ranges on load)
    gpt = ck.kind() == "gpt"
    shape = ck.shape() if gpt else None
    for name in _SHAPE_FIELDS if gpt else ():
        if config_types[name] != "i" or getattr(shape, name) < 1:
            raise CheckpointError(f"checkpoint has an invalid config: {name} must be a whole number >= 1 "
                                  f"(got {config[name]!r})")
    if gpt and shape.n_embd % shape.n_head != 0:
        raise CheckpointError(f"checkpoint has an invalid config: n_embd {shape.n_embd} is not divisible by n_head "
                              f"{shape.n_head} (each head gets n_embd / n_head channels)")
    if ck.schedule_from_step < 0 or ck.schedule_from_step > ck.step or not math.isfinite(ck.schedule_from_lr):
        raise CheckpointError(f"checkpoint is inconsistent: its schedule restarts at step {ck.schedule_from_step}")
    scale = _f32(ck.lr_scale)
    if not (scale > 0.0 and scale <= 1.0):
        raise CheckpointError("checkpoint is inconsistent: its learning-rate scale is %f" % scale)

    payload = n - 4 - header_bytes
    sections: Dict[str, Tuple[str, int, int]] = {}
    for _ in range(h.u32()):
        name = h.text(h.u8()).decode("latin-1")
        code = h.u8()
        t = chr(code)
        count, offset = h.u64(), h.u64()
        size = _DTYPE_SIZE.get(t, 0)
        if size == 0:
            raise CheckpointError(f"checkpoint section {name} has an unknown type code {code}")
        if offset % 4 != 0 or count > payload // size or offset > payload - count * size:
            raise CheckpointError(f"checkpoint is truncated or corrupt: section {name} ({count} elements at byte "
                                  f"{offset}) lies outside the {payload}-byte payload")
        for other, (ot, ocount, ooffset) in sections.items():
            if other == name:
                raise CheckpointError(f"checkpoint has two sections called {name}")
            a0, a1, b0, b1 = offset, offset + count * size, ooffset, ooffset + ocount * _DTYPE_SIZE[ot]
            if a0 < b1 and b0 < a1:
                raise CheckpointError(f"checkpoint is corrupt: sections {other} and {name} overlap")
        sections[name] = (t, count, offset)

    def section(name: str, dtype: str) -> Tuple[int, int]:
        if name not in sections:
            raise CheckpointError(f"checkpoint has no section {name}")
        t, count, offset = sections[name]
        if t != dtype:
            raise CheckpointError(f"checkpoint section {name} has the wrong type")
        return header_bytes + offset, count

    spans = {name: section(name, dtype) for name, dtype in SECTIONS}
    n_params = spans["params"][1]
    if spans["adam_m"][1] != n_params or spans["adam_v"][1] != n_params:
        raise CheckpointError("checkpoint is inconsistent: the optimizer moments do not match the parameters in size")
    if spans["val_steps"][1] != spans["val_losses"][1]:
        raise CheckpointError("checkpoint is inconsistent: validation steps and losses differ in number")
    expected = ck.num_parameters() if gpt else n_params  # other kinds: the core checks the count
    if n_params != expected:
        raise CheckpointError(f"checkpoint holds {n_params} parameters but its config (n_layer {shape.n_layer}, "
                              f"n_embd {shape.n_embd}, block_size {shape.block_size}) needs {expected}")
    if ck.step < 0 or spans["train_losses"][1] != ck.step or ck.adam_t < 0 or ck.adam_t > ck.step:
        raise CheckpointError(f"checkpoint is inconsistent: {spans['train_losses'][1]} recorded losses for "
                              f"{ck.step} steps")
    if spans["val_steps"][1] > ck.step + 1:
        raise CheckpointError("checkpoint is inconsistent: more validation points than steps")
    stored = struct.unpack_from("<I", buf, n - 4)[0]
    if zlib.crc32(buf[:n - 4]) != stored:
        raise CheckpointError("checkpoint is corrupt: its checksum does not match its contents")

    # seq2seq runs keep the translation metrics of every evaluation
    for name in ("val_exact_match", "val_cer"):
        if name in sections:
            t, count, _ = sections[name]
            if t != "f":
                raise CheckpointError(f"checkpoint section {name} has the wrong type")
            if count != spans["val_steps"][1]:
                raise CheckpointError("checkpoint is inconsistent: validation metrics and losses differ in number")

    # a tokenizer bpe run carries its tokenizer (ckpt's read_tokenizer)
    if str(config.get("tokenizer", "bytes")) == "bpe" and "tokenizer" not in sections:
        raise CheckpointError(f"this checkpoint's run reads BPE tokens (vocab_size {ck.vocab_size()}) but the file has no "
                              "tokenizer: without it no text can be read or written (load its tokenizer.json, or train anew)")
    for name, dtype in SECTIONS:
        at, count = spans[name]
        setattr(ck, name, _section_array(buf, dtype, at, count))
    known = {name for name, _ in SECTIONS}
    for name, (t, count, offset) in sections.items():  # in the file's order
        if name not in known:
            ck.extra_sections.append((name, t, _section_array(buf, t, header_bytes + offset, count)))
    for name, what in (("params", "the parameters"), ("adam_m", "the optimizer's first moments"),
                       ("adam_v", "the optimizer's second moments"), ("train_losses", "the loss history")):
        i = _first_non_finite(getattr(ck, name))
        if i >= 0:
            where = f" (in {layout.tensor_at(shape, i)})" if name == "params" and gpt else ""
            raise CheckpointError(f"checkpoint contains NaN or Inf values in {what} at index {i}{where}")
    if _first_non_finite(ck.val_losses) >= 0:
        raise CheckpointError("checkpoint contains NaN or Inf values in the validation history")
    return ck


def load(path: str) -> Checkpoint:
    with open(path, "rb") as f:
        return parse(f.read())


# ---- writing -------------------------------------------------------------------------------------

def _name(out: bytearray, name: str):
    raw = name.encode("utf-8")
    if not 0 < len(raw) < 256:
        raise CheckpointError(f"a checkpoint field name must be 1 to 255 bytes: {name!r}")
    out += struct.pack("<B", len(raw)) + raw


def _field(out: bytearray, name: str, t: str, value: Value):
    _name(out, name)
    out += t.encode("ascii")
    if t == "i":
        out += struct.pack("<q", int(value))
    elif t == "u":
        out += struct.pack("<Q", int(value))
    elif t == "f":
        out += struct.pack("<d", float(value))
    elif t == "s":
        raw = str(value).encode("utf-8")
        out += struct.pack("<I", len(raw)) + raw
    else:
        raise CheckpointError(f"config field {name} has type code {t!r}; expected 'i', 'f' or 's'")


def serialize(ck: Checkpoint) -> bytes:
    """The checkpoint as the core writes it (ckpt::serialize): same fields, order and bytes."""
    P = ck.num_parameters() if ck.kind() == "gpt" else len(ck.params)
    if not (len(ck.params) == len(ck.adam_m) == len(ck.adam_v) == P):
        raise CheckpointError(f"params, adam_m and adam_v must each hold the model's {P} values "
                              f"(got {len(ck.params)}, {len(ck.adam_m)}, {len(ck.adam_v)})")
    if len(ck.train_losses) != ck.step or not 0 <= ck.adam_t <= ck.step:
        raise CheckpointError(f"{len(ck.train_losses)} recorded losses for {ck.step} steps (and adam_t {ck.adam_t})")
    if len(ck.val_steps) != len(ck.val_losses):
        raise CheckpointError("validation steps and losses differ in number")
    out = bytearray(MAGIC)
    out += struct.pack("<II", VERSION, 0)  # header_bytes is filled in below
    state = dict(step=ck.step, adam_t=ck.adam_t, corpus_fingerprint=ck.corpus_fingerprint,
                 corpus_size=ck.corpus_size, schedule_from_step=ck.schedule_from_step,
                 schedule_from_lr=ck.schedule_from_lr, lr_scale=ck.lr_scale)
    if ck.tokens_per_byte is not None:
        state["tokens_per_byte"] = ck.tokens_per_byte
    state.update({f"data_rng.{i}": ck.data_rng[i] for i in range(4)})
    written = [(name, t) for name, t in STATE_FIELDS if name in state]
    out += struct.pack("<I", len(ck.config) + len(written))
    for name, value in ck.config.items():
        _field(out, name, ck.config_types[name], value)
    for name, t in written:
        _field(out, name, t, state[name])
    sections = [(name, dtype, getattr(ck, name)) for name, dtype in SECTIONS] + list(ck.extra_sections)
    arrays = []
    for name, dtype, a in sections:
        if dtype not in _ARRAY_CODE:
            raise CheckpointError(f"section {name} has type code {dtype!r}; expected 'f', 'i' or 'b'")
        if not isinstance(a, array) or a.typecode != _ARRAY_CODE[dtype]:
            a = array(_ARRAY_CODE[dtype], a)
        arrays.append(a)
    out += struct.pack("<I", len(sections))
    offset = 0
    for (name, dtype, _), a in zip(sections, arrays):
        offset += -offset % 4  # every section starts at a multiple of 4 (after a section of bytes: zero padding)
        _name(out, name)
        out += dtype.encode("ascii") + struct.pack("<QQ", len(a), offset)
        offset += len(a) * _DTYPE_SIZE[dtype]
    out += bytes(-len(out) % 4)
    header_bytes = len(out)
    struct.pack_into("<I", out, 12, header_bytes)
    for a in arrays:
        out += bytes(-(len(out) - header_bytes) % 4)
        if sys.byteorder == "big":
            a = array(a.typecode, a)
            a.byteswap()
        out += a.tobytes()
    out += struct.pack("<I", zlib.crc32(out))
    return bytes(out)


def save(path: str, ck: Checkpoint):
    data = serialize(ck)
    with open(path, "wb") as f:
        f.write(data)
