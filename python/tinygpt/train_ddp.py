"""python -m tinygpt.train_ddp — continue a tinygpt run with PyTorch DistributedDataParallel.

    python -m tinygpt.train_ddp --resume run.ckpt --data corpus.txt --nproc 2 [--max_iters M] [--out out.ckpt]

On one machine it starts --nproc processes itself (torch.multiprocessing.spawn; Debian's torchrun
is broken, see the README). Started by torchrun on a cluster (RANK, WORLD_SIZE, LOCAL_RANK and
MASTER_ADDR in the environment) it joins that group instead and ignores --nproc:

    torchrun --nnodes 2 --nproc_per_node 8 ... -m tinygpt.train_ddp --resume run.ckpt --data corpus.txt

Backend: NCCL on GPUs (rank r uses cuda:LOCAL_RANK), gloo on CPUs. The run continues exactly as
`tinygpt train --resume` would: same batch (the checkpoint's batch_size, split over the processes:
tinygpt/trainer.py says how), same windows, same schedule (--max_iters extends it the same way),
validation every eval_interval steps and at the stop, and the core's NaN guard (a diverged step
rolls the run back to its last good state at half the learning rate; three in a row stop it, after
saving that state). Rank 0 prints the CLI's lines and writes a version-2 checkpoint that
`tinygpt train --resume`, `tinygpt sample` and the page continue.
"""
import argparse
import os
import sys
import tempfile
import time
from typing import List, Optional

from . import checkpoint as ckpt_io

EXIT_DIVERGED = 3


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tinygpt.train_ddp",
                                description="Continue a tinygpt checkpoint with DistributedDataParallel.")
    p.add_argument("--resume", required=True, metavar="FILE", help="the checkpoint to continue (tinygpt train --out)")
    p.add_argument("--data", required=True, metavar="FILE", help="the corpus it trains on")
    p.add_argument("--nproc", type=int, default=1, metavar="N",
                   help="processes to start on this machine (default 1; ignored under torchrun)")
    p.add_argument("--max_iters", type=int, metavar="N", help="extend the schedule to end at step N (as the CLI)")
    p.add_argument("--until", type=int, metavar="STEP", help="stop at this step (default: the end of the schedule)")
    p.add_argument("--eval_interval", type=int, metavar="N", help="steps between validation losses (a run field)")
    p.add_argument("--eval_iters", type=int, metavar="N", help="batches per validation loss (a run field)")
    p.add_argument("--out", metavar="FILE", help="the checkpoint to write (default: RESUME with .ddp.ckpt)")
    p.add_argument("--save_interval", type=int, default=0, metavar="N", help="also save every N steps (0 = at the end)")
    p.add_argument("--log_interval", type=int, default=10, metavar="N", help="print a line every N steps (default 10)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: CUDA (NCCL) when there are GPUs, else CPU (gloo)")
    p.add_argument("--threads", type=int, default=0, metavar="N",
                   help="CPU threads per process (default: cores / processes)")
    args = p.parse_args(argv)
    if args.out is None:
        stem = args.resume[:-5] if args.resume.endswith(".ckpt") else args.resume
        args.out = stem + ".ddp.ckpt"
    if args.nproc < 1 or args.log_interval < 1 or args.save_interval < 0:
        p.error("--nproc and --log_interval must be >= 1 and --save_interval >= 0")
    return args


def read_inputs(args):
    """The checkpoint and the corpus, checked (CheckpointError / ValueError / OSError on bad input)."""
    ck = ckpt_io.load(args.resume)
    with open(args.data, "rb") as f:
        corpus = f.read()
    if not corpus:
        raise ValueError(f"'{args.data}' is empty: give a file with some text in it")
    return ck, corpus


def make_trainer(args, ck, corpus, rank: int, world: int, device: str):
    from .trainer import Trainer
    t = Trainer(ck, corpus, rank=rank, world=world, device=device, distributed=world > 1)
    for name in ("max_iters", "eval_interval", "eval_iters"):
        value = getattr(args, name)
        if value is not None:
            t.update_field(name, value)
    return t


def stop_step(args, t) -> int:
    """Where the run stops: --until, else the end of the schedule (an error past it, as the CLI)."""
    if args.until is not None:
        if args.until < t.step_count:
            raise ValueError(f"cannot stop at step {args.until}: the run is already at step {t.step_count}")
        return args.until
    end = int(t.config["max_iters"])
    if t.step_count >= end:
        raise ValueError(f"this run is at step {t.step_count}, past the end of its schedule ({end} steps): give "
                         "--max_iters N to extend the schedule, or --until STEP to train on at the final learning rate")
    return end


def check(args) -> None:
    """Everything a worker would refuse, in this process, before any process starts."""
    ck, corpus = read_inputs(args)
    batch = int(ck.config.get("batch_size", 1))
    if args.nproc > batch:
        raise ValueError(f"{args.nproc} processes cannot share a batch of {batch} windows: use at most {batch}")
    t = make_trainer(args, ck, corpus, 0, 1, "cpu")  # checks the fields, the corpus and the options
    stop_step(args, t)


