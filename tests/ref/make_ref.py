#!/usr/bin/python3
"""make_ref.py — PyTorch reference fixture for tests/test_ref.cpp.

Builds, in plain PyTorch (float32), the exact model of core/src/model.cpp and the exact
training step of core/src/trainer.cpp (global-norm clipping, warmup + cosine schedule,
AdamW of core/src/optim.cpp + kernels adamw_update), and writes tests/ref/gpt_ref.bin.

Run with Debian's interpreter (torch 1.13):   /usr/bin/python3 tests/ref/make_ref.py

The model (names, order, shapes, the forward pass) is python/tinygpt/model.py's, the package's one
definition: every weight matrix is stored (in, out) and applied as x @ W + b (not torch.nn.Linear's
layout). Parameter names, order and shapes follow TinyGPT::param_table().

Fixture format (little-endian): magic b"TGREF001"; u32 record count; records of
  u32 name_len, name (utf-8), u32 dtype (0 = float32, 1 = int32), u32 ndim, u32 dims[ndim], raw data.
"""
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

# The model is python/tinygpt/model.py's (one definition of the forward pass in Python).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from tinygpt.model import Config, forward_logits as tinygpt_forward_logits, param_specs as tinygpt_param_specs  # noqa: E402

# ---- configuration ---------------------------------------------------------------------------
V = 256
N_LAYER, N_HEAD, N_EMBD, BLOCK_SIZE = 2, 4, 32, 8
B, T = 3, 8
TRAJ_STEPS = 10
SEED = 20240607

f32 = np.float32
LR, MIN_LR, WARMUP, TOTAL = f32(1e-2), f32(1e-3), 3, 10
BETA1, BETA2, EPS, WEIGHT_DECAY, GRAD_CLIP = f32(0.9), f32(0.99), f32(1e-8), f32(0.1), f32(1.0)


SPECS = tinygpt_param_specs(Config(n_layer=N_LAYER, n_head=N_HEAD, n_embd=N_EMBD, block_size=BLOCK_SIZE))
NAMES = [s[0] for s in SPECS]
DECAY = {s[0]: s[2] for s in SPECS}


def init_params(gen, dtype=torch.float32):
    """GPT-2 init (as TinyGPT::init_weights), then small noise on LN gains/biases and all biases."""
    resid_std = 0.02 / math.sqrt(2 * N_LAYER)
    params = {}
    for name, shape, decay in SPECS:
        if decay:
            std = resid_std if name.endswith("attn.c_proj.weight") or name.endswith("mlp.c_proj.weight") else 0.02
            p = torch.randn(shape, generator=gen, dtype=torch.float32) * std
        else:
            base = 1.0 if ("ln_" in name and name.endswith(".weight")) else 0.0
            p = base + torch.randn(shape, generator=gen, dtype=torch.float32) * 0.05  # the perturbation
        params[name] = p.to(dtype)
    return params


# ---- the model: tinygpt.model.forward_logits (python/tinygpt/model.py) ----------------------------
def forward_logits(P, tokens):
    return tinygpt_forward_logits(P, tokens, N_LAYER, N_HEAD)


def loss_fn(P, tokens, targets):
    logits = forward_logits(P, tokens)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1).long()), logits


def loss_and_grads(P, tokens, targets):
    leaves = {n: P[n].detach().clone().requires_grad_(True) for n in NAMES}
    loss, logits = loss_fn(leaves, tokens, targets)
    loss.backward()
    return loss.detach(), logits.detach(), {n: leaves[n].grad.detach().clone() for n in NAMES}


# ---- optimizer: exactly core/src/optim.cpp ---------------------------------------------------
def lr_at(step):
    """optim::Schedule::lr_at: float32 warmup, cosine computed in double then rounded to float."""
    if step < WARMUP:
        return f32(LR * f32(step + 1) / f32(WARMUP))
    if step >= TOTAL:
        return MIN_LR
    progress = float(step - WARMUP) / float(max(1, TOTAL - WARMUP))
    coeff = 0.5 * (1.0 + math.cos(math.pi * progress))
    return f32(float(MIN_LR) + coeff * (float(LR) - float(MIN_LR)))


