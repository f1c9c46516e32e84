"""tinygpt.trainer — a tinygpt run continued in PyTorch: the core's train::Trainer and Run policy
(core/src/trainer.cpp, core/src/run.cpp) on torch tensors, on one process or as one rank of many.

From a checkpoint it takes the model, AdamW's moments and step count, the schedule (with its
extension point), the data generator's state and the loss history; one step is the core's step:

    the next batch_size windows from the data generator        (tinygpt.data, bit for bit)
    loss = mean cross-entropy over the batch's B*T tokens, backward
    clip the global gradient norm to grad_clip                 (tinygpt.optim.clip_grad_norm)
    AdamW at lr = schedule.lr_at(step) * lr_scale              (decay on tensors with dim >= 2)

and the core's NaN guard: a step whose loss or gradient norm is not finite, or whose loss is above
4 ln 256, changes nothing; the run goes back to its last good state (kept every 100 steps and at
the start) at half the learning rate (roll_back), and stops after three rollbacks in a row.

Many processes (DistributedDataParallel): the global batch is the checkpoint's batch_size, and
every rank draws all of its windows from the same generator (so the generator's state stays the
run's, identical on every rank) and trains on its share, windows [r*B/N, (r+1)*B/N). Each rank's
loss is its windows' summed cross-entropy times N / (B*T); DDP averages gradients over the N ranks,
which makes the averaged gradient exactly that of the mean loss over the whole batch. So N processes
compute the step one process computes on the whole batch: the run's batch and schedule do not
depend on how many processes train it, and the CLI continues the result as its own.
"""
import copy
import math
from array import array
from dataclasses import dataclass
from typing import Dict, List, Tuple

import torch
import torch.nn.functional as F

from . import checkpoint as ckpt_io
from . import data as tdata
from .layout import VOCAB_SIZE
from .model import TinyGPT
from .rnn import KINDS as RECURRENT_KINDS, Recurrent, state_from_flat, state_to_flat
from .optim import Schedule, clip_grad_norm, f32, make_adamw, moments, set_lr

# Every field of the config schema (core/include/tinygpt/config.h), and what this trainer does
# with it. A checkpoint that sets a field missing here is refused (the run would silently differ
# from the core's), and the CTest test python_knows_every_schema_field compares these names with
# `tinygpt config`, so a new schema row cannot be forgotten.
FIELDS: Dict[str, str] = {
    "model": "the model kind: gpt is TinyGPT (tinygpt.model); rnn, gru, lstm are tinygpt.rnn's Recurrent "
             "(torch.nn.RNN / GRU / LSTM); seq2seq and lstm_seq2seq runs are refused (no PyTorch twin here)",
    "n_layer": "the model's shape",
    "n_enc_layer": "seq2seq only: not read for gpt (and seq2seq runs are refused)",
    "n_dec_layer": "seq2seq only: not read for gpt (and seq2seq runs are refused)",
    "d_ff": "seq2seq only: not read for gpt (and seq2seq runs are refused)",
    "n_head": "the model's shape",
    "tie_weights": "the model's shape: 1 has no lm_head, the head is wte (tinygpt.model, the GPT-2 layout)",
    "n_embd": "the model's shape",
    "n_hidden": "rnn, gru, lstm: the model's shape (not read for gpt)",
    "block_size": "the model's shape and the window length T",
    "tokenizer": "bytes: the corpus's bytes are its tokens; bpe: the corpus is encoded by the checkpoint's "
                 "tokenizer section (tinygpt.tokenizer, exactly as the core encodes)",
    "vocab_size": "the model's shape (V: the embedding's rows and the head's columns)",
    "seed": "kept: the data order continues from the checkpoint's data_rng",
    "batch_size": "the global batch B, split over the processes",
    "learning_rate": "the schedule's peak",
    "min_lr": "the schedule's floor",
    "warmup_iters": "the schedule's warmup",
    "max_iters": "the schedule's end (--max_iters extends it, as the CLI's --resume does)",
    "weight_decay": "AdamW, on tensors with dim >= 2",
    "beta1": "AdamW",
    "beta2": "AdamW",
    "eps": "AdamW",
    "grad_clip": "global gradient norm clipping",
    "stateful": "rnn, gru, lstm: 1 reads the training split as batch_size streams of consecutive windows and "
                "carries the hidden state (the checkpoint's rnn_state); one process only",
    "eval_interval": "validation every eval_interval steps and at the stop",
    "eval_iters": "validation batches averaged",
}


