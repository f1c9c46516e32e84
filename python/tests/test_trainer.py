"""The PyTorch trainer against the core: the data generator bit for bit, the schedule bit for bit,
one AdamW step (<= 1e-5), and the logits of a checkpoint's model (<= 1e-5).

CTest: python_trainer_steps_like_the_core (see tests/common.py to run it by hand).
"""
import math
import os
import re
import struct
import tempfile
import unittest

from tests.common import ROOT, cli, key_bias_mask, tiny_run, tool

import torch

from tinygpt import checkpoint as C
from tinygpt import safetensors as st
from tinygpt.data import Dataset, Rng
from tinygpt.model import TinyGPT
from tinygpt.optim import Schedule
from tinygpt import trainer as T
from tinygpt.trainer import Diverged, Trainer, continue_run

TOLERANCE = 1e-5


def floats(a) -> torch.Tensor:
    return torch.frombuffer(bytearray(a), dtype=torch.float32) if len(a) else torch.zeros(0)


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp_dir = tempfile.TemporaryDirectory()
        cls.tmp = cls.tmp_dir.name
        cls.run_path = tiny_run(cls.tmp)  # step 100 of a 150-step schedule
        cls.corpus_path = os.path.join(cls.tmp, "corpus.txt")
        with open(cls.corpus_path, "rb") as f:
            cls.corpus = f.read()
        cls.ck = C.load(cls.run_path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp_dir.cleanup()

    def path(self, name: str) -> str:
        return os.path.join(self.tmp, name)


class DataGenerator(Fixture):
    def test_batches_are_the_cores_bit_for_bit(self):
        out = self.path("batches.safetensors")
        tool("ckpt-batches", self.run_path, self.corpus_path, 5, out)
        raw, _ = st.load(out)
        core = {name: st.to_torch(t) for name, t in raw.items() if name != "rng"}
        ds, rng = Dataset(self.corpus), Rng(state=self.ck.data_rng)
        B, T = self.ck.config["batch_size"], self.ck.config["block_size"]
        for k in range(5):
            x, y = ds.windows(ds.train_starts(rng, B, T), T)
            self.assertTrue(torch.equal(x, core[f"x.{k}"].long()), f"training batch {k}")
            self.assertTrue(torch.equal(y, core[f"y.{k}"].long()), f"training batch {k}")
        for k in range(2):
            x, y = ds.windows(ds.val_starts(k, B, T), T)
            self.assertTrue(torch.equal(x, core[f"val_x.{k}"].long()), f"validation batch {k}")
            self.assertTrue(torch.equal(y, core[f"val_y.{k}"].long()), f"validation batch {k}")
        self.assertEqual(rng.state(), struct.unpack("<4Q", raw["rng"].data))  # the generator's state after them

    def test_below_rejects_the_short_last_bucket(self):
        # n = 2^63 + 1: the last bucket is almost half of all values, so many draws are rejected;
        # the results stay in range and the generator keeps going
        rng = Rng(7)
        values = [rng.below(2 ** 63 + 1) for _ in range(200)]
        self.assertTrue(all(0 <= v <= 2 ** 63 for v in values))
        self.assertEqual(Rng(7).state(), Rng(7).state())


class LearningRate(Fixture):
    def check(self, ck_path: str, new_max_iters: int, steps: int):
        out = self.path("lr.safetensors")
        tool("ckpt-lr", ck_path, new_max_iters, steps, out)
        core = st.load_torch(out)[0]["lr"].tolist()
        ck = C.load(ck_path)
        schedule = Schedule.of(ck)
        if new_max_iters:
            schedule = schedule.extended(ck.step, new_max_iters)
        ours = [schedule.lr_at(s) for s in range(steps)]
        self.assertEqual(ours, core)  # float32 for float32, every step

    def test_the_schedule_is_the_cores_bit_for_bit(self):
        self.check(self.run_path, 0, 200)

    def test_an_extended_schedule_is_the_cores_bit_for_bit(self):
        self.check(self.run_path, 400, 450)  # extended after the warmup: continues from the current rate

    def test_extending_during_the_warmup_moves_only_the_end(self):
        early = tiny_run(self.tmp, steps=10)
        self.check(early, 60, 80)
        self.assertEqual(Schedule.of(C.load(early)).extended(10, 60).from_step, 0)


class OneStep(Fixture):
    def test_one_adamw_step_in_pytorch_equals_the_cores_next_step(self):
        nxt = self.path("next.ckpt")
        cli("train", "--resume", self.run_path, "--data", self.corpus_path, "--until", 101, "--threads", 1, "--out", nxt)
        core = C.load(nxt)
        ours = continue_run(self.ck, self.corpus, steps=1)
        self.assertEqual((ours.step, ours.adam_t, ours.data_rng), (core.step, core.adam_t, core.data_rng))
        loss_diff = abs(ours.train_losses[-1] - core.train_losses[-1])
        diffs = {name: float((floats(getattr(ours, name)) - floats(getattr(core, name))).abs().max())
                 for name in ("params", "adam_m", "adam_v")}
        moved = float((floats(core.params) - floats(self.ck.params)).abs().max())
        keep = ~key_bias_mask(core)
        without_key_bias = float((floats(ours.params) - floats(core.params))[keep].abs().max())
        print(f"\n[one step] PyTorch vs core after step 101: max |diff| params {diffs['params']:.2e} "
              f"({without_key_bias:.2e} without the key biases, whose gradient is round-off; the step moved them by up "
              f"to {moved:.2e}), adam_m {diffs['adam_m']:.2e}, adam_v {diffs['adam_v']:.2e}, loss {loss_diff:.2e}; "
              f"torch {torch.__version__}")
        self.assertLessEqual(without_key_bias, 1e-6)
        self.assertEqual(list(ours.train_losses[:-1]), list(core.train_losses[:-1]))
        self.assertLessEqual(loss_diff, 1e-6)
        for name, d in diffs.items():
            self.assertLessEqual(d, TOLERANCE, name)
        self.assertGreater(moved, 100 * diffs["params"])  # the comparison is finer than the step itself

    def test_the_learning_rate_during_warmup_and_clipping_match_too(self):
        # a run at step 3 of a 20-step warmup, with a gradient norm above grad_clip = 0.5
        early = self.path("early.ckpt")
        cli("train", "--preset", "tiny", "--data", self.corpus_path, "--max_iters", 50, "--until", 3,
            "--grad_clip", 0.5, "--eval_iters", 2, "--threads", 1, "--out", early)
        nxt = self.path("early_next.ckpt")
        cli("train", "--resume", early, "--data", self.corpus_path, "--until", 4, "--threads", 1, "--out", nxt)
        t = Trainer(C.load(early), self.corpus)
        t.step()
        self.assertGreater(t.last_grad_norm, 0.5)
        ours, core = t.to_checkpoint(), C.load(nxt)
        self.assertLessEqual(float((floats(ours.params) - floats(core.params)).abs().max()), TOLERANCE)
        self.assertLessEqual(float((floats(ours.adam_m) - floats(core.adam_m)).abs().max()), TOLERANCE)


class NanGuard(Fixture):
    def test_a_diverged_step_rolls_back_to_the_good_state_at_half_the_learning_rate(self):
        t = Trainer(self.ck, self.corpus)  # the loaded state is the good state
        t.step()
        with torch.no_grad():
            t.model.lm_head.bias[ord("e")] = float("nan")  # as a corrupted update would leave it
        with self.assertRaisesRegex(Diverged, "^training diverged at step 102: the loss is nan$"):
            t.step()
        r = t.roll_back("nan")
        self.assertEqual((r.failed_step, r.restored_step, r.lr_scale), (101, 100, 0.5))
        after = t.to_checkpoint()
        self.assertEqual((after.step, after.adam_t, after.data_rng, after.lr_scale), (100, 100, self.ck.data_rng, 0.5))
        for name in ("params", "adam_m", "adam_v", "train_losses"):
            self.assertEqual(bytes(getattr(after, name)), bytes(getattr(self.ck, name)), name)
        # on from there at half the rate: the core's step from the same state (a checkpoint with lr_scale 0.5)
        halved = self.path("halved.ckpt")
        C.save(halved, after)
        nxt = self.path("halved_next.ckpt")
        cli("train", "--resume", halved, "--data", self.corpus_path, "--until", 101, "--threads", 1, "--out", nxt)
        core = C.load(nxt)
        t.step()
        ours = t.to_checkpoint()
        self.assertEqual(core.lr_scale, 0.5)
        self.assertLessEqual(float((floats(ours.params) - floats(core.params)).abs().max()), TOLERANCE)
        full = continue_run(self.ck, self.corpus, steps=1)  # the same step at the full rate lands elsewhere
        self.assertGreater(float((floats(full.params) - floats(core.params)).abs().max()), 20 * TOLERANCE)

    def test_a_loss_above_four_uniform_guesses_is_a_divergence(self):
        t = Trainer(self.ck, self.corpus)
        with torch.no_grad():
            t.model.lm_head.bias[ord("z")] += 200.0
        with self.assertRaisesRegex(Diverged, r"the loss is \d+\.\d, worse than 22\.2 \(4 x a uniform guess\)"):
            t.step()


class BpeRun(unittest.TestCase):
    """A tiny BPE run (a vocabulary of 320 the CLI learns from the small corpus) continued in PyTorch:
    the corpus encoded by tinygpt.tokenizer as the core's TokenSource encodes it, the next step
    (<= 1e-5), and the checkpoint written back with its tokenizer section, which the CLI resumes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp_dir = tempfile.TemporaryDirectory()
        cls.tmp = cls.tmp_dir.name
        cls.run_path = tiny_run(cls.tmp, 10, 40, "--vocab_size", 320)
        with open(os.path.join(cls.tmp, "corpus.txt"), "rb") as f:
            cls.corpus = f.read()
        with open(cls.run_path, "rb") as f:
            cls.raw = f.read()
        cls.ck = C.parse(cls.raw)

    @classmethod
    def tearDownClass(cls):
        cls.tmp_dir.cleanup()

    def test_the_checkpoint_carries_the_tokenizer_and_python_writes_it_back_unchanged(self):
        self.assertEqual((self.ck.config["tokenizer"], self.ck.config["vocab_size"]), ("bpe", 320))
        tok = self.ck.tokenizer()
        self.assertEqual(tok.vocab_size, 320)
        section = [bytes(a) for name, _, a in self.ck.extra_sections if name == "tokenizer"][0]
        self.assertEqual(tok.to_bytes(), section)  # the compact form, counts and statistics included
        self.assertEqual(C.serialize(self.ck), self.raw)
        self.assertGreater(self.ck.tokens_per_byte, 0.3)
        self.assertLess(self.ck.tokens_per_byte, 0.8)
        # without its tokenizer the run cannot read text: refused, in the core's words
        bare = C.parse(self.raw)
        bare.extra_sections = [x for x in bare.extra_sections if x[0] != "tokenizer"]
        with self.assertRaisesRegex(C.CheckpointError, r"reads BPE tokens \(vocab_size 320\) but the file has no tokenizer"):
            C.parse(C.serialize(bare))
        bad = os.path.join(self.tmp, "no_tokenizer.ckpt")
        C.save(bad, bare)
        out = cli("sample", "--ckpt", bad, check=False)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("but the file has no tokenizer", out.stderr)

    def test_python_encodes_the_corpus_as_the_core_and_steps_like_it(self):
        t = Trainer(self.ck, self.corpus)
        # the corpus's name is the text's and the tokenizer's fingerprints: equal only if Python's
        # tokenizer fingerprint is the core's; its size, the token count, only if it encodes the same
        self.assertTrue(t.corpus_matches_checkpoint())
        self.assertEqual(t.corpus_size, self.ck.corpus_size)
        self.assertEqual(t.tokens_per_byte, self.ck.tokens_per_byte)
        self.assertAlmostEqual(t.bits_per_byte(2.0), 2.0 * t.tokens_per_byte / math.log(2), places=12)
        nxt = os.path.join(self.tmp, "bpe_next.ckpt")
        cli("train", "--resume", self.run_path, "--data", os.path.join(self.tmp, "corpus.txt"), "--until", 11,
            "--threads", 1, "--out", nxt)
        core = C.load(nxt)
        t.step()
        ours = t.to_checkpoint()
        self.assertEqual((ours.step, ours.data_rng), (core.step, core.data_rng))
        self.assertLessEqual(abs(ours.train_losses[-1] - core.train_losses[-1]), 1e-5)
        diff = float((floats(ours.params) - floats(core.params)).abs().max())
        print(f"\n[bpe step] PyTorch vs core, vocabulary 320, step 11: max |diff| params {diff:.2e}")
        self.assertLessEqual(diff, TOLERANCE)
        # the CLI continues what Python wrote (its tokenizer section included)
        mine = os.path.join(self.tmp, "bpe_python.ckpt")
        C.save(mine, ours)
        out = cli("train", "--resume", mine, "--data", os.path.join(self.tmp, "corpus.txt"), "--until", 12, "--threads", 1)
        self.assertIn("tokenizer: BPE, 320 tokens", out.stdout)


class NanGuardConstants(unittest.TestCase):
    """The core's headers are the one source of the NaN guard's numbers; the Python package carries
    copies (it runs without the C++ tree), so editing either side alone fails here."""

    def core_constant(self, header: str, name: str) -> str:
        with open(os.path.join(ROOT, "core", "include", "tinygpt", header)) as f:
            found = re.findall(rf"constexpr\s+(?:float|int|int64_t)\s+{name}\s*=\s*([0-9.]+)f?\s*;", f.read())
        self.assertEqual(len(found), 1, f"{name} in {header}")
        return found[0]

    def test_nan_guard_constants_are_the_cores(self):
        self.assertEqual(T.DIVERGED_LOSS, T.f32(float(self.core_constant("trainer.h", "kDivergedLoss"))))
        self.assertEqual(T.GOOD_STATE_INTERVAL, int(self.core_constant("trainer.h", "kGoodStateInterval")))
        self.assertEqual(T.ROLLBACK_LR_SCALE, T.f32(float(self.core_constant("trainer.h", "kRollbackLrScale"))))
        self.assertEqual(T.MAX_ROLLBACKS, int(self.core_constant("run.h", "kMaxRollbacks")))


class Logits(Fixture):
    def test_the_checkpoints_model_gives_the_cores_logits(self):
        text = "First Citizen:\nBefore we proceed any further, hear me speak."[:32].encode()
        tokens = torch.tensor([list(text)])
        model = TinyGPT.from_checkpoint(self.run_path)
        with torch.no_grad():
            ours = model(tokens)
        tpath, lpath = self.path("tokens.safetensors"), self.path("logits.safetensors")
        st.save_torch(tpath, {"tokens": tokens.to(torch.int32)})
        tool("model-logits", self.run_path, tpath, lpath)  # the core's forward pass on the checkpoint's model
        core = st.load_torch(lpath)[0]["logits"]
        diff = float((ours - core).abs().max())
        print(f"\n[logits] PyTorch vs core, the checkpoint's model on {len(text)} bytes: max |diff| {diff:.2e} "
              f"(max |logit| {float(core.abs().max()):.1f})")
        self.assertLessEqual(diff, TOLERANCE)


if __name__ == "__main__":
    unittest.main()
