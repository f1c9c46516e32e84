"""tinygpt.rnn — the core's recurrent language models (core/include/tinygpt/rnn.h) in PyTorch, on
torch.nn.RNN / GRU / LSTM themselves.

    x = wte[tokens]                                  (B, T, E)
    h = torch.nn.RNN(tanh) / GRU / LSTM(E, H, L)      (B, T, H), from the state (zeros or given)
    logits = h @ lm_head.weight + lm_head.bias       (B, T, V), V = 256 bytes

The core's layers are torch's: the same equations, gate order (GRU r z n, LSTM i f g o), both bias
vectors and weight layout (weight_ih (G*H, in), weight_hh (G*H, H)). So the parameters of a core
model are this module's state_dict as they are: "wte" (V, E), "rnn.weight_ih_l0", ..., and the
head stored (in, out) like TinyGPT's, "lm_head.weight" (H, V). named_parameters() gives the core's
order (param_table), so flat() is the core's parameter block.

RecurrentConfig holds the schema fields that shape the parameters (model, n_layer, n_embd,
n_hidden); the rest of a run's config travels with it (Recurrent.fields).
"""
import math
from array import array
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

import torch
import torch.nn as nn

from . import safetensors as st
from .layout import VOCAB_SIZE

KINDS = ("rnn", "gru", "lstm")
GATES = {"rnn": 1, "gru": 3, "lstm": 4}
# The schema fields that shape a recurrent model's parameters (safetensors::required_in_model_file).
SHAPE_FIELDS = ("n_layer", "n_embd", "n_hidden")


@dataclass(frozen=True)
class RecurrentConfig:
    model: str = "lstm"
    n_layer: int = 2
    n_embd: int = 64
    n_hidden: int = 256
    vocab_size: int = VOCAB_SIZE  # V: 256 bytes, or a BPE vocabulary

    def validate(self):
        if self.model not in KINDS:
            raise ValueError(f"invalid config: model must be one of {', '.join(KINDS)} (got '{self.model}')")
        for name in SHAPE_FIELDS:
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"invalid config: {name} must be a whole number >= 1 (got {v!r})")
        return self

    def num_parameters(self) -> int:
        return sum(math.prod(shape) for _, shape, _ in param_specs(self))

    @classmethod
    def from_fields(cls, fields: Mapping[str, object]) -> "RecurrentConfig":
        kind = str(fields.get("model", "gpt"))
        if kind not in KINDS:
            raise ValueError(f"this is a {kind} model: tinygpt.rnn is the rnn, gru and lstm kinds")
        values = {}
        for key in SHAPE_FIELDS:
            if key not in fields:
                raise ValueError(f"not a tinygpt model: its config has no \"{key}\"")
            try:
                values[key] = int(fields[key])
            except (TypeError, ValueError):
                raise ValueError(f"invalid config: {key} expects a whole number, got '{fields[key]}'") from None
        from .model import _vocab_size
        return cls(model=kind, vocab_size=_vocab_size(fields), **values).validate()

    def to_metadata(self) -> Dict[str, str]:
        from .model import _vocab_metadata
        meta = {"model": self.model}
        meta.update({name: str(getattr(self, name)) for name in SHAPE_FIELDS})
        meta.update(_vocab_metadata(self.vocab_size))
        meta["format"] = "pt"
        return meta


def param_specs(config) -> List[Tuple[str, Tuple[int, ...], bool]]:
    """(name, shape, decay) in Recurrent::param_table() order (core/src/rnn.cpp); decay: dim >= 2."""
    E, H, GH = config.n_embd, config.n_hidden, GATES[config.model] * config.n_hidden
    V = int(getattr(config, "vocab_size", VOCAB_SIZE))
    specs = [("wte", (V, E), True)]
    for layer in range(config.n_layer):
        specs += [(f"rnn.weight_ih_l{layer}", (GH, E if layer == 0 else H), True),
                  (f"rnn.weight_hh_l{layer}", (GH, H), True),
                  (f"rnn.bias_ih_l{layer}", (GH,), False), (f"rnn.bias_hh_l{layer}", (GH,), False)]
    return specs + [("lm_head.weight", (H, V), True), ("lm_head.bias", (V,), False)]


class _Params(nn.Module):
    def __init__(self, **shapes):
        super().__init__()
        for name, shape in shapes.items():
            self.register_parameter(name, nn.Parameter(torch.zeros(shape)))


