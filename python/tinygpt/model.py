"""tinygpt.model — TinyGPT in PyTorch: the C++ core's model (core/src/model.cpp), name for name.

    x = wte[tokens] + wpe[0:T]                                   (B, T, C)
    for each of the L blocks (pre-norm):
        x = x + attn.c_proj(causal_attention(attn.c_attn(ln_1(x))))
        x = x + mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(x))))          hidden (B, T, 4C)
    logits = ln_f(x) @ lm_head.weight + lm_head.bias             (B, T, V), V = 256 bytes

Layout conventions of the core (not torch.nn.Linear's): every weight matrix is stored (in, out)
and applied as x @ W + b; LayerNorm eps is 1e-5; GELU is the tanh approximation; positions are
learned; the output head has its own weight and a bias, or, in the GPT-2 layout (tie_weights 1),
is wte itself (logits = ln_f(x) @ wte^T, no bias, no lm_head parameters). Parameter names, shapes
and order are those of TinyGPT::param_table() (tinygpt.layout.param_specs), so a state_dict's keys
are the core's names and the flat parameter block of the core is the concatenation in that order.

Config holds the four fields of the config schema (core/include/tinygpt/config.h) that shape the
parameters, under the schema's names; the rest of a run's config travels with it as read from a
checkpoint or a model file's metadata (TinyGPT.fields), never declared here.

forward_logits() is the one definition of the forward pass in Python: TinyGPT.forward uses it,
and so does tests/ref/make_ref.py (which writes the reference fixture of tests/test_ref.cpp).
"""
import math
from array import array
from dataclasses import dataclass
from typing import Dict, Mapping, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import safetensors as st
from .layout import VOCAB_SIZE, param_specs  # noqa: F401 (param_specs: part of this module's API)

LN_EPS = 1e-5
# The schema fields that shape a gpt model's parameters (safetensors::required_in_model_file in the core).
SHAPE_FIELDS = ("n_layer", "n_head", "n_embd", "block_size")


def _tie_weights(fields: Mapping[str, object]) -> int:
    """tie_weights of a config or metadata: 0 when absent (files written before the GPT-2 layout)."""
    v = str(fields.get("tie_weights", "0"))
    if v not in ("0", "1"):
        raise ValueError(f"invalid config: tie_weights must be 0 or 1 (got '{v}')")
    return int(v)


@dataclass(frozen=True)
class Config:
    """The model's shape, under the config schema's names. The schema's ranges are the core's to
    check (it refuses a file or checkpoint outside them); this checks what building the model needs."""
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    block_size: int = 64  # context length: the number of learned positions
    vocab_size: int = VOCAB_SIZE  # V: 256 bytes, or a BPE vocabulary (the config's vocab_size)

    def validate(self):
        for name in SHAPE_FIELDS:
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"invalid config: {name} must be a whole number >= 1 (got {v!r})")
        if not isinstance(self.vocab_size, int) or not 256 <= self.vocab_size <= 65536:
            raise ValueError(f"invalid config: vocab_size must be in [256, 65536] (got {self.vocab_size!r})")
        if self.n_embd % self.n_head != 0:  # the core's words (config_problems)
            raise ValueError(f"invalid config: n_embd {self.n_embd} is not divisible by n_head {self.n_head} "
                             "(each head gets n_embd / n_head channels)")
        return self

    # 1: the GPT-2 layout: the head is wte (logits = ln_f(x) @ wte^T), no lm_head (config.h tie_weights)
    tie_weights: int = 0

    def num_parameters(self) -> int:
        return sum(math.prod(shape) for _, shape, _ in param_specs(self))

    @classmethod
    def from_fields(cls, fields: Mapping[str, object]) -> "Config":
        """From a checkpoint's config (tinygpt.checkpoint.Checkpoint.config) or a model file's
        metadata (strings), by the schema's names; other fields are not the model's business."""
        if str(fields.get("model", "gpt")) != "gpt":  # the only kind with a PyTorch twin here
            raise ValueError(f"this is a {fields['model']} model: tinygpt.model is the gpt kind (TinyGPT) only")
        values = {"tie_weights": _tie_weights(fields)}
        for key in SHAPE_FIELDS:
            if key not in fields:
                raise ValueError(f"not a tinygpt model: its config has no \"{key}\" "
                                 "(tinygpt export writes the whole config into the metadata)")
            v = fields[key]
            try:
                values[key] = int(v) if isinstance(v, (int, str)) and not isinstance(v, bool) else None
            except ValueError:
                values[key] = None
            if values[key] is None:
                raise ValueError(f"invalid config: {key} expects a whole number, got '{v}'")
        values["vocab_size"] = _vocab_size(fields)
        return cls(**values).validate()

    def to_metadata(self) -> Dict[str, str]:
        """The shape as model-file metadata (the core's field_text of these fields)."""
        meta = {"model": "gpt", **({"tie_weights": "1"} if self.tie_weights else {})}
        meta.update({name: str(getattr(self, name)) for name in SHAPE_FIELDS})
        meta.update(_vocab_metadata(self.vocab_size))
        meta["format"] = "pt"
        return meta

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str]) -> "Config":
        return cls.from_fields(metadata)


