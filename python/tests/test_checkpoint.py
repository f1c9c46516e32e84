"""tinygpt.checkpoint against the core's checkpoint files, and model files (tinygpt export) both ways.

CTest: python_checkpoint_reads_and_writes_the_cores_format (see tests/common.py to run it by hand).
"""
import os
import random
import re
import struct
import tempfile
import unittest
import zlib

from tests.common import SMALL_CORPUS_BYTES, ROOT, cli, small_corpus, tiny_run, tool

import torch

from tinygpt import checkpoint as C
from tinygpt import data
from tinygpt import safetensors as st
from tinygpt.model import TinyGPT
from tinygpt.trainer import Trainer


def config_lines(out: str):
    """`tinygpt config` output: one name=value line per schema field, in the schema's order."""
    return [tuple(line.split("=", 1)) for line in out.splitlines() if "=" in line]


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp_dir = tempfile.TemporaryDirectory()
        cls.tmp = cls.tmp_dir.name
        cls.run_path = tiny_run(cls.tmp)
        with open(cls.run_path, "rb") as f:
            cls.raw = f.read()
        with open(os.path.join(cls.tmp, "corpus.txt"), "rb") as f:
            cls.corpus = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp_dir.cleanup()

    def path(self, name: str) -> str:
        return os.path.join(self.tmp, name)


class ReadingAndWriting(Fixture):
    def test_every_field_reads_as_the_core_prints_it(self):
        ck = C.parse(self.raw)
        core = config_lines(cli("config", "--resume", self.run_path).stdout)
        self.assertEqual([(name, ck.field_text(name)) for name in ck.config], core)
        self.assertEqual((ck.step, ck.adam_t, len(ck.train_losses)), (100, 100, 100))
        self.assertEqual([s for s, _ in ck.validation()], [0, 50, 100])
        self.assertEqual(ck.corpus_size, SMALL_CORPUS_BYTES)
        self.assertEqual(ck.corpus_fingerprint, data.fingerprint(self.corpus))
        self.assertEqual(len(ck.params), ck.num_parameters())

    def test_the_core_writes_every_schema_field(self):
        schema = [name for name, _ in config_lines(cli("config").stdout)]
        self.assertEqual(list(C.parse(self.raw).config), schema)

    def test_reading_and_writing_again_gives_the_cores_bytes(self):
        self.assertEqual(C.serialize(C.parse(self.raw)), self.raw)
        # and through the trainer: model, AdamW state, generator, schedule, history, unchanged
        self.assertEqual(C.serialize(Trainer(C.parse(self.raw), self.corpus).to_checkpoint()), self.raw)

    def test_a_checkpoint_written_in_python_loads_in_the_cli_and_continues(self):
        ck = C.parse(self.raw)
        ck.config["max_iters"] = 120           # a new end of the schedule, written by Python
        ck.config["eval_interval"] = 10
        path = self.path("python.ckpt")
        C.save(path, ck)
        core = dict(config_lines(cli("config", "--resume", path).stdout))
        self.assertEqual((core["max_iters"], core["eval_interval"]), ("120", "10"))
        out = cli("train", "--resume", path, "--data", self.path("corpus.txt"), "--threads", 1, "--out", path)
        self.assertIn("final val loss", out.stdout)
        self.assertEqual(C.load(path).step, 120)

    def test_unknown_config_fields_are_carried_but_not_trained(self):
        ck = C.parse(self.raw)
        ck.config["dropout"], ck.config_types["dropout"] = 0.1, "f"
        blob = C.serialize(ck)
        self.assertEqual(C.parse(blob).config["dropout"], 0.1)
        with self.assertRaisesRegex(ValueError, "sets 'dropout', which tinygpt.trainer does not know"):
            Trainer(C.parse(blob), self.corpus)
        path = self.path("newer.ckpt")
        with open(path, "wb") as f:
            f.write(blob)
        out = cli("config", "--resume", path, check=False)
        self.assertIn("sets 'dropout', which this build of tinygpt does not know", out.stderr)


# ---- refusals: the same files, refused by the core and by Python --------------------------------

def find_field(raw: bytes, name: str) -> int:
    """Offset of a header entry (u8 length + name) in a checkpoint."""
    key = bytes([len(name)]) + name.encode()
    at = raw.find(key, 16)
    assert at > 0, name
    return at + len(key)


