"""tinygpt.export — a TinyGPT (tinygpt.model) in the formats other tools read, as the core writes them
(core/include/tinygpt/export.h, docs/export.md):

    safetensors   the model file of `tinygpt export` (the core's names, the config in the metadata)
    onnx          torch.onnx.export of the forward pass with past keys/values, in the Hugging Face
                  (optimum) GPT-2 layout: inputs input_ids, attention_mask, position_ids,
                  past_key_values.N.key/value (batch_size, NH, past_sequence_length, HS); outputs
                  logits, present.N.key/value; opset 17
    hf            a Hugging Face GPT-2 folder: config.json, generation_config.json, model.safetensors
                  (GPT-2's names; Conv1D's (in, out) layout is the core's own), tokenizer.json,
                  tokenizer_config.json, onnx/model.onnx; for the GPT-2 layout (tie_weights 1) only
    gguf          llama.cpp's file (architecture gpt2; f32, f16 or q8_0), byte for byte the core's

    python -m tinygpt.export MODEL --format onnx|hf|gguf|safetensors --out PATH [--dtype f16]

MODEL is a checkpoint (tinygpt train --out) or a model file (.safetensors). The core's own writers
(tinygpt export) are the reference: tests/test_export.py compares these files with the CLI's.
"""
import argparse
import io
import json
import math
import os
import struct
import sys
from typing import Dict, List

import torch

from . import safetensors as st
from .model import TinyGPT
from .tokenizer import BYTE_TO_UNICODE, Tokenizer

FORMATS = ("safetensors", "onnx", "hf", "gguf")
GGUF_TYPES = ("f32", "f16", "q8_0")
OPSET = 17
SPECIALS = ("<|bos|>", "<|eos|>", "<|pad|>", "<|endoftext|>")  # after the 256 bytes, as the core's byte tokenizer
TOKENIZER_KEY = "tokenizer.json"  # a BPE model file's tokenizer, in its metadata (safetensors.h kTokenizerKey)


class ExportError(ValueError):
    """The model cannot be written in that format (the core's words)."""


def load(path: str) -> TinyGPT:
    """A checkpoint or a model file, with its tokenizer as .tokenizer (a BPE run's vocabulary; None for bytes)."""
    from . import checkpoint
    with open(path, "rb") as f:
        magic = f.read(8)
    if magic == b"TGPTCKPT":
        ck = checkpoint.load(path)
        kind = ck.field_text("model") if "model" in ck.config else "gpt"
        if kind != "gpt":  # the core writes the other kinds (export.h): say so rather than fail in the model
            raise ExportError(f"a {kind} model: python -m tinygpt.export writes the GPT; the CLI writes this one "
                              f"(tinygpt export --ckpt {path} --format onnx|safetensors, docs/export.md)")
        model = TinyGPT.from_checkpoint(ck)
        model.tokenizer = ck.tokenizer()
    else:
        model = TinyGPT.from_safetensors(path)
        text = model.fields.get(TOKENIZER_KEY)
        model.tokenizer = Tokenizer.from_json(text) if text else None
    return model.eval()


def tokenizer_of(model: TinyGPT) -> Tokenizer:
    """The model's tokenizer: its BPE vocabulary, or the bytes (256 tokens, no merges, the special tokens after them)."""
    tok = getattr(model, "tokenizer", None)
    if tok is None:
        tok = Tokenizer([bytes([b]) for b in range(256)], [], [(t, 256 + i) for i, t in enumerate(SPECIALS)])
    if tok.vocab_size != model.config.vocab_size:
        raise ExportError(f"the tokenizer has {tok.vocab_size} text tokens, the model {model.config.vocab_size}")
    return tok


def _gpt2(b: bytes) -> str:
    """A token's bytes in GPT-2's printable form (bytes_to_unicode)."""
    return "".join(BYTE_TO_UNICODE[x] for x in b)


def _params(model: TinyGPT) -> Dict[str, torch.Tensor]:
    return {name: p.detach().float().cpu() for name, p in model.named_parameters()}


def _json(obj) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


# ---- safetensors --------------------------------------------------------------------------------

def safetensors_file(model: TinyGPT) -> bytes:
    """The model file `tinygpt export` writes."""
    tensors = {name: st.from_torch(p) for name, p in _params(model).items()}
    meta = model.metadata()
    if getattr(model, "tokenizer", None) is not None:
        meta[TOKENIZER_KEY] = _json(tokenizer_json(model.tokenizer)).decode()
    return st.serialize(tensors, meta)


# ---- ONNX -------------------------------------------------------------------------------------------

