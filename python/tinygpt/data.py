"""tinygpt.data — the core's batch sampler in Python, bit for bit (core/include/tinygpt/rng.h,
core/src/data.cpp), so a run continues in PyTorch on exactly the windows the core would have drawn.

    Rng          xoshiro256** (SplitMix64 seeding), below(n) by rejection of the short last bucket
    Dataset      the corpus's tokens (its bytes, or a BPE run's ids: tokenizer.Tokenizer.encode): the
                 last 10% are validation; a training window starts at rng.below(train_size - T) and
                 is x = tokens[s : s+T], y = tokens[s+1 : s+T+1];
                 the k-th validation batch comes from its own generator, Rng(0x5EED * 1000003 + k)
    fingerprint  what checkpoints record as corpus_fingerprint: FNV-1a 64 of the bytes up to 64 MiB,
                 above that of a sample (the size, then 64 blocks of 64 KiB: data::sampled_fingerprint);
                 a BPE run's, token_fingerprint (tok::TokenSource's: the text's and the tokenizer's)

Standard library only; batches() returns torch tensors when asked.
"""
from typing import List, Sequence, Tuple

MASK64 = (1 << 64) - 1
VAL_FRACTION = 0.1


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


class Rng:
    """xoshiro256**: data::Rng. Its whole state is four 64-bit words (a checkpoint's data_rng)."""

    def __init__(self, seed: int = 0, state: Sequence[int] = None):
        if state is not None:
            self.s = [int(w) & MASK64 for w in state]
            if len(self.s) != 4:
                raise ValueError("an Rng state is four 64-bit words")
        else:
            self.reseed(seed)

    def reseed(self, seed: int):
        self.s = []
        seed &= MASK64
        for _ in range(4):  # SplitMix64
            seed = (seed + 0x9E3779B97F4A7C15) & MASK64
            z = seed
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            self.s.append(z ^ (z >> 31))

    def state(self) -> Tuple[int, int, int, int]:
        return tuple(self.s)

    def next_u64(self) -> int:
        s = self.s
        result = (_rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """Uniform in [0, n), unbiased: draws again while x falls in the short last bucket."""
        limit = MASK64 - MASK64 % n
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n


FULL_FINGERPRINT_BYTES = 64 << 20   # data::kFullFingerprintBytes
FINGERPRINT_BLOCKS = 64
FINGERPRINT_BLOCK_BYTES = 64 << 10


def fnv1a64(data: bytes, h: int = 14695981039346656037) -> int:
    """FNV-1a 64 of the bytes, continuing from h (data::fingerprint)."""
    for b in data:
        h = ((h ^ b) * 1099511628211) & MASK64
    return h


def fingerprint(data: bytes) -> int:
    """The corpus's fingerprint (data::source_fingerprint): every byte up to 64 MiB, else the sample."""
    if len(data) <= FULL_FINGERPRINT_BYTES:
        return fnv1a64(data)
    return sampled_fingerprint(len(data), lambda at, n: data[at:at + n])


def sampled_fingerprint(size: int, read) -> int:
    """FNV-1a 64 of the size (8 bytes, little-endian) and of 64 blocks of 64 KiB at offsets
    i * (size - block) // 63: read(at, n) gives the bytes (a file is never read whole)."""
    h = fnv1a64(size.to_bytes(8, "little"))
    block = min(size, FINGERPRINT_BLOCK_BYTES)
    for i in range(FINGERPRINT_BLOCKS):
        h = fnv1a64(read((size - block) * i // (FINGERPRINT_BLOCKS - 1), block), h)
    return h


def fnv_u64(h: int, v: int) -> int:
    """FNV-1a 64 continued over the 8 little-endian bytes of v (token_source.cpp's fnv_u64)."""
    return fnv1a64((v & MASK64).to_bytes(8, "little"), h)


def token_fingerprint(text_fingerprint: int, tokenizer_fingerprint: int) -> int:
    """tok::TokenSource::fingerprint: a BPE corpus is named by its text and its tokenizer."""
    return fnv_u64(fnv_u64(14695981039346656037, text_fingerprint), tokenizer_fingerprint)


class Dataset:
    """data::Dataset: the corpus, its split, and the window starts of training and validation batches."""

    def __init__(self, data):
        """data: the bytes of a text (its tokens), or a sequence of token ids (a BPE run's)."""
        if not data:
            raise ValueError("the corpus is empty: give a file with some text in it")
        self.data = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else list(data)
        n_val = int(len(self.data) * VAL_FRACTION)  # size_t(double(size) * 0.1), as the core
        self.train_size = len(self.data) - n_val
        self.val_begin = self.train_size

    def check_context(self, T: int):
        if len(self.data) < T + 1:
            raise ValueError(f"the corpus has {len(self.data)} bytes, fewer than context + 1 = {T + 1}: "
                             "use a longer text or a shorter context")

    def train_starts(self, rng: Rng, B: int, T: int) -> List[int]:
        """The B window starts of the next training batch (sample_batch); advances rng."""
        self.check_context(T)
        span = self.train_size if self.train_size >= T + 1 else len(self.data)  # short corpora: all of it
        return [rng.below(span - T) for _ in range(B)]

    def val_starts(self, k: int, B: int, T: int) -> List[int]:
        """The B window starts of the k-th validation batch (val_batch): the same every time."""
        self.check_context(T)
        begin = self.val_begin
        if len(self.data) - begin < T + 1:
            begin = len(self.data) - T - 1
        rng = Rng(0x5EED * 1000003 + k)
        return [begin + rng.below(len(self.data) - begin - T) for _ in range(B)]

    def windows(self, starts: Sequence[int], T: int):
        """x, y as int64 torch tensors (len(starts), T): y is x shifted by one token."""
        import torch
        if not starts:
            empty = torch.zeros(0, T, dtype=torch.long)
            return empty, empty.clone()
        if isinstance(self.data, bytes):
            buf = torch.frombuffer(bytearray(b"".join(self.data[s:s + T + 1] for s in starts)), dtype=torch.uint8)
            w = buf.view(len(starts), T + 1).long()
        else:
            w = torch.tensor([self.data[s:s + T + 1] for s in starts], dtype=torch.long)
        return w[:, :-1].contiguous(), w[:, 1:].contiguous()
