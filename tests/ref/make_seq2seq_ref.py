#!/usr/bin/python3
"""make_seq2seq_ref.py — PyTorch reference fixture for tests/test_seq2seq_ref.cpp.

The encoder-decoder of core/src/seq2seq.cpp built from torch.nn's own Transformer layers
(batch_first, post-norm, ReLU, dropout 0), with the same embeddings, sinusoidal positional
encoding and output projection around them, and the differences between torch.nn.Transformer
and the seed's model matched deliberately:

  - the seed's attention projections are plain matrix products: every nn.MultiheadAttention is
    replaced by one built with bias=False (no in_proj_bias, no out_proj.bias);
  - the seed has no LayerNorm after the encoder stack and one before the output projection:
    nn.TransformerEncoder(..., norm=None) and nn.TransformerDecoder(..., norm=nn.LayerNorm(C)).

It writes tests/ref/seq2seq_ref.bin: the configuration, a padded batch (key-padding masks on
the source and target, the causal mask, targets -1 on padding), the initial parameters in
model::Seq2Seq's layout (weights stored (in, out)), the logits, the loss, every parameter
gradient, the global gradient norm, and the parameters after one torch.nn.utils.clip_grad_norm_
+ torch.optim.AdamW step (decay on tensors with two or more dimensions).

Run with Debian's interpreter (torch 1.13):   /usr/bin/python3 tests/ref/make_seq2seq_ref.py
Fixture format: as make_ref.py (b"TGREF001", records of name, dtype, dims, little-endian data).
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_ref import write_fixture  # noqa: E402  (the shared fixture writer)

# ---- configuration ---------------------------------------------------------------------------
V = 259                      # 256 bytes + BOS, EOS, PAD
BOS, EOS, PAD = 256, 257, 258
N_ENC, N_DEC, N_HEAD, N_EMBD, D_FF, BLOCK = 2, 2, 4, 24, 40, 8
SOURCES = ["我爱", "cats", "z"]      # 6, 4 and 1 bytes: padded to S = 6
TARGETS = ["I love", "chats", "Z"]    # 6, 5 and 1 bytes: BOS + target (or target + EOS) in T = 7
LR, BETA1, BETA2, EPS, WEIGHT_DECAY, GRAD_CLIP = 1e-2, 0.9, 0.99, 1e-8, 0.1, 1.0
SEED = 20240610


def sinusoidal(T, C):
    """pe[pos, 2k] = sin(pos / 10000^(2k/C)), pe[pos, 2k+1] = cos(same): model::sinusoidal_encoding."""
    pe = np.zeros((T, C), dtype=np.float64)
    for pos in range(T):
        for i in range(0, C, 2):
            angle = pos / 10000.0 ** (i / C)
            pe[pos, i] = math.sin(angle)
            if i + 1 < C:
                pe[pos, i + 1] = math.cos(angle)
    return torch.tensor(pe.astype(np.float32))


class Reference(nn.Module):
    def __init__(self):
        super().__init__()
        C, NH = N_EMBD, N_HEAD
        self.src_embed = nn.Embedding(V, C)
        self.tgt_embed = nn.Embedding(V, C)
        enc_layer = nn.TransformerEncoderLayer(C, NH, D_FF, dropout=0.0, activation="relu", batch_first=True,
                                               norm_first=False)
        enc_layer.self_attn = nn.MultiheadAttention(C, NH, dropout=0.0, bias=False, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, N_ENC, norm=None, enable_nested_tensor=False)
        dec_layer = nn.TransformerDecoderLayer(C, NH, D_FF, dropout=0.0, activation="relu", batch_first=True,
                                               norm_first=False)
        dec_layer.self_attn = nn.MultiheadAttention(C, NH, dropout=0.0, bias=False, batch_first=True)
        dec_layer.multihead_attn = nn.MultiheadAttention(C, NH, dropout=0.0, bias=False, batch_first=True)
        self.decoder = nn.TransformerDecoder(dec_layer, N_DEC, norm=nn.LayerNorm(C))
        self.proj = nn.Linear(C, V)
        self.register_buffer("pe", sinusoidal(BLOCK, C))

    def forward(self, src, tgt_in):
        S, T = src.shape[1], tgt_in.shape[1]
        src_pad = src == PAD
        tgt_pad = tgt_in == PAD
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # True: key j > i is hidden
        x = self.src_embed(src) + self.pe[:S].to(self.src_embed.weight.dtype)
        memory = self.encoder(x, src_key_padding_mask=src_pad)
        z = self.tgt_embed(tgt_in) + self.pe[:T].to(self.tgt_embed.weight.dtype)
        z = self.decoder(z, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
        return self.proj(z)


def our_layout(m, grad=False):
    """(name, tensor) in model::Seq2Seq::param_table() order, weights as (in, out); with grad=True
    the gradients in the same layout (the gradient of a transposed or sliced view is the
    transposed or sliced gradient)."""
    C = N_EMBD
    t = lambda p: (p.grad if grad else p)                 # as stored
    tt = lambda p, rows=slice(None): t(p)[rows].t()      # nn.Linear's (out, in) -> (in, out)
    out = [("src_embed.weight", t(m.src_embed.weight)), ("tgt_embed.weight", t(m.tgt_embed.weight))]
    for l, layer in enumerate(m.encoder.layers):
        p = f"encoder.layers.{l}."
        out += [
            (p + "self_attn.qkv.weight", tt(layer.self_attn.in_proj_weight)),  # rows [q; k; v] -> columns [q | k | v]
            (p + "self_attn.out_proj.weight", tt(layer.self_attn.out_proj.weight)),
            (p + "norm1.weight", t(layer.norm1.weight)), (p + "norm1.bias", t(layer.norm1.bias)),
            (p + "linear1.weight", tt(layer.linear1.weight)), (p + "linear1.bias", t(layer.linear1.bias)),
            (p + "linear2.weight", tt(layer.linear2.weight)), (p + "linear2.bias", t(layer.linear2.bias)),
            (p + "norm2.weight", t(layer.norm2.weight)), (p + "norm2.bias", t(layer.norm2.bias)),
        ]
    for l, layer in enumerate(m.decoder.layers):
        p = f"decoder.layers.{l}."
        cross = layer.multihead_attn.in_proj_weight  # (3C, C): rows [q; k; v]
        out += [
            (p + "self_attn.qkv.weight", tt(layer.self_attn.in_proj_weight)),
            (p + "self_attn.out_proj.weight", tt(layer.self_attn.out_proj.weight)),
            (p + "norm1.weight", t(layer.norm1.weight)), (p + "norm1.bias", t(layer.norm1.bias)),
            (p + "cross_attn.q.weight", tt(cross, slice(0, C))),
            (p + "cross_attn.kv.weight", tt(cross, slice(C, 3 * C))),
            (p + "cross_attn.out_proj.weight", tt(layer.multihead_attn.out_proj.weight)),
            (p + "norm2.weight", t(layer.norm2.weight)), (p + "norm2.bias", t(layer.norm2.bias)),
            (p + "linear1.weight", tt(layer.linear1.weight)), (p + "linear1.bias", t(layer.linear1.bias)),
            (p + "linear2.weight", tt(layer.linear2.weight)), (p + "linear2.bias", t(layer.linear2.bias)),
            (p + "norm3.weight", t(layer.norm3.weight)), (p + "norm3.bias", t(layer.norm3.bias)),
        ]
    out += [("decoder.norm.weight", t(m.decoder.norm.weight)), ("decoder.norm.bias", t(m.decoder.norm.bias)),
            ("proj.weight", tt(m.proj.weight)), ("proj.bias", t(m.proj.bias))]
    return out


def batch():
    """src (B, S) bytes then PAD; tgt_in (B, T) BOS + bytes then PAD; tgt_out (B, T) bytes + EOS then -1."""
    srcs = [list(s.encode("utf-8")) for s in SOURCES]
    tgts = [list(t.encode("utf-8")) for t in TARGETS]
    S = max(len(s) for s in srcs)
    T = max(len(t) for t in tgts) + 1
    src = torch.full((len(srcs), S), PAD, dtype=torch.int64)
    tgt_in = torch.full((len(srcs), T), PAD, dtype=torch.int64)
    tgt_out = torch.full((len(srcs), T), -1, dtype=torch.int64)
    for b, (s, t) in enumerate(zip(srcs, tgts)):
        src[b, :len(s)] = torch.tensor(s)
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:len(t) + 1] = torch.tensor(t)
        tgt_out[b, :len(t)] = torch.tensor(t)
        tgt_out[b, len(t)] = EOS
    return src, tgt_in, tgt_out


def loss_of(m, src, tgt_in, tgt_out):
    logits = m(src, tgt_in)
    return F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=-1), logits


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    m = Reference()
    m.train()  # dropout is 0; training mode keeps PyTorch off its inference fast path (nested tensors)
    with torch.no_grad():  # LayerNorm gains and biases, FF and projection biases away from 1 and 0
        for name, p in m.named_parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.1)
    src, tgt_in, tgt_out = batch()
    B, S, T = src.shape[0], src.shape[1], tgt_in.shape[1]
    assert max(S, T) <= BLOCK

    params0 = [(n, t.detach().clone()) for n, t in our_layout(m)]
    m64 = Reference().double()
    m64.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    m64.train()

    m.zero_grad()
    loss, logits = loss_of(m, src, tgt_in, tgt_out)
    loss.backward()
    grads = [(n, g.detach().clone()) for n, g in our_layout(m, grad=True)]
    loss64, logits64 = loss_of(m64, src, tgt_in, tgt_out)
    loss64.backward()
    grads64 = dict(our_layout(m64, grad=True))

    # one training step: clip to GRAD_CLIP, AdamW with decay on matrices and embeddings
    norm = float(torch.nn.utils.clip_grad_norm_(m.parameters(), GRAD_CLIP))
    decay = [p for p in m.parameters() if p.dim() >= 2]
    no_decay = [p for p in m.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                             {"params": no_decay, "weight_decay": 0.0}], lr=LR, betas=(BETA1, BETA2), eps=EPS)
    opt.step()
    params1 = [(n, t.detach().clone()) for n, t in our_layout(m)]

    np32 = lambda t: t.detach().contiguous().cpu().numpy().astype(np.float32)
    records = [
        ("config", np.array([N_ENC, N_DEC, N_HEAD, N_EMBD, D_FF, BLOCK, B, S, T], dtype=np.int32)),
        ("hparams", np.array([LR, BETA1, BETA2, EPS, WEIGHT_DECAY, GRAD_CLIP], dtype=np.float32)),
        ("src", src.numpy().astype(np.int32)),
        ("tgt_in", tgt_in.numpy().astype(np.int32)),
        ("tgt_out", tgt_out.numpy().astype(np.int32)),
    ]
    records += [(f"param/{n}", np32(t)) for n, t in params0]
    records += [("logits", np32(logits)), ("loss", np.array([float(loss)], dtype=np.float32))]
    records += [(f"grad/{n}", np32(g)) for n, g in grads]
    records += [("grad_norm", np.array([norm], dtype=np.float32))]
    records += [(f"step1/{n}", np32(t)) for n, t in params1]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seq2seq_ref.bin")
    write_fixture(out, records)

    maxdiff = lambda a, b: float((a.double() - b.double()).abs().max())
    nparams = sum(t.numel() for _, t in params0)
    print(f"torch {torch.__version__}; enc {N_ENC} dec {N_DEC} heads {N_HEAD} width {N_EMBD} d_ff {D_FF} "
          f"block {BLOCK}; B={B} S={S} T={T}; {nparams} parameters in {len(params0)} tensors")
    print(f"loss {float(loss):.7f} (ln {V} = {math.log(V):.7f}); grad norm {norm:.6f} "
          f"(clip {'on' if norm > GRAD_CLIP else 'off'})")
    print("float32 vs float64 reference: logits %.2e  loss %.2e  grads %.2e" % (
        maxdiff(logits, logits64), abs(float(loss) - float(loss64)),
        max(maxdiff(g, grads64[n]) for n, g in grads)))
    print("smallest |grad| among nonzero grads: %.2e" %
          min(float(g[g != 0].abs().min()) for _, g in grads if (g != 0).any()))
    print(f"wrote {out} ({os.path.getsize(out)} bytes, {len(records)} records)")


if __name__ == "__main__":
    sys.exit(main())