def _vocab_size(fields: Mapping[str, object]) -> int:
    """The vocab_size of a config or metadata (256 when it has none: written before BPE, a byte model)."""
    v = fields.get("vocab_size", VOCAB_SIZE)
    try:
        return int(v)
    except (TypeError, ValueError):
        raise ValueError(f"invalid config: vocab_size expects a whole number, got '{v}'") from None


def _vocab_metadata(vocab_size: int) -> Dict[str, str]:
    """A BPE model's tokenizer fields in its metadata (a byte model's files stay as they were)."""
    return {} if vocab_size == VOCAB_SIZE else {"tokenizer": "bpe", "vocab_size": str(vocab_size)}


# ---- the forward pass, on a dict of parameters --------------------------------------------------

def layernorm(x, g, b):
    return F.layer_norm(x, (x.shape[-1],), g, b, eps=LN_EPS)


def causal_attention(qkv, n_head: int):
    """qkv (B, T, 3C) = [q | k | v]; head h uses channels h*HS .. h*HS+HS-1 of each. -> (B, T, C)"""
    B, T, C3 = qkv.shape
    C = C3 // 3
    HS = C // n_head
    q, k, v = qkv.split(C, dim=-1)
    q = q.view(B, T, n_head, HS).transpose(1, 2)  # (B, NH, T, HS)
    k = k.view(B, T, n_head, HS).transpose(1, 2)
    v = v.view(B, T, n_head, HS).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(HS))  # (B, NH, T, T)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=qkv.device), diagonal=1)  # j > i
    att = torch.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
    y = att @ v  # (B, NH, T, HS)
    return y.transpose(1, 2).contiguous().view(B, T, C)


def forward_logits(P: Mapping[str, torch.Tensor], tokens, n_layer: int, n_head: int):
    """logits (B, T, V) for tokens (B, T) from parameters named as in param_specs."""
    T = tokens.shape[1]
    x = P["wte"][tokens.long()] + P["wpe"][:T]  # (B, T, C)
    for layer in range(n_layer):
        p = f"h.{layer}."
        h = layernorm(x, P[p + "ln_1.weight"], P[p + "ln_1.bias"])
        qkv = h @ P[p + "attn.c_attn.weight"] + P[p + "attn.c_attn.bias"]  # (B, T, 3C)
        y = causal_attention(qkv, n_head)
        x = x + (y @ P[p + "attn.c_proj.weight"] + P[p + "attn.c_proj.bias"])
        h = layernorm(x, P[p + "ln_2.weight"], P[p + "ln_2.bias"])
        h = F.gelu(h @ P[p + "mlp.c_fc.weight"] + P[p + "mlp.c_fc.bias"], approximate="tanh")  # (B, T, 4C)
        x = x + (h @ P[p + "mlp.c_proj.weight"] + P[p + "mlp.c_proj.bias"])
    x = layernorm(x, P["ln_f.weight"], P["ln_f.bias"])
    if "lm_head.weight" not in P:  # the GPT-2 layout (tie_weights 1): the head is wte
        return x @ P["wte"].t()  # (B, T, V)
    return x @ P["lm_head.weight"] + P["lm_head.bias"]  # (B, T, V)


