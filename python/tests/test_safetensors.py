"""The Python safetensors module against the published format and against the C++ core.

Run from python/:  TINYGPT_SAFETENSORS_TOOL=../build/native/tests/safetensors_tool python3 -m unittest tests.test_safetensors
(CTest sets the variable: python_safetensors_cpp_and_python_agree). Standard library only.
"""
import os
import random
import struct
import subprocess
import tempfile
import unittest

from tinygpt import safetensors as st

TOOL = os.environ.get("TINYGPT_SAFETENSORS_TOOL")


def file_of(header: str, data: bytes = b"") -> bytes:
    """u64 length + header (as given, no padding) + data"""
    h = header.encode("utf-8") if isinstance(header, str) else header
    return struct.pack("<Q", len(h)) + h + data


def floats(*values) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def example():
    """The same content as safetensors_tool's example (tests/safetensors_tool.cpp)."""
    tensors = {}
    for k, (name, size) in enumerate(st.DTYPES.items()):
        n = 6 * size
        data = bytes(i % 2 for i in range(n)) if name == "BOOL" else bytes((k * 7 + i * 0x11) & 0xFF for i in range(n))
        tensors["t." + name] = st.Tensor(name, (2, 3), data)
    tensors["scalar"] = st.Tensor("F32", (), floats(3.25))
    tensors["empty 中文"] = st.Tensor("F32", (0, 4), b"")
    metadata = {"format": "pt", "note": 'quote " backslash \\ newline \n tab \t bell \x07 é 中', "é": "key"}
    return tensors, metadata


def run_tool(*args, stdin=None):
    if not TOOL:
        raise AssertionError("TINYGPT_SAFETENSORS_TOOL is not set: the path of build/native/tests/safetensors_tool "
                             "(CTest sets it)")
    return subprocess.run([TOOL, *args], input=stdin, capture_output=True, text=True)


D16 = bytes(16)


def tensor(body: str) -> str:
    return '{"t":' + body + "}"


