import importlib.util
_spec = importlib.util.spec_from_file_location("s06", __import__('os').path.join(__import__('os').path.dirname(__file__), '06-subs.py')); _m = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_m)
CORRECT = _m.CORRECT
SUBMISSIONS = [
{"name": "X1 min_p: logits shifted by the max over the batch axis before the softmax", "correct": False,
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace("probs = torch.softmax(logits, dim=-1)", "probs = torch.softmax(logits - logits.max(dim=0, keepdim=True).values, dim=-1)")}, "why": "eps-adder, wrong axis"},
{"name": "X7 min_p: the largest probability of the whole batch", "correct": False,
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace("top = probs.max(dim=-1, keepdim=True).values", "top = probs.max()")}, "why": "fixed-rank"},
{"name": "X8 gqa: mask from ones(T, S).tril(S - T)", "correct": True,
 "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace("allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]", "allowed = torch.ones(T, S, dtype=torch.bool).tril(S - T)")}, "why": "correct"},
{"name": "X9 decayed: nan_to_num on the output", "correct": True,
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("return (num / den).to(q.dtype)", "return torch.nan_to_num(num / den).to(q.dtype)")}, "why": "no NaN arises; a guard that changes nothing"},
]
