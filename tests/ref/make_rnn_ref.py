#!/usr/bin/python3
"""make_rnn_ref.py — PyTorch reference fixture for tests/test_rnn_ref.cpp: the recurrent language
models (rnn, gru, lstm) on torch.nn.RNN / GRU / LSTM themselves, and the LSTM translator
(lstm_seq2seq) written here in plain PyTorch (torch.nn.LSTM encoder and decoder, Luong attention).

For each model: a small config, parameters (torch's initialisation, then biases moved off their
values), a batch; logits, loss, every parameter gradient, the global gradient norm and the
parameters after one clipped AdamW step (core/src/optim.cpp's float32 formula, cross-checked with
torch.optim.AdamW), in float32. The language models also run from a given initial state (a
stateful run's next window): logits_from_state.

Run with Debian's interpreter (torch 1.13):   /usr/bin/python3 tests/ref/make_rnn_ref.py
Records are named "<model>/<what>" in make_ref.py's TGREF001 format (tests/ref_fixture.h reads it).
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from make_ref import clip_grad_norm, f32, lr_at, write_fixture  # noqa: E402  (the gpt fixture's schedule, clipping, writer)
from make_ref import BETA1, BETA2, EPS, GRAD_CLIP, LR, MIN_LR, TOTAL, WARMUP, WEIGHT_DECAY  # noqa: E402
from tinygpt.rnn import Recurrent, RecurrentConfig  # noqa: E402

SEED = 20251125
B, T = 3, 7
np32 = lambda t: t.detach().cpu().numpy().astype(np.float32)  # noqa: E731


def adamw_step(P, grads, decay, lr):
    """kernels::adamw_update's first step in float32 (make_ref.AdamW for any parameter set)."""
    s = lambda x: torch.tensor(f32(x))  # noqa: E731
    bc1, bc2 = f32(f32(1) - f32(BETA1)), f32(f32(1) - f32(BETA2))
    out = {}
    for n, p in P.items():
        g = grads[n]
        m = s(f32(1) - BETA1) * g
        v = s(f32(1) - BETA2) * g * g
        update = (m * s(f32(1) / bc1)) / (torch.sqrt(v * s(f32(1) / bc2)) + s(EPS))
        out[n] = p * s(f32(1) - lr * (WEIGHT_DECAY if decay[n] else f32(0))) - s(lr) * update
    return out


def torch_adamw_step(P, grads, decay, lr):
    leaves = {n: p.clone().requires_grad_(True) for n, p in P.items()}
    for n in P:
        leaves[n].grad = grads[n].clone()
    opt = torch.optim.AdamW([{"params": [leaves[n] for n in P if decay[n]], "weight_decay": float(WEIGHT_DECAY)},
                             {"params": [leaves[n] for n in P if not decay[n]], "weight_decay": 0.0}],
                            lr=float(lr), betas=(float(BETA1), float(BETA2)), eps=float(EPS))
    opt.step()
    return {n: leaves[n].detach() for n in P}


def optimizer_records(prefix, P, grads, decay):
    norm, clipped = clip_grad_norm(grads, GRAD_CLIP)
    lr0 = lr_at(0)
    P1 = adamw_step(P, clipped, decay, lr0)
    P1_torch = torch_adamw_step(P, clipped, decay, lr0)
    check = max(float((P1[n] - P1_torch[n]).abs().max()) for n in P)
    print(f"  {prefix}: grad norm {norm:.5f} (clip {'on' if norm > GRAD_CLIP else 'off'}); "
          f"hand-written vs torch.optim.AdamW step 1: {check:.2e}")
    return [(f"{prefix}/grad_norm", np.array([norm], dtype=np.float32))] + \
           [(f"{prefix}/step1/{n}", np32(P1[n])) for n in P]


# ---- the language models: tinygpt.rnn.Recurrent (torch.nn.RNN / GRU / LSTM) ----------------------

