"""tinygpt.layout — the core's parameter layout (TinyGPT::param_table in core/src/model.cpp), without torch.

param_specs gives (name, shape, decay) for every parameter tensor, in the order of the core's one
contiguous parameter block; the checkpoint reader (tinygpt.checkpoint) and the PyTorch module
(tinygpt.model) both use it. Weight matrices are stored (in, out): the core computes x @ W + b.
"""
import math
from typing import List, Tuple

VOCAB_SIZE = 256  # tokenizer bytes: bytes are tokens (a BPE run's V is its config's vocab_size)


def vocab_of(config) -> int:
    """The model's vocabulary V: the config's vocab_size (256 when it has none: a byte model)."""
    return int(getattr(config, "vocab_size", VOCAB_SIZE))


def param_specs(config) -> List[Tuple[str, Tuple[int, ...], bool]]:
    """(name, shape, decay) in TinyGPT::param_table() order (the model.cpp constructor). `config` is
    anything with n_layer, n_embd and block_size (and vocab_size, default 256). decay: the tensor
    gets weight decay (dim >= 2)."""
    C, V = config.n_embd, vocab_of(config)
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
    specs += [("ln_f.weight", (C,), False), ("ln_f.bias", (C,), False)]
    if not int(getattr(config, "tie_weights", 0)):  # the GPT-2 layout (tie_weights 1): wte is the head
        specs += [("lm_head.weight", (C, V), True), ("lm_head.bias", (V,), False)]
    return specs


def num_parameters(config) -> int:
    return sum(math.prod(shape) for _, shape, _ in param_specs(config))


def tensor_at(config, index: int) -> str:
    """The name of the parameter tensor that holds element `index` of the flat block ('' if none)."""
    at = 0
    for name, shape, _ in param_specs(config):
        n = math.prod(shape)
        if at <= index < at + n:
            return name
        at += n
    return ""