# The core's NaN-guard constants (core/include/tinygpt/trainer.h, run.h). This package runs without
# the C++ tree (no build step), so it carries their values; tests/test_trainer.py's
# test_nan_guard_constants_are_the_cores reads them from the headers and fails when the two differ.
# train::kDivergedLoss: 4 ln 256, four times a uniform guess over the bytes
DIVERGED_LOSS = f32(22.18)
# train::kGoodStateInterval: the last good state is kept every this many steps
GOOD_STATE_INTERVAL = 100
# train::kRollbackLrScale: a rollback multiplies the learning-rate scale by this
ROLLBACK_LR_SCALE = f32(0.5)
# tinygpt::kMaxRollbacks: after this many rollbacks in a row the run stops
MAX_ROLLBACKS = 3


class Diverged(RuntimeError):
    """The step diverged (train::Diverged); nothing was applied."""


@dataclass
class Rollback:
    """train::Rollback: how the run recovered from a diverged step."""
    failed_step: int
    restored_step: int
    lr_scale: float
    reason: str


class Trainer:
    def __init__(self, ck: ckpt_io.Checkpoint, corpus: bytes, rank: int = 0, world: int = 1,
                 device: str = "cpu", distributed: bool = False):
        unknown = [name for name in ck.config if name not in FIELDS]
        if unknown:
            raise ValueError(f"the checkpoint sets '{unknown[0]}', which tinygpt.trainer does not know: it was "
                             "written by a newer tinygpt (update python/tinygpt)")
        self.kind = str(ck.config.get("model", "gpt"))
        if self.kind != "gpt" and self.kind not in RECURRENT_KINDS:
            raise ValueError(f"this checkpoint is a {ck.config['model']} run: tinygpt.trainer continues gpt runs "
                             "(the decoder-only TinyGPT of tinygpt.model) and rnn, gru, lstm runs (tinygpt.rnn) only")
        missing = [name for name in FIELDS if name not in ck.config]
        if missing:
            raise ValueError(f"the checkpoint has no config field '{missing[0]}' (written before it existed): "
                             "`tinygpt train --resume OLD --data CORPUS --until STEP --out NEW` rewrites it")
        self.ck = ck
        self.config = dict(ck.config)
        self.config_types = dict(ck.config_types)
        self.B, self.T = int(self.config["batch_size"]), int(self.config["block_size"])
        if not 1 <= world <= self.B:
            raise ValueError(f"{world} processes cannot share a batch of {self.B} windows: use at most {self.B}")
        self.rank, self.world, self.device = rank, world, torch.device(device)
        self.V = int(self.config.get("vocab_size", VOCAB_SIZE))
        # a BPE run reads the corpus through its tokenizer (the checkpoint's section), as the core's TokenSource
        self.tokenizer = ck.tokenizer()
        tokens = self.tokenizer.encode(bytes(corpus)) if self.tokenizer else corpus
        self.dataset = tdata.Dataset(tokens)
        self.dataset.check_context(self.T)
        self.corpus_fingerprint = tdata.fingerprint(corpus)  # the output checkpoint records the corpus used
        if self.tokenizer:
            self.corpus_fingerprint = tdata.token_fingerprint(self.corpus_fingerprint, self.tokenizer.fingerprint())
        self.corpus_size = len(tokens)
        self.tokens_per_byte = self._tokens_per_byte()
        self.rng = tdata.Rng(state=ck.data_rng)
        self.recurrent = self.kind in RECURRENT_KINDS
        self.model = (Recurrent if self.recurrent else TinyGPT).from_checkpoint(ck).to(self.device)
        self.module = self.model
        # a stateful recurrent run: B streams of consecutive windows, and the state they carry
        self.stateful = self.recurrent and int(ck.config.get("stateful", 0)) == 1
        if self.stateful and world > 1:
            raise ValueError("a stateful run carries one hidden state per stream: continue it in one process")
        self.carry = None
        saved = [a for name, _, a in ck.extra_sections if name == "rnn_state"]
        if self.stateful and saved:
            self.carry = state_from_flat(self.kind, saved[0], int(self.config["n_layer"]), self.B,
                                         int(self.config["n_hidden"]))
        if distributed:
            from torch.nn.parallel import DistributedDataParallel
            ids = [self.device.index] if self.device.type == "cuda" else None
            self.module = DistributedDataParallel(self.model, device_ids=ids)
        self.opt = make_adamw(self.model, self.config, ck.adam_m, ck.adam_v, ck.adam_t)
        self.adam_t = ck.adam_t
        self.schedule = Schedule.of(ck)
        self.lr_scale = f32(ck.lr_scale)
        self.step_count = ck.step
        self.train_losses: List[float] = list(ck.train_losses)
        self.val: List[Tuple[int, float]] = ck.validation()
        self.last_grad_norm = 0.0
        self.keep_good_state()  # the loaded state is the one a divergence rolls back to

    # ---- the corpus ----
    def _tokens_per_byte(self) -> float:
        """Tokens per byte of the validation split (Trainer::tokens_per_byte): 1 for bytes."""
        if not self.tokenizer:
            return 1.0
        val = self.dataset.data[self.dataset.val_begin:]
        n_bytes = sum(len(self.tokenizer.tokens[i]) for i in val)
        return len(val) / n_bytes if n_bytes else 0.0

    def bits_per_byte(self, nats_per_token: float) -> float:
        """train::bits_per_byte: nats/token x tokens/byte / ln 2."""
        return nats_per_token * self.tokens_per_byte / math.log(2)

    def corpus_matches_checkpoint(self) -> bool:
        """False when the corpus is not the one the checkpoint was trained on (its FNV-1a 64 differs)."""
        return self.ck.corpus_fingerprint in (0, self.corpus_fingerprint)

    # ---- the schedule ----
    def learning_rate(self) -> float:
        """For the next step: the schedule's rate times the NaN guard's scale (float32, as the core)."""
        return f32(self.schedule.lr_at(self.step_count) * self.lr_scale)

    def update_field(self, name: str, value):
        """Trainer::update_field: max_iters moves the schedule's end (Schedule.extended); the run
        fields (eval_interval, eval_iters) take the value; every other field is fixed."""
        if name == "max_iters":
            value = int(value)
            if value <= self.step_count:
                raise ValueError(f"max_iters must be above the steps already done ({self.step_count})")
            if value < self.schedule.warmup:
                raise ValueError(f"max_iters must be at least warmup_iters ({self.schedule.warmup})")
            self.schedule = self.schedule.extended(self.step_count, value)
        elif name in ("eval_interval", "eval_iters"):
            value = int(value)
            if value < (0 if name == "eval_interval" else 1):
                raise ValueError(f"{name} must be a whole number >= {0 if name == 'eval_interval' else 1}")
        else:
            raise ValueError(f"{name} is fixed once the model exists (start a new run to change it)")
        self.config[name] = value

    # ---- training ----
    def _all_reduce(self, x: torch.Tensor) -> torch.Tensor:
        if self.world > 1:
            import torch.distributed as dist
            dist.all_reduce(x)
        return x

    def my_share(self, starts: List[int]) -> List[int]:
        """This rank's windows of the global batch: [rank*B/N, (rank+1)*B/N)."""
        B = len(starts)
        return starts[self.rank * B // self.world:(self.rank + 1) * B // self.world]

    def _logits(self, module, x, state=None):
        """logits (b, T, V), and the state after them (the recurrent models)."""
        if self.recurrent:
            return module(x, state)
        return module(x), None

    def stream_starts(self) -> List[int]:
        """A stateful run's windows of this step (RecurrentLearner::train_loss): stream b reads
        [b * len, (b + 1) * len) of the training split, len = train_size // B, window after window;
        at the start of each pass the state starts from zeros."""
        B, T = self.B, self.T
        length = self.dataset.train_size // B
        w = self.step_count % ((length - 1) // T)
        if w == 0:
            self.carry = None
        return [b * length + w * T for b in range(B)]

    def step(self) -> float:
        """One optimizer step on the next global batch; returns its mean loss (before the update)."""
        B, T = self.B, self.T
        starts = self.stream_starts() if self.stateful else self.dataset.train_starts(self.rng, B, T)  # every rank draws the whole batch
        x, y = self.dataset.windows(self.my_share(starts), T)
        x, y = x.to(self.device), y.to(self.device)
        self.opt.zero_grad(set_to_none=False)
        logits, state = self._logits(self.module, x, self.carry)  # (b, T, V)
        if self.stateful:  # truncated BPTT: the next window starts from this state, as a constant
            self.carry = tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
        loss_sum = F.cross_entropy(logits.reshape(-1, self.V), y.reshape(-1), reduction="sum")
        (loss_sum * (self.world / (B * T))).backward()  # DDP averages: the gradient of the batch mean
        loss = f32(float(self._all_reduce(loss_sum.detach().double())) / (B * T))
        norm = clip_grad_norm(self.model.parameters(), f32(self.config["grad_clip"]))
        if not math.isfinite(loss) or not math.isfinite(norm) or loss > DIVERGED_LOSS:  # the same on every rank
            if not math.isfinite(loss):
                what = "the loss is %g" % loss
            elif not math.isfinite(norm):
                what = "the gradient norm is %g" % norm
            else:
                what = "the loss is %.1f, worse than %.1f (4 x a uniform guess)" % (loss, DIVERGED_LOSS)
            raise Diverged(f"training diverged at step {self.step_count + 1}: {what}")
        self.last_grad_norm = norm
        set_lr(self.opt, self.learning_rate())
        self.opt.step()
        self.adam_t += 1
        self.step_count += 1
        self.train_losses.append(loss)
        if self.step_count % GOOD_STATE_INTERVAL == 0:
            self.keep_good_state()
        return loss

    # ---- the NaN guard (Trainer::keep_good_state, Trainer::roll_back) ----
    @torch.no_grad()
    def keep_good_state(self):
        self.good = dict(params=[p.detach().clone() for p in self.model.parameters()],
                         opt=copy.deepcopy(self.opt.state_dict()), step=self.step_count, adam_t=self.adam_t,
                         rng=self.rng.state())

    def good_state_step(self) -> int:
        return self.good["step"]

    @torch.no_grad()
    def roll_back(self, reason: str) -> Rollback:
        """Back to the last good state (parameters, AdamW state, step, data order, history) at half
        the learning rate from there on."""
        failed = self.step_count
        for p, q in zip(self.model.parameters(), self.good["params"]):
            p.copy_(q)
        self.opt.load_state_dict(copy.deepcopy(self.good["opt"]))
        self.step_count, self.adam_t = self.good["step"], self.good["adam_t"]
        self.rng = tdata.Rng(state=self.good["rng"])
        self.carry = None  # a stateful run's streams restart from zeros (Trainer::roll_back)
        del self.train_losses[self.step_count:]
        while self.val and self.val[-1][0] > self.step_count:
            self.val.pop()
        self.lr_scale = f32(self.lr_scale * ROLLBACK_LR_SCALE)
        return Rollback(failed, self.step_count, self.lr_scale, reason)

    @torch.no_grad()
    def evaluate(self) -> float:
        """Mean validation loss over eval_iters fixed batches (Trainer::evaluate), the batches shared
        round-robin over the ranks; recorded in self.val."""
        B, T, n = self.B, self.T, int(self.config["eval_iters"])
        total = torch.zeros((), dtype=torch.float64)
        for k in range(self.rank, n, self.world):
            x, y = self.dataset.windows(self.dataset.val_starts(k, B, T), T)
            logits, _ = self._logits(self.model, x.to(self.device))
            total += f32(float(F.cross_entropy(logits.reshape(-1, self.V), y.to(self.device).reshape(-1))))
        loss = f32(float(self._all_reduce(total.to(self.device)).cpu()) / n)
        if self.val and self.val[-1][0] == self.step_count:
            self.val[-1] = (self.step_count, loss)
        else:
            self.val.append((self.step_count, loss))
        return loss

    def due_for_evaluation(self, stop_at: int) -> bool:
        """Run::due_for_evaluation: every eval_interval steps and at the stop."""
        every = int(self.config["eval_interval"])
        return every > 0 and (self.step_count % every == 0 or self.step_count == stop_at)

    # ---- the result ----
    def to_checkpoint(self) -> ckpt_io.Checkpoint:
        """The run as a checkpoint the CLI and the page continue (version 2)."""
        m, v, t = moments(self.model, self.opt)
        assert t in (0, self.adam_t), (t, self.adam_t)
        config = dict(self.config)
        return ckpt_io.Checkpoint(
            config=config, config_types=dict(self.config_types), step=self.step_count, adam_t=self.adam_t,
            data_rng=self.rng.state(), corpus_fingerprint=self.corpus_fingerprint, corpus_size=self.corpus_size,
            schedule_from_step=self.schedule.from_step, schedule_from_lr=self.schedule.from_lr, lr_scale=self.lr_scale,
            tokens_per_byte=self.tokens_per_byte if self.ck.tokens_per_byte is not None else None,
            params=_floats(self.model.flat()),
            adam_m=_floats(m), adam_v=_floats(v), train_losses=array("f", self.train_losses),
            val_steps=array("q", [s for s, _ in self.val]), val_losses=array("f", [l for _, l in self.val]),
            # the page's history of snapshots (history.*, core/include/tinygpt/watch.h), carried as it
            # came: its steps are at most the loaded step, and a rollback never goes back past that
            # and a stateful run's carried state (rnn_state), before them as the core writes it
            extra_sections=([("rnn_state", "f", state_to_flat(self.kind, self.carry))] if self.stateful and self.carry is not None else []) +
            [s for s in self.ck.extra_sections if s[0].startswith("history.") or s[0] == "tokenizer"])


def _floats(t: torch.Tensor) -> array:
    a = array("f")
    a.frombytes(t.detach().to(torch.float32).cpu().contiguous().numpy().tobytes())
    return a


def continue_run(ck: ckpt_io.Checkpoint, corpus: bytes, steps: int = 1) -> ckpt_io.Checkpoint:
    """`steps` steps of one process from a checkpoint: what `tinygpt train --resume` computes next."""
    t = Trainer(ck, corpus)
    for _ in range(steps):
        t.step()
    return t.to_checkpoint()
