"""tinygpt.safetensors — the safetensors format in plain Python (stdlib only; torch optional).

Layout (huggingface/safetensors, "Format"):
    u64 N (little-endian) | N bytes of UTF-8 JSON | data
    header: {"NAME": {"dtype": "F32", "shape": [..], "data_offsets": [BEGIN, END]}, ...,
             "__metadata__": {"key": "value", ...}}
    offsets are relative to the data section; END is one past the last byte.

The twin of core/include/tinygpt/safetensors.h. Both follow the same rules:

- The writer reproduces the reference's bytes: tensors ordered by dtype (the reference's enum order,
  last first: U64, I64, F64, C64, F32, ...) then by name; compact JSON with "__metadata__" first
  (keys sorted), tensor members in the order dtype, shape, data_offsets; the header padded with
  spaces to a multiple of 8 bytes.
- The reader refuses (SafetensorsError, a ValueError, "safetensors: ..."): files under 8 bytes or
  above max_file_bytes; header lengths above 100,000,000 or past the end of the file; headers that
  are not UTF-8 JSON objects, with duplicate keys, NaN/Infinity or nesting deeper than 64 levels;
  entries that are not exactly {dtype, shape, data_offsets} with the right types; unknown and
  sub-byte dtypes; byte counts that disagree with shape x dtype size or overflow 64 bits; offsets
  that, sorted, leave gaps, overlap or run past the data; bytes after the last tensor.

    >>> blob = serialize({"w": Tensor("F32", (2,), struct.pack("<2f", 1, 2))}, {"k": "v"})
    >>> tensors, metadata = parse(blob)
"""
import json
import struct
from typing import Dict, Mapping, NamedTuple, Optional, Tuple

MAX_HEADER_BYTES = 100_000_000
MAX_FILE_BYTES = 1 << 32
MAX_DEPTH = 64

# name -> bytes per element, in the reference's enum order (the writer sorts by it)
DTYPES: Dict[str, int] = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1, "F8_E4M3FNUZ": 1, "F8_E5M2FNUZ": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "C64": 8, "F64": 8, "I64": 8, "U64": 8,
}
_ORDER = {name: i for i, name in enumerate(DTYPES)}
SUB_BYTE_DTYPES = ("F4", "F6_E2M3", "F6_E3M2")  # valid in the format; several values per byte
_U64_MAX = (1 << 64) - 1


class SafetensorsError(ValueError):
    def __init__(self, message: str):
        super().__init__("safetensors: " + message)


class Tensor(NamedTuple):
    dtype: str
    shape: Tuple[int, ...]
    data: bytes  # little-endian, row-major


def _fail(message: str):
    raise SafetensorsError(message)


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _byte_count(shape, size: int) -> Optional[int]:
    n = size
    for d in shape:
        n *= d
        if n > _U64_MAX:
            return None
    return n


# ---- writer -----------------------------------------------------------------------------------

def serialize(tensors: Mapping[str, Tensor], metadata: Optional[Mapping[str, str]] = None) -> bytes:
    for name, t in tensors.items():
        if not isinstance(name, str) or not name:
            _fail("a tensor needs a name")
        if name == "__metadata__":
            _fail('"__metadata__" is reserved and cannot name a tensor')
        _utf8(name, "tensor names must be UTF-8")
        if t.dtype not in DTYPES:
            _fail(f"tensor '{name}': unknown dtype {t.dtype!r}")
        need = _byte_count(t.shape, DTYPES[t.dtype])
        if need is None:
            _fail(f"tensor '{name}': shape {_shape_text(t.shape)} overflows 64 bits")
        if need != len(t.data):
            _fail(f"tensor '{name}' has {len(t.data)} bytes, but shape {_shape_text(t.shape)} of {t.dtype} needs {need}")
    order = sorted(tensors, key=lambda n: (-_ORDER[tensors[n].dtype], n.encode("utf-8")))

    header = {}
    if metadata:
        meta = {}
        for key in sorted(metadata, key=lambda k: k.encode("utf-8")):
            value = metadata[key]
            if not isinstance(key, str) or not isinstance(value, str):
                _fail("metadata maps strings to strings")
            _utf8(key, f'metadata must be UTF-8 (key "{key!r}")')
            _utf8(value, f'metadata must be UTF-8 (key "{key}")')
            meta[key] = value
        header["__metadata__"] = meta
    offset = 0
    for name in order:
        t = tensors[name]
        header[name] = {"dtype": t.dtype, "shape": [int(d) for d in t.shape],
                        "data_offsets": [offset, offset + len(t.data)]}
        offset += len(t.data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    if len(text) > MAX_HEADER_BYTES:
        _fail(f"the header would be {len(text)} bytes, above the format's limit")
    return b"".join([struct.pack("<Q", len(text)), text] + [bytes(tensors[n].data) for n in order])


def _utf8(s: str, message: str):
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        _fail(message)


# ---- reader -----------------------------------------------------------------------------------

class _Negative(str):
    """A negative integer literal, kept as text so that "-0" is refused like any negative number."""


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f'duplicate key "{key}" in an object')
        seen[key] = value
    return seen


