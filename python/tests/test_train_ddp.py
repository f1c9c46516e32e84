"""python -m tinygpt.train_ddp: DDP (gloo, CPU) continues a CLI run, and 2 processes equal 1.

A 100-step CLI run of the tiny preset (150-step schedule, a batch of 7 windows, so the two ranks
take 3 and 4) is continued for 50 steps by 2 processes and by 1; the CLI continues it too. The
2-process result loads in the CLI, samples and trains on, its validation loss is below the starting
point, and it equals the 1-process run, whose batch is the two ranks' together.
CTest: python_train_ddp_continues_a_cli_run (see tests/common.py to run it by hand).
"""
import contextlib
import io
from array import array
import os
import socket
import subprocess
import sys
import tempfile
import unittest

from tests.common import cli, key_bias_mask, python_env, tiny_run

import torch

from tinygpt import checkpoint as C
from tinygpt.data import Dataset
from tinygpt.model import TinyGPT
from tinygpt import train_ddp as ddp

TOLERANCE = 1e-5


def floats(a) -> torch.Tensor:
    return torch.frombuffer(bytearray(a), dtype=torch.float32) if len(a) else torch.zeros(0)


def train_ddp(*args, check=True) -> subprocess.CompletedProcess:
    """The command, as a user runs it."""
    out = subprocess.run([sys.executable, "-m", "tinygpt.train_ddp", *map(str, args)], capture_output=True, text=True,
                         env=python_env())
    if check and out.returncode != 0:
        raise AssertionError(f"train_ddp {' '.join(map(str, args))} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return out


def train_ddp_here(*args):
    """main() in this process (torch is loaded already): (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ddp.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


class TrainDDP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp_dir = tempfile.TemporaryDirectory()
        tmp = cls.tmp = cls.tmp_dir.name
        cls.start = tiny_run(tmp, 100, 150, "--batch_size", 7)  # step 100 of 150; 2 ranks: 3 + 4 windows
        cls.corpus = os.path.join(tmp, "corpus.txt")
        cls.two, cls.one, cls.cli_path = (os.path.join(tmp, n) for n in ("ddp2.ckpt", "ddp1.ckpt", "cli.ckpt"))
        cls.out2 = train_ddp("--resume", cls.start, "--data", cls.corpus, "--nproc", 2, "--threads", 1, "--out", cls.two)
        print(f"\n$ python -m tinygpt.train_ddp --resume run100.ckpt --data corpus.txt --nproc 2 --out ddp2.ckpt\n"
              f"{cls.out2.stdout}", end="")
        code, _, err = train_ddp_here("--resume", cls.start, "--data", cls.corpus, "--nproc", 1, "--threads", 1,
                                        "--out", cls.one)
        assert code == 0, err
        cli("train", "--resume", cls.start, "--data", cls.corpus, "--threads", 1, "--out", cls.cli_path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp_dir.cleanup()

    def test_two_processes_continue_the_cli_run_and_the_cli_continues_theirs(self):
        before, after = C.load(self.start), C.load(self.two)
        self.assertEqual((after.step, after.adam_t, len(after.train_losses)), (150, 150, 150))
        self.assertEqual(list(after.train_losses[:100]), list(before.train_losses))  # the history is kept
        self.assertIn("training: 2 process(es) on cpu (gloo backend", self.out2.stdout)
        self.assertIn("global batch 7 split 3+4", self.out2.stdout)
        start_val, end_val = before.validation()[-1], after.validation()[-1]
        self.assertEqual((start_val[0], end_val[0]), (100, 150))
        self.assertLess(end_val[1], start_val[1])
        # the CLI reads it, samples from it and trains on (the schedule extended as usual)
        out = cli("sample", "--ckpt", self.two, "--prompt", "ROMEO:", "--tokens", 64, "--seed", 3)
        self.assertEqual(len(out.stdout.encode()), len("ROMEO:") + 64)
        more = os.path.join(self.tmp, "more.ckpt")
        out = cli("train", "--resume", self.two, "--data", self.corpus, "--max_iters", 160, "--threads", 1, "--out", more)
        self.assertIn("resumed", out.stdout)
        self.assertNotIn("warning", out.stdout)  # the same corpus: the fingerprint was written right
        self.assertEqual(C.load(more).step, 160)

    def test_two_processes_equal_one_process_with_twice_their_batch(self):
        two, one = C.load(self.two), C.load(self.one)
        self.assertEqual((two.data_rng, two.adam_t, two.step), (one.data_rng, one.adam_t, one.step))
        loss = float((floats(two.train_losses) - floats(one.train_losses)).abs().max())
        val = max(abs(a - b) for (_, a), (_, b) in zip(two.validation(), one.validation()))
        keep = ~key_bias_mask(two)
        p2, p1 = floats(two.params), floats(one.params)
        params = float((p2[keep] - p1[keep]).abs().max())
        key_bias = float((p2[~keep] - p1[~keep]).abs().max())
        # the function the two models compute: logits on a validation batch
        with open(self.corpus, "rb") as f:
            ds = Dataset(f.read())
        x, _ = ds.windows(ds.val_starts(0, 7, 32), 32)
        with torch.no_grad():
            logits = float((TinyGPT.from_checkpoint(two)(x) - TinyGPT.from_checkpoint(one)(x)).abs().max())
        print(f"\n[2 vs 1 process] after 50 steps: max |diff| train loss {loss:.2e}, val loss {val:.2e}, "
              f"logits {logits:.2e}, parameters {params:.2e} (key biases {key_bias:.2e}: their gradient is round-off)")
        self.assertLessEqual(loss, 1e-6)
        self.assertLessEqual(val, 1e-6)
        self.assertLessEqual(params, 1e-6)
        self.assertLessEqual(logits, TOLERANCE)

    def test_pytorch_continues_the_run_as_the_cli_does(self):
        ours, core = C.load(self.two), C.load(self.cli_path)
        self.assertEqual((ours.data_rng, ours.schedule_from_step), (core.data_rng, core.schedule_from_step))
        loss = float((floats(ours.train_losses) - floats(core.train_losses)).abs().max())
        val = max(abs(a - b) for (_, a), (_, b) in zip(ours.validation(), core.validation()))
        print(f"\n[DDP vs CLI] steps 101-150: max |diff| train loss {loss:.2e}, val loss {val:.2e}")
        self.assertEqual([s for s, _ in ours.validation()], [s for s, _ in core.validation()])
        self.assertLessEqual(loss, TOLERANCE)
        self.assertLessEqual(val, TOLERANCE)

    def test_under_torchrun_the_ranks_come_from_the_environment(self):
        # what torchrun gives each process (Debian's torchrun itself is broken): RANK, WORLD_SIZE,
        # LOCAL_RANK, MASTER_ADDR, MASTER_PORT; the two processes are the spawned run, bit for bit
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        out = os.path.join(self.tmp, "torchrun.ckpt")
        procs = []
        for rank in range(2):
            env = python_env()
            env.update(RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2",
                       MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "tinygpt.train_ddp", "--resume", self.start, "--data", self.corpus,
                 "--nproc", "5", "--threads", "1", "--out", out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True))
        logs = [p.communicate(timeout=300) for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0], logs)
        self.assertIn("training: 2 process(es) on cpu (gloo backend", logs[0][0])  # --nproc is ignored
        self.assertEqual(logs[1][0], "")  # rank 1 is quiet
        with open(out, "rb") as a, open(self.two, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_three_rollbacks_in_a_row_stop_the_run_and_keep_the_good_state(self):
        ck = C.load(self.start)
        model = TinyGPT.from_checkpoint(ck)
        with torch.no_grad():
            model.lm_head.bias[ord("z")] += 200.0  # every step's loss is far above 4 ln 256
        ck.params = array("f", model.flat().numpy().tobytes())
        bad, out = os.path.join(self.tmp, "diverging.ckpt"), os.path.join(self.tmp, "diverged.ckpt")
        C.save(bad, ck)
        code, stdout, err = train_ddp_here("--resume", bad, "--data", self.corpus, "--threads", 1, "--out", out)
        self.assertEqual(code, ddp.EXIT_DIVERGED)
        self.assertEqual(stdout.count("rolled back to step 100"), 3)
        self.assertIn("learning rate now x0.125", stdout)
        self.assertIn("training paused after 3 rollbacks in a row (the learning rate is now 0.125 x the schedule's)", err)
        kept = C.load(out)
        self.assertEqual((kept.step, kept.lr_scale), (100, 0.125))
        self.assertEqual(bytes(kept.params), bytes(ck.params))

    def test_a_run_at_step_0_gets_its_starting_validation_loss_as_in_the_cli(self):
        fresh, ours, core = (os.path.join(self.tmp, n) for n in ("fresh.ckpt", "fresh_py.ckpt", "fresh_cli.ckpt"))
        cli("train", "--preset", "tiny", "--data", self.corpus, "--until", 0, "--eval_iters", 2, "--out", fresh)
        self.assertEqual(C.load(fresh).validation(), [])
        code, stdout, err = train_ddp_here("--resume", fresh, "--data", self.corpus, "--until", 2, "--threads", 1,
                                           "--out", ours)
        self.assertEqual(code, 0, err)
        self.assertIn("step      0/500 | val 5.5", stdout)
        cli("train", "--resume", fresh, "--data", self.corpus, "--until", 2, "--threads", 1, "--out", core)
        (s0, ours0), (c0, core0) = C.load(ours).validation()[0], C.load(core).validation()[0]
        self.assertEqual((s0, c0), (0, 0))
        self.assertLessEqual(abs(ours0 - core0), 1e-5)

    def test_bad_requests_are_refused_before_any_process_starts(self):
        for args, message in [
            (("--nproc", 9), "9 processes cannot share a batch of 7 windows: use at most 7"),
            (("--until", 50), "cannot stop at step 50: the run is already at step 100"),
            (("--max_iters", 90), "max_iters must be above the steps already done (100)"),
        ]:
            code, _, err = train_ddp_here("--resume", self.start, "--data", self.corpus, *args)
            self.assertEqual(code, 1, args)
            self.assertIn(message, err)
        short = os.path.join(self.tmp, "short.txt")
        with open(short, "wb") as f:
            f.write(b"too short")
        for args, message in [
            (("--resume", self.two, "--data", self.corpus), "past the end of its schedule (150 steps): give --max_iters N"),
            (("--resume", self.corpus, "--data", self.corpus), "not a tinygpt checkpoint: the file does not start with"),
            (("--resume", self.start, "--data", short), "the corpus has 9 bytes, fewer than context + 1 = 33"),
        ]:
            code, _, err = train_ddp_here(*args, "--nproc", 2)
            self.assertEqual((code, err.startswith("train_ddp: ")), (1, True), args)
            self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
