"""Round 31 sweep 2, chapter 03-multi-head: classes AP (gradients checked at one rank only) and AQ (an integer offset or
position through float32). Each variant is the model answer with the smallest change that makes the class's mistake;
"correct": True marks variants the text allows (every rank in chapter 3 is fixed; S and P + T stay below 2**24).
Run in plain processes as tests/cellrun.py does: `python tests/redteam/round31/03-sweep2.py [NAME ...]`."""
import sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from grading import solution_code  # noqa: E402

SOL = solution_code("03-multi-head")


def swap(gid, old, new):
    code = SOL[gid]
    assert old in code, old
    return code.replace(old, new, 1)


F32 = "int(torch.tensor(float({0}), dtype=torch.float32).item())"
SUBMISSIONS = [
 # ---- AQ: an integer position or count through float32 (Parts 2 and 4 bound nothing; 6 and 7 bound S, P + T < 2**24)
 {"name": "AQ-p2-position-through-float32", "correct": False, "cells": {"scrambled": swap("scrambled",
     "flat = position * num_heads", "flat = " + F32.format("position") + " * num_heads")},
  "why": "AQ: position (unbounded, Python int) through a float32 tensor before the flat index"},
 {"name": "AQ-p2-column-through-float32", "correct": False, "cells": {"scrambled": swap("scrambled",
     "* head_dim + column", "* head_dim + " + F32.format("column"))},
  "why": "AQ: column through a float32 tensor"},
 {"name": "AQ-p2-range-check-in-float32", "correct": False, "cells": {"scrambled": swap("scrambled",
     "if not (0 <= position < length and 0 <= column < num_heads * head_dim):",
     "f = lambda n: torch.tensor(float(n), dtype=torch.float32)\n"
     "    if not (0 <= position and f(position) < f(length) and 0 <= column and f(column) < f(num_heads * head_dim)):")},
  "why": "AQ: the range check compares position and column with their bounds in float32 (2**24 + 1 == 2**24 there)"},
 {"name": "AQ-p2-range-check-in-float64", "correct": False, "cells": {"scrambled": swap("scrambled",
     "if not (0 <= position < length and 0 <= column < num_heads * head_dim):",
     "if not (0 <= position and float(position) < float(length) and 0 <= column and float(column) < float(num_heads * head_dim)):")},
  "why": "AQ (float64 flavour): the range check in Python floats (2**53 + 1 == 2**53 there)"},
 {"name": "AQ-p4-past-through-float32", "correct": False, "cells": {"cost": swap("cost",
     "keys = past + 1", "keys = " + F32.format("past") + " + 1")},
  "why": "AQ: the number of cached positions through a float32 tensor"},
 {"name": "AQ-p4-keys-arange-float32", "correct": False, "cells": {"cost": swap("cost",
     "keys = past + 1", "keys = int(torch.arange(past, past + 1, dtype=torch.float32)[0].item()) + 1 if past < 2 ** 40 else past + 1")},
  "why": "AQ: the new token's position from a float32 arange(past, past + 1) (tables past 2**40 stay exact)"},
 {"name": "AQ-p4-keys-through-float32", "correct": False, "cells": {"cost": swap("cost",
     "keys = past + 1", "keys = " + F32.format("past + 1"))},
  "why": "AQ: past + 1 through a float32 tensor (exact for every odd past: 2**24 + 3 rounds to 2**24 + 4)"},
 {"name": "AQ-p4-past-through-float64", "correct": False, "cells": {"cost": swap("cost",
     "keys = past + 1", "keys = int(float(past)) + 1")},
  "why": "AQ (float64 flavour): past through a Python float"},
 {"name": "AQ-p4-past-through-int64-tensor", "correct": False, "cells": {"cost": swap("cost",
     "keys = past + 1", "keys = int(torch.tensor(past % 2 ** 64, dtype=torch.int64) + 1) if past >= 0 else past + 1")},
  "why": "AQ (int64 flavour): past in an int64 tensor, wrapped past 2**64"},
 {"name": "AQ-p6-positions-float32-ok", "correct": True, "cells": {"left_padded": swap("left_padded",
     "real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]",
     "real = torch.arange(s, dtype=torch.float32)[None, :] >= (s - memory_lengths.long()[:, None]).float()")},
  "why": "correct: positions in float32 are exact for S < 2**24, which the text promises"},
 {"name": "AQ-p7-positions-float32-ok", "correct": True, "cells": {"cache": swap("cache",
     "allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)",
     "allowed = torch.arange(float(p), float(p + t), dtype=torch.float32)[:, None] >= torch.arange(p + t, dtype=torch.float32)[None, :]")},
  "why": "correct: the offset and positions in float32 are exact for P + T < 2**24, which the text promises"},
 # ---- AP: rank-specific ops on the gradient path (every rank in chapter 3 is fixed: correct there)
 {"name": "AP-p1-function-backward-rank-specific-ok", "correct": True, "cells": {"interleaved": '''
class SplitInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, num_heads):
        b, t, d = x.shape
        ctx.shape = (b, t, d)
        return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()

    @staticmethod
    def backward(ctx, g):
        b, t, d = ctx.shape
        return g.permute(0, 2, 3, 1).reshape(b, t, d), None


class MergeInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        b, h, t, dh = x.shape
        ctx.shape = (b, h, t, dh)
        return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()

    @staticmethod
    def backward(ctx, g):
        b, h, t, dh = ctx.shape
        return g.reshape(b, t, dh, h).permute(0, 3, 1, 2)


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return SplitInterleaved.apply(x, num_heads)


def merge_heads_interleaved(x):
    return MergeInterleaved.apply(x)
'''}, "why": "correct: hand-written backwards with 3-D/4-D-only reshapes and permutes; the text fixes both ranks"},
 {"name": "AP-p5-function-backward-bmm-ok", "correct": True, "cells": {"contributions": '''
class PerHeadProjection(torch.autograd.Function):
    """heads (B, H, T, Dh), w_o (D, D) -> (B, H, T, D), backward with torch.bmm on (H, B*T, Dh) views."""
    @staticmethod
    def forward(ctx, heads, w_o):
        b, h, t, dh = heads.shape
        d = w_o.shape[0]
        wh = w_o.reshape(d, h, dh).permute(1, 2, 0)                     # (H, Dh, D)
        hh = heads.permute(1, 0, 2, 3).reshape(h, b * t, dh)            # (H, B*T, Dh)
        ctx.save_for_backward(heads, w_o)
        return torch.bmm(hh, wh).reshape(h, b, t, d).permute(1, 0, 2, 3).contiguous()

    @staticmethod
    def backward(ctx, g):
        heads, w_o = ctx.saved_tensors
        b, h, t, dh = heads.shape
        d = w_o.shape[0]
        gh = g.permute(1, 0, 2, 3).reshape(h, b * t, d)                 # (H, B*T, D)
        wh = w_o.reshape(d, h, dh).permute(1, 2, 0)                     # (H, Dh, D)
        hh = heads.permute(1, 0, 2, 3).reshape(h, b * t, dh)
        d_heads = torch.bmm(gh, wh.transpose(1, 2)).reshape(h, b, t, dh).permute(1, 0, 2, 3)
        d_wh = torch.bmm(hh.transpose(1, 2), gh)                        # (H, Dh, D)
        d_w_o = d_wh.permute(2, 0, 1).reshape(d, d)
        return d_heads, d_w_o


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    return PerHeadProjection.apply(heads, params["w_o"])
'''}, "why": "correct: the per-head output projection with a hand-written torch.bmm backward (ranks fixed by the text)"},
]

if __name__ == "__main__":
    import cellrun
    names = set(sys.argv[1:])
    import os
    src = Path(os.environ.get("SRC", ROOT / "solutions" / "03-multi-head" / "exercises.ipynb"))
    after = {"interleaved": ["test_interleaved"], "scrambled": ["test_scrambled"], "cost": ["test_cost"],
             "contributions": ["test_contributions"], "left_padded": ["test_left_padded"], "cache": ["test_cache"]}
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