def language_model(kind, gen):
    L, E, H = 2, 8, 12
    model = Recurrent(RecurrentConfig(model=kind, n_layer=L, n_embd=E, n_hidden=H), seed=SEED)
    with torch.no_grad():  # move every bias, and the recurrent weights a little more, off torch's init
        for name, p in model.named_parameters():
            p.add_(torch.randn(p.shape, generator=gen) * (0.2 if p.dim() == 1 else 0.05))
    window = torch.randint(0, 256, (B, T + 1), generator=gen)
    tokens, targets = window[:, :T], window[:, 1:]
    h0 = torch.randn(L, B, H, generator=gen) * 0.5
    state = (h0, torch.randn(L, B, H, generator=gen) * 0.5) if kind == "lstm" else h0
    names = [n for n, _ in model.named_parameters()]
    P = {n: p.detach().clone() for n, p in model.named_parameters()}
    decay = model.decay_flags()

    model.zero_grad()
    logits, _ = model(tokens)
    loss = F.cross_entropy(logits.reshape(-1, 256), targets.reshape(-1))
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
    with torch.no_grad():
        from_state, _ = model(tokens, state)
    print(f"  {kind}: loss {float(loss):.6f}")
    records = [(f"{kind}/config", np.array([L, E, H, B, T], dtype=np.int32)),
               (f"{kind}/tokens", tokens.numpy().astype(np.int32)),
               (f"{kind}/targets", targets.numpy().astype(np.int32))]
    records += [(f"{kind}/param/{n}", np32(P[n])) for n in names]
    records += [(f"{kind}/logits", np32(logits)), (f"{kind}/loss", np.array([float(loss)], dtype=np.float32))]
    records += [(f"{kind}/grad/{n}", np32(grads[n])) for n in names]
    records += optimizer_records(kind, P, grads, decay)
    records += [(f"{kind}/h0", np32(h0))]
    if kind == "lstm":
        records += [(f"{kind}/c0", np32(state[1]))]
    records += [(f"{kind}/logits_from_state", np32(from_state))]
    return records


# ---- the LSTM translator (core/include/tinygpt/rnn_seq2seq.h), in plain PyTorch -----------------

BOS, EOS, PAD, V2 = 256, 257, 258, 259