class Recurrent(nn.Module):
    """The core's model::Recurrent. forward(tokens, state) -> (logits, state); the state is torch's:
    h (L, B, H), or (h, c) for the LSTM; None starts from zeros."""

    def __init__(self, config: RecurrentConfig, seed: Optional[int] = None, fields: Optional[Mapping[str, str]] = None):
        super().__init__()
        self.config = config.validate()
        self.fields: Dict[str, str] = dict(fields or {})
        E, H, L = config.n_embd, config.n_hidden, config.n_layer
        self.wte = nn.Parameter(torch.zeros(config.vocab_size, E))
        module = {"rnn": lambda: nn.RNN(E, H, L, nonlinearity="tanh", batch_first=True),
                  "gru": lambda: nn.GRU(E, H, L, batch_first=True),
                  "lstm": lambda: nn.LSTM(E, H, L, batch_first=True)}[config.model]
        self.rnn = module()
        self.lm_head = _Params(weight=(H, config.vocab_size), bias=(config.vocab_size,))
        names = [(n, tuple(p.shape)) for n, p in self.named_parameters()]
        assert names == [(n, s) for n, s, _ in param_specs(config)], "parameter order differs from param_table"
        self.init_weights(torch.Generator().manual_seed(0 if seed is None else seed))

    @torch.no_grad()
    def init_weights(self, generator: torch.Generator):
        """Recurrent::init_weights' distributions (torch's defaults): wte N(0, 1), the rest
        U(-1/sqrt(H), 1/sqrt(H)) (the core draws its own numbers, so the values differ)."""
        k = 1.0 / math.sqrt(self.config.n_hidden)
        for name, p in self.named_parameters():
            if name == "wte":
                p.copy_(torch.randn(p.shape, generator=generator))
            else:
                p.copy_((torch.rand(p.shape, generator=generator) * 2 - 1) * k)

    def forward(self, tokens, state=None):
        x = self.wte[tokens.long()]          # (B, T, E)
        h, state = self.rnn(x, state)        # (B, T, H)
        return h @ self.lm_head.weight + self.lm_head.bias, state  # (B, T, V)

    def decay_flags(self) -> Dict[str, bool]:
        return {name: decay for name, _, decay in param_specs(self.config)}

    @torch.no_grad()
    def flat(self) -> torch.Tensor:
        return torch.cat([p.detach().reshape(-1).to(torch.float32).cpu() for p in self.parameters()])

    @torch.no_grad()
    def load_flat(self, flat) -> "Recurrent":
        if isinstance(flat, (array, bytes, bytearray, memoryview)):
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

    def metadata(self) -> Dict[str, str]:
        meta = dict(self.fields)
        meta.update(self.config.to_metadata())
        return meta

    def save_safetensors(self, path: str, metadata: Optional[Mapping[str, str]] = None):
        meta = self.metadata()
        meta.update(metadata or {})
        st.save_torch(path, {name: p.detach().float().cpu().contiguous() for name, p in self.named_parameters()}, meta)

    @torch.no_grad()
    def load_state_from(self, tensors: Mapping[str, st.Tensor]) -> "Recurrent":
        specs = param_specs(self.config)
        for name, shape, _ in specs:
            if name not in tensors:
                raise ValueError(f"the file has no tensor '{name}'")
            if tensors[name].dtype != "F32" or tuple(tensors[name].shape) != shape:
                raise ValueError(f"tensor '{name}' is {tensors[name].dtype} {list(tensors[name].shape)}, "
                                 f"the model's is F32 {list(shape)}")
        extra = set(tensors) - {name for name, _, _ in specs}
        if extra:
            raise ValueError(f"the file has a tensor '{sorted(extra)[0]}' that the model does not have")
        for name, p in self.named_parameters():
            p.copy_(st.to_torch(tensors[name]))
        return self

    @classmethod
    def from_safetensors(cls, path: str) -> "Recurrent":
        tensors, metadata = st.load(path)
        fields = {k: v for k, v in metadata.items() if k != "format"}
        return cls(RecurrentConfig.from_fields(metadata), fields=fields).load_state_from(tensors)

    @classmethod
    def from_checkpoint(cls, ck) -> "Recurrent":
        from . import checkpoint
        if isinstance(ck, str):
            ck = checkpoint.load(ck)
        fields = {name: ck.field_text(name) for name in ck.config}
        return cls(RecurrentConfig.from_fields(ck.config), fields=fields).load_flat(ck.params)


def state_from_flat(kind: str, flat, L: int, B: int, H: int):
    """A checkpoint's rnn_state section ((L, B, H) h, then c for the LSTM) as torch's state."""
    t = torch.as_tensor(list(flat) if isinstance(flat, array) else flat, dtype=torch.float32)
    h = t[:L * B * H].view(L, B, H).clone()
    return (h, t[L * B * H:].view(L, B, H).clone()) if kind == "lstm" else h


def state_to_flat(kind: str, state) -> array:
    parts = list(state) if kind == "lstm" else [state]
    a = array("f")
    for p in parts:
        a.frombytes(p.detach().to(torch.float32).cpu().contiguous().numpy().tobytes())
    return a
