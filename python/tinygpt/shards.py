"""tinygpt.shards — llm.c's token shards, read and written as llm.c does (core/src/shards.cpp):
a header of 256 little-endian int32 (magic 20240520, version, token count, zeros), then the
tokens, uint16 (version 1) or uint32 (version 2). A folder's *_train_*.bin shards are the training
tokens and its *_val_*.bin shards the validation tokens, each in name order.

    read_shard(path)                      -> (version, tokens as an array.array)
    write_shard(path, tokens, version=1)
    shard_dir(path)                       -> (train paths, val paths), sorted

Standard library only, as the rest of the package's readers: `python -m tinygpt.shards FOLDER`
lists a folder's shards.
"""
import array
import os
import struct
import sys
from typing import List, Sequence, Tuple

MAGIC = 20240520
HEADER_INTS = 256


def read_shard(path: str) -> Tuple[int, array.array]:
    """The version and the tokens of a shard; ValueError for a bad magic, version or count."""
    with open(path, "rb") as f:
        header = f.read(HEADER_INTS * 4)
        if len(header) < HEADER_INTS * 4:
            raise ValueError(f"{path} is not a token shard: it is shorter than the 1,024-byte header")
        magic, version, count = struct.unpack_from("<iii", header)
        if magic != MAGIC:
            raise ValueError(f"{path} is not a token shard: its header does not start with {MAGIC}")
        if version not in (1, 2):
            raise ValueError(f"{path} is a token shard of version {version} (1: uint16 tokens, 2: uint32)")
        tokens = array.array("H" if version == 1 else "I")
        data = f.read()
    if count < 0 or len(data) != count * tokens.itemsize:
        raise ValueError(f"{path}'s header says {count} tokens, but the file holds {len(data) // tokens.itemsize}")
    tokens.frombytes(data)
    if sys.byteorder != "little":
        tokens.byteswap()
    return version, tokens


def write_shard(path: str, tokens: Sequence[int], version: int = 1) -> None:
    """Writes tokens as a shard: version 1 (uint16) or 2 (uint32)."""
    if version not in (1, 2):
        raise ValueError("a shard is version 1 (uint16 tokens) or 2 (uint32)")
    out = array.array("H" if version == 1 else "I")
    out.fromlist(list(tokens))  # ints (bytes too: each byte is a token)
    if sys.byteorder != "little":
        out.byteswap()
    header = struct.pack("<iii", MAGIC, version, len(out)) + bytes(4 * (HEADER_INTS - 3))
    with open(path, "wb") as f:
        f.write(header)
        f.write(out.tobytes())


def shard_dir(path: str) -> Tuple[List[str], List[str]]:
    """The training and validation shards of a folder, each in name order."""
    names = sorted(n for n in os.listdir(path) if n.endswith(".bin"))
    train = [os.path.join(path, n) for n in names if "_train_" in n]
    val = [os.path.join(path, n) for n in names if "_val_" in n]
    return train, val


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tinygpt.shards FOLDER", file=sys.stderr)
        return 2
    train, val = shard_dir(argv[0])
    for p in train + val:
        version, tokens = read_shard(p)
        print(f"{p}: version {version}, {len(tokens):,} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
