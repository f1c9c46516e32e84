"""The PyTorch recurrent models (tinygpt.rnn, on torch.nn.RNN / GRU / LSTM) against the C++ core:
the parameter block name for name, the logits, and a run continued in PyTorch as the CLI continues it.

CTest: python_recurrent_models_match_the_core (see tests/common.py to run it by hand).
"""
import os
import tempfile
import unittest

from tests.common import cli, small_corpus, tool

import torch

from tinygpt import checkpoint as C
from tinygpt import safetensors as st
from tinygpt.rnn import KINDS, Recurrent, RecurrentConfig, param_specs
from tinygpt.trainer import continue_run

TOLERANCE = 1e-5  # max |logit difference|: float32 with other summation orders


def core_logits(tmp, model: Recurrent, tokens: torch.Tensor) -> torch.Tensor:
    mpath, tpath, lpath = (os.path.join(tmp, n) for n in ("model.safetensors", "tokens.safetensors", "logits.safetensors"))
    model.save_safetensors(mpath)
    st.save_torch(tpath, {"tokens": tokens.to(torch.int32)})
    tool("model-logits", mpath, tpath, lpath)
    return st.load_torch(lpath)[0]["logits"]


class Layout(unittest.TestCase):
    def test_the_core_model_is_torchs_modules_name_for_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            for kind in KINDS:
                path, flat = os.path.join(tmp, f"{kind}.safetensors"), os.path.join(tmp, f"{kind}.flat")
                tool("rnn-init", path, kind, 2, 8, 12, 5)
                model = Recurrent.from_safetensors(path)
                self.assertEqual(model.config, RecurrentConfig(model=kind, n_layer=2, n_embd=8, n_hidden=12))
                specs = param_specs(model.config)
                self.assertEqual([(n, tuple(p.shape)) for n, p in model.named_parameters()], [(n, s) for n, s, _ in specs])
                # torch's own module holds the layers: its state_dict keys are the core's names
                self.assertIsInstance(model.rnn, {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[kind])
                self.assertIn("rnn.weight_hh_l1", model.state_dict())
                tool("model-flat", path, flat)
                self.assertTrue(torch.equal(model.flat(), st.load_torch(flat)[0]["params"]), kind)


class LogitsParity(unittest.TestCase):
    def test_logits_equal_the_cores_for_every_cell(self):
        torch.manual_seed(5)
        with tempfile.TemporaryDirectory() as tmp:
            for kind in KINDS:
                model = Recurrent(RecurrentConfig(model=kind, n_layer=2, n_embd=16, n_hidden=24), seed=5)
                with torch.no_grad():  # larger recurrent weights: gates far from 0.5, long memory
                    model.rnn.weight_hh_l0.mul_(3.0)
                tokens = torch.randint(0, 256, (3, 40))
                with torch.no_grad():
                    ours, _ = model(tokens)
                core = core_logits(tmp, model, tokens)
                diff = float((ours - core).abs().max())
                print(f"\n[parity] {kind} L=2 E=16 H=24 B=3 T=40: max |torch - core| logits {diff:.2e} "
                      f"(max |logit| {float(core.abs().max()):.2f}); torch {torch.__version__}")
                self.assertLessEqual(diff, TOLERANCE, kind)


class ContinuedRun(unittest.TestCase):
    def check(self, flags, steps=5):
        with tempfile.TemporaryDirectory() as tmp:
            corpus = small_corpus(tmp)
            first, second = os.path.join(tmp, "a.ckpt"), os.path.join(tmp, "b.ckpt")
            common = ["--data", corpus, "--max_iters", 60, "--eval_interval", 0, "--threads", 1]
            cli("train", "--preset", "lstm-tiny", *flags, *common, "--until", 20, "--out", first)
            cli("train", "--resume", first, "--data", corpus, "--until", 20 + steps, "--threads", 1, "--out", second)
            with open(corpus, "rb") as f:
                ours = continue_run(C.load(first), f.read(), steps)
            theirs = C.load(second)
            got, want = list(ours.train_losses[20:]), list(theirs.train_losses[20:])
            print(f"\n[continued] lstm {' '.join(map(str, flags)) or 'stateless'}: losses {got} vs core {want}")
            for a, b in zip(got, want):
                self.assertAlmostEqual(a, b, delta=1e-4)
            p = torch.tensor(list(ours.params)) - torch.tensor(list(theirs.params))
            self.assertLessEqual(float(p.abs().max()), 1e-4)
            return ours, theirs

    def test_a_stateless_lstm_run_continues_in_pytorch_as_the_cli_continues_it(self):
        self.check([])

    def test_a_stateful_lstm_run_carries_its_state_through_pytorch_too(self):
        ours, theirs = self.check(["--stateful", 1])
        state = {n: a for n, _, a in ours.extra_sections}["rnn_state"]
        core_state = {n: a for n, _, a in theirs.extra_sections}["rnn_state"]
        self.assertEqual(len(state), len(core_state))
        diff = max(abs(a - b) for a, b in zip(state, core_state))
        self.assertLessEqual(diff, 1e-4)


if __name__ == "__main__":
    unittest.main()