def _depth(text: str) -> int:
    """Deepest nesting of [ and { outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _describe(value) -> str:
    if isinstance(value, _Negative):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_describe(v) for v in value) + "]"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _uint(t: str, what: str, value) -> int:
    if type(value) is not int or value < 0:  # bool is an int subclass: refused by the type check
        _fail(f"{t}{what} must hold non-negative integers, got {_describe(value)}")
    if value > _U64_MAX:
        _fail(f"{t}{what} value {value} does not fit in 64 bits")
    return value


def _json_type(value) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str) and not isinstance(value, _Negative):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"


def _entry(name: str, entry):
    t = f"tensor '{name}': "
    if not isinstance(entry, dict):
        _fail(f"{t}expected an object {{dtype, shape, data_offsets}}, got a {_json_type(entry)}")
    for key in entry:
        if key not in ("dtype", "shape", "data_offsets"):
            _fail(f'{t}unexpected member "{key}" (a tensor has dtype, shape and data_offsets)')
    for key in ("dtype", "shape", "data_offsets"):
        if key not in entry:
            _fail(f'{t}missing "{key}"')
    dtype = entry["dtype"]
    if not isinstance(dtype, str) or isinstance(dtype, _Negative):
        _fail(f"{t}dtype must be a string, got a {_json_type(dtype)}")
    if dtype not in DTYPES:
        if dtype in SUB_BYTE_DTYPES:
            _fail(f"{t}dtype {dtype} packs several values into a byte; tinygpt reads byte-sized dtypes only")
        _fail(f'{t}unknown dtype "{dtype}" (known: {", ".join(DTYPES)})')
    shape = entry["shape"]
    if not isinstance(shape, list):
        _fail(f"{t}shape must be an array, got a {_json_type(shape)}")
    shape = tuple(_uint(t, "shape", d) for d in shape)
    offsets = entry["data_offsets"]
    if not isinstance(offsets, list) or len(offsets) != 2:
        _fail(f"{t}data_offsets must be an array [begin, end], got {_describe(offsets)}")
    begin, end = (_uint(t, "data_offsets", o) for o in offsets)
    if end < begin:
        _fail(f"{t}data_offsets [{begin}, {end}] end before they begin")
    need = _byte_count(shape, DTYPES[dtype])
    if need is None:
        _fail(f"{t}shape {_shape_text(shape)} of {dtype} overflows 64 bits")
    if end - begin != need:
        _fail(f"{t}data_offsets [{begin}, {end}] hold {end - begin} bytes, but shape {_shape_text(shape)} "
              f"of {dtype} needs {need}")
    return dtype, shape, begin, end


def parse(buf, max_file_bytes: int = MAX_FILE_BYTES,
          max_header_bytes: int = MAX_HEADER_BYTES) -> Tuple[Dict[str, Tensor], Dict[str, str]]:
    """(tensors in data order, metadata) of a whole file's bytes; tensor data are memoryview slices."""
    buf = memoryview(buf).cast("B")
    n = len(buf)
    if n > max_file_bytes:
        _fail(f"the file is {n} bytes, above the limit of {max_file_bytes}")
    if n < 8:
        _fail(f"the file is {n} bytes, too short for the 8-byte header length")
    (header_len,) = struct.unpack("<Q", buf[:8])
    if header_len > max_header_bytes:
        _fail(f"header length {header_len} is above the limit of {max_header_bytes} bytes "
              "(not a safetensors file, or a damaged one)")
    if header_len > n - 8:
        _fail(f"header length {header_len} runs past the end of the file ({n} bytes)")
    try:
        text = bytes(buf[8:8 + header_len]).decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(f"header: not UTF-8 (byte {e.start}: {e.reason})")
    if _depth(text) > MAX_DEPTH:
        _fail(f"header: JSON nesting deeper than {MAX_DEPTH} levels")
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants,
                            parse_int=lambda s: _Negative(s) if s.startswith("-") else int(s))
    except ValueError as e:  # json.JSONDecodeError is a ValueError, and so are the hooks' errors
        _fail(f"header: JSON: {e}")
    if not isinstance(header, dict):
        _fail(f"the header is a JSON {_json_type(header)}, not an object")

    metadata: Dict[str, str] = {}
    entries = []
    for name, value in header.items():
        _utf8(name, "header: a key is not valid Unicode (an unpaired surrogate escape)")
        if name == "__metadata__":
            if not isinstance(value, dict):
                _fail(f"__metadata__ must be an object of strings, got a {_json_type(value)}")
            for key, v in value.items():
                if not isinstance(v, str) or isinstance(v, _Negative):
                    _fail(f'__metadata__ maps strings to strings, but "{key}" is a {_json_type(v)}')
                _utf8(key, "header: a metadata key is not valid Unicode")
                _utf8(v, "header: a metadata value is not valid Unicode")
                metadata[key] = v
            continue
        entries.append((name,) + _entry(name, value))

    data_len = n - 8 - header_len
    data_at = 8 + header_len
    entries.sort(key=lambda e: (e[3], e[4]))  # stable: by begin, then end
    covered = 0
    previous = None
    tensors: Dict[str, Tensor] = {}
    for name, dtype, shape, begin, end in entries:
        if end > data_len:
            _fail(f"tensor '{name}' data_offsets [{begin}, {end}] run past the end of the data ({data_len} bytes)")
        if begin < covered:
            _fail(f"tensor '{name}' data_offsets [{begin}, {end}] overlap tensor '{previous[0]}' "
                  f"[{previous[3]}, {previous[4]}]")
        if begin > covered:
            _fail(f"tensor '{name}' begins at data byte {begin}, leaving bytes {covered}..{begin - 1} unused "
                  "(tensors must cover the data without gaps)")
        covered = end
        previous = (name, dtype, shape, begin, end)
        tensors[name] = Tensor(dtype, shape, buf[data_at + begin:data_at + end])
    if covered != data_len:
        _fail(f"{data_len - covered} bytes after the last tensor (the data section is {data_len} bytes, "
              f"the tensors cover {covered})")
    return tensors, metadata