def clip_grad_norm(grads, max_norm):
    """optim::clip_grad_norm: norm in double, scale by max_norm / (norm + 1e-6) if norm > max_norm."""
    total = sum(float((g.double() ** 2).sum()) for g in grads.values())
    norm = f32(math.sqrt(total))
    if max_norm > 0 and norm > max_norm:
        coef = f32(max_norm / f32(norm + f32(1e-6)))
        grads = {n: g * torch.tensor(coef) for n, g in grads.items()}
    return norm, grads


class AdamW:
    """kernels::adamw_update, element for element in float32:
    m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
    p = p (1 - lr wd) - lr (m * (1/bc1)) / (sqrt(v * (1/bc2)) + eps),  bc_i = 1 - b_i^t
    weight decay only on tensors with dim >= 2."""

    def __init__(self):
        self.t = 0
        self.m = {n: torch.zeros(s) for n, s, _ in SPECS}
        self.v = {n: torch.zeros(s) for n, s, _ in SPECS}

    def step(self, P, grads, lr):
        self.t += 1
        bc1 = f32(f32(1) - f32(BETA1 ** f32(self.t)))
        bc2 = f32(f32(1) - f32(BETA2 ** f32(self.t)))
        s = lambda x: torch.tensor(f32(x))  # float32 scalars, as the C++ computes them
        b1, b2, omb1, omb2 = s(BETA1), s(BETA2), s(f32(1) - BETA1), s(f32(1) - BETA2)
        rbc1, rbc2 = s(f32(1) / bc1), s(f32(1) / bc2)
        out = {}
        for n in NAMES:
            wd = WEIGHT_DECAY if DECAY[n] else f32(0)
            g = grads[n]
            self.m[n] = b1 * self.m[n] + omb1 * g
            self.v[n] = b2 * self.v[n] + omb2 * g * g
            update = (self.m[n] * rbc1) / (torch.sqrt(self.v[n] * rbc2) + s(EPS))
            out[n] = P[n] * s(f32(1) - lr * wd) - s(lr) * update
        return out


