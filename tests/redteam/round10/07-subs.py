# Red-team submissions for chapter 7, Parts 2 (merge_partials) and 4 (rms_norm_half).
M = "merge_partials"
R = "rms_norm_half"

# ---------------------------------------------------------------- Part 2: correct answers
M_OK_MAX = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    s = wa + wb
    fa = torch.isfinite(la).unsqueeze(-1)
    fb = torch.isfinite(lb).unsqueeze(-1)
    oa = torch.where(fa, o_a.to(wt), torch.zeros((), dtype=wt))
    ob = torch.where(fb, o_b.to(wt), torch.zeros((), dtype=wt))
    o = (wa.unsqueeze(-1) * oa + wb.unsqueeze(-1) * ob) / s.unsqueeze(-1)
    lse = m + torch.log(s)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_OK_LOGADDEXP = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = lse_a.dtype if lse_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(wt), lse_b.to(wt)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse).unsqueeze(-1)
    wb = torch.exp(lb - lse).unsqueeze(-1)
    oa = torch.where(torch.isneginf(la).unsqueeze(-1), 0.0, o_a.to(wt))
    ob = torch.where(torch.isneginf(lb).unsqueeze(-1), 0.0, o_b.to(wt))
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_OK_SOFTMAX = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    both = torch.stack([lse_a.to(wt), lse_b.to(wt)], dim=-1)
    w = torch.softmax(both, dim=-1)
    lse = torch.logsumexp(both, dim=-1)
    outs = torch.stack([o_a.to(wt), o_b.to(wt)], dim=-2)          # (T, 2, Dv)
    outs = torch.where(torch.isfinite(both).unsqueeze(-1), outs, torch.zeros_like(outs))
    o = (w.unsqueeze(-1) * outs).sum(-2)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_OK_SIGMOID_DETACHED_M = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    wa = torch.sigmoid(la - lb).unsqueeze(-1)
    wb = torch.sigmoid(lb - la).unsqueeze(-1)
    m = torch.maximum(la, lb).detach()
    lse = m + torch.log(torch.exp(la - m) + torch.exp(lb - m))
    oa = torch.where(torch.isfinite(o_a), o_a, 0).to(wt)
    ob = torch.where(torch.isfinite(o_b), o_b, 0).to(wt)
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_OK_F64 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    # everything in float64, rounded once at the end
    la, lb = lse_a.double(), lse_b.double()
    m = torch.maximum(la, lb)
    lse = m + torch.log1p(torch.exp(-torch.abs(la - lb)))
    wa = torch.exp(la - lse)[:, None]
    wb = torch.exp(lb - lse)[:, None]
    oa = o_a.double().masked_fill(~torch.isfinite(la)[:, None], 0.0)
    ob = o_b.double().masked_fill(~torch.isfinite(lb)[:, None], 0.0)
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''

# ---------------------------------------------------------------- Part 2: wrong answers
M_NAIVE_EXP = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    ea, eb = torch.exp(lse_a.to(wt)), torch.exp(lse_b.to(wt))
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b.to(wt), 0.0)
    o = (ea[:, None] * oa + eb[:, None] * ob) / (ea + eb)[:, None]
    return o.to(o_a.dtype), torch.log(ea + eb).to(lse_a.dtype)