# (what, bytes, part of the message); the C++ reader must refuse every one as well
BAD_FILES = [
    ("empty file", b"", "the file is 0 bytes, too short for the 8-byte header length"),
    ("7 bytes", b"\x01\0\0\0\0\0\0", "too short for the 8-byte header length"),
    ("header above 100 MB", struct.pack("<Q", 100_000_001) + b"{}", "is above the limit of 100000000 bytes"),
    ("header past the end", struct.pack("<Q", 3) + b"{}", "header length 3 runs past the end of the file (10 bytes)"),
    ("header not UTF-8", file_of(b'{"\xff":1}'), "header: not UTF-8"),
    ("utf-8 encoded surrogate", file_of(b'{"\xed\xa0\x80":1}'), "header: not UTF-8"),
    ("header not JSON", file_of("{"), "header: JSON:"),
    ("byte-order mark", file_of(b"\xef\xbb\xbf{}"), "header: JSON:"),
    ("NaN in the header", file_of('{"__metadata__":{"a":NaN}}'), "NaN is not JSON"),
    ("unpaired surrogate escape", file_of('{"\\ud800":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}'), "not valid Unicode"),
    ("too deep", file_of('{"__metadata__":' + "[" * 70 + "]" * 70 + "}"), "nesting deeper than 64 levels"),
    ("header an array", file_of("[]"), "the header is a JSON array, not an object"),
    ("duplicate tensor", file_of('{"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                                 '"t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\0\0"), 'duplicate key "t"'),
    ("metadata not strings", file_of('{"__metadata__":{"n":1}}'), '__metadata__ maps strings to strings, but "n" is a number'),
    ("metadata not an object", file_of('{"__metadata__":"x"}'), "__metadata__ must be an object of strings"),
    ("entry not an object", file_of(tensor("[1]")), "tensor 't': expected an object {dtype, shape, data_offsets}, got a array"),
    ("missing dtype", file_of(tensor('{"shape":[4],"data_offsets":[0,16]}'), D16), "tensor 't': missing \"dtype\""),
    ("missing shape", file_of(tensor('{"dtype":"F32","data_offsets":[0,16]}'), D16), "tensor 't': missing \"shape\""),
    ("missing offsets", file_of(tensor('{"dtype":"F32","shape":[4]}'), D16), "tensor 't': missing \"data_offsets\""),
    ("extra member", file_of(tensor('{"dtype":"F32","shape":[4],"data_offsets":[0,16],"stride":[1]}'), D16),
     'unexpected member "stride"'),
    ("unknown dtype", file_of(tensor('{"dtype":"F33","shape":[4],"data_offsets":[0,16]}'), D16),
     'unknown dtype "F33" (known: BOOL, U8'),
    ("lower-case dtype", file_of(tensor('{"dtype":"f32","shape":[4],"data_offsets":[0,16]}'), D16), 'unknown dtype "f32"'),
    ("dtype not a string", file_of(tensor('{"dtype":4,"shape":[4],"data_offsets":[0,16]}'), D16), "dtype must be a string"),
    ("sub-byte dtype", file_of(tensor('{"dtype":"F4","shape":[4],"data_offsets":[0,2]}'), b"\0\0"),
     "dtype F4 packs several values into a byte"),
    ("negative dimension", file_of(tensor('{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}'), D16),
     "shape must hold non-negative integers, got -4"),
    ("minus zero", file_of(tensor('{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}')),
     "shape must hold non-negative integers, got -0"),
    ("fractional dimension", file_of(tensor('{"dtype":"F32","shape":[4.0],"data_offsets":[0,16]}'), D16),
     "shape must hold non-negative integers, got 4.0"),
    ("boolean dimension", file_of(tensor('{"dtype":"F32","shape":[true],"data_offsets":[0,4]}'), bytes(4)),
     "shape must hold non-negative integers, got true"),
    ("dimension above 2^64", file_of(tensor('{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,16]}'), D16),
     "shape value 18446744073709551616 does not fit in 64 bits"),
    ("shape overflow", file_of(tensor('{"dtype":"I32","shape":[2,18446744073709551614],"data_offsets":[0,16]}'), D16),
     "shape [2, 18446744073709551614] of I32 overflows 64 bits"),
    ("shape not an array", file_of(tensor('{"dtype":"F32","shape":4,"data_offsets":[0,16]}'), D16), "shape must be an array"),
    ("offsets of 3", file_of(tensor('{"dtype":"F32","shape":[4],"data_offsets":[0,16,16]}'), D16),
     "data_offsets must be an array [begin, end], got [0,16,16]"),
    ("offsets reversed", file_of(tensor('{"dtype":"F32","shape":[4],"data_offsets":[16,0]}'), D16),
     "data_offsets [16, 0] end before they begin"),
    ("wrong byte count", file_of(tensor('{"dtype":"I32","shape":[2,2],"data_offsets":[0,4]}'), bytes(4)),
     "data_offsets [0, 4] hold 4 bytes, but shape [2, 2] of I32 needs 16"),
    ("out of range", file_of(tensor('{"dtype":"F32","shape":[4],"data_offsets":[0,16]}'), bytes(4)),
     "tensor 't' data_offsets [0, 16] run past the end of the data (4 bytes)"),
    ("overlap", file_of('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                        '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', D16),
     "tensor 'b' data_offsets [4, 12] overlap tensor 'a' [0, 8]"),
    ("same offsets (the reference's JSON attack)",
     file_of('{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},'
             '"b":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}', D16), "overlap tensor 'a' [0, 16]"),
    ("gap", file_of('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                    '"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}', bytes(12)),
     "tensor 'b' begins at data byte 8, leaving bytes 4..7 unused"),
    ("trailing bytes (a polyglot file)", file_of(tensor('{"dtype":"F32","shape":[4],"data_offsets":[0,16]}'), bytes(20)),
     "4 bytes after the last tensor"),
]


class PublishedFormat(unittest.TestCase):
    """The bytes of the reference's own serialization tests (huggingface/safetensors tensor.rs)."""

    def test_writer_reproduces_the_reference_bytes(self):
        six = floats(0, 1, 2, 3, 4, 5)
        self.assertEqual(st.serialize({"attn.0": st.Tensor("F32", (1, 2, 3), six)}),
                         file_of('{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}', six))
        self.assertEqual(st.serialize({"attn0": st.Tensor("F32", (1, 1, 2, 3), six)}),
                         file_of('{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}' + " " * 7, six))
        self.assertEqual(st.serialize({}), file_of("{}      "))
        self.assertEqual(st.serialize({}, {"framework": "pt"}), file_of('{"__metadata__":{"framework":"pt"}}' + " " * 5))

    def test_reader_accepts_the_reference_examples(self):
        tensors, meta = st.parse(file_of('{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}', D16))
        self.assertEqual(list(tensors), ["test"])
        self.assertEqual(tensors["test"].shape, (2, 2))
        self.assertEqual(bytes(tensors["test"].data), D16)
        self.assertEqual(meta, {})
        self.assertEqual(st.parse(file_of('{"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}', bytes(4)))[0]["test"].shape, ())
        self.assertEqual(len(st.parse(file_of('{"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0, 0]}}'))[0]["test"].data), 0)
        self.assertEqual(st.parse(file_of("{}\r \t\n")), ({}, {}))
        self.assertEqual(st.parse(file_of("\t\n{}\r ")), ({}, {}))

    def test_writer_orders_by_dtype_then_name(self):
        blob = st.serialize({"b": st.Tensor("F32", (1,), floats(1)), "a": st.Tensor("U8", (2,), b"\1\2"),
                             "c": st.Tensor("I64", (), bytes(8)), "a2": st.Tensor("F32", (1,), floats(1))})
        self.assertEqual(list(st.parse(blob)[0]), ["c", "a2", "b", "a"])

    def test_writer_refuses_what_it_cannot_write(self):
        for tensors, meta, message in [
            ({"a": st.Tensor("F32", (3,), bytes(8))}, None, "has 8 bytes, but shape [3] of F32 needs 12"),
            ({"__metadata__": st.Tensor("F32", (2,), bytes(8))}, None, "reserved"),
            ({"": st.Tensor("F32", (2,), bytes(8))}, None, "needs a name"),
            ({"a": st.Tensor("F33", (2,), bytes(8))}, None, "unknown dtype"),
            ({"\ud800": st.Tensor("F32", (2,), bytes(8))}, None, "UTF-8"),
            ({}, {"k": "\udc00"}, "metadata must be UTF-8"),
            ({}, {"k": 1}, "metadata maps strings to strings"),
        ]:
            with self.assertRaises(st.SafetensorsError) as e:
                st.serialize(tensors, meta)
            self.assertIn(message, str(e.exception))


class Refusals(unittest.TestCase):
    def test_python_reader_refuses_every_bad_file(self):
        for what, blob, message in BAD_FILES:
            with self.subTest(what):
                with self.assertRaises(st.SafetensorsError) as e:
                    st.parse(blob)
                self.assertTrue(str(e.exception).startswith("safetensors: "), str(e.exception))
                self.assertIn(message, str(e.exception))

    def test_limits(self):
        with self.assertRaisesRegex(st.SafetensorsError, "the file is 16 bytes, above the limit of 10"):
            st.parse(file_of("{}      "), max_file_bytes=10)
        with self.assertRaisesRegex(st.SafetensorsError, "header length 8 is above the limit of 4 bytes"):
            st.parse(file_of("{}      "), max_header_bytes=4)

    def test_cpp_reader_refuses_the_same_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, (what, blob, _) in enumerate(BAD_FILES):
                paths.append(os.path.join(tmp, f"bad{i}.safetensors"))
                with open(paths[-1], "wb") as f:
                    f.write(blob)
            out = run_tool("check-many", stdin="\n".join(paths) + "\n")
            self.assertEqual(out.returncode, 0, out.stderr)
            verdicts = out.stdout.splitlines()
            self.assertEqual(len(verdicts), len(BAD_FILES))
            for (what, _, _), verdict in zip(BAD_FILES, verdicts):
                with self.subTest(what):
                    self.assertTrue(verdict.startswith("error: safetensors: "), verdict)


class CrossLanguage(unittest.TestCase):
    def test_cpp_writer_to_python_reader_is_bit_exact(self):
        tensors, metadata = example()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cpp.safetensors")
            out = run_tool("example", path)
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(path, "rb") as f:
                cpp_bytes = f.read()
        got, got_meta = st.parse(cpp_bytes)
        self.assertEqual(got_meta, metadata)
        self.assertEqual(set(got), set(tensors))
        for name, t in tensors.items():
            self.assertEqual((got[name].dtype, got[name].shape, bytes(got[name].data)), (t.dtype, t.shape, t.data), name)
        # and the Python writer writes the very same bytes
        self.assertEqual(st.serialize(tensors, metadata), cpp_bytes)

    def test_python_writer_to_cpp_reader_is_bit_exact(self):
        rng = random.Random(12)
        cases = [example()]
        for _ in range(20):  # random names (unicode, escapes), dtypes, shapes, metadata
            tensors = {}
            for _ in range(rng.randrange(0, 6)):
                name = "".join(rng.choice("abc.0_ é中\"\\\n") for _ in range(rng.randrange(1, 8)))
                dtype = rng.choice(list(st.DTYPES))
                shape = tuple(rng.randrange(0, 4) for _ in range(rng.randrange(0, 4)))
                n = st.DTYPES[dtype]
                for d in shape:
                    n *= d
                tensors[name] = st.Tensor(dtype, shape, bytes(rng.randrange(256) for _ in range(n)))
            meta = {"k" + str(i): "".join(rng.choice("xy\t\"中") for _ in range(3)) for i in range(rng.randrange(0, 3))}
            cases.append((tensors, meta))
        with tempfile.TemporaryDirectory() as tmp:
            for i, (tensors, meta) in enumerate(cases):
                src, dst = os.path.join(tmp, f"py{i}.safetensors"), os.path.join(tmp, f"cpp{i}.safetensors")
                st.save(src, tensors, meta)
                out = run_tool("copy", src, dst)  # the C++ reader, then the C++ writer
                self.assertEqual(out.returncode, 0, out.stderr)
                with open(src, "rb") as a, open(dst, "rb") as b:
                    self.assertEqual(a.read(), b.read(), f"case {i}")

    def test_both_readers_agree_on_damaged_files(self):
        """Differential fuzz: random damage to valid files; both readers accept or both refuse."""
        rng = random.Random(7)
        seeds = [st.serialize(*example()),
                 st.serialize({"a": st.Tensor("F32", (3,), floats(1, 2, 3)), "b": st.Tensor("U8", (5,), b"12345")}, {"k": "v"}),
                 file_of('{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}', D16)]
        blobs = []
        for _ in range(400):
            b = bytearray(rng.choice(seeds))
            for _ in range(rng.randrange(1, 4)):
                at = rng.randrange(len(b)) if b else 0
                kind = rng.randrange(5)
                if kind == 0 and b:
                    b[at] ^= 1 << rng.randrange(8)
                elif kind == 1 and b:
                    b[at] = ord(rng.choice('{}[]",:0123456789-.e \\u'))
                elif kind == 2:
                    del b[rng.randrange(len(b) + 1):]
                elif kind == 3:
                    b.insert(at, rng.randrange(256))
                elif b:
                    del b[at]
            blobs.append(bytes(b))
        python = []
        for b in blobs:
            try:
                st.parse(b)
                python.append("ok")
            except st.SafetensorsError:
                python.append("error")
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, b in enumerate(blobs):
                paths.append(os.path.join(tmp, f"f{i}"))
                with open(paths[-1], "wb") as f:
                    f.write(b)
            out = run_tool("check-many", stdin="\n".join(paths) + "\n")
        cpp = ["ok" if v == "ok" else "error" for v in out.stdout.splitlines()]
        self.assertEqual(len(cpp), len(blobs))
        disagree = [i for i in range(len(blobs)) if cpp[i] != python[i]]
        self.assertEqual(disagree, [], [(blobs[i][:120], cpp[i], python[i]) for i in disagree[:3]])
        print(f"\n[fuzz] {len(blobs)} damaged files: both accept {python.count('ok')}, both refuse {python.count('error')}")


if __name__ == "__main__":
    unittest.main()
