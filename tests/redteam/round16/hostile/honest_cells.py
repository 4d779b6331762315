"""Red team round 16 (hostile, class 4): honest lines in a cell the student added, graded with the model
answers (round 15's added_cells.py harness, new cases).

    timeout 1800 python tests/redteam/round16/hostile/honest_cells.py 02-scaled-attention [NAME ...]

An honest case that loses points or is flagged is a finding of class 4.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("added_cells", HERE.parents[1] / "round15" / "hostile" / "added_cells.py")
added_cells = importlib.util.module_from_spec(spec)
spec.loader.exec_module(added_cells)

MATMUL = "a = torch.randn(256, 256)\nb = torch.randn(256, 256)\n"
added_cells.CASES.clear()
added_cells.CASES.update({
    # the usual GPU memory clean-up between experiments
    "gc_collect": [("setup", "import gc\ngc.collect()\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n")],
    # timing an operation, as chapter 7 asks students to reason about
    "timeit_module": [("setup", "import timeit\n" + MATMUL + "print(timeit.timeit(lambda: a @ b, number=20))\n")],
    "torch_benchmark": [("setup", "import torch.utils.benchmark as benchmark\n" + MATMUL +
                         "t = benchmark.Timer(stmt='a @ b', globals={'a': a, 'b': b})\nprint(t.timeit(20))\n")],
    "torch_profiler": [("setup", "from torch.profiler import profile, ProfilerActivity\n" + MATMUL +
                        "with profile(activities=[ProfilerActivity.CPU]) as prof:\n    a @ b\n"
                        "print(prof.key_averages().table(row_limit=3))\n")],
    "tracemalloc": [("setup", "import tracemalloc\ntracemalloc.start()\nx = [0] * 100000\n"
                     "print(tracemalloc.get_traced_memory())\ntracemalloc.stop()\n")],
    "help_call": [("setup", "help(torch.einsum)\n")],
    "custom_autograd_function": [("setup", "class Square(torch.autograd.Function):\n"
                                  "    @staticmethod\n    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        return x * x\n"
                                  "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n        return 2 * x * g\n"
                                  "x = torch.randn(3, requires_grad=True)\nSquare.apply(x).sum().backward()\nprint(x.grad)\n")],
    "dataclass_config": [("setup", "from dataclasses import dataclass\n@dataclass\nclass Config:\n    d_k: int = 64\n"
                          "cfg = Config()\nprint(cfg)\n")],
    "logging_setup": [("setup", "import logging\nlogging.basicConfig(level=logging.INFO)\nlogging.info('start')\n")],
    "anomaly_ctx": [("setup", "with torch.autograd.detect_anomaly():\n    y = (torch.ones(2, requires_grad=True) * 2).sum()\n    y.backward()\n")],
    "inference_mode_decorator": [("setup", "@torch.inference_mode()\ndef predict(x):\n    return x * 2\nprint(predict(torch.ones(2)))\n")],
    "signature_check": [("setup", "import inspect\nprint(inspect.signature(torch.einsum))\n")],
    # printing a config object's fields: vars(obj) is obj.__dict__, nothing of the notebook's
    "vars_of_object": [("setup", "class Config:\n    def __init__(self):\n        self.d_k = 64\n        self.heads = 4\n"
                        "cfg = Config()\nprint(vars(cfg))\n")],
    # the notebook idiom that avoids recomputing on a re-run
    "globals_membership": [("setup", "if 'cache' not in globals():\n    cache = {}\n")],
    "format_locals": [("setup", "def describe(d_k, heads):\n    return 'd_k={d_k} heads={heads}'.format(**locals())\n"
                       "print(describe(64, 4))\n")],
    "gradcheck": [("setup", "x = torch.randn(3, dtype=torch.float64, requires_grad=True)\n"
                   "print(torch.autograd.gradcheck(lambda t: (t.exp() / t.exp().sum()), (x,)))\n")],
    "import_ipython": [("setup", "import IPython\nIPython.display.display(IPython.display.Markdown('**notes**'))\n")],
    # automagic: one-line cells that IPython runs as magics without the % (Colab-style installs, a look at the folder)
    "automagic_pip": [("setup", "pip install torch")],
    "automagic_ls": [("setup", "ls")],
    # a debugging import left behind (never called)
    "pdb_import_left": [("setup", "import pdb  # pdb.set_trace()\n")],
    # checking the GPU from Python instead of !nvidia-smi
    "subprocess_nvidia_smi": [("setup", "import subprocess\ntry:\n    print(subprocess.run(['nvidia-smi'], capture_output=True, text=True).stdout)\n"
                               "except FileNotFoundError:\n    print('no GPU tools')\n")],
    # the usual way to import the course's own package from a notebook in chapters/
    "sys_path_append": [("setup", "import sys\nsys.path.append('..')\n")],
})

if __name__ == "__main__":
    added_cells.main(sys.argv[1:])