'''
M_ONE_ROUND_TRIP = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    wa = 1 / (1 + torch.exp(lb - la))
    wb = 1 - wa
    m = torch.maximum(la, lb)
    lse = m + torch.log(torch.exp(la - m) + torch.exp(lb - m))
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    return (wa[:, None] * oa + wb[:, None] * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_WHERE_AFTER = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    pa = torch.where(torch.isfinite(la)[:, None], wa * o_a.to(wt), 0.0)
    pb = torch.where(torch.isfinite(lb)[:, None], wb * o_b.to(wt), 0.0)
    o = (pa + pb) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_NO_MASK = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    o = (wa * o_a.to(wt) + wb * o_b.to(wt)) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_MASK_BY_MULT = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = o_a.to(wt) * torch.isfinite(la)[:, None]
    ob = o_b.to(wt) * torch.isfinite(lb)[:, None]
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_NAN_ONLY = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isnan(o_a), 0.0, o_a).to(wt)
    ob = torch.where(torch.isnan(o_b), 0.0, o_b).to(wt)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_NAN_TO_NUM = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.nan_to_num(o_a.to(wt))
    ob = torch.nan_to_num(o_b.to(wt))
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_HALF_WEIGHTS = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b)
    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    s = wa + wb
    lse = m + torch.log(s)
    ca = (wa / s).to(o_a.dtype)[:, None]
    cb = (wb / s).to(o_a.dtype)[:, None]
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a, 0.0)
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b, 0.0)
    return ca * oa + cb * ob, lse
'''
M_VIA_FLOAT32 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    la, lb = lse_a.float(), lse_b.float()
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.float(), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.float(), 0.0)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_DETACH_WEIGHTS = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    lse = m + torch.log(torch.exp(la - m) + torch.exp(lb - m))
    wa = torch.exp(la - lse).detach()[:, None]
    wb = torch.exp(lb - lse).detach()[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_LSE_IN_O_DTYPE = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(o_a.dtype)
'''
M_INPLACE = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    o_a[torch.isneginf(lse_a)] = 0
    o_b[torch.isneginf(lse_b)] = 0
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    o = (wa * o_a.to(wt) + wb * o_b.to(wt)) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_GLOBAL_MAX = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb).max()          # one shift for every query
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_HALF_DIFF = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    lse = torch.logaddexp(la, lb)
    wb = torch.exp(lb - lse).to(o_a.dtype)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a, 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b, 0.0)
    o = oa + wb * (ob - oa)                   # one lerp, in o's dtype
    return o, lse.to(lse_a.dtype)
'''

# ---------------------------------------------------------------- Part 4: correct answers
R_OK_CLAMP = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''
R_OK_RSQRT = '''
def rms_norm_half(x, eps=1e-6):
    root = eps ** 0.5
    amax = torch.amax(torch.abs(x), -1, keepdim=True)
    c = torch.maximum(amax, torch.full_like(amax, root)).detach()
    y = x / c
    e = root / c
    return y * torch.rsqrt(y.square().mean(-1, keepdim=True) + e.square())
'''
R_OK_MEAN_OF_SUM = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    with torch.no_grad():
        c = torch.clamp(x.abs().max(dim=-1, keepdim=True).values, min=root)
    y = x / c
    e2 = (root / c) ** 2
    ms = (y * y + e2).mean(-1, keepdim=True)
    return y / ms.sqrt()
'''
R_OK_SUM = '''
def rms_norm_half(x, eps=1e-6):
    d = x.shape[-1]
    root = math.sqrt(eps)
    c = x.detach().abs().amax(-1, keepdim=True)
    c = torch.where(c > root, c, root)
    y = x / c
    e = root / c
    ms = y.pow(2).sum(-1, keepdim=True) / d
    return y / (ms + e * e).sqrt()
'''
R_OK_TWO_STEP = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp_min(root).detach()
    y = x / c
    e = root / c
    r = torch.sqrt(torch.mean(y * y, -1, keepdim=True) + e * e)
    return (x / c) / r
'''

# ---------------------------------------------------------------- Part 4: wrong answers
R_FLOAT = '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
'''
R_F_RMS = '''
def rms_norm_half(x, eps=1e-6):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), eps=eps)
'''
R_TENSOR_EPS = '''
def rms_norm_half(x, eps=1e-6):
    root = torch.sqrt(torch.tensor(eps))
    c = torch.maximum(x.abs().amax(-1, keepdim=True), root.to(x.dtype)).detach()
    y = x / c
    e = root.to(x.dtype) / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_AMAX_ONLY = '''
def rms_norm_half(x, eps=1e-6):
    c = x.abs().amax(-1, keepdim=True).detach()
    c = torch.where(c == 0, torch.ones_like(c), c)
    y = x / c
    e = math.sqrt(eps) / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_NOT_DETACHED = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root)
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_GLOBAL_SCALE = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax().clamp(min=root).detach()       # one scale for the whole tensor
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_NORM = '''
def rms_norm_half(x, eps=1e-6):
    r = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / math.sqrt(x.shape[-1])
    return x / (r * torch.sqrt(1 + eps / r / r))
