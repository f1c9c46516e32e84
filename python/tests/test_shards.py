"""llm.c's token shards across the core and Python, and the sampled fingerprint of a large text.

CTest: python_shards_cross_the_core_and_python (see tests/common.py to run it by hand).
"""
import os
import re
import tempfile
import unittest

from tests.common import CORPUS, cli

from tinygpt.data import fingerprint, sampled_fingerprint
from tinygpt.shards import read_shard, shard_dir, write_shard


def losses(out: str):
    return [float(x) for x in re.findall(r"\| loss ([0-9.]+)", out)]


class Shards(unittest.TestCase):
    def setUp(self):
        self.tmp_dir = tempfile.TemporaryDirectory()
        self.tmp = self.tmp_dir.name
        with open(CORPUS, "rb") as f:
            self.text = f.read()

    def tearDown(self):
        self.tmp_dir.cleanup()

    def test_the_clis_shards_are_the_texts_bytes_as_llm_c_reads_them(self):
        out = os.path.join(self.tmp, "packed")
        cli("data", "pack", CORPUS, "--out", out, "--name", "shake", "--shard_tokens", "500000")
        train, val = shard_dir(out)
        self.assertEqual([os.path.basename(p) for p in train], ["shake_train_000000.bin", "shake_train_000001.bin", "shake_train_000002.bin"])
        tokens = []
        for p in train + val:
            version, t = read_shard(p)
            self.assertEqual(version, 1)
            tokens.extend(t)
        self.assertEqual(bytes(tokens), self.text)
        n_val = int(len(self.text) * 0.1)
        self.assertEqual(len(read_shard(val[0])[1]), n_val)   # the last 10%, as the text's split

    def test_shards_written_in_python_train_in_the_cli_exactly_as_their_text(self):
        out = os.path.join(self.tmp, "py")
        os.mkdir(out)
        n_train = len(self.text) - int(len(self.text) * 0.1)
        write_shard(os.path.join(out, "s_train_000000.bin"), self.text[:400_000])
        write_shard(os.path.join(out, "s_train_000001.bin"), self.text[400_000:n_train])
        write_shard(os.path.join(out, "s_val_000000.bin"), self.text[n_train:])
        run = ["train", "--preset", "tiny", "--max_iters", "12", "--log_interval", "1", "--threads", "1", "--eval_interval", "6"]
        from_shards = cli(*run, "--data", out).stdout
        from_text = cli(*run, "--data", CORPUS).stdout
        self.assertEqual(len(losses(from_shards)), 12)
        self.assertEqual(losses(from_shards), losses(from_text))
        self.assertEqual(re.findall(r"val ([0-9.]+)", from_shards), re.findall(r"val ([0-9.]+)", from_text))
        # version 2 (uint32) reads back too, and a bad count is refused by the core with what is wrong
        write_shard(os.path.join(self.tmp, "v2.bin"), [70000, 1, 2], version=2)
        self.assertEqual(list(read_shard(os.path.join(self.tmp, "v2.bin"))[1]), [70000, 1, 2])
        with open(os.path.join(out, "s_val_000000.bin"), "ab") as f:
            f.write(b"\0")
        bad = cli("data", "stats", out, check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("header says", bad.stderr)

    def test_a_large_text_is_named_by_its_sample_in_python_as_in_the_core(self):
        path = os.path.join(self.tmp, "big.txt")
        with open(path, "wb") as f:
            while f.tell() <= 64 << 20:
                f.write(self.text)
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            def read(at, n):
                f.seek(at)
                return f.read(n)
            ours = sampled_fingerprint(size, read)
        core = re.search(r"fingerprint ([0-9a-f]{16}) \(of a sample", cli("data", "stats", path).stdout)
        self.assertIsNotNone(core)
        self.assertEqual(f"{ours:016x}", core.group(1))
        small = self.text[:1000]
        self.assertEqual(fingerprint(small), int(re.search(r"fingerprint ([0-9a-f]{16})", cli("data", "stats", self._write(small)).stdout).group(1), 16))

    def _write(self, data: bytes) -> str:
        path = os.path.join(self.tmp, "small.txt")
        with open(path, "wb") as f:
            f.write(data)
        return path


if __name__ == "__main__":
    unittest.main()
