"""tinygpt.model — TinyGPT in PyTorch: the C++ core's model (core/src/model.cpp), name for name.

    x = wte[tokens] + wpe[0:T]                                   (B, T, C)
    for each of the L blocks (pre-norm):
        x = x + attn.c_proj(causal_attention(attn.c_attn(ln_1(x))))
        x = x + mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(x))))          hidden (B, T, 4C)
    logits = ln_f(x) @ lm_head.weight + lm_head.bias             (B, T, V), V = 256 bytes

Layout conventions of the core (not torch.nn.Linear's): every weight matrix is stored (in, out)
and applied as x @ W + b; LayerNorm eps is 1e-5; GELU is the tanh approximation; positions are
learned; the output head has its own weight and a bias (not tied to wte). Parameter names, shapes
and order are those of TinyGPT::param_table() (param_specs below), so a state_dict's keys are the
core's names and the flat parameter block of the core is the concatenation in that order.

forward_logits() is the one definition of the forward pass in Python: TinyGPT.forward uses it,
and so does tests/ref/make_ref.py (which writes the reference fixture of tests/test_ref.cpp).
"""
import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import safetensors as st

VOCAB_SIZE = 256  # bytes are tokens
LN_EPS = 1e-5


@dataclass(frozen=True)
class Config:
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    block_size: int = 64  # context length: the number of learned positions

    vocab_size = VOCAB_SIZE

    def validate(self):
        """The core's model::Config::validate(), with its messages."""
        def check(ok, msg):
            if not ok:
                raise ValueError("invalid model config: " + msg)
        check(1 <= self.n_layer <= 96, f"layers must be between 1 and 96 (got {self.n_layer})")
        check(1 <= self.n_head <= 128, f"heads must be between 1 and 128 (got {self.n_head})")
        check(1 <= self.n_embd <= 8192, f"width (n_embd) must be between 1 and 8192 (got {self.n_embd})")
        check(1 <= self.block_size <= 8192, f"context (block_size) must be between 1 and 8192 (got {self.block_size})")
        check(self.n_embd % self.n_head == 0, f"width {self.n_embd} is not divisible by {self.n_head} heads "
                                              "(each head gets width / heads channels)")
        return self

    def num_parameters(self) -> int:
        return sum(math.prod(shape) for _, shape, _ in param_specs(self))

    # The config in a safetensors file's __metadata__ (strings). Provisional names, the same as the
    # C++ side's test tool; the project's config schema will define the final set.
    def to_metadata(self) -> Dict[str, str]:
        return {"format": "tinygpt", "n_layer": str(self.n_layer), "n_head": str(self.n_head),
                "n_embd": str(self.n_embd), "block_size": str(self.block_size), "vocab_size": str(VOCAB_SIZE)}

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str]) -> "Config":
        values = {}
        for key in ("n_layer", "n_head", "n_embd", "block_size"):
            if key not in metadata:
                raise ValueError(f"the file's metadata has no '{key}' (a tinygpt model file names its config)")
            try:
                values[key] = int(metadata[key])
            except ValueError:
                raise ValueError(f"metadata '{key}' is {metadata[key]!r}, not an integer") from None
        if int(metadata.get("vocab_size", VOCAB_SIZE)) != VOCAB_SIZE:
            raise ValueError(f"vocabulary {metadata['vocab_size']}: tinygpt reads bytes (256)")
        return cls(**values).validate()


def param_specs(config: Config) -> List[Tuple[str, Tuple[int, ...], bool]]:
    """(name, shape, decay) in TinyGPT::param_table() order (the model.cpp constructor)."""
    C, V = config.n_embd, VOCAB_SIZE
    specs = [("wte", (V, C), True), ("wpe", (config.block_size, C), True)]
    for layer in range(config.n_layer):
        p = f"h.{layer}."
        specs += [
            (p + "ln_1.weight", (C,), False), (p + "ln_1.bias", (C,), False),
            (p + "attn.c_attn.weight", (C, 3 * C), True), (p + "attn.c_attn.bias", (3 * C,), False),
            (p + "attn.c_proj.weight", (C, C), True), (p + "attn.c_proj.bias", (C,), False),
            (p + "ln_2.weight", (C,), False), (p + "ln_2.bias", (C,), False),
            (p + "mlp.c_fc.weight", (C, 4 * C), True), (p + "mlp.c_fc.bias", (4 * C,), False),
            (p + "mlp.c_proj.weight", (4 * C, C), True), (p + "mlp.c_proj.bias", (C,), False),
        ]
    specs += [("ln_f.weight", (C,), False), ("ln_f.bias", (C,), False),
              ("lm_head.weight", (C, V), True), ("lm_head.bias", (V,), False)]
    return specs


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

    def __init__(self, config: Config, seed: Optional[int] = None):
        super().__init__()
        self.config = config.validate()
        C, V = config.n_embd, VOCAB_SIZE
        self.wte = nn.Parameter(torch.zeros(V, C))
        self.wpe = nn.Parameter(torch.zeros(config.block_size, C))
        self.h = nn.ModuleList([_Block(C) for _ in range(config.n_layer)])
        self.ln_f = _Params(weight=(C,), bias=(C,))
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
        """logits (B, T, V) for byte tokens (B, T), T <= block_size."""
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
        flat = torch.as_tensor(flat, dtype=torch.float32).reshape(-1)
        n = self.config.num_parameters()
        if flat.numel() != n:
            raise ValueError(f"the parameter block has {flat.numel()} values; this configuration needs {n}")
        at = 0
        for p in self.parameters():
            p.copy_(flat[at:at + p.numel()].view_as(p))
            at += p.numel()
        return self

    # ---- safetensors (the core's safetensors::serialize_model / load_model) ----
    def save_safetensors(self, path: str, metadata: Optional[Mapping[str, str]] = None):
        meta = dict(self.config.to_metadata())
        meta.update(metadata or {})
        st.save_torch(path, {name: p.detach().float() for name, p in self.named_parameters()}, meta)

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
        tensors, metadata = st.load(path)
        return cls(Config.from_metadata(metadata)).load_state_from(tensors)