def translator(gen):
    Le, Ld, E, H, S, Tt = 2, 2, 6, 10, 5, 6
    k = 1.0 / math.sqrt(H)
    enc = torch.nn.LSTM(E, H, Le, batch_first=True)
    dec = torch.nn.LSTM(E, H, Ld, batch_first=True)
    P = {"src_embed.weight": torch.randn(V2, E, generator=gen), "tgt_embed.weight": torch.randn(V2, E, generator=gen)}
    for side, lstm in (("encoder", enc), ("decoder", dec)):
        for name, p in lstm.named_parameters():
            P[f"{side}.{name}"] = (torch.rand(p.shape, generator=gen) * 2 - 1) * k
    for name, shape in (("attn.weight", (H, H)), ("combine.context.weight", (H, H)), ("combine.hidden.weight", (H, H)),
                        ("combine.bias", (H,)), ("proj.weight", (H, V2)), ("proj.bias", (V2,))):
        P[name] = torch.randn(shape, generator=gen) * (0.1 if len(shape) == 1 else 0.3)
    names = list(P)
    decay = {n: P[n].dim() >= 2 for n in names}
    # sources of lengths 5, 3, 1 (right padding), targets of lengths 5, 2, 3
    lengths, tlens = [5, 3, 1], [5, 2, 3]
    src = torch.full((B, S), PAD, dtype=torch.long)
    tgt_in = torch.full((B, Tt), PAD, dtype=torch.long)
    tgt_out = torch.full((B, Tt), -1, dtype=torch.long)
    for b in range(B):
        src[b, :lengths[b]] = torch.randint(0, 256, (lengths[b],), generator=gen)
        t = torch.randint(0, 256, (tlens[b],), generator=gen)
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:tlens[b] + 1] = t
        tgt_out[b, :tlens[b]] = t
        tgt_out[b, tlens[b]] = EOS

    def forward(Q):
        # the LSTM layers step by step (torch.nn.LSTMCell's equations, checked against torch.nn.LSTM
        # below): the decoder starts from every encoder layer's h and c at the source's last byte
        def run(side, L, x, state):
            hs, cs = [], []
            for layer in range(L):
                w = [Q[f"{side}.{p}_l{layer}"] for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
                if state is not None and layer < len(state[0]):
                    h, c = state[0][layer], state[1][layer]
                else:
                    h, c = torch.zeros(x.shape[0], H), torch.zeros(x.shape[0], H)
                outs, cells = [], []
                for t in range(x.shape[1]):
                    h, c = lstm_step(x[:, t], h, c, *w)
                    outs.append(h)
                    cells.append(c)
                x = torch.stack(outs, 1)
                hs.append(x)
                cs.append(torch.stack(cells, 1))
            return x, hs, cs

        enc_x = Q["src_embed.weight"][src]
        enc_out, enc_h, enc_c = run("encoder", Le, enc_x, None)
        last = torch.tensor([max(n, 1) - 1 for n in lengths])
        rows = torch.arange(B)
        h0 = [enc_h[l][rows, last] for l in range(Le)]
        c0 = [enc_c[l][rows, last] for l in range(Le)]
        dec_out, _, _ = run("decoder", Ld, Q["tgt_embed.weight"][tgt_in], (h0, c0))
        q = dec_out @ Q["attn.weight"]                                   # (B, T, H)
        scores = q @ enc_out.transpose(1, 2) / math.sqrt(H)              # (B, T, S)
        scores = scores.masked_fill((src == PAD)[:, None, :], float("-inf"))
        att = torch.softmax(scores, -1)
        ctx = att @ enc_out                                              # (B, T, H)
        mix = torch.tanh(ctx @ Q["combine.context.weight"] + dec_out @ Q["combine.hidden.weight"] + Q["combine.bias"])
        return mix @ Q["proj.weight"] + Q["proj.bias"], att              # (B, T, V)

    leaves = {n: P[n].clone().requires_grad_(True) for n in names}
    logits, att = forward(leaves)
    loss = F.cross_entropy(logits.reshape(-1, V2), tgt_out.reshape(-1), ignore_index=-1)
    loss.backward()
    grads = {n: leaves[n].grad.detach().clone() for n in names}
    # the functional LSTM above against torch.nn.LSTM on the encoder: the same equations
    with torch.no_grad():
        for name, p in enc.named_parameters():
            p.copy_(P[f"encoder.{name}"])
        ref, _ = enc(P["src_embed.weight"][src])
    check = float((ref - forward_encoder_only(P, src, Le, H)).abs().max())
    print(f"  lstm_seq2seq: loss {float(loss):.6f}; the hand-written LSTM vs torch.nn.LSTM: {check:.2e}")
    assert check < 1e-6
    records = [("lstm_seq2seq/config", np.array([Le, Ld, E, H, B, S, Tt], dtype=np.int32)),
               ("lstm_seq2seq/src", src.numpy().astype(np.int32)),
               ("lstm_seq2seq/tgt_in", tgt_in.numpy().astype(np.int32)),
               ("lstm_seq2seq/tgt_out", tgt_out.numpy().astype(np.int32))]
    records += [(f"lstm_seq2seq/param/{n}", np32(P[n])) for n in names]
    records += [("lstm_seq2seq/logits", np32(logits)), ("lstm_seq2seq/attention", np32(att)),
                ("lstm_seq2seq/loss", np.array([float(loss)], dtype=np.float32))]
    records += [(f"lstm_seq2seq/grad/{n}", np32(grads[n])) for n in names]
    records += optimizer_records("lstm_seq2seq", P, grads, decay)
    return records


def lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """torch.nn.LSTMCell: gates i f g o from x W_ih^T + b_ih + h W_hh^T + b_hh."""
    i, f, g, o = (x @ w_ih.t() + b_ih + h @ w_hh.t() + b_hh).chunk(4, 1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def forward_encoder_only(P, src, Le, H):
    x = P["src_embed.weight"][src]
    for layer in range(Le):
        h, c, outs = torch.zeros(x.shape[0], H), torch.zeros(x.shape[0], H), []
        for t in range(x.shape[1]):
            h, c = lstm_step(x[:, t], h, c, P[f"encoder.weight_ih_l{layer}"], P[f"encoder.weight_hh_l{layer}"],
                             P[f"encoder.bias_ih_l{layer}"], P[f"encoder.bias_hh_l{layer}"])
            outs.append(h)
        x = torch.stack(outs, 1)
    return x


def main():
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(SEED)
    print(f"torch {torch.__version__}; B={B} T={T}; lr_at(0) = {lr_at(0):.8g} (schedule {LR} -> {MIN_LR}, "
          f"warmup {WARMUP}, total {TOTAL})")
    records = []
    for kind in ("rnn", "gru", "lstm"):
        records += language_model(kind, gen)
    records += translator(gen)
    out = os.path.join(HERE, "rnn_ref.bin")
    write_fixture(out, records)
    print(f"wrote {out} ({os.path.getsize(out)} bytes, {len(records)} records)")


if __name__ == "__main__":
    sys.exit(main())
