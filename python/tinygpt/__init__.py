"""tinygpt — the project's model in PyTorch, and safetensors files, in plain Python.

    tinygpt.model        Config, TinyGPT (torch.nn.Module with the C++ core's parameter names and
                         (in, out) layout), param_specs (the core's param_table order), forward_logits
    tinygpt.safetensors  a stdlib-only safetensors writer and strict reader (torch helpers optional)
    tinygpt.tokenizer    the core's byte-level BPE: the same ids for any bytes (stdlib only)

No build step: put python/ on sys.path (or PYTHONPATH=python). torch is imported only by
tinygpt.model and by the torch helpers of tinygpt.safetensors.
"""

__all__ = ["model", "safetensors", "tokenizer"]
