"""tinygpt.optim — the core's optimizer side in PyTorch (core/include/tinygpt/optim.h, core/src/optim.cpp).

    Schedule         warmup + cosine learning rate, in float32 like optim::Schedule::lr_at, and
                     Schedule.extended (a schedule moved to a new end continues from the current rate)
    make_adamw       torch.optim.AdamW with the core's two groups (weight decay on tensors with
                     dim >= 2: tinygpt.layout's decay flags) and the core's moments and step count
    clip_grad_norm   the global L2 norm (accumulated in float64) and the core's scale
                     max_norm / (norm + 1e-6) when it is above max_norm

torch.optim.AdamW computes what kernels::adamw_update computes: m = b1 m + (1-b1) g,
v = b2 v + (1-b2) g^2, p = p (1 - lr wd) - lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps); it
arranges the bias corrections differently, a difference of float rounding only
(python/tests/test_train.py measures it against the core's step).
"""
import math
import struct
from dataclasses import dataclass, replace
from typing import List

import torch



def f32(x: float) -> float:
    """x rounded to float32 (for float arithmetic: the double result of one operation on two floats,
    rounded to float, is the float operation's result)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


@dataclass(frozen=True)
class Schedule:
    """optim::Schedule: max_lr, min_lr, warmup, total and the point from_step / from_lr where it was extended."""
    max_lr: float
    min_lr: float
    warmup: int
    total: int
    from_step: int = 0
    from_lr: float = 0.0

    @classmethod
    def of(cls, ck) -> "Schedule":
        """The schedule of a checkpoint (tinygpt.checkpoint.Checkpoint)."""
        c = ck.config
        return cls(f32(c["learning_rate"]), f32(c["min_lr"]), int(c["warmup_iters"]), int(c["max_iters"]),
                   ck.schedule_from_step, f32(ck.schedule_from_lr))

    def lr_at(self, step: int) -> float:
        """The learning rate of step `step` (0-based), as float32 (Schedule::lr_at)."""
        if step < self.warmup:
            return f32(f32(self.max_lr * float(step + 1)) / float(self.warmup))
        if step >= self.total:
            return self.min_lr
        start = max(self.warmup, self.from_step)
        start_lr = self.from_lr if self.from_step > 0 else self.max_lr
        if step < start:
            return start_lr
        progress = (step - start) / max(1, self.total - start)
        coeff = 0.5 * (1.0 + math.cos(math.pi * progress))  # 1 -> 0
        return f32(self.min_lr + coeff * f32(start_lr - self.min_lr))

    def extended(self, step: int, new_total: int) -> "Schedule":
        """This schedule continued at `step` towards new_total (Schedule::extended)."""
        if step > self.warmup:
            return replace(self, from_step=step, from_lr=self.lr_at(step), total=new_total)
        return replace(self, total=new_total)


def make_adamw(model, config, adam_m=None, adam_v=None, adam_t: int = 0) -> torch.optim.AdamW:
    """AdamW over model's parameters (tinygpt.model.TinyGPT or a DDP wrapper's module) with the core's
    hyper-parameters from config (a checkpoint's config dict), its decay groups, and its state:
    adam_m, adam_v (flat float32 blocks, param_specs order) and adam_t updates done."""
    params = list(model.parameters())
    flags = list(model.decay_flags().values())  # TinyGPT's or Recurrent's table (tinygpt.layout, tinygpt.rnn)
    decayed = [p for p, decay in zip(params, flags) if decay]
    plain = [p for p, decay in zip(params, flags) if not decay]
    opt = torch.optim.AdamW(
        [{"params": decayed, "weight_decay": f32(config["weight_decay"])}, {"params": plain, "weight_decay": 0.0}],
        lr=f32(config["learning_rate"]), betas=(f32(config["beta1"]), f32(config["beta2"])), eps=f32(config["eps"]),
        foreach=False)
    if adam_m is not None:
        m = torch.frombuffer(bytearray(adam_m), dtype=torch.float32)
        v = torch.frombuffer(bytearray(adam_v), dtype=torch.float32)
        at = 0
        for p in params:
            n = p.numel()
            opt.state[p] = {"step": torch.tensor(float(adam_t)),
                            "exp_avg": m[at:at + n].view_as(p).to(p.device).clone(),
                            "exp_avg_sq": v[at:at + n].view_as(p).to(p.device).clone()}
            at += n
    return opt


def set_lr(opt: torch.optim.Optimizer, lr: float):
    for group in opt.param_groups:
        group["lr"] = lr


def moments(model, opt: torch.optim.AdamW):
    """(adam_m, adam_v, adam_t): the flat float32 moment blocks (param_specs order) and the update count."""
    ms: List[torch.Tensor] = []
    vs: List[torch.Tensor] = []
    t = 0
    for p in model.parameters():
        s = opt.state.get(p)
        if not s:
            ms.append(torch.zeros(p.numel()))
            vs.append(torch.zeros(p.numel()))
            continue
        ms.append(s["exp_avg"].detach().reshape(-1).float().cpu())
        vs.append(s["exp_avg_sq"].detach().reshape(-1).float().cpu())
        t = int(s["step"])
    return torch.cat(ms), torch.cat(vs), t


@torch.no_grad()
def clip_grad_norm(parameters, max_norm: float) -> float:
    """optim::clip_grad_norm: scales the gradients so that their global norm is at most max_norm
    (no-op when max_norm <= 0) and returns the norm before clipping (a float32 value)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.zeros((), dtype=torch.float64, device=grads[0].device if grads else "cpu")
    for g in grads:
        total += g.double().pow(2).sum()
    norm = f32(math.sqrt(float(total)))
    if max_norm > 0.0 and norm > max_norm:
        scale = f32(f32(max_norm) / f32(norm + f32(1e-6)))
        for g in grads:
            g.mul_(scale)
    return norm
