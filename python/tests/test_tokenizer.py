"""tinygpt.tokenizer against the core: the CLI learns a vocabulary and encodes texts (English, Chinese,
emoji, runs of white space, invalid UTF-8, random bytes); Python reads its tokenizer.json and its
compact form and must give the same ids. Standard library only (no torch), a few seconds.

CTest: python_tokenizer_encodes_as_the_core. By hand, from python/:
    TINYGPT_CLI=../build/native/tinygpt /usr/bin/python3 -m unittest -v tests.test_tokenizer
"""
import os
import random
import re
import subprocess
import tempfile
import unittest

from tinygpt import _unicode
from tinygpt.tokenizer import Tokenizer, pretokenize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args, stdin=None) -> subprocess.CompletedProcess:
    program = os.environ.get("TINYGPT_CLI")
    if not program:
        raise AssertionError("TINYGPT_CLI is not set (CTest sets it): see the top of this file")
    out = subprocess.run([program, *map(str, args)], capture_output=True, input=stdin)
    if out.returncode != 0:
        raise AssertionError(f"tinygpt {' '.join(map(str, args))} failed:\n{out.stderr.decode(errors='replace')}")
    return out


def mixed_text(n: int, seed: int) -> bytes:
    """Pieces of every kind the rule tells apart, and bytes that are not UTF-8."""
    rng = random.Random(seed)
    words = ["the", " king", "'s", "'LL", " 你好", "世界。", "😀👍🏽", " 123", "½Ⅻ", "\u00a0", "\u3000", "\u0085", "e\u0301",
             "  ", "\n\n", "\t", " ", "\r\n", "Ωμέγα", "Жизнь", "!!", " ...", "𝐀𝐁"]
    out = bytearray()
    while len(out) < n:
        r = rng.random()
        if r < 0.8:
            out += rng.choice(words).encode("utf-8")
        elif r < 0.9:
            out += bytes([rng.choice([0x80, 0xBF, 0xC0, 0xC3, 0xE4, 0xED, 0xF0, 0xF5, 0xFF])])
        else:
            out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
    return bytes(out)


class ParityWithTheCore(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(ROOT, "data", "tinyshakespeare.txt"), "rb") as f:
            cls.shakespeare = f.read()
        train = os.path.join(cls.tmp.name, "train.txt")
        with open(train, "wb") as f:
            f.write(cls.shakespeare[:150_000] + mixed_text(30_000, 1))
        cls.json_path = os.path.join(cls.tmp.name, "tok.json")
        cls.blob_path = os.path.join(cls.tmp.name, "tok.tok")
        cli("tokenizer", "train", train, "--vocab", 700, "--out", cls.json_path)
        cli("tokenizer", "train", train, "--vocab", 700, "--out", cls.blob_path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def core_ids(self, text: bytes):
        path = os.path.join(self.tmp.name, "text.bin")
        with open(path, "wb") as f:
            f.write(text)
        out = cli("tokenizer", "encode", "--tokenizer", self.json_path, path)
        return [int(x) for x in out.stdout.split()]

    def test_encodes_every_kind_of_text_as_the_core(self):
        tok = Tokenizer.from_file(self.json_path)
        self.assertEqual(tok.vocab_size, 700)
        for name, text in [("shakespeare", self.shakespeare[500_000:560_000]), ("mixed", mixed_text(40_000, 2)),
                           ("random bytes", bytes(random.Random(3).randrange(256) for _ in range(5000))),
                           ("long runs", b" " * 70_000 + b"x" + b"e" * 3000 + b"\n" * 40)]:
            with self.subTest(name):
                ids = tok.encode(text)
                self.assertEqual(ids, self.core_ids(text))
                self.assertEqual(tok.decode(ids), text)

    def test_reads_the_compact_form_with_the_same_merges_and_counts(self):
        a, b = Tokenizer.from_file(self.json_path), Tokenizer.from_file(self.blob_path)
        self.assertEqual([m[:3] for m in a.merges], [m[:3] for m in b.merges])
        self.assertTrue(all(m[3] >= 2 for m in b.merges))  # a pair is merged when seen twice or more
        self.assertEqual(b.tokens, a.tokens)
        self.assertEqual(dict(b.specials)["<|endoftext|>"], 703)
        text = mixed_text(5000, 4)
        self.assertEqual(b.encode(text), a.encode(text))

    def test_cuts_pieces_where_the_regex_does(self):
        text = "Hello world's end!! I'll  go\n\n  now ½Ⅻ 你好，世界".encode()
        self.assertEqual([text[b:e].decode() for b, e in pretokenize(text)],
                         ["Hello", " world", "'s", " end", "!!", " I", "'ll", " ", " go", "\n\n ", " now", " ½Ⅻ", " 你好", "，", "世界"])

    def test_has_the_cores_unicode_tables(self):
        with open(os.path.join(ROOT, "core", "src", "tokenizer_unicode.h")) as f:
            header = f.read()
        for name, ranges in [("kLetters", _unicode.LETTERS), ("kNumbers", _unicode.NUMBERS), ("kSpaces", _unicode.SPACES)]:
            body = header[header.index(name):]
            body = body[:body.index("};")]
            pairs = [(int(a, 16), int(b, 16)) for a, b in re.findall(r"\{0x([0-9A-F]+), 0x([0-9A-F]+)\}", body)]
            self.assertEqual(pairs, list(ranges), name)


if __name__ == "__main__":
    unittest.main()
