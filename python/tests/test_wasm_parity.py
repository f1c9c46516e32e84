"""The PyTorch module against the WebAssembly build on the same text: next-byte probabilities.

The page's module exposes the model's predictions as probabilities (Session.inspect: softmax of the
logits), so that is what is compared: PyTorch's softmax(logits) against the wasm build's, for a
checkpoint the CLI wrote and for its export (the page's two ways in), <= 1e-5.
CTest: python_logits_match_the_wasm_build (registered with the JavaScript suites: it needs the
wasm builds and node; TINYGPT_NODE names node).
"""
import os
import tempfile
import unittest

from tests.common import ROOT, cli, program, run, tiny_run

import torch

from tinygpt.model import TinyGPT

TOLERANCE = 1e-5
VARIANTS = ("simd", "scalar")


class WasmParity(unittest.TestCase):
    def test_pytorch_gives_the_wasm_builds_probabilities(self):
        with tempfile.TemporaryDirectory() as tmp:
            ckpt = tiny_run(tmp)
            exported = os.path.join(tmp, "model.safetensors")
            cli("export", "--ckpt", ckpt, "--out", exported)
            text = "KING RICHARD III:\nNow is the winter of our discontent"[-32:].encode()  # block_size 32
            text_path = os.path.join(tmp, "text.txt")
            with open(text_path, "wb") as f:
                f.write(text)
            with torch.no_grad():
                ours = torch.softmax(TinyGPT.from_checkpoint(ckpt)(torch.tensor([list(text)]))[0], dim=-1)  # (T, V)
            for variant in VARIANTS:
                wasm_js = os.path.join(ROOT, "build", "wasm-dist", f"tinygpt-{variant}.js")
                self.assertTrue(os.path.exists(wasm_js), f"{wasm_js} is not built (scripts/build-wasm.sh {variant})")
                for model in (ckpt, exported):
                    out = os.path.join(tmp, f"probs-{variant}.bin")
                    run([program("TINYGPT_NODE"), "--no-experimental-fetch",
                         os.path.join(ROOT, "tests", "wasm", "inspect-probs.mjs"), variant, model, text_path, out])
                    with open(out, "rb") as f:
                        wasm = torch.frombuffer(bytearray(f.read()), dtype=torch.float32).view(len(text), 256)
                    diff = float((ours - wasm).abs().max())
                    likely = wasm > 1e-3
                    log_diff = float((ours[likely].log() - wasm[likely].log()).abs().max())
                    print(f"\n[wasm {variant}] {os.path.basename(model)}: max |p PyTorch - p wasm| {diff:.2e} over "
                          f"{len(text)} x 256; max |log p difference| {log_diff:.2e} where p > 1e-3")
                    self.assertLessEqual(diff, TOLERANCE)
                    self.assertLessEqual(log_diff, TOLERANCE * 10)


if __name__ == "__main__":
    unittest.main()
