"""Round 31 sweep 2, chapter 07-hardware: classes AP (gradients checked at one rank only) and AQ (an integer offset or
position through float32). Each variant is the model answer (or a correct variant) with the smallest change that makes
the class's mistake; "correct": True marks variants the text allows. Run in plain processes as tests/cellrun.py does:
`python tests/redteam/round31/07-sweep2.py [NAME ...]`."""
import sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from grading import solution_code  # noqa: E402

SOL = solution_code("07-hardware")


def swap(gid, old, new, code=None):
    code = SOL[gid] if code is None else code
    assert old in code, old
    return code.replace(old, new, 1)


# Part 4's model answer as the forward of a torch.autograd.Function whose backward reruns it on the rows of x
# (autograd inside the backward): XROWS and GROWS are how the backward makes rows of x and of the incoming gradient
RMS_FUNCTION = '''
def rms_rows(x, eps):
''' + SOL["rms_norm_half"].split("\n", 1)[1] + '''

class RMSHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        return rms_rows(x, eps)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        rows = XROWS.detach().requires_grad_(True)
        with torch.enable_grad():
            y = rms_rows(rows, ctx.eps)
        d_rows, = torch.autograd.grad(y, rows, GROWS)
        return d_rows.reshape(x.shape), None


def rms_norm_half(x, eps=1e-6):
    return RMSHalf.apply(x, eps)
'''
# Part 4: the row statistic of the backward written with a matrix product (g y^T), as for a (rows, D) matrix
RMS_FUNCTION_MT = '''
def rms_rows(x, eps):
''' + SOL["rms_norm_half"].split("\n", 1)[1] + '''

class RMSHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        root = math.sqrt(eps)
        c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root)
        r = torch.sqrt(((x / c) * (x / c)).mean(dim=-1, keepdim=True) + (root / c) ** 2)
        y = rms_rows(x, eps)
        ctx.save_for_backward(y, c, r)
        return y

    @staticmethod
    def backward(ctx, g):
        y, c, r = ctx.saved_tensors
        # d x = (g - y mean(g y)) / rms, the row means g y^T's diagonal over D
        dot = torch.diagonal(g @ y.mT, dim1=-2, dim2=-1)[..., None] / y.shape[-1]
        return (g - y * dot) / r / c, None


def rms_norm_half(x, eps=1e-6):
    return RMSHalf.apply(x, eps)
'''
F32 = "int(torch.tensor(float({0})))"  # a Python int through a float32 tensor
SUBMISSIONS = [
 # ---- AP: gradients right at the ranks of the existing checks only (Part 4, x of shape (..., D), any leading dims)
 {"name": "AP-p4-function-backward-flatten", "correct": False, "cells": {"rms_norm_half": RMS_FUNCTION.replace(
     "XROWS", "x.flatten(0, -2)").replace("GROWS", "g.flatten(0, -2)")},
  "why": "AP: hand-written backward that makes rows with flatten(0, -2), which a 1-D x refuses"},
 {"name": "AP-p4-function-backward-matrix-transpose", "correct": False, "cells": {"rms_norm_half": RMS_FUNCTION_MT},
  "why": "AP: hand-written backward whose row statistic is the diagonal of g @ y.mT (a 1-D y has no .mT)"},
 {"name": "AP-p4-function-backward-reshape-rows", "correct": True, "cells": {"rms_norm_half": RMS_FUNCTION.replace(
     "XROWS", "x.reshape(-1, x.shape[-1])").replace("GROWS", "g.reshape(-1, g.shape[-1])")},
  "why": "correct: the same hand-written backward with reshape(-1, D), right at every rank"},
 # ---- AQ: an integer count or position through float32 (Part 1: length and window are positive Python ints, unbounded)
 {"name": "AQ-p1-cached-through-float32", "correct": False, "cells": {"max_batch": swap("max_batch",
     "    cached = length if window is None else min(length, window)",
     "    cached = " + F32.format("length if window is None else min(length, window)"))},
  "why": "AQ: the number of cached tokens through a float32 tensor"},
 {"name": "AQ-p1-window-through-float32", "correct": False, "cells": {"max_batch": swap("max_batch",
     "    cached = length if window is None else min(length, window)",
     "    cached = length if window is None else min(length, " + F32.format("window") + ")")},
  "why": "AQ: the window through a float32 tensor"},
 {"name": "AQ-p1-length-through-float64", "correct": False, "cells": {"max_batch": swap("max_batch",
     "    cached = length if window is None else min(length, window)",
     "    cached = int(min(float(length), math.inf if window is None else window))")},
  "why": "AQ (wider): the length through a Python float (exact to 2**53 only)"},
 {"name": "AQ-p3-k-n-through-float32", "correct": False, "cells": {"compute_bound_batch": swap("compute_bound_batch",
     "    # m * (2kn W", "    k, n = " + F32.format("k") + ", " + F32.format("n") + "\n    # m * (2kn W")},
  "why": "AQ (sizes): k and n through a float32 tensor"},
 # Part 6: bit positions of a row through float32 (exact below 2**24 stream bits, which the text did not bound)
 {"name": "AQ-p6-unpack-byte-index-through-float32", "correct": True, "cells": {"pack_bits": swap("pack_bits",
     '''    rows = packed.shape[0]
    stream = (packed.to(torch.int32)[:, :, None] >> torch.arange(8, dtype=torch.int32)) & 1  # (rows, bytes, 8)
    stream = stream.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits)''',
     '''    rows = packed.shape[0]
    position = torch.arange(cols * bits)                  # stream bit of every code bit
    byte = (position / 8).floor().long()                  # true division: float32
    stream = ((packed.to(torch.int32)[:, byte] >> (position % 8).to(torch.int32)) & 1).reshape(rows, cols, bits)''')},
  "why": "AQ: unpack_bits gathers each stream bit from byte floor(n / 8) in float32: off past 2**24 bits, which the text did not bound (SLIPPED before); correct since Part 6 bounds rows below 2**24 bits"},
 # Part 7: positions are below S < 2**24 by the text, where float32 holds every integer: allowed
 {"name": "AQ-p7-positions-in-float32", "correct": True, "cells": {"chunk_attention": swap("chunk_attention",
     "p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)",
     "p = p.masked_fill(torch.arange(j0, j1, dtype=torch.float32)[None, :] > pos, 0.0)",
     swap("chunk_attention", "pos = torch.arange(offset, offset + T)[:, None]",
          "pos = torch.tensor(float(offset)) + torch.arange(T, dtype=torch.float32)[:, None]"))},
  "why": "correct by the text (S < 2**24): query and key positions as float32"},
]