def load(path: str, max_file_bytes: int = MAX_FILE_BYTES):
    import os
    size = os.path.getsize(path)
    if size > max_file_bytes:
        _fail(f"'{path}' is {size} bytes, above the limit of {max_file_bytes}")
    with open(path, "rb") as f:
        return parse(f.read(), max_file_bytes=max_file_bytes)


def save(path: str, tensors: Mapping[str, Tensor], metadata: Optional[Mapping[str, str]] = None):
    """Writes path.tmp and renames it over path, so a crash never leaves half a file."""
    import os
    blob = serialize(tensors, metadata)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)


# ---- torch ------------------------------------------------------------------------------------

def _torch_dtypes():
    import torch
    return {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
            "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
            "BOOL": torch.bool}


def to_torch(t: Tensor):
    """A torch tensor (a copy) of a parsed tensor."""
    import torch
    dtypes = _torch_dtypes()
    if t.dtype not in dtypes:
        _fail(f"dtype {t.dtype} has no torch equivalent here")
    if len(t.data) == 0:
        return torch.zeros(t.shape, dtype=dtypes[t.dtype])
    return torch.frombuffer(bytearray(t.data), dtype=dtypes[t.dtype]).reshape(t.shape).clone()


def from_torch(x) -> Tensor:
    """A Tensor (little-endian bytes, row-major) of a torch tensor on any device."""
    import sys
    import torch
    names = {v: k for k, v in _torch_dtypes().items()}
    if x.dtype not in names:
        _fail(f"torch dtype {x.dtype} has no safetensors name here")
    x = x.detach().to("cpu").contiguous()
    if sys.byteorder != "little":
        raise NotImplementedError("big-endian hosts")
    # bytes through a uint8 view: works for every dtype, bfloat16 included (numpy has none)
    data = x.reshape(-1).view(torch.uint8).numpy().tobytes() if x.numel() else b""
    return Tensor(names[x.dtype], tuple(x.shape), data)


def save_torch(path: str, tensors, metadata: Optional[Mapping[str, str]] = None):
    save(path, {name: from_torch(x) for name, x in tensors.items()}, metadata)


def load_torch(path: str):
    tensors, metadata = load(path)
    return {name: to_torch(t) for name, t in tensors.items()}, metadata