# ---- the module -------------------------------------------------------------------------------

class _Params(nn.Module):
    """A plain holder of named parameters (weight (in, out), bias), so names nest as in the core."""

    def __init__(self, **shapes):
        super().__init__()
        for name, shape in shapes.items():
            self.register_parameter(name, nn.Parameter(torch.zeros(shape)))


class _Block(nn.Module):
    def __init__(self, C: int):
        super().__init__()
        self.ln_1 = _Params(weight=(C,), bias=(C,))
        self.attn = nn.Module()
        self.attn.c_attn = _Params(weight=(C, 3 * C), bias=(3 * C,))
        self.attn.c_proj = _Params(weight=(C, C), bias=(C,))
        self.ln_2 = _Params(weight=(C,), bias=(C,))
        self.mlp = nn.Module()
        self.mlp.c_fc = _Params(weight=(C, 4 * C), bias=(4 * C,))
        self.mlp.c_proj = _Params(weight=(4 * C, C), bias=(C,))


class TinyGPT(nn.Module):
    """The core's TinyGPT. named_parameters() / state_dict() yield the core's names, shapes and
    order (param_table), so flat() is the core's parameter block."""

    def __init__(self, config: Config, seed: Optional[int] = None, fields: Optional[Mapping[str, str]] = None):
        super().__init__()
        self.config = config.validate()
        # the rest of the run's config, as field_text strings by schema name (from a checkpoint or a
        # model file); written back into the metadata by save_safetensors
        self.fields: Dict[str, str] = dict(fields or {})
        C, V = config.n_embd, config.vocab_size
        self.wte = nn.Parameter(torch.zeros(V, C))
        self.wpe = nn.Parameter(torch.zeros(config.block_size, C))
        self.h = nn.ModuleList([_Block(C) for _ in range(config.n_layer)])
        self.ln_f = _Params(weight=(C,), bias=(C,))
        if not config.tie_weights:  # the GPT-2 layout has no head of its own
            self.lm_head = _Params(weight=(C, V), bias=(V,))
        names = [name for name, _ in self.named_parameters()]
        assert names == [name for name, _, _ in param_specs(config)], "parameter order differs from param_table"
        self.init_weights(torch.Generator().manual_seed(0 if seed is None else seed))

    @torch.no_grad()
    def init_weights(self, generator: torch.Generator):
        """GPT-2 initialisation as TinyGPT::init_weights (same distributions; the core's own random
        numbers come from its xoshiro generator, so the values differ)."""
        resid_std = 0.02 / math.sqrt(2 * self.config.n_layer)
        for (name, p), (_, _, decay) in zip(self.named_parameters(), param_specs(self.config)):
            if decay:
                residual = name.endswith("attn.c_proj.weight") or name.endswith("mlp.c_proj.weight")
                p.copy_(torch.randn(p.shape, generator=generator) * (resid_std if residual else 0.02))
            else:
                p.fill_(1.0 if ("ln_" in name and name.endswith(".weight")) else 0.0)

    def forward(self, tokens):
        """logits (B, T, V) for tokens (B, T) (bytes, or BPE ids), T <= block_size."""
        if tokens.shape[1] > self.config.block_size:
            raise ValueError(f"forward: sequence length {tokens.shape[1]} exceeds the context of "
                             f"{self.config.block_size}")
        return forward_logits(dict(self.named_parameters()), tokens, self.config.n_layer, self.config.n_head)

    def decay_flags(self) -> Dict[str, bool]:
        """Which parameters get weight decay (dim >= 2), as the core's optimizer decides."""
        return {name: decay for name, _, decay in param_specs(self.config)}

    # ---- the core's flat parameter block ----
    @torch.no_grad()
    def flat(self) -> torch.Tensor:
        """All parameters as one float32 vector in param_table order (the core's params())."""
        return torch.cat([p.detach().reshape(-1).to(torch.float32).cpu() for p in self.parameters()])

    @torch.no_grad()
    def load_flat(self, flat) -> "TinyGPT":
        if isinstance(flat, (array, bytes, bytearray, memoryview)):  # a checkpoint's section: no per-element copy
            flat = torch.frombuffer(bytearray(flat), dtype=torch.float32) if len(flat) else torch.zeros(0)
        flat = torch.as_tensor(flat, dtype=torch.float32).reshape(-1)
        n = self.config.num_parameters()
        if flat.numel() != n:
            raise ValueError(f"the parameter block has {flat.numel()} values; this configuration needs {n}")
        at = 0
        for p in self.parameters():
            p.copy_(flat[at:at + p.numel()].view_as(p))
            at += p.numel()
        return self

    # ---- safetensors (the core's safetensors::export_model / load_model) ----
    def metadata(self) -> Dict[str, str]:
        """The model file's metadata: the run's config fields (self.fields) and the model's shape."""
        meta = dict(self.fields)
        meta.update(self.config.to_metadata())
        return meta

    def save_safetensors(self, path: str, metadata: Optional[Mapping[str, str]] = None):
        meta = self.metadata()
        meta.update(metadata or {})
        st.save_torch(path, {name: p.detach().float().cpu() for name, p in self.named_parameters()}, meta)

    @torch.no_grad()
    def load_state_from(self, tensors: Mapping[str, st.Tensor]):
        """Copies every parameter from parsed safetensors tensors; checks all before changing any."""
        specs = param_specs(self.config)
        for name, shape, _ in specs:
            if name not in tensors:
                raise ValueError(f"the file has no tensor '{name}' (a model of this configuration has "
                                 f"{len(specs)} parameter tensors)")
            t = tensors[name]
            if t.dtype != "F32":
                raise ValueError(f"tensor '{name}' is {t.dtype}; tinygpt's parameters are F32")
            if tuple(t.shape) != shape:
                raise ValueError(f"tensor '{name}' has shape {list(t.shape)}, the model's is {list(shape)}")
        extra = set(tensors) - {name for name, _, _ in specs}
        if extra:
            raise ValueError(f"the file has a tensor '{sorted(extra)[0]}' that the model does not have")
        values = {name: st.to_torch(tensors[name]) for name, _, _ in specs}
        for name, v in values.items():
            if not torch.isfinite(v).all():
                raise ValueError(f"tensor '{name}' holds a non-finite value")
        for name, p in self.named_parameters():
            p.copy_(values[name])
        return self

    @classmethod
    def from_safetensors(cls, path: str) -> "TinyGPT":
        """A model file (tinygpt export, save_safetensors): the config from the metadata, by the
        schema's names (the other fields are kept in .fields), the weights from the tensors."""
        tensors, metadata = st.load(path)
        fields = {k: v for k, v in metadata.items() if k != "format"}
        return cls(Config.from_metadata(metadata), fields=fields).load_state_from(tensors)

    @classmethod
    def from_checkpoint(cls, ck) -> "TinyGPT":
        """The model of a checkpoint (tinygpt.checkpoint.Checkpoint or a path to one)."""
        from . import checkpoint
        if isinstance(ck, str):
            ck = checkpoint.load(ck)
        fields = {name: ck.field_text(name) for name in ck.config}
        return cls(Config.from_fields(ck.config), fields=fields).load_flat(ck.params)