class _WithPast(torch.nn.Module):
    """TinyGPT's forward pass with past keys/values (export_onnx.cpp's graph, in PyTorch)."""

    def __init__(self, model: TinyGPT):
        super().__init__()
        self.m = model
        self.L, self.NH = model.config.n_layer, model.config.n_head

    def forward(self, input_ids, attention_mask, position_ids, *past):
        P = dict(self.m.named_parameters())
        B, T = input_ids.shape
        C = self.m.config.n_embd
        HS = C // self.NH
        x = P["wte"][input_ids] + P["wpe"][position_ids]  # (B, T, C)
        S = past[0].shape[2] + T
        q_pos = torch.arange(S - T, S, device=x.device).unsqueeze(1)
        k_pos = torch.arange(0, S, device=x.device).unsqueeze(0)
        allowed = (k_pos <= q_pos).unsqueeze(0).unsqueeze(0) & attention_mask.bool()[:, None, None, :]  # (B, 1, T, S)
        presents = []
        for layer in range(self.L):
            p = f"h.{layer}."
            h = torch.nn.functional.layer_norm(x, (C,), P[p + "ln_1.weight"], P[p + "ln_1.bias"], 1e-5)
            q, k, v = (h @ P[p + "attn.c_attn.weight"] + P[p + "attn.c_attn.bias"]).split(C, dim=-1)
            q, k, v = (t.view(B, T, self.NH, HS).transpose(1, 2) for t in (q, k, v))
            k = torch.cat([past[2 * layer], k], dim=2)
            v = torch.cat([past[2 * layer + 1], v], dim=2)
            presents += [k, v]
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(HS))
            att = torch.softmax(att.masked_fill(~allowed, torch.finfo(att.dtype).min), dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + y @ P[p + "attn.c_proj.weight"] + P[p + "attn.c_proj.bias"]
            h = torch.nn.functional.layer_norm(x, (C,), P[p + "ln_2.weight"], P[p + "ln_2.bias"], 1e-5)
            h = torch.nn.functional.gelu(h @ P[p + "mlp.c_fc.weight"] + P[p + "mlp.c_fc.bias"], approximate="tanh")
            x = x + h @ P[p + "mlp.c_proj.weight"] + P[p + "mlp.c_proj.bias"]
        x = torch.nn.functional.layer_norm(x, (C,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
        logits = x @ P["wte"].t() if "lm_head.weight" not in P else x @ P["lm_head.weight"] + P["lm_head.bias"]
        return (logits, *presents)


def onnx_file(model: TinyGPT) -> bytes:
    """torch.onnx.export of the forward pass with past keys/values (the layout above)."""
    c = model.config
    L, NH, HS = c.n_layer, c.n_head, c.n_embd // c.n_head
    past_names = [f"past_key_values.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    present_names = [f"present.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    total = "past_sequence_length + sequence_length"
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"}, "attention_mask": {0: "batch_size", 1: total},
            "position_ids": {0: "batch_size", 1: "sequence_length"}, "logits": {0: "batch_size", 1: "sequence_length"}}
    axes.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in past_names})
    axes.update({n: {0: "batch_size", 2: total} for n in present_names})
    ids = torch.zeros(1, 2, dtype=torch.long)
    example = (ids, torch.ones(1, 3, dtype=torch.long), torch.tensor([[1, 2]]), *[torch.zeros(1, NH, 1, HS) for _ in past_names])
    out = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(_WithPast(model), example, out, input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                          output_names=["logits", *present_names], dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)
    return out.getvalue()


# ---- Hugging Face folder -----------------------------------------------------------------------------

def gpt2_problem(model: TinyGPT) -> str:
    """'' when the model has GPT-2's layout (the head tied to wte, no head bias), else why not."""
    if "lm_head.weight" not in dict(model.named_parameters()):
        return ""
    return ("hf: a Hugging Face GPT-2 has its head tied to the token embedding and no head bias, and this model has "
            "a head of its own (tie_weights 0): export it as ONNX, or train with the GPT-2 layout (tie_weights 1)")


def tokenizer_json(tok: Tokenizer) -> Dict:
    """A tokenizer as Hugging Face's tokenizer.json (the core's Tokenizer::to_hf_json): the vocabulary by id, the merges in rank order."""
    special = lambda s, i: {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,  # noqa: E731
                            "normalized": False, "special": True}
    byte_level = lambda trim: {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": trim, "use_regex": True}  # noqa: E731
    vocab = {_gpt2(t): i for i, t in enumerate(tok.tokens)}
    merges = [f"{_gpt2(tok.tokens[left])} {_gpt2(tok.tokens[right])}" for left, right, _made, _count in tok.merges]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [special(s, i) for s, i in tok.specials],
            "normalizer": None, "pre_tokenizer": byte_level(True), "post_processor": byte_level(False), "decoder": byte_level(True),
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}}