def train(args, rank: int, world: int, device: str) -> None:
    """One rank's whole run; rank 0 prints and saves."""
    import torch
    ck, corpus = read_inputs(args)
    t = make_trainer(args, ck, corpus, rank, world, device)
    stop = stop_step(args, t)
    say = print if rank == 0 else (lambda *a, **k: None)
    c = t.config
    if not t.corpus_matches_checkpoint():
        say(f"warning: {args.data} is not the corpus this checkpoint was trained on")
    say(f"resumed {args.resume} at step {t.step_count} of {c['max_iters']}")
    say(f"model: {c['n_layer']} layers, {c['n_head']} heads, n_embd {c['n_embd']}, block_size {c['block_size']}: "
        f"{t.model.config.num_parameters()} parameters")
    say(f"data: {args.data}, {len(corpus)} bytes ({t.dataset.train_size} train, {len(corpus) - t.dataset.train_size} val)")
    backend = ("nccl" if device.startswith("cuda") else "gloo") if world > 1 else "no"
    shares = [(r + 1) * t.B // world - r * t.B // world for r in range(world)]
    say(f"training: {world} process(es) on {device} ({backend} backend, torch {torch.__version__}, "
        f"{torch.get_num_threads()} thread(s) each); global batch {t.B} split {'+'.join(map(str, shares))}; "
        f"lr {t.learning_rate():.2e} -> {t.schedule.min_lr:.2e} at step {t.schedule.total}; stop at {stop}")

    def save():
        if rank == 0:
            ckpt_io.save(args.out, t.to_checkpoint())

    from .trainer import MAX_ROLLBACKS, Diverged
    if t.step_count == 0 and not t.val and int(c["eval_interval"]) > 0:  # the curve's starting point, as Run::advance
        say(f"step      0/{c['max_iters']} | val {t.evaluate():.4f} (ln 256 = 5.545)")
    t_start = t_log = time.time()
    losses: List[float] = []
    rollbacks_in_a_row = 0
    while t.step_count < stop:
        try:
            losses.append(t.step())
        except Diverged as e:  # the same on every rank: the loss and the gradient norm are global
            r = t.roll_back(str(e))
            say(f"{r.reason}: rolled back to step {r.restored_step}, learning rate now x{r.lr_scale:g}")
            losses = []
            rollbacks_in_a_row += 1
            if rollbacks_in_a_row >= MAX_ROLLBACKS:
                save()
                say(f"saved the last good state (step {t.step_count}) to {args.out}")
                say(f"train_ddp: {e}; training paused after {MAX_ROLLBACKS} rollbacks in a row (the learning rate "
                    f"is now {'%f' % r.lr_scale:.5} x the schedule's): lower learning_rate or raise grad_clip, then "
                    "continue", file=sys.stderr)
                sys.exit(EXIT_DIVERGED)
            continue
        if t.good_state_step() == t.step_count:
            rollbacks_in_a_row = 0  # past a new good state
        s = t.step_count
        val = ""
        if t.due_for_evaluation(stop):
            val = f" | val {t.evaluate():.4f}"
        if s % args.log_interval == 0 or val or s == stop:
            now = time.time()
            tok_s = len(losses) * t.B * t.T / max(1e-9, now - t_log)
            say(f"step {s:6d}/{stop} | loss {sum(losses) / len(losses):.4f}{val} | lr {t.learning_rate():.2e} | "
                f"{tok_s:7.0f} tok/s | {now - t_start:.1f}s elapsed", flush=True)
            losses, t_log = [], now
        if args.save_interval and s % args.save_interval == 0:
            save()
    if t.val and t.val[-1][0] == t.step_count:
        say(f"final val loss {t.val[-1][1]:.4f} after {t.step_count} steps")
    save()
    say(f"saved checkpoint to {args.out}")


# ---- processes ---------------------------------------------------------------------------------

def _device_for(args, local_rank: int) -> str:
    import torch
    want = args.device
    if want == "auto":
        want = "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("--device cuda, but this PyTorch sees no GPU")
        return f"cuda:{local_rank % torch.cuda.device_count()}"
    return "cpu"


def _set_threads(args, processes_here: int):
    import torch
    n = args.threads or max(1, (os.cpu_count() or 1) // processes_here)
    torch.set_num_threads(n)


def _spawned(rank: int, world: int, args, init_method: str):
    import torch.distributed as dist
    _set_threads(args, world)
    device = _device_for(args, rank)
    dist.init_process_group("nccl" if device.startswith("cuda") else "gloo", init_method=init_method,
                            rank=rank, world_size=world)
    try:
        if device.startswith("cuda"):
            import torch
            torch.cuda.set_device(device)
        train(args, rank, world, device)
    finally:
        dist.destroy_process_group()


def _under_torchrun() -> bool:
    return all(k in os.environ for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR"))


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if _under_torchrun():
        import torch.distributed as dist
        rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
        args.nproc = world
        _set_threads(args, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
        try:  # every rank checks, so that all of them stop on bad input (none waits for the others)
            check(args)
            device = _device_for(args, local)
        except (ckpt_io.CheckpointError, ValueError, OSError) as e:
            if rank == 0:
                print(f"train_ddp: {e}", file=sys.stderr)
            return 1
        dist.init_process_group("nccl" if device.startswith("cuda") else "gloo")  # env:// from torchrun
        try:
            if device.startswith("cuda"):
                import torch
                torch.cuda.set_device(device)
            train(args, rank, world, device)
        finally:
            dist.destroy_process_group()
        return 0
    try:
        check(args)
        _device_for(args, 0)
    except (ckpt_io.CheckpointError, ValueError, OSError) as e:
        print(f"train_ddp: {e}", file=sys.stderr)
        return 1
    if args.nproc == 1:
        _set_threads(args, 1)
        try:
            train(args, 0, 1, _device_for(args, 0))
        except SystemExit as e:
            return int(e.code or 0)
        return 0
    import torch.multiprocessing as mp
    with tempfile.TemporaryDirectory(prefix="tinygpt-ddp-") as tmp:
        init_method = "file://" + os.path.join(tmp, "rendezvous")
        try:
            mp.spawn(_spawned, args=(args.nproc, args, init_method), nprocs=args.nproc, join=True)
        except mp.ProcessExitedException as e:
            return 1 if e.exit_code != EXIT_DIVERGED else EXIT_DIVERGED
    return 0


if __name__ == "__main__":
    sys.exit(main())
