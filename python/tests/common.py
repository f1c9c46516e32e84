"""What the tests of the checkpoint, trainer and DDP modules share: the core's programs and a small run.

CTest sets TINYGPT_CLI (build/native/tinygpt) and TINYGPT_SAFETENSORS_TOOL (the core's side of these
tests, tests/safetensors_tool.cpp); by hand, from python/:

    TINYGPT_CLI=../build/native/tinygpt TINYGPT_SAFETENSORS_TOOL=../build/native/tests/safetensors_tool \\
        /usr/bin/python3 -m unittest -v tests.test_checkpoint tests.test_trainer tests.test_train_ddp
"""
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "data", "tinyshakespeare.txt")
SMALL_CORPUS_BYTES = 200_000  # enough for a tiny model to learn letter pairs; hashed in Python at start-up

try:
    import torch
except ImportError as e:  # the prerequisite check installs it for npm test
    raise ImportError("these tests need PyTorch in this interpreter: Debian's python3-torch "
                      "(scripts/setup-debian.sh test installs it), or set TINYGPT_PYTHON") from e


def program(var: str) -> str:
    path = os.environ.get(var)
    if not path:
        raise AssertionError(f"{var} is not set (CTest sets it): see python/tests/common.py")
    return path


def run(args, check=True, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(args, capture_output=True, text=True, **kw)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return out


def cli(*args, check=True) -> subprocess.CompletedProcess:
    return run([program("TINYGPT_CLI"), *map(str, args)], check=check)


def tool(*args, check=True, stdin=None) -> subprocess.CompletedProcess:
    return run([program("TINYGPT_SAFETENSORS_TOOL"), *map(str, args)], check=check, input=stdin)


def small_corpus(tmp: str) -> str:
    path = os.path.join(tmp, "corpus.txt")
    with open(CORPUS, "rb") as f, open(path, "wb") as out:
        out.write(f.read(SMALL_CORPUS_BYTES))
    return path


def tiny_run(tmp: str, steps: int = 100, max_iters: int = 150, *flags) -> str:
    """A CLI run of the tiny preset on the small corpus, stopped at `steps` of a `max_iters` schedule."""
    path = os.path.join(tmp, f"run{steps}.ckpt")
    cli("train", "--preset", "tiny", "--data", small_corpus(tmp), "--max_iters", max_iters, "--until", steps,
        "--eval_iters", 4, "--eval_interval", 50, "--threads", 1, *flags, "--out", path)
    return path


def python_env() -> dict:
    env = dict(os.environ)
    here = os.path.join(ROOT, "python")
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def key_bias_mask(ck) -> "torch.Tensor":
    """True on the key part of every c_attn bias. Its gradient is zero in exact arithmetic (adding
    q.b to every score of a row leaves the softmax unchanged), so what it receives is float
    round-off, which AdamW scales up to learning-rate-sized steps of either sign: two correct runs
    that sum gradients in different orders differ there, and the model's outputs do not."""
    from tinygpt.layout import param_specs
    C = int(ck.config["n_embd"])
    mask = []
    for name, shape, _ in param_specs(ck.shape()):
        m = torch.zeros(math.prod(shape), dtype=torch.bool)
        if name.endswith("attn.c_attn.bias"):
            m[C:2 * C] = True  # [q | k | v]
        mask.append(m)
    return torch.cat(mask)