def with_crc(raw: bytearray) -> bytes:
    struct.pack_into("<I", raw, len(raw) - 4, zlib.crc32(bytes(raw[:-4])))
    return bytes(raw)


def patch(raw: bytes, offset: int, fmt: str, value, crc=True) -> bytes:
    b = bytearray(raw)
    struct.pack_into(fmt, b, offset, value)
    return with_crc(b) if crc else bytes(b)


def bad_files(raw: bytes):
    """(what, bytes, part of the message both readers must give)"""
    header_bytes = struct.unpack_from("<I", raw, 12)[0]
    first_param = header_bytes  # params is the first section, at payload offset 0
    nan = bytearray(raw)
    struct.pack_into("<f", nan, first_param + 4 * 7, float("nan"))
    flipped = bytearray(raw)
    flipped[header_bytes + 100] ^= 0x40
    return [
        ("five bytes", raw[:5], "not a tinygpt checkpoint: the file is only 5 bytes long"),
        ("another magic", b"TGPTCKPX" + raw[8:], "does not start with the TGPTCKPT magic bytes"),
        ("version 3", patch(raw, 8, "<I", 3), "checkpoint version 3 is not supported"),
        ("header length not a multiple of 4", patch(raw, 12, "<I", 30), "its header claims 30 bytes in a file of"),
        ("header past the end", patch(raw, 12, "<I", len(raw)), f"its header claims {len(raw)} bytes"),
        ("cut in the payload", raw[:header_bytes + 64], "lies outside the"),
        ("unknown field type", patch(raw, find_field(raw, "n_layer"), "<B", ord("z")),
         "checkpoint field n_layer has an unknown type code 122"),
        ("step of the wrong type", patch(raw, find_field(raw, "step"), "<B", ord("u")),
         "checkpoint field step has type 'u', expected 'i'"),
        ("width not divisible by the heads", patch(raw, find_field(raw, "n_embd") + 1, "<q", 63),
         "checkpoint has an invalid config: n_embd 63 is not divisible by n_head 2"),
        ("parameters for another width", patch(raw, find_field(raw, "n_embd") + 1, "<q", 32),
         "checkpoint holds 135168 parameters but its config (n_layer 2, n_embd 32, block_size 32) needs"),
        ("schedule restarting in the future", patch(raw, find_field(raw, "schedule_from_step") + 1, "<q", 500),
         "checkpoint is inconsistent: its schedule restarts at step 500"),
        ("a learning-rate scale above 1", patch(raw, find_field(raw, "lr_scale") + 1, "<d", 2.0),
         "checkpoint is inconsistent: its learning-rate scale is 2.000000"),
        ("fewer steps than losses", patch(raw, find_field(raw, "step") + 1, "<q", 99),
         "checkpoint is inconsistent: 100 recorded losses for 99 steps"),
        ("unknown section type", patch(raw, find_field(raw, "adam_v"), "<B", ord("d")),
         "checkpoint section adam_v has an unknown type code 100"),
        ("section outside the payload", patch(raw, find_field(raw, "adam_v") + 1, "<Q", 10 ** 9),
         "section adam_v (1000000000 elements at byte"),
        ("overlapping sections", patch(raw, find_field(raw, "adam_m") + 9, "<Q", 4),
         "checkpoint is corrupt: sections params and adam_m overlap"),
        ("a missing section", raw.replace(b"\x0aval_losses", b"\x0aval_lossez"), "checkpoint has no section val_losses"),
        ("a flipped bit", bytes(flipped), "checkpoint is corrupt: its checksum does not match its contents"),
        ("NaN in a weight", with_crc(nan), "checkpoint contains NaN or Inf values in the parameters at index 7 (in wte)"),
    ]