def torch_adamw_step(P, grads, lr):
    """The same first step with torch.optim.AdamW (decay / no-decay groups): a cross-check."""
    leaves = {n: P[n].clone().requires_grad_(True) for n in NAMES}
    for n in NAMES:
        leaves[n].grad = grads[n].clone()
    groups = [{"params": [leaves[n] for n in NAMES if DECAY[n]], "weight_decay": float(WEIGHT_DECAY)},
              {"params": [leaves[n] for n in NAMES if not DECAY[n]], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=float(lr), betas=(float(BETA1), float(BETA2)), eps=float(EPS))
    opt.step()
    return {n: leaves[n].detach() for n in NAMES}


def train_step(P, opt, tokens, targets, step):
    """train::Trainer::step: loss before the update, clip, AdamW at lr_at(step)."""
    loss, _, grads = loss_and_grads(P, tokens, targets)
    norm, grads = clip_grad_norm(grads, GRAD_CLIP)
    return float(loss), norm, opt.step(P, grads, lr_at(step))


# ---- fixture writer --------------------------------------------------------------------------
def write_fixture(path, records):
    with open(path, "wb") as f:
        f.write(b"TGREF001")
        f.write(struct.pack("<I", len(records)))
        for name, arr in records:
            arr = np.ascontiguousarray(arr)
            if arr.dtype == np.float32:
                dtype = 0
            elif arr.dtype == np.int32:
                dtype = 1
            else:
                raise TypeError(f"{name}: unsupported dtype {arr.dtype}")
            nb = name.encode("utf-8")
            f.write(struct.pack("<I", len(nb)) + nb)
            f.write(struct.pack("<II", dtype, arr.ndim))
            f.write(struct.pack(f"<{arr.ndim}I", *arr.shape))
            f.write(arr.astype(arr.dtype.newbyteorder("<")).tobytes())


def random_batch(gen):
    window = torch.randint(0, V, (B, T + 1), generator=gen, dtype=torch.int64)
    return window[:, :T].to(torch.int32), window[:, 1:].to(torch.int32)


def main():
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(SEED)
    P0 = init_params(gen)
    tokens, targets = random_batch(gen)
    traj = [random_batch(gen) for _ in range(TRAJ_STEPS)]

    # forward + backward at the initial parameters
    loss, logits, grads = loss_and_grads(P0, tokens, targets)

    # float64 twin: how much float32 rounding there is in the reference itself
    P64 = {n: p.double() for n, p in P0.items()}
    loss64, logits64, grads64 = loss_and_grads(P64, tokens, targets)

    # one full training step on the fixed batch
    opt = AdamW()
    norm0, clipped = clip_grad_norm(grads, GRAD_CLIP)
    lr0 = lr_at(0)
    P1 = opt.step(P0, clipped, lr0)
    P1_torch = torch_adamw_step(P0, clipped, lr0)

    # trajectory: 10 steps from P0 with fresh optimizer state
    opt = AdamW()
    P = dict(P0)
    traj_loss, traj_norm = [], []
    for s, (tk, tg) in enumerate(traj):
        l, nrm, P = train_step(P, opt, tk, tg, s)
        traj_loss.append(l)
        traj_norm.append(float(nrm))

    np32 = lambda t: t.detach().cpu().numpy().astype(np.float32)
    records = [
        ("config", np.array([N_LAYER, N_HEAD, N_EMBD, BLOCK_SIZE, B, T], dtype=np.int32)),
        ("hparams", np.array([LR, MIN_LR, WARMUP, TOTAL, BETA1, BETA2, EPS, WEIGHT_DECAY, GRAD_CLIP], dtype=np.float32)),
        ("tokens", tokens.numpy().astype(np.int32)),
        ("targets", targets.numpy().astype(np.int32)),
    ]
    records += [(f"param/{n}", np32(P0[n])) for n in NAMES]
    records += [("logits", np32(logits)), ("loss", np.array([float(loss)], dtype=np.float32))]
    records += [(f"grad/{n}", np32(grads[n])) for n in NAMES]
    records += [("grad_norm", np.array([norm0], dtype=np.float32))]
    records += [(f"step1/{n}", np32(P1[n])) for n in NAMES]
    records += [
        ("traj/tokens", np.stack([tk.numpy() for tk, _ in traj]).astype(np.int32)),
        ("traj/targets", np.stack([tg.numpy() for _, tg in traj]).astype(np.int32)),
        ("traj/loss", np.array(traj_loss, dtype=np.float32)),
        ("traj/grad_norm", np.array(traj_norm, dtype=np.float32)),
    ]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpt_ref.bin")
    write_fixture(out, records)

    # ---- summary ----
    maxdiff = lambda a, b: float((a.double() - b.double()).abs().max())
    nparams = sum(P0[n].numel() for n in NAMES)
    print(f"torch {torch.__version__}; config L={N_LAYER} NH={N_HEAD} C={N_EMBD} block={BLOCK_SIZE} B={B} T={T}; "
          f"{nparams} parameters in {len(NAMES)} tensors")
    print(f"loss {float(loss):.7f} (ln 256 = {math.log(256):.7f}); grad norm {norm0:.6f} "
          f"(clip {'on' if norm0 > GRAD_CLIP else 'off'}); lr_at(0) = {lr0:.8g}")
    print("schedule: " + " ".join(f"{lr_at(s):.6g}" for s in range(TRAJ_STEPS)))
    print("float32 vs float64 reference: logits %.2e  loss %.2e  grads %.2e" % (
        maxdiff(logits, logits64), abs(float(loss) - float(loss64)),
        max(maxdiff(grads[n], grads64[n]) for n in NAMES)))
    print("hand-written AdamW vs torch.optim.AdamW (step 1): max |diff| %.2e" %
          max(maxdiff(P1[n], P1_torch[n]) for n in NAMES))
    print("smallest |grad| among nonzero grads: %.2e" %
          min(float(g[g != 0].abs().min()) for g in grads.values() if (g != 0).any()))
    print("trajectory loss: " + " ".join(f"{l:.5f}" for l in traj_loss))
    print("trajectory grad norm: " + " ".join(f"{n:.4f}" for n in traj_norm))
    print(f"wrote {out} ({os.path.getsize(out)} bytes, {len(records)} records)")


if __name__ == "__main__":
    sys.exit(main())
