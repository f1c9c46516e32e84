"""python -m tinygpt.export against the core's writers (tinygpt export): the same bytes for GGUF (f32,
f16, q8_0), safetensors and every file of the Hugging Face folder but its ONNX graph; the ONNX graph
(torch.onnx.export here, the core's own protobuf writer there) run in onnxruntime-node gives the
PyTorch model's logits within 1e-4, without past keys/values and with them. A model with a head of
its own is refused for hf, as the core refuses it. A BPE run exports its own vocabulary (tokenizer.json,
GGUF's tokens and merges) as the core does, from its checkpoint and from its model file. CTest: python_export_writes_the_cores_files.
"""
import json
import os
import subprocess
import tempfile
import unittest

import torch

from tests.common import ROOT, cli, small_corpus

from tinygpt import export as X

# The ONNX model run by onnxruntime-node: the prompt at once (no past), then its last token again
# after a past of all but it; prints both logits as JSON.
ORT_SCRIPT = r"""
const [ortPath, path, l, nh, hs, idsJson] = process.argv.slice(1);   // node -e: the arguments follow argv[0]
const ort = require(ortPath);
const [L, NH, HS, ids] = [+l, +nh, +hs, JSON.parse(idsJson)];
const i64 = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, v.length]);
const feeds = (tokens, start, past) => {
  const f = { input_ids: i64(tokens), attention_mask: i64(new Array(start + tokens.length).fill(1)), position_ids: i64(tokens.map((_, i) => start + i)) };
  for (let l = 0; l < L; l++) for (const kv of ['key', 'value'])
    f[`past_key_values.${l}.${kv}`] = past ? past[`present.${l}.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [1, NH, 0, HS]);
  return f;
};
(async () => {
  const s = await ort.InferenceSession.create(path);
  const whole = await s.run(feeds(ids, 0, null));
  const head = await s.run(feeds(ids.slice(0, -1), 0, null));
  const last = await s.run(feeds(ids.slice(-1), ids.length - 1, head));
  console.log(JSON.stringify({ whole: Array.from(whole.logits.data), last: Array.from(last.logits.data) }));
})();
"""


