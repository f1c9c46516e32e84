"""tinygpt.tokenizer — the core's byte-level BPE (core/include/tinygpt/tokenizer.h) in plain Python:
the same pre-tokenization rule (GPT-2's regex as JavaScript reads it, by hand over UTF-8, with the
Unicode classes of tinygpt._unicode, generated with the core's tables), the same merges, so that
encode() gives the core's ids for any bytes. Standard library only.

    tok = Tokenizer.from_file("tok.json")        # tokenizer.json (tinygpt tokenizer train --out tok.json)
    tok = Tokenizer.from_file("tok.tok")         # or the core's compact form (a checkpoint's section)
    ids = tok.encode("To be, or not to be".encode())
    assert tok.decode(ids) == b"To be, or not to be"

Ids: text tokens are [0, vocab_size); the special tokens follow. Encoding a piece: its bytes' ids,
then repeatedly the adjacent pair with the lowest merge rank (leftmost among equals) is joined.
"""
import bisect
import heapq
import json
import struct
import zlib
from typing import Dict, List, Sequence, Tuple

from tinygpt import _unicode

MAX_PIECE = 65536  # tokenizer.h kMaxPiece: a longer piece is cut there

OTHER, LETTER, NUMBER, SPACE = 0, 1, 2, 3


def _table(ranges):
    return [lo for lo, _ in ranges], [hi for _, hi in ranges]


_TABLES = [(LETTER, _table(_unicode.LETTERS)), (NUMBER, _table(_unicode.NUMBERS)), (SPACE, _table(_unicode.SPACES))]


def char_class(cp: int) -> int:
    """The class of a code point: LETTER (\\p{L}), NUMBER (\\p{N}), SPACE (\\s) or OTHER."""
    for cls, (los, his) in _TABLES:
        i = bisect.bisect_right(los, cp) - 1
        if i >= 0 and cp <= his[i]:
            return cls
    return OTHER


_ASCII = [char_class(b) for b in range(128)]
_CLASS_CACHE: Dict[int, int] = {}


def _char(s: bytes, at: int) -> Tuple[int, int]:
    """(class, length) of the character at s[at]; an invalid sequence is one OTHER character per
    maximal subpart (as the WHATWG decoder puts one U+FFFD there)."""
    b = s[at]
    if b < 0x80:
        return _ASCII[b], 1
    lo, hi = 0x80, 0xBF
    if 0xC2 <= b <= 0xDF:
        need, cp = 1, b & 0x1F
    elif 0xE0 <= b <= 0xEF:
        need, cp = 2, b & 0x0F
        if b == 0xE0:
            lo = 0xA0
        if b == 0xED:
            hi = 0x9F
    elif 0xF0 <= b <= 0xF4:
        need, cp = 3, b & 0x07
        if b == 0xF0:
            lo = 0x90
        if b == 0xF4:
            hi = 0x8F
    else:
        return OTHER, 1
    n = len(s)
    length = 1
    for _ in range(need):
        if at + length >= n or not lo <= s[at + length] <= hi:
            return OTHER, length
        cp = (cp << 6) | (s[at + length] & 0x3F)
        lo, hi = 0x80, 0xBF
        length += 1
    cls = _CLASS_CACHE.get(cp)
    if cls is None:
        cls = _CLASS_CACHE[cp] = char_class(cp)
    return cls, length


def _run_end(s: bytes, at: int, start: int, cls: int) -> int:
    n, limit = len(s), start + MAX_PIECE
    while at < n:
        c, length = _char(s, at)
        if c != cls or at + length > limit:
            break
        at += length
    return at


def piece_end(s: bytes, at: int) -> int:
    """The end of the piece starting at `at`: GPT-2's rule (tokenizer.h), the text ending at len(s)."""
    n = len(s)
    if s[at] == 0x27 and at + 1 < n:  # 's|'t|'re|'ve|'m|'ll|'d
        b1 = s[at + 1]
        if b1 in b"stmd":
            return at + 2
        if at + 2 < n and s[at + 1:at + 3] in (b"re", b"ve", b"ll"):
            return at + 3
    cls, _ = _char(s, at)
    if s[at] == 0x20 and at + 1 < n:  # a space, then a run of letters, numbers or others
        d, _ = _char(s, at + 1)
        if d != SPACE:
            return _run_end(s, at + 1, at, d)
    if cls != SPACE:
        return _run_end(s, at, at, cls)
    last = i = at  # white space: its last character goes with what follows, unless it is alone
    limit = at + MAX_PIECE
    while i < n:
        c, length = _char(s, i)
        if c != SPACE:
            break
        if i + length > limit:
            return i
        last = i
        i += length
    if i == n or last == at:
        return i
    return last


def pretokenize(s: bytes) -> List[Tuple[int, int]]:
    """The pieces of a text, as (begin, end) offsets."""
    out, at = [], 0
    while at < len(s):
        end = piece_end(s, at)
        out.append((at, end))
        at = end
    return out