class Refusals(Fixture):
    def test_python_and_the_core_refuse_the_same_files_with_the_same_words(self):
        cases = bad_files(self.raw)
        paths, ours = [], []
        for i, (what, blob, message) in enumerate(cases):
            with self.subTest(what):
                with self.assertRaises(C.CheckpointError) as e:
                    C.parse(blob)
                self.assertIn(message, str(e.exception))
            ours.append(str(e.exception))
            paths.append(self.path(f"bad{i}.ckpt"))
            with open(paths[-1], "wb") as f:
                f.write(blob)
        verdicts = tool("ckpt-check-many", stdin="\n".join(paths) + "\n").stdout.splitlines()
        self.assertEqual(len(verdicts), len(cases))
        for (what, _, _), verdict, message in zip(cases, verdicts, ours):
            with self.subTest(what, reader="core"):
                self.assertEqual(verdict, "error: " + message)  # word for word

    def test_random_damage_is_refused_by_both(self):
        rng = random.Random(12)
        paths = []
        for i in range(60):
            b = bytearray(self.raw)
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            if bytes(b) == self.raw:
                continue
            with self.assertRaises(C.CheckpointError):
                C.parse(bytes(b))
            paths.append(self.path(f"damaged{i}.ckpt"))
            with open(paths[-1], "wb") as f:
                f.write(b)
        for verdict in tool("ckpt-check-many", stdin="\n".join(paths) + "\n").stdout.splitlines():
            self.assertTrue(verdict.startswith("error: checkpoint"), verdict)

    def test_version_1_is_refused_with_the_command_that_rewrites_it(self):
        with open(os.path.join(ROOT, "tests", "ref", "checkpoint_v1_step6.ckpt"), "rb") as f:
            v1 = f.read()
        with self.assertRaisesRegex(C.CheckpointError, r"version 1 predates named fields.*tinygpt train --resume OLD"):
            C.parse(v1)
        # the command the message names does rewrite it
        old, new = self.path("v1.ckpt"), self.path("v2.ckpt")
        with open(old, "wb") as f:
            f.write(v1)
        # (on the text it was trained on, the built-in one: other data is refused since issue 22)
        cli("train", "--resume", old, "--until", 6, "--out", new)
        self.assertEqual(C.load(new).step, 6)