class Export(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        corpus = small_corpus(d)
        cls.tied = os.path.join(d, "tied.ckpt")
        cls.untied = os.path.join(d, "untied.ckpt")
        common = ["--preset", "tiny", "--data", corpus, "--max_iters", "20", "--eval_interval", "0", "--threads", "1"]
        cli("train", *common, "--tie_weights", "1", "--out", cls.tied)
        cli("train", *common, "--out", cls.untied)
        cls.bpe = os.path.join(d, "bpe.ckpt")
        cli("train", *common, "--tie_weights", "1", "--vocab_size", "300", "--out", cls.bpe)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def core(self, ckpt, fmt, name, *extra):
        out = self.path(name)
        cli("export", "--ckpt", ckpt, "--format", fmt, "--out", out, *extra)
        return out

    def test_gguf_and_safetensors_are_the_cores_bytes(self):
        model = X.load(self.tied)
        for dtype in X.GGUF_TYPES:
            with open(self.core(self.tied, "gguf", f"core-{dtype}.gguf", "--dtype", dtype), "rb") as f:
                self.assertEqual(X.gguf_file(model, dtype), f.read(), f"gguf {dtype}")
        with open(self.core(self.tied, "safetensors", "core.safetensors"), "rb") as f:
            self.assertEqual(X.safetensors_file(model), f.read())

    def test_the_hugging_face_folder_is_the_cores_but_for_its_onnx_graph(self):
        folder = X.hf_folder(X.load(self.tied))
        core = self.core(self.tied, "hf", "core-hf")
        self.assertEqual(sorted(folder), sorted(os.path.relpath(os.path.join(r, f), core) for r, _, fs in os.walk(core) for f in fs))
        for name, data in folder.items():
            if name.endswith(".onnx"):
                continue
            with open(os.path.join(core, name), "rb") as f:
                self.assertEqual(data, f.read(), name)
        self.assertEqual(json.loads(folder["config.json"])["model_type"], "gpt2")

    def test_onnx_runs_in_onnxruntime_with_the_models_logits(self):
        model = X.load(self.untied)
        onnx = self.path("model.onnx")
        with open(onnx, "wb") as f:
            f.write(X.onnx_file(model))
        ids = list(b"To be, or not")
        c = model.config
        ort = os.path.join(ROOT, "node_modules", "onnxruntime-node")
        node = os.environ.get("TINYGPT_NODE", "node")
        out = subprocess.run([node, "-e", ORT_SCRIPT, ort, onnx, str(c.n_layer), str(c.n_head), str(c.n_embd // c.n_head), json.dumps(ids)],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, f"onnxruntime-node (npm ci installs it): {out.stderr}")
        got = json.loads(out.stdout)
        with torch.no_grad():
            ours = model(torch.tensor([ids]))[0]  # (T, V)
        whole = torch.tensor(got["whole"]).view(len(ids), -1)
        last = torch.tensor(got["last"]).view(-1)
        d_whole = float((whole - ours).abs().max())
        d_last = float((last - ours[-1]).abs().max())
        print(f"\n[onnx] torch.onnx.export in onnxruntime-node vs PyTorch: max |diff| {d_whole:.2e} (no past), {d_last:.2e} (past)")
        self.assertLess(d_whole, 1e-4)
        self.assertLess(d_last, 1e-4)

    def test_a_head_of_its_own_is_refused_for_hf(self):
        with self.assertRaisesRegex(X.ExportError, "this model has a head of its own"):
            X.hf_folder(X.load(self.untied))
        r = subprocess.run([os.environ.get("TINYGPT_PYTHON", "/usr/bin/python3"), "-m", "tinygpt.export", self.untied, "--format", "hf",
                            "--out", self.path("nope")], capture_output=True, text=True, cwd=os.path.join(ROOT, "python"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("export it as ONNX", r.stderr)

    def test_a_bpe_model_exports_its_vocabulary_as_the_core(self):
        model = X.load(self.bpe)
        self.assertEqual(model.tokenizer.vocab_size, 300)
        for dtype in ("f32", "q8_0"):
            with open(self.core(self.bpe, "gguf", f"bpe-{dtype}.gguf", "--dtype", dtype), "rb") as f:
                self.assertEqual(X.gguf_file(model, dtype), f.read(), f"gguf {dtype}")
        model_file = self.core(self.bpe, "safetensors", "bpe.safetensors")
        with open(model_file, "rb") as f:
            self.assertEqual(X.safetensors_file(model), f.read())
        folder = X.hf_folder(model)
        core = self.core(self.bpe, "hf", "bpe-hf")
        for name, data in folder.items():
            if not name.endswith(".onnx"):
                with open(os.path.join(core, name), "rb") as f:
                    self.assertEqual(data, f.read(), name)
        self.assertEqual(len(json.loads(folder["tokenizer.json"])["model"]["merges"]), 44)
        self.assertEqual(json.loads(folder["config.json"])["vocab_size"], 300)
        # the model file carries the tokenizer: the same exports from it
        again = X.load(model_file)
        self.assertEqual(again.tokenizer.fingerprint(), model.tokenizer.fingerprint())
        self.assertEqual(X.gguf_file(again), X.gguf_file(model))


    def test_a_translator_is_sent_to_the_cli(self):
        ckpt = self.path("s2s.ckpt")
        cli("train", "--preset", "s2s-tiny", "--task", "reverse", "--max_iters", "2", "--eval_interval", "0", "--threads", "1", "--out", ckpt)
        with self.assertRaisesRegex(X.ExportError, "a seq2seq model: python -m tinygpt.export writes the GPT; the CLI writes this one"):
            X.load(ckpt)


if __name__ == "__main__":
    unittest.main()
