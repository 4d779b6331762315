"""Red team round 17, hostile (an honest student's loss: feedback, not points): since the gate, the line a test
cell's feedback names is always line 1.

    timeout 1800 python tests/redteam/round17/hostile/show_outputs.py 02-scaled-attention \
        tests/redteam/round17/hostile/04-feedback-line.py test_causal_mask

`feedback.raising_line` takes the first `Cell In[n], line N` frame of the traceback: with the gate that is the
one-line cell the grader sent (`Cell In[4], line 1`); the real frames are `File <attnlab visible lines of GID, k>:N`
and `File <attnlab hidden lines of GID, k>:N`, which `_CELL_FRAME` does not read. Outcome at 1880e8e:
* visible_fail (fails the visible assert on line 5): the page says "raised by line 1 of this test cell:
  m = causal_mask(2, 5, 2)";
* hidden_fail (fails only a hidden check): the page says the same, instead of "raised by a hidden test of this part".
The student is sent to the wrong line, and can no longer tell a visible failure from a hidden one.
Fix: read the `<attnlab (visible|hidden) lines of ...>:N` frames in `feedback.raising_line` (hidden: "a hidden
test of this part"; visible: line N of the cell), or skip the gate's frame.
"""
SUBMISSIONS = [
    {"name": "visible_fail", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"causal_mask": "import torch\ndef causal_mask(t, s, offset):\n    return torch.ones(t, s, dtype=torch.bool)\n"},
     "why": "fails the visible assert of line 5"},
    {"name": "hidden_fail", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"causal_mask": "import torch\ndef causal_mask(t, s, offset):\n    if (t, s, offset) == (2, 5, 2):\n"
                              "        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]\n"
                              "    return torch.ones(t, s, dtype=torch.bool)\n"},
     "why": "passes the visible lines, fails a hidden check"},
]