def hf_folder(model: TinyGPT) -> Dict[str, bytes]:
    """The files of the folder by path (export_hf.cpp's)."""
    problem = gpt2_problem(model)
    if problem:
        raise ExportError(problem)
    c = model.config
    tok = tokenizer_of(model)
    eot = tok.special_id("<|endoftext|>")
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": c.vocab_size, "n_positions": c.block_size,
              "n_ctx": c.block_size, "n_embd": c.n_embd, "n_layer": c.n_layer, "n_head": c.n_head, "n_inner": None,
              "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05, "resid_pdrop": 0, "embd_pdrop": 0, "attn_pdrop": 0,
              "initializer_range": 0.02, "scale_attn_weights": True, "tie_word_embeddings": True, "use_cache": True,
              "bos_token_id": eot, "eos_token_id": eot, "torch_dtype": "float32"}
    tokenizer_config = {"tokenizer_class": "GPT2Tokenizer", "add_bos_token": False, "add_eos_token": False, "add_prefix_space": False,
                        "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                        "clean_up_tokenization_spaces": False, "model_max_length": c.block_size}
    hf_name = lambda n: "transformer." + (n + ".weight" if n in ("wte", "wpe") else n)  # noqa: E731
    weights = st.serialize({hf_name(n): st.from_torch(p) for n, p in _params(model).items()}, {"format": "pt"})
    return {"config.json": _json(config), "generation_config.json": _json({"bos_token_id": eot, "eos_token_id": eot, "_from_model_config": True}),
            "model.safetensors": weights, "tokenizer.json": _json(tokenizer_json(tok)), "tokenizer_config.json": _json(tokenizer_config),
            "onnx/model.onnx": onnx_file(model)}


# ---- GGUF ---------------------------------------------------------------------------------------------

_BLOCK = [("ln_1.weight", "attn_norm.weight", False), ("ln_1.bias", "attn_norm.bias", False),
          ("attn.c_attn.weight", "attn_qkv.weight", True), ("attn.c_attn.bias", "attn_qkv.bias", False),
          ("attn.c_proj.weight", "attn_output.weight", True), ("attn.c_proj.bias", "attn_output.bias", False),
          ("ln_2.weight", "ffn_norm.weight", False), ("ln_2.bias", "ffn_norm.bias", False),
          ("mlp.c_fc.weight", "ffn_up.weight", True), ("mlp.c_fc.bias", "ffn_up.bias", False),
          ("mlp.c_proj.weight", "ffn_down.weight", True), ("mlp.c_proj.bias", "ffn_down.bias", False)]


def _gguf_tensor(t: torch.Tensor, dtype: str):
    """(ggml type, bytes) of a tensor laid out as llama.cpp reads it (export_gguf.cpp make_tensor)."""
    t = t.contiguous()
    if t.dim() == 1 or dtype == "f32":
        return 0, t.numpy().astype("<f4").tobytes()
    if dtype == "q8_0" and t.shape[1] % 32 == 0:
        blocks = t.reshape(-1, 32)
        amax = blocks.abs().max(dim=1).values
        d = amax / 127.0
        inv = torch.where(d != 0, 1.0 / d, torch.zeros_like(d))
        scaled = (blocks * inv[:, None]).double()  # products in float32, as the core; then lround (half away from zero)
        q = (torch.sign(scaled) * torch.floor(scaled.abs() + 0.5)).to(torch.int8)
        dh = d.half().numpy().astype("<f2")
        qs = q.numpy()
        return 8, b"".join(dh[i:i + 1].tobytes() + qs[i].tobytes() for i in range(blocks.shape[0]))
    return 1, t.half().numpy().astype("<f2").tobytes()


def _gguf_tensors(model: TinyGPT, dtype: str) -> List:
    P = _params(model)
    c = model.config
    entries = [("wte", "token_embd.weight", False), ("wpe", "position_embd.weight", False),
               ("ln_f.weight", "output_norm.weight", False), ("ln_f.bias", "output_norm.bias", False)]
    if "lm_head.weight" in P:
        if P["lm_head.bias"].abs().max() != 0:
            raise ExportError("gguf: llama.cpp's gpt2 has no head bias, and this model's is not zero: train with the GPT-2 layout "
                              "(tie_weights 1) for llama.cpp, or export ONNX")
        entries.append(("lm_head.weight", "output.weight", True))
    entries += [(f"h.{i}.{ours}", f"blk.{i}.{theirs}", tr) for i in range(c.n_layer) for ours, theirs, tr in _BLOCK]
    out = []
    for ours, theirs, transpose in entries:
        t = P[ours].t() if transpose else P[ours]
        ggml_type, data = _gguf_tensor(t, dtype)
        out.append((theirs, list(reversed(t.shape)), ggml_type, data))
    return out


def gguf_file(model: TinyGPT, dtype: str = "f32") -> bytes:
    """GGUF version 3, architecture gpt2, byte for byte the core's (export_gguf.cpp)."""
    if dtype not in GGUF_TYPES:
        raise ExportError(f"unknown GGUF type '{dtype}': the types are {', '.join(GGUF_TYPES)}")
    c = model.config
    kv = bytearray()
    count = 0

    def s(x: str) -> bytes:
        b = x.encode()
        return struct.pack("<Q", len(b)) + b

    def put(key: str, vtype: int, payload: bytes):
        nonlocal kv, count
        kv += s(key) + struct.pack("<I", vtype) + payload
        count += 1

    u32 = lambda k, v: put(k, 4, struct.pack("<I", v))  # noqa: E731
    put("general.architecture", 8, s("gpt2"))
    put("general.name", 8, s("tinygpt"))
    u32("general.file_type", {"f32": 0, "f16": 1, "q8_0": 7}[dtype])
    u32("general.alignment", 32)
    u32("gpt2.context_length", c.block_size)
    u32("gpt2.embedding_length", c.n_embd)
    u32("gpt2.feed_forward_length", 4 * c.n_embd)
    u32("gpt2.block_count", c.n_layer)
    u32("gpt2.attention.head_count", c.n_head)
    put("gpt2.attention.layer_norm_epsilon", 6, struct.pack("<f", 1e-5))
    tok = tokenizer_of(model)
    V = tok.vocab_size
    put("tokenizer.ggml.model", 8, s("gpt2"))
    put("tokenizer.ggml.pre", 8, s("trillion"))  # GPT-2's regex, no space cleaning (export_gguf.cpp)
    put("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, V) + b"".join(s(_gpt2(t)) for t in tok.tokens))
    put("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, V) + struct.pack(f"<{V}i", *([1] * V)))
    merges = [f"{_gpt2(tok.tokens[left])} {_gpt2(tok.tokens[right])}" for left, right, _made, _count in tok.merges]
    put("tokenizer.ggml.merges", 9, struct.pack("<IQ", 8, len(merges)) + b"".join(s(m) for m in merges))
    vt = tok.encode(b"\x0b")[0]  # the byte 0x0B's token: BOS and EOS (a vocabulary of text tokens has no end-of-text)
    u32("tokenizer.ggml.bos_token_id", vt)
    u32("tokenizer.ggml.eos_token_id", vt)
    put("tokenizer.ggml.add_bos_token", 7, b"\0")
    put("tokenizer.ggml.add_eos_token", 7, b"\0")
    tensors = _gguf_tensors(model, dtype)
    pad = lambda n: (-n) % 32  # noqa: E731
    head = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), count)) + kv
    offset = 0
    for name, ne, ggml_type, data in tensors:
        head += s(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne) + struct.pack("<IQ", ggml_type, offset)
        offset += len(data) + pad(len(data))
    head += b"\0" * pad(len(head))
    for _, _, _, data in tensors:
        head += data + b"\0" * pad(len(data))
    return bytes(head)


