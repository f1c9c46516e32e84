"""The PyTorch TinyGPT against the C++ core: names, shapes, order of the parameter block, and logits.

Run from python/ with Debian's torch:
    TINYGPT_SAFETENSORS_TOOL=../build/native/tests/safetensors_tool /usr/bin/python3 -m unittest -v tests.test_model
(CTest: python_pytorch_model_matches_the_core). The core's side runs in tests/safetensors_tool.cpp;
the two exchange parameters, tokens and logits as safetensors files.
"""
import os
import subprocess
import tempfile
import unittest

try:
    import torch
except ImportError as e:  # the prerequisite check installs it for npm test
    raise ImportError("these tests need PyTorch in this interpreter: Debian's python3-torch "
                      "(scripts/setup-debian.sh test installs it), or set TINYGPT_PYTHON") from e

from tinygpt import safetensors as st
from tinygpt.model import Config, TinyGPT, param_specs

TOOL = os.environ.get("TINYGPT_SAFETENSORS_TOOL")
TOLERANCE = 1e-5  # max |logit difference|; measured 9e-8 (relative 2.4e-6 with weights x10): float32, other summation orders


def tool(*args):
    if not TOOL:
        raise AssertionError("TINYGPT_SAFETENSORS_TOOL is not set: the path of build/native/tests/safetensors_tool "
                             "(CTest sets it)")
    out = subprocess.run([TOOL, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"safetensors_tool {' '.join(args)}: {out.stderr}")


def core_logits(tmp, model: TinyGPT, tokens: torch.Tensor) -> torch.Tensor:
    mpath, tpath, lpath = (os.path.join(tmp, n) for n in ("model.safetensors", "tokens.safetensors", "logits.safetensors"))
    model.save_safetensors(mpath)
    st.save_torch(tpath, {"tokens": tokens.to(torch.int32)})
    tool("model-logits", mpath, tpath, lpath)
    return st.load_torch(lpath)[0]["logits"]


class ParameterLayout(unittest.TestCase):
    def test_names_shapes_and_the_flat_block_are_the_cores(self):
        with tempfile.TemporaryDirectory() as tmp:
            path, flat_path = os.path.join(tmp, "core.safetensors"), os.path.join(tmp, "flat.safetensors")
            tool("model-init", path, "2", "4", "32", "16", "5")
            model = TinyGPT.from_safetensors(path)  # config from the file's metadata
            self.assertEqual(model.config, Config(n_layer=2, n_head=4, n_embd=32, block_size=16))
            specs = param_specs(model.config)
            self.assertEqual([(n, tuple(p.shape)) for n, p in model.named_parameters()], [(n, s) for n, s, _ in specs])
            self.assertEqual(list(model.state_dict()), [n for n, _, _ in specs])
            self.assertEqual(tuple(model.state_dict()["h.1.attn.c_attn.weight"].shape), (32, 96))  # (in, out)
            # the core's parameter block, in param_table order, bit for bit
            tool("model-flat", path, flat_path)
            core_flat = st.load_torch(flat_path)[0]["params"]
            self.assertEqual(core_flat.numel(), model.config.num_parameters())
            self.assertTrue(torch.equal(model.flat(), core_flat))
            # the core's initialisation: LayerNorm gains 1, biases 0, weights ~ N(0, 0.02)
            self.assertTrue(torch.equal(model.h[0].ln_1.weight, torch.ones(32)))
            self.assertTrue(torch.equal(model.lm_head.bias, torch.zeros(256)))
            self.assertAlmostEqual(float(model.wte.std()), 0.02, delta=0.002)

    def test_load_flat_round_trips_and_checks_the_length(self):
        a = TinyGPT(Config(n_layer=1, n_head=2, n_embd=8, block_size=4), seed=1)
        b = TinyGPT(Config(n_layer=1, n_head=2, n_embd=8, block_size=4), seed=2)
        self.assertFalse(torch.equal(a.flat(), b.flat()))
        b.load_flat(a.flat())
        for (name, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
            self.assertTrue(torch.equal(p, q), name)
        with self.assertRaisesRegex(ValueError, "the parameter block has 3 values; this configuration needs"):
            b.load_flat(torch.zeros(3))

    def test_a_file_for_another_model_is_refused_and_changes_nothing(self):
        small = TinyGPT(Config(n_layer=1, n_head=2, n_embd=8, block_size=4), seed=1)
        wide = TinyGPT(Config(n_layer=1, n_head=2, n_embd=16, block_size=4), seed=1)
        before = small.flat().clone()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "wide.safetensors")
            wide.save_safetensors(path)
            tensors, _ = st.load(path)
            with self.assertRaisesRegex(ValueError, r"tensor 'wte' has shape \[256, 16\], the model's is \[256, 8\]"):
                small.load_state_from(tensors)
        self.assertTrue(torch.equal(small.flat(), before))
        # the core's words for the rule (config_problems), by the schema's names
        with self.assertRaisesRegex(ValueError, r"invalid config: n_embd 10 is not divisible by n_head 4 \(each head"):
            TinyGPT(Config(n_layer=1, n_head=4, n_embd=10, block_size=4))
        with self.assertRaisesRegex(ValueError, "invalid config: n_layer must be a whole number >= 1 \\(got 0\\)"):
            TinyGPT(Config(n_layer=0, n_head=1, n_embd=4, block_size=4))


class LogitsParity(unittest.TestCase):
    def check(self, config: Config, B: int, T: int, seed: int, perturb: float):
        torch.manual_seed(seed)
        model = TinyGPT(config, seed=seed)
        with torch.no_grad():  # move LayerNorm gains and all biases away from 1 and 0
            for name, p in model.named_parameters():
                if p.dim() == 1:
                    p.add_(torch.randn(p.shape) * perturb)
        tokens = torch.randint(0, 256, (B, T))
        with torch.no_grad():
            ours = model(tokens)
        with tempfile.TemporaryDirectory() as tmp:
            core = core_logits(tmp, model, tokens)
        self.assertEqual(tuple(core.shape), (B, T, 256))
        diff = float((ours - core).abs().max())
        scale = float(core.abs().max())
        print(f"\n[parity] L={config.n_layer} NH={config.n_head} C={config.n_embd} T={T} B={B}: "
              f"max |PyTorch - core| logits {diff:.2e} (max |logit| {scale:.2f}); torch {torch.__version__}")
        self.assertLessEqual(diff, TOLERANCE)

    def test_logits_equal_the_cores(self):
        self.check(Config(n_layer=2, n_head=4, n_embd=32, block_size=16), B=3, T=16, seed=3, perturb=0.1)

    def test_logits_equal_the_cores_with_large_weights_and_one_head(self):
        # larger activations: attention that is far from uniform, GELU away from its linear part
        torch.manual_seed(9)
        config = Config(n_layer=3, n_head=1, n_embd=24, block_size=12)
        model = TinyGPT(config, seed=9)
        with torch.no_grad():
            for p in model.parameters():
                p.mul_(10.0 if p.dim() == 2 else 1.0)
        tokens = torch.randint(0, 256, (2, 7))  # shorter than the context
        with torch.no_grad():
            ours = model(tokens)
        with tempfile.TemporaryDirectory() as tmp:
            core = core_logits(tmp, model, tokens)
        diff = float((ours - core).abs().max())
        rel = float(((ours - core).abs() / core.abs().clamp_min(1.0)).max())
        print(f"\n[parity] L=3 NH=1 C=24 T=7 B=2, weights x10: max |PyTorch - core| logits {diff:.2e}, "
              f"relative {rel:.2e} (max |logit| {float(core.abs().max()):.1f})")
        self.assertLessEqual(rel, TOLERANCE)

    def test_logits_equal_the_cores_in_the_gpt2_layout(self):
        # tie_weights 1: no lm_head, the head is wte (the model file carries tie_weights in its metadata)
        config = Config(n_layer=2, n_head=3, n_embd=12, block_size=9, tie_weights=1)
        self.assertNotIn("lm_head.weight", dict(TinyGPT(config).named_parameters()))
        self.assertEqual(config.num_parameters(), Config(n_layer=2, n_head=3, n_embd=12, block_size=9).num_parameters() - 13 * 256)
        self.check(config, B=2, T=9, seed=4, perturb=0.1)

    def test_a_context_longer_than_the_models_is_refused(self):
        model = TinyGPT(Config(n_layer=1, n_head=1, n_embd=4, block_size=4))
        with self.assertRaisesRegex(ValueError, "sequence length 5 exceeds the context of 4"):
            model(torch.zeros(1, 5, dtype=torch.long))


if __name__ == "__main__":
    unittest.main()
