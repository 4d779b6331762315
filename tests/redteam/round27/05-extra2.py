import importlib.util
_spec = importlib.util.spec_from_file_location("s05", __import__('os').path.join(__import__('os').path.dirname(__file__), '05-subs.py')); _m = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_m)
CORRECT = _m.CORRECT
SUBMISSIONS = [
{"name": "X11 cached: scale 1/sqrt(Dh + 1e-6)", "correct": False,
 "cells": {"cached_attention": CORRECT["cached_attention"].replace("/ math.sqrt(Dh)", "/ math.sqrt(Dh + 1e-6)")}, "why": "eps-adder; changes float64 scores by 1e-7 relative"},
{"name": "X13 cached: mask from ones(n, S).tril(past)", "correct": True,
 "cells": {"cached_attention": CORRECT["cached_attention"].replace("allowed = torch.arange(S).unsqueeze(0) <= (past + torch.arange(n)).unsqueeze(1)", "allowed = torch.ones(n, S, dtype=torch.bool).tril(past)")}, "why": "correct"},
{"name": "X14 cached: no mask at all when n == 1", "correct": True,
 "cells": {"cached_attention": CORRECT["cached_attention"].replace('    scores = scores.masked_fill(~allowed, float("-inf"))', '    if n > 1:\n        scores = scores.masked_fill(~allowed, float("-inf"))')}, "why": "a single new position sees every key"},
{"name": "X15 rms_norm: torch.where(ms == 0) shortcut to zeros", "correct": False,
 "cells": {"rms_norm": CORRECT["rms_norm"].replace("return (xf * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)", "out = xf * torch.rsqrt(ms + eps) * weight.to(work)\n    return torch.where(ms == 0, torch.zeros_like(out), out).to(x.dtype)")}, "why": "no shortcut for zero rows: gradient there"},
]
