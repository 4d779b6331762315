import importlib.util
_spec = importlib.util.spec_from_file_location("s06", __import__('os').path.join(__import__('os').path.dirname(__file__), '06-subs.py')); _m = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_m)
CORRECT = _m.CORRECT
SUBMISSIONS = [
{"name": "S6b decayed: every power made, the product hidden afterwards with tril", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=work)
    powers = torch.pow(torch.tensor(decay, dtype=work), i[:, None] - i[None, :])
    a = ((fq @ fk.transpose(-2, -1)) * powers).tril()
    return ((a @ v.to(work)) / a.sum(-1, keepdim=True)).to(q.dtype)
'''}, "why": "text: hiding it afterwards makes the gradient NaN"},
{"name": "S6c decayed: every power made, the product hidden with torch.where", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    gap = (i[:, None] - i[None, :]).to(work)
    a = torch.where(gap >= 0, (fq @ fk.transpose(-2, -1)) * decay ** gap, 0.0)
    return ((a @ v.to(work)) / a.sum(-1, keepdim=True)).to(q.dtype)
'''}, "why": "text: hiding it afterwards makes the gradient NaN"},
]
