#!/usr/bin/python3
"""PyTorch reference for `npm run bench`: the same model, optimizer and schedule as tinygpt's
config S, trained on tiny Shakespeare, timed in tokens/s. With --model lstm (gru, rnn): the
recurrent language model of tinygpt's lstm-S (rnn.h) on torch.nn.LSTM (GRU, RNN) itself, its
fused CPU kernels: nn.Embedding, nn.LSTM(E, H, L), nn.Linear(H, 256).

Run with Debian's python3-torch (/usr/bin/python3). Debian's default BLAS is the slow netlib
reference; install libopenblas0-openmp for a fair comparison (this script reports which
libblas is active).

    /usr/bin/python3 bench/pytorch_bench.py --threads 1 [--steps 20] [--json]
    /usr/bin/python3 bench/pytorch_bench.py --model lstm --layers 2 --width 64 --hidden 256 --threads 1
"""
import argparse
import json
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, C, NH):
        super().__init__()
        self.NH = NH
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.c_fc = nn.Linear(C, 4 * C)
        self.mlp_proj = nn.Linear(4 * C, C)

    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, self.NH, C // self.NH).transpose(1, 2)  # (B, NH, T, HS)
        k = k.view(B, T, self.NH, C // self.NH).transpose(1, 2)
        v = v.view(B, T, self.NH, C // self.NH).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(mask[:T, :T] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.c_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, L, NH, C, T, V=256):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(T, C)
        self.blocks = nn.ModuleList([Block(C, NH) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)
        self.lm_head = nn.Linear(C, V)
        self.register_buffer("mask", torch.tril(torch.ones(T, T)))
        for name, p in self.named_parameters():  # GPT-2 initialisation
            if p.dim() >= 2:
                std = 0.02 / math.sqrt(2 * L) if name.endswith(("c_proj.weight", "mlp_proj.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x, self.mask)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class Recurrent(nn.Module):
    """tinygpt's recurrent language model (core/include/tinygpt/rnn.h) on torch.nn's own modules."""

    def __init__(self, kind, L, E, H, V=256):
        super().__init__()
        self.wte = nn.Embedding(V, E)
        cls = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[kind]
        self.rnn = cls(E, H, L, batch_first=True)
        self.lm_head = nn.Linear(H, V)

    def forward(self, idx, targets):
        h, _ = self.rnn(self.wte(idx))
        logits = self.lm_head(h)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def active_blas():
    """The BLAS torch loaded (a LD_LIBRARY_PATH OpenBLAS, or the system's alternative)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "libblas.so" in line or "libopenblas" in line:
                    return line.split()[-1]
    except OSError:
        pass
    try:
        return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--context", type=int, default=64)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--model", default="gpt", choices=["gpt", "lstm", "gru", "rnn"])
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1337)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data = torch.tensor(list(open(os.path.join(root, "data/tinyshakespeare.txt"), "rb").read()), dtype=torch.long)
    n_train = len(data) - len(data) // 10
    B, T = args.batch, args.context
    model = GPT(args.layers, args.heads, args.width, T) if args.model == "gpt" else \
        Recurrent(args.model, args.layers, args.width, args.hidden)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    warmup, total, max_lr, min_lr = 100, 2000, 1e-3, 1e-4

    def lr_at(s):
        if s < warmup:
            return max_lr * (s + 1) / warmup
        progress = (s - warmup) / (total - warmup)
        return min_lr + 0.5 * (1 + math.cos(math.pi * progress)) * (max_lr - min_lr)

    def step(s):
        ix = torch.randint(n_train - T - 1, (B,))
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix])
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for g in opt.param_groups:
            g["lr"] = lr_at(s)
        opt.step()
        return loss.item()

    for s in range(3):  # warm-up
        step(s)
    t0 = time.perf_counter()
    for s in range(3, 3 + args.steps):
        loss = step(s)
    dt = time.perf_counter() - t0
    tok_s = args.steps * B * T / dt
    result = {"model": args.model, "threads": args.threads, "tok_s": tok_s, "ms_step": 1000 * dt / args.steps, "torch": torch.__version__,
              "blas": active_blas(), "loss": loss}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"PyTorch {torch.__version__} ({result['blas']}), {args.threads} thread(s): "
              f"{tok_s:.0f} tok/s, {result['ms_step']:.1f} ms/step")


if __name__ == "__main__":
    main()