if __name__ == "__main__":
    import cellrun
    names = set(sys.argv[1:])
    src = ROOT / "solutions" / "07-hardware" / "exercises.ipynb"
    after = {"max_batch": ["test_max_batch"], "compute_bound_batch": ["test_compute_bound_batch"],
             "rms_norm_half": ["test_rms_norm_half"], "pack_bits": ["test_pack_bits"],
             "chunk_attention": ["test_chunk_attention"]}
    for sub in SUBMISSIONS:
        if names and sub["name"] not in names:
            continue
        res, crashed = cellrun.run_notebooks({sub["name"]: cellrun.notebook_cells(src, sub["cells"])})
        parts = res.get(sub["name"], {})
        tests = [t for gid in sub["cells"] for t in after[gid]]
        got = {t: parts.get(t, (0, 0, "crashed"))[:2] for t in tests}
        full = all(s == m and m for s, m in got.values())
        lost = [t for t, (s, m, e) in parts.items() if s < m and t not in tests]
        tag = ("REFUSED" if not full else "OK") if sub["correct"] else ("SLIPPED" if full else "CAUGHT")
        errs = "; ".join(f"{t}: {parts[t][2][:160]}" for t in tests if t in parts and parts[t][2])
        print(f"{tag:8} {sub['name']}: " + ", ".join(f"{t}={s:g}/{m:g}" for t, (s, m) in got.items())
              + (f" (also lost {lost})" if lost else "") + (f" [{errs}]" if errs else ""), flush=True)