class OtherModelKinds(unittest.TestCase):
    def test_a_seq2seq_checkpoint_is_read_and_written_as_the_cores_bytes_but_not_trained(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s2s.ckpt")
            cli("train", "--preset", "s2s-tiny", "--task", "reverse", "--max_iters", 20, "--warmup_iters", 5,
                "--eval_interval", 10, "--eval_iters", 2, "--threads", 1, "--out", path)
            with open(path, "rb") as f:
                raw = f.read()
            ck = C.parse(raw)
            self.assertEqual(ck.kind(), "seq2seq")
            # its translation metrics are sections the gpt runs do not have: carried, in order
            self.assertEqual([(name, t, len(a)) for name, t, a in ck.extra_sections],
                             [("val_exact_match", "f", len(ck.val_steps)), ("val_cer", "f", len(ck.val_steps))])
            self.assertEqual(C.serialize(ck), raw)
            with self.assertRaisesRegex(ValueError, "a seq2seq run: tinygpt.trainer continues gpt runs"):
                Trainer(ck, b"abc\tcba\n" * 100)
            with self.assertRaisesRegex(ValueError, "this is a seq2seq model: tinygpt.model is the gpt kind"):
                TinyGPT.from_checkpoint(ck)
            exported = os.path.join(tmp, "s2s.safetensors")
            cli("export", "--ckpt", path, "--out", exported)
            self.assertEqual(st.load(exported)[1], ck.metadata())


class RunHistory(unittest.TestCase):
    def test_the_history_of_a_run_is_carried_byte_for_byte_and_the_cli_adds_to_it(self):
        # the page's views keep snapshots in history.* sections (core/include/tinygpt/watch.h);
        # three of them hold single bytes, so the sections after them start on zero padding
        with tempfile.TemporaryDirectory() as tmp:
            path = tiny_run(tmp, 60, 150, "--history", "on")
            with open(path, "rb") as f:
                raw = f.read()
            ck = C.parse(raw)
            kinds = {name: t for name, t, _ in ck.extra_sections}
            self.assertEqual(kinds["history.attention"], "b")
            self.assertEqual(kinds["history.steps"], "i")
            self.assertEqual(list(dict((n, a) for n, _, a in ck.extra_sections)["history.steps"]), [0, 50, 60])
            self.assertEqual(C.serialize(ck), raw)
            self.assertEqual(C.serialize(Trainer(ck, open(small_corpus(tmp), "rb").read()).to_checkpoint()), raw)
            out = cli("train", "--resume", path, "--data", small_corpus(tmp), "--until", 100, "--threads", 1, "--out", path)
            self.assertIn("history: 3 snapshots", out.stdout)
            steps = dict((n, a) for n, _, a in C.load(path).extra_sections)["history.steps"]
            self.assertEqual(list(steps), [0, 50, 60, 100])


# ---- model files: tinygpt export, the CLI and Python both ways -----------------------------------

class ModelFiles(Fixture):
    def test_python_exports_the_same_bytes_as_tinygpt_export(self):
        cpp = self.path("cpp.safetensors")
        cli("export", "--ckpt", self.run_path, "--out", cpp)
        py = self.path("py.safetensors")
        TinyGPT.from_checkpoint(self.run_path).save_safetensors(py)
        with open(cpp, "rb") as a, open(py, "rb") as b:
            self.assertEqual(a.read(), b.read())
        _, metadata = st.load(cpp)
        ck = C.parse(self.raw)
        self.assertEqual(metadata, ck.metadata())  # every schema field, by its name, as field_text writes it
        self.assertEqual(metadata["learning_rate"], "0.003")
        model = TinyGPT.from_safetensors(cpp)
        self.assertTrue(torch.equal(model.flat(), torch.frombuffer(bytearray(ck.params), dtype=torch.float32)))
        self.assertEqual(model.fields["max_iters"], "150")

    def test_a_model_file_written_in_python_samples_and_starts_runs_in_the_cli(self):
        model = TinyGPT.from_checkpoint(self.run_path)
        with torch.no_grad():
            model.lm_head.bias[ord("z")] += 100.0  # a model that only says z: the CLI must use these weights
        path = self.path("zz.safetensors")
        model.save_safetensors(path)
        out = cli("sample", "--ckpt", path, "--prompt", "a", "--tokens", 20)
        self.assertEqual(out.stdout, "a" + "z" * 20)
        core = dict(config_lines(cli("config", "--init", path, "--max_iters", 40).stdout))
        self.assertEqual((core["n_embd"], core["learning_rate"], core["max_iters"]), ("64", "0.003", "40"))
        out = cli("train", "--init", path, "--data", self.path("corpus.txt"), "--max_iters", 30, "--warmup_iters", 5,
                  "--eval_iters", 2, "--threads", 1, "--out", self.path("from_model.ckpt"))
        self.assertIn("initialised from", out.stdout)
        first_val = float(re.search(r"step +0/30 \| val ([0-9.]+)", out.stdout).group(1))
        self.assertGreater(first_val, 10.0)  # the z-only model is bad at Shakespeare: its weights were used
        ck = C.load(self.path("from_model.ckpt"))
        self.assertEqual((ck.step, ck.adam_t, ck.config["max_iters"]), (30, 30, 30))

    def test_the_cli_refuses_what_is_not_a_model_file(self):
        bare = self.path("bare.safetensors")
        st.save(bare, {"w": st.Tensor("F32", (1,), bytes(4))})
        self.assertIn('not a tinygpt model file: its metadata has no "n_layer"',
                      cli("sample", "--ckpt", bare, check=False).stderr)
        junk = self.path("junk.bin")
        with open(junk, "wb") as f:
            f.write(b"hello, world")
        self.assertIn("is neither a tinygpt checkpoint (it does not start with TGPTCKPT) nor a model file",
                      cli("sample", "--ckpt", junk, check=False).stderr)
        model = TinyGPT.from_checkpoint(self.run_path)
        odd = self.path("odd.safetensors")
        model.save_safetensors(odd, {"learning_rate": "2"})
        self.assertIn("the config in the file's metadata is invalid: learning_rate must be in (0, 1] (got 2)",
                      cli("sample", "--ckpt", odd, check=False).stderr)
        good = self.path("good.safetensors")
        model.save_safetensors(good)
        self.assertIn("--n_embd: with --init the model comes from the file (n_embd 64)",
                      cli("train", "--init", good, "--n_embd", 32, check=False).stderr)


if __name__ == "__main__":
    unittest.main()