'''
R_INPLACE = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    y = x
    y /= c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_NO_GRAD_STAT = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    y = x / c
    e = root / c
    with torch.no_grad():
        r = torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
    return y / r
'''
R_VIEW = '''
def rms_norm_half(x, eps=1e-6):
    d = x.shape[-1]
    rows = x.view(-1, d)
    root = math.sqrt(eps)
    c = rows.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    y = rows / c
    e = root / c
    return (y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)).view(x.shape)
'''
R_EPS_NAME = '''
def rms_norm_half(x, epsilon=1e-6):
    root = math.sqrt(epsilon)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_MEAN_ABS_SCALE = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().mean(-1, keepdim=True).clamp(min=root).detach()   # typical size, not the largest
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_ITEM = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = max(x.abs().max().item(), root)
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_LDEXP = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    _, k = torch.frexp(c)                      # power of two: exact scaling
    p = torch.ldexp(torch.ones_like(c), k)
    y = x / p
    e = root / p
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''

SUBMISSIONS = [
    # Part 2 correct
    {"name": "p2_ok_max_shift", "correct": True, "cells": {M: M_OK_MAX},
     "why": "row max shift, NaN rows replaced by torch.where before multiplying, float32/float64 compute"},
    {"name": "p2_ok_logaddexp", "correct": True, "cells": {M: M_OK_LOGADDEXP},
     "why": "lse by logaddexp, weights exp(lse_x - lse), masked rows via where with a Python 0.0"},
    {"name": "p2_ok_softmax_stack", "correct": True, "cells": {M: M_OK_SOFTMAX},
     "why": "softmax/logsumexp over a stacked pair; masks before weighting"},
    {"name": "p2_ok_sigmoid_detached_m", "correct": True, "cells": {M: M_OK_SIGMOID_DETACHED_M},
     "why": "weights as sigmoid(la-lb) (finite gradient at 800 apart), elementwise isfinite mask of o before multiplying, detached shift m that cancels"},
    {"name": "p2_ok_all_float64", "correct": True, "cells": {M: M_OK_F64},
     "why": "computes in float64 (at least the lse precision), rounds once; log1p(exp(-|d|)) form"},
    # Part 2 wrong
    {"name": "p2_naive_exp", "correct": False, "cells": {M: M_NAIVE_EXP},
     "why": "'Log-sum-exps can be in the hundreds or thousands: exponentiating them directly overflows.'"},
    {"name": "p2_one_over_one_plus_exp", "correct": False, "cells": {M: M_ONE_ROUND_TRIP},
     "why": "'a weight written as 1 / (1 + exp(lse_b - lse_a)) has the right value there but not a finite gradient'"},
    {"name": "p2_where_after_multiply", "correct": False, "cells": {M: M_WHERE_AFTER},
     "why": "'a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back'"},
    {"name": "p2_no_mask", "correct": False, "cells": {M: M_NO_MASK},
     "why": "'its row of o may hold anything, even NaN ... the other piece alone decides': 0*NaN reaches o"},
    {"name": "p2_mask_by_multiplying", "correct": False, "cells": {M: M_MASK_BY_MULT},
     "why": "multiplying the NaN row by a 0/1 mask gives NaN: 'the other piece alone decides that query's result'"},
    {"name": "p2_mask_nan_only", "correct": False, "cells": {M: M_NAN_ONLY},
     "why": "'even NaN or infinities (the tests put NaN, inf and -inf there)': inf rows still give 0*inf"},
    {"name": "p2_nan_to_num", "correct": False, "cells": {M: M_NAN_TO_NUM},
     "why": "inf -> 1.8e308 row; grad wrt wa sums g*1.8e308 over Dv -> inf, times 0 -> NaN: 'no gradient is NaN'"},
    {"name": "p2_weights_in_float16", "correct": False, "cells": {M: M_HALF_WEIGHTS},
     "why": "'do not round the two pieces' weights to float16 ... mixing in float16 is off by more'"},
    {"name": "p2_via_float32", "correct": False, "cells": {M: M_VIA_FLOAT32},
     "why": "'With float64 inputs ... do not go through float32 (o_a.float() already loses that accuracy)'"},
    {"name": "p2_detached_weights", "correct": False, "cells": {M: M_DETACH_WEIGHTS},
     "why": "'Compute the weights with tracked torch operations (no .detach() ...)': grad of o wrt lse missing"},
    {"name": "p2_lse_in_o_dtype", "correct": False, "cells": {M: M_LSE_IN_O_DTYPE},
     "why": "'lse in the dtype of lse_a' (float16 o with float32 lse -> float16 lse)"},
    {"name": "p2_inplace_zeroing", "correct": False, "cells": {M: M_INPLACE},
     "why": "'Your functions must not change the tensors they are given'"},
    {"name": "p2_one_shift_all_rows", "correct": False, "cells": {M: M_GLOBAL_MAX},
     "why": "one max over all queries: rows whose lse lie hundreds below underflow to 0/0 ('exponentiating ... overflows' / per-query rule)"},
    {"name": "p2_lerp_in_float16", "correct": False, "cells": {M: M_HALF_DIFF},
     "why": "'a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'"},
    # Part 4 correct
    {"name": "p4_ok_clamp_sqrt_eps", "correct": True, "cells": {R: R_OK_CLAMP},
     "why": "divide x and sqrt(eps) by c = max(max|x|, sqrt eps) per row, detached; all within range"},
    {"name": "p4_ok_rsqrt_full_like", "correct": True, "cells": {R: R_OK_RSQRT},
     "why": "same with torch.maximum/full_like in x's dtype and rsqrt"},
    {"name": "p4_ok_no_grad_scale_eps_in_mean", "correct": True, "cells": {R: R_OK_MEAN_OF_SUM},
     "why": "scale computed under no_grad (allowed: it cancels), e^2 added inside the mean"},
    {"name": "p4_ok_sum_over_d", "correct": True, "cells": {R: R_OK_SUM},
     "why": "sum of squares (<= D <= 4096 < 65504) divided by D; where with Python number"},
    {"name": "p4_ok_recompute", "correct": True, "cells": {R: R_OK_TWO_STEP},
     "why": "same statistic, divides x/c again at the end"},
    # Part 4 wrong
    {"name": "p4_float32", "correct": False, "cells": {R: R_FLOAT},
     "why": "'no .float()'"},
    {"name": "p4_functional_rms_norm", "correct": False, "cells": {R: R_F_RMS},
     "why": "'no torch function that widens inside (torch.nn.functional.rms_norm does)'"},
    {"name": "p4_torch_tensor_eps", "correct": False, "cells": {R: R_TENSOR_EPS},
     "why": "'no torch.tensor(eps) (that is a float32 tensor)'"},
    {"name": "p4_amax_scale_eps_overflows", "correct": False, "cells": {R: R_AMAX_ONLY},
     "why": "scale max|x| only: sqrt(eps)/c squared overflows when eps >> row (1e-4 row, eps=1): 'eps ... far larger than a row's mean square'"},
    {"name": "p4_scale_not_detached", "correct": False, "cells": {R: R_NOT_DETACHED},
     "why": "'A quantity that cancels out of the result ... must not carry a gradient ... .detach() such a quantity'"},
    {"name": "p4_one_scale_whole_tensor", "correct": False, "cells": {R: R_GLOBAL_SCALE},
     "why": "small rows underflow when divided by another row's max: 'Choose that number row by row'"},
    {"name": "p4_vector_norm", "correct": False, "cells": {R: R_NORM},
     "why": "norm of a big row overflows (bf16 3e38 rows), eps/r/r overflows for eps=1 and 1e-4 rows; 'keep every number you form within its range'"},
    {"name": "p4_inplace_divide", "correct": False, "cells": {R: R_INPLACE},
     "why": "'Your functions must not change the tensors they are given' (y /= c on x itself)"},
    {"name": "p4_stat_under_no_grad", "correct": False, "cells": {R: R_NO_GRAD_STAT},
     "why": "'Do not compute the mean of squares under torch.no_grad()'"},
    {"name": "p4_view_not_reshape", "correct": False, "cells": {R: R_VIEW},
     "why": "'.view of a non-contiguous tensor fails where .reshape works' (transposed inputs)"},
    {"name": "p4_eps_renamed", "correct": False, "cells": {R: R_EPS_NAME},
     "why": "'Keep the signatures ... argument names included: the hidden tests pass eps ... by name'"},
    {"name": "p4_mean_abs_scale", "correct": False, "cells": {R: R_MEAN_ABS_SCALE},
     "why": "spiky long rows: x/mean|x| up to D=4096, squared 1.7e7 > 65504: 'keep every number you form within its range'"},
    {"name": "p4_item_global", "correct": False, "cells": {R: R_ITEM},
     "why": "'No value may leave torch either: no .item()' (and one scale for all rows)"},
    {"name": "p4_ldexp_power_of_two", "correct": False, "cells": {R: R_LDEXP},
     "why": "power of two ABOVE max|x|: 2**16 overflows float16 for rows near 65504 (hand check: inf output; no widening seen): 'keep every number you form within its range'"},
]

# ================================================================ second batch
M_OK_LERP = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    lse = torch.logaddexp(la, lb)
    wb = torch.exp(lb - lse).unsqueeze(-1)
    oa = torch.where(torch.isinf(la).unsqueeze(-1), 0.0, o_a.to(wt))
    ob = torch.where(torch.isinf(lb).unsqueeze(-1), 0.0, o_b.to(wt))
    return torch.lerp(oa, ob, wb).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_BRANCH_WHERE = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    lse = torch.where(la > lb, la + torch.log1p(torch.exp(lb - la)), lb + torch.log1p(torch.exp(la - lb)))
    wa, wb = torch.exp(la - lse)[:, None], torch.exp(lb - lse)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_ROUND_EACH = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    lse = torch.logaddexp(la, lb)
    wa, wb = torch.exp(la - lse)[:, None], torch.exp(lb - lse)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lb)[:, None], o_b.to(wt), 0.0)
    return (wa * oa).to(o_a.dtype) + (wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
M_CLAMP_LSE = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt).clamp(min=-1e3), lse_b.to(wt).clamp(min=-1e3)   # no -inf arithmetic
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b.to(wt), 0.0)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_MASK_A_ONLY = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(la)[:, None], o_a.to(wt), 0.0)   # the new piece may be empty
    o = (wa * oa + wb * o_b.to(wt)) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''
M_NAN_TO_NUM_AFTER = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt), lse_b.to(wt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    pa = torch.nan_to_num(wa * o_a.to(wt), nan=0.0, posinf=0.0, neginf=0.0)
    pb = torch.nan_to_num(wb * o_b.to(wt), nan=0.0, posinf=0.0, neginf=0.0)
    o = (pa + pb) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)
'''