# ---- the command ---------------------------------------------------------------------------------------

def export(model: TinyGPT, fmt: str, dtype: str = "f32") -> Dict[str, bytes]:
    """The files of an export by path: one for safetensors, onnx, gguf; the folder's for hf."""
    if fmt == "safetensors":
        return {"model.safetensors": safetensors_file(model)}
    if fmt == "onnx":
        return {"model.onnx": onnx_file(model)}
    if fmt == "gguf":
        return {f"model-{dtype}.gguf": gguf_file(model, dtype)}
    if fmt == "hf":
        return hf_folder(model)
    raise ExportError(f"unknown export format '{fmt}': the formats are {', '.join(FORMATS)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tinygpt.export", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a checkpoint (tinygpt train --out) or a model file (.safetensors)")
    ap.add_argument("--format", default="safetensors", choices=FORMATS)
    ap.add_argument("--dtype", default="f32", choices=GGUF_TYPES, help="gguf: the matrices' type")
    ap.add_argument("--out", required=True, help="the file to write (safetensors, onnx, gguf), or the folder (hf)")
    a = ap.parse_args(argv)
    try:
        files = export(load(a.model), a.format, a.dtype)
    except (ExportError, ValueError) as e:
        print(f"python -m tinygpt.export: {e}", file=sys.stderr)
        return 1
    for path, data in files.items():
        target = a.out if a.format != "hf" else os.path.join(a.out, path)
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    print(f"exported {a.model} as {a.format} to {a.out} ({sum(len(d) for d in files.values())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