# GPT-2's byte <-> printable character map (bytes_to_unicode), for tokenizer.json
def _bytes_to_unicode() -> List[str]:
    out, k = [], 0
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            out.append(chr(b))
        else:
            out.append(chr(256 + k))
            k += 1
    return out


BYTE_TO_UNICODE = _bytes_to_unicode()
UNICODE_TO_BYTE = {c: b for b, c in enumerate(BYTE_TO_UNICODE)}


class TokenizerError(ValueError):
    pass


class Tokenizer:
    """A byte-level BPE vocabulary: tokens (bytes by id), merges (left id, right id, id, count) in rank order."""

    def __init__(self, tokens: Sequence[bytes], merges: Sequence[Tuple[int, int, int, int]], specials: Sequence[Tuple[str, int]] = ()):
        self.tokens = list(tokens)
        self.merges = [tuple(m) for m in merges]
        self.specials = sorted(specials, key=lambda s: s[1])
        if len(self.merges) != len(self.tokens) - 256:
            raise TokenizerError(f"{len(self.tokens)} tokens but {len(self.merges)} merges")
        # canonical ids: byte b is b, merge r is 256 + r (core/src/tokenizer_impl.h)
        self._to_canon: Dict[int, int] = {}
        self._to_file = [0] * len(self.tokens)
        for i, t in enumerate(self.tokens):
            if len(t) == 1:
                self._to_canon[i], self._to_file[t[0]] = t[0], i
        if len(self._to_canon) != 256:
            raise TokenizerError("the vocabulary does not have the 256 byte tokens")
        self._ranks: Dict[Tuple[int, int], int] = {}
        for r, (left, right, made, _count) in enumerate(self.merges):
            if left not in self._to_canon or right not in self._to_canon or made in self._to_canon:
                raise TokenizerError(f"merge {r} joins a token no earlier merge made")
            if self.tokens[made] != self.tokens[left] + self.tokens[right]:
                raise TokenizerError(f"merge {r} makes a token other than its two parts joined")
            self._ranks[(self._to_canon[left], self._to_canon[right])] = r
            self._to_canon[made] = 256 + r
            self._to_file[256 + r] = made
        self._cache: Dict[bytes, List[int]] = {}
        self.stats = (0, 0)  # the training text's bytes and tokens (Tokenizer::training_stats), when known

    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    @property
    def id_count(self) -> int:
        return len(self.tokens) + len(self.specials)

    def special_id(self, text: str) -> int:
        for t, i in self.specials:
            if t == text:
                return i
        raise TokenizerError(f"no special token {text}")

    # ---- encoding ----
    def _bpe_long(self, piece: bytes) -> List[int]:
        """The same merges in O(n log n): a linked list of tokens and a heap of (rank, position)."""
        n = len(piece)
        ids, nxt, prv = list(piece), list(range(1, n)) + [-1], list(range(-1, n - 1))
        rank = [-1] * n
        heap: List[Tuple[int, int]] = []
        ranks = self._ranks

        def update(i):
            r = ranks.get((ids[i], ids[nxt[i]])) if nxt[i] >= 0 else None
            rank[i] = -1 if r is None else r
            if r is not None:
                heapq.heappush(heap, (r, i))

        for i in range(n):
            update(i)
        while heap:
            r, i = heapq.heappop(heap)
            if ids[i] < 0 or rank[i] != r:
                continue
            j = nxt[i]
            ids[i], ids[j] = 256 + r, -1
            nxt[i] = nxt[j]
            if nxt[i] >= 0:
                prv[nxt[i]] = i
            update(i)
            if prv[i] >= 0:
                update(prv[i])
        out, i = [], 0
        while i >= 0:
            out.append(self._to_file[ids[i]])
            i = nxt[i]
        return out

    def _bpe(self, piece: bytes) -> List[int]:
        if len(piece) > 128:
            return self._bpe_long(piece)
        ids = list(piece)
        ranks = self._ranks
        while len(ids) > 1:
            best, at = None, 0
            for i in range(len(ids) - 1):
                r = ranks.get((ids[i], ids[i + 1]))
                if r is not None and (best is None or r < best):
                    best, at = r, i
            if best is None:
                break
            ids[at:at + 2] = [256 + best]
        return [self._to_file[c] for c in ids]

    def encode(self, text: bytes) -> List[int]:
        """The ids of any bytes (special tokens' text is encoded as text)."""
        if isinstance(text, str):
            text = text.encode("utf-8")
        out: List[int] = []
        cache = self._cache
        for b, e in pretokenize(text):
            piece = text[b:e]
            ids = cache.get(piece)
            if ids is None:
                ids = self._bpe(piece)
                if len(piece) <= 64:
                    cache[piece] = ids
            out.extend(ids)
        return out

    def decode(self, ids: Sequence[int]) -> bytes:
        special = dict((i, t.encode("utf-8")) for t, i in self.specials)
        out = bytearray()
        for i in ids:
            if 0 <= i < len(self.tokens):
                out += self.tokens[i]
            elif i in special:
                out += special[i]
            else:
                raise TokenizerError(f"token {i} is not in this vocabulary")
        return bytes(out)

    # ---- files ----
    @classmethod
    def from_json(cls, text: str) -> "Tokenizer":
        """A ByteLevel BPE tokenizer.json (the core's to_hf_json, or GPT-2's)."""
        root = json.loads(text)
        model = root["model"]
        if model.get("type", "BPE") != "BPE":
            raise TokenizerError(f"the model is {model.get('type')}, not BPE")
        vocab: Dict[str, int] = model["vocab"]

        def to_bytes(s: str) -> bytes:
            return bytes(UNICODE_TO_BYTE[c] for c in s)

        merges_text = [m.split(" ") if isinstance(m, str) else m for m in model["merges"]]
        n = 256 + len(merges_text)
        tokens: List[bytes] = [b""] * n
        for key, i in vocab.items():
            if i < n and len(key) == 1 and key in UNICODE_TO_BYTE:
                tokens[i] = to_bytes(key)
        merges = []
        for left, right in merges_text:
            made = vocab[left + right]
            tokens[made] = to_bytes(left + right)
            merges.append((vocab[left], vocab[right], made, 0))
        specials = [(a["content"], a["id"]) for a in root.get("added_tokens") or []]
        return cls(tokens, merges, specials)

    @classmethod
    def from_bytes(cls, blob: bytes) -> "Tokenizer":
        """The core's compact form (core/src/tokenizer_io.cpp describes it)."""
        if blob[:8] != b"TGPTTOKN":
            raise TokenizerError("not a tinygpt tokenizer (it does not start with TGPTTOKN)")
        version, length, flags, vocab, n_special = struct.unpack_from("<5I", blob, 8)
        if version != 1:
            raise TokenizerError(f"tokenizer format version {version}: this reads version 1")
        if length != len(blob) or zlib.crc32(blob[:-4]) != struct.unpack_from("<I", blob, len(blob) - 4)[0]:
            raise TokenizerError("the tokenizer is damaged or cut off")
        width = 4 if flags & 1 else 2
        fmt = "<I" if width == 4 else "<H"
        at = 44
        ids_read = []

        def ident() -> int:
            nonlocal at
            v = struct.unpack_from(fmt, blob, at)[0]
            at += width
            ids_read.append(v)
            return v

        tokens: List[bytes] = [b""] * vocab
        for b in range(256):
            tokens[ident()] = bytes([b])
        merges = []
        for r in range(vocab - 256):
            left, right = ident(), ident()
            made = ident() if flags & 2 else 256 + r
            tokens[made] = tokens[left] + tokens[right]
            merges.append([left, right, made, 0])
        for m in merges:
            value, shift = 0, 0
            while True:
                byte = blob[at]
                at += 1
                value |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            m[3] = value
        specials = []
        for _ in range(n_special):
            i = ident()
            n = blob[at]
            specials.append((blob[at + 1:at + 1 + n].decode("utf-8"), i))
            at += 1 + n
        t = cls(tokens, merges, specials)
        t.stats = struct.unpack_from("<2Q", blob, 28)
        return t

    def to_bytes(self, with_counts: bool = True) -> bytes:
        """The core's compact form (Tokenizer::serialize; without the counts and the training
        statistics: what Tokenizer::fingerprint hashes)."""
        wide = self.id_count > 65536
        explicit = any(made != 256 + r for r, (_l, _r, made, _c) in enumerate(self.merges))
        fmt = "<I" if wide else "<H"
        stats = self.stats if with_counts else (0, 0)
        out = bytearray(b"TGPTTOKN")
        out += struct.pack("<5I2Q", 1, 0, (1 if wide else 0) | (2 if explicit else 0), self.vocab_size, len(self.specials), *stats)
        for b in range(256):
            out += struct.pack(fmt, self._to_file[b])
        for left, right, made, _count in self.merges:
            out += struct.pack(fmt, left) + struct.pack(fmt, right)
            if explicit:
                out += struct.pack(fmt, made)
        for m in self.merges:
            v = m[3] if with_counts else 0
            while True:
                out.append((v & 0x7F) | (0x80 if v >= 0x80 else 0))
                v >>= 7
                if not v:
                    break
        for text, i in self.specials:
            raw = text.encode("utf-8")[:255]
            out += struct.pack(fmt, i) + bytes([len(raw)]) + raw
        struct.pack_into("<I", out, 12, len(out) + 4)
        out += struct.pack("<I", zlib.crc32(out))
        return bytes(out)

    def fingerprint(self) -> int:
        """Tokenizer::fingerprint: FNV-1a 64 of the compact form without counts and statistics."""
        h = 14695981039346656037
        for b in self.to_bytes(with_counts=False):
            h = ((h ^ b) * 1099511628211) & ((1 << 64) - 1)
        return h

    @classmethod
    def from_file(cls, path: str) -> "Tokenizer":
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] == b"TGPTTOKN":
            return cls.from_bytes(data)
        return cls.from_json(data.decode("utf-8"))