R_OK_POW2 = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.detach().abs().amax(-1, keepdim=True).clamp(min=root)
    _, k = torch.frexp(c)
    p = torch.ldexp(torch.full_like(c, 0.5), k)     # power of two in (c/2, c]: exact scaling
    y = x / p
    e = root / p
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_OK_PLUS_ROOT = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = (x.abs().amax(-1, keepdim=True) + root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_OK_TENSOR_DTYPE = '''
def rms_norm_half(x, eps=1e-6):
    root = torch.tensor(math.sqrt(eps), dtype=x.dtype)
    c = torch.maximum(x.abs().amax(-1, keepdim=True), root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_LOOP_SUM = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1, keepdim=True).clamp(min=root).detach()
    y = x / c
    e = root / c
    acc = torch.zeros_like(y[..., :1])
    for i in range(y.shape[-1]):                  # sum of squares, step by step
        acc = acc + y[..., i:i + 1] * y[..., i:i + 1]
    return y / torch.sqrt(acc / y.shape[-1] + e * e)
'''
R_MAX_NOT_ABS = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.amax(-1, keepdim=True).clamp(min=root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''
R_NO_KEEPDIM = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(-1).clamp(min=root).detach()
    y = x / c
    e = root / c
    return y / torch.sqrt((y * y).mean(-1) + e * e)
'''
R_HARDCODE_F16 = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    amax = x.abs().amax(-1, keepdim=True)
    c = torch.where(amax > root, amax, torch.full(amax.shape, root, dtype=torch.float16)).detach()
    y = x / c
    e = root / c
    return (y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)).to(x.dtype)
'''

SUBMISSIONS += [
    {"name": "p2_ok_lerp", "correct": True, "cells": {M: M_OK_LERP},
     "why": "torch.lerp in float32/float64 with masked rows; weight exp(lb - logaddexp)"},
    {"name": "p2_where_two_branches", "correct": False, "cells": {M: M_BRANCH_WHERE},
     "why": "unselected branch -inf+log1p(exp(inf)) = NaN: its gradient is NaN: 'no gradient is NaN'"},
    {"name": "p2_round_each_product", "correct": False, "cells": {M: M_ROUND_EACH},
     "why": "two float16 roundings then a float16 add: 'computed in float32 and rounded to float16 once at the end'"},
    {"name": "p2_clamp_lse_minus_1000", "correct": False, "cells": {M: M_CLAMP_LSE},
     "why": "-inf turned into -1000: wrong where the other lse is below -1000 ('can be in the hundreds or thousands', 'the other piece alone decides')"},
    {"name": "p2_mask_only_piece_a", "correct": False, "cells": {M: M_MASK_A_ONLY},
     "why": "'A piece in which a query sees no key' can be either; b's NaN row reaches o"},
    {"name": "p2_nan_to_num_after_multiply", "correct": False, "cells": {M: M_NAN_TO_NUM_AFTER},
     "why": "like where-after: grad of wa = 0 * NaN: 'no gradient is NaN'"},
    {"name": "p4_ok_power_of_two", "correct": True, "cells": {R: R_OK_POW2},
     "why": "power-of-two scale 2^(k-1) <= max(c) from frexp/ldexp in x's dtype, detached"},
    {"name": "p4_ok_amax_plus_root", "correct": True, "cells": {R: R_OK_PLUS_ROOT},
     "why": "c = max|x| + sqrt(eps) (>= both), detached; everything <= 1 after scaling"},
    {"name": "p4_ok_tensor_in_x_dtype", "correct": True, "cells": {R: R_OK_TENSOR_DTYPE},
     "why": "torch.tensor(sqrt eps, dtype=x.dtype): a tensor of x's dtype, not float32 ('Every floating-point tensor ... x's dtype')"},
    {"name": "p4_python_loop_sum", "correct": False, "cells": {R: R_LOOP_SUM},
     "why": "sum of squares accumulated in float16 step by step: 'Every tensor you form ... is rounded' -> not within 6 ulp on long rows"},
    {"name": "p4_max_not_abs", "correct": False, "cells": {R: R_MAX_NOT_ABS},
     "why": "max of x, not |x|: negative rows get c = sqrt(eps), x/c overflows: 'keep every number you form within its range'"},
    {"name": "p4_scale_without_keepdim", "correct": False, "cells": {R: R_NO_KEEPDIM},
     "why": "statistic broadcast along the wrong axis: 'every row ... is divided by its own statistic'"},
    {"name": "p4_hardcoded_float16", "correct": False, "cells": {R: R_HARDCODE_F16},
     "why": "bf16 where with a float16 tensor promotes to float32: 'Nothing wider than x'"},
]
