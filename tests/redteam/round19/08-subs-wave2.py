# Chapter 08, round 19, second wave (parts 4, 5, 6, 8 only: their hidden tests not read)
import importlib.util as _u
_spec = _u.spec_from_file_location("w1", __file__.replace("-wave2", ""))
_w1 = _u.module_from_spec(_spec); _spec.loader.exec_module(_w1)
P4_OK, P5_HEAD, P6_OK, P8_OK = _w1.P4_OK, _w1.P5_HEAD, _w1.P6_OK, _w1.P8_OK
S = []
def add(name, correct, cells, why):
    S.append({"name": "w2_" + name, "correct": correct, "cells": cells, "why": why})

add("p4_ok_logsumexp_form", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    lse = torch.logsumexp(logits, dim=-1)
    t = targets.long()
    zy = logits.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    mean_other = (logits.sum(-1) - logits[..., PAD]) / (V - 1)
    ell = (1 - eps) * (lse - zy) + eps * (lse - mean_other)      # log p_v = z_v - lse
    mask = t != PAD
    zero = torch.zeros((), dtype=ell.dtype)
    sums = torch.where(mask, ell, zero).sum(dim=1)
    counts = mask.sum(dim=1)
    has = counts > 0
    return (sums[has] / counts[has]).sum() / has.sum()
'''}, "log p written as z - logsumexp, summed then divided by the number of rows that count")
add("p4_padding_first_pad_length", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    T = t.shape[1]
    pos = torch.arange(T)
    is_pad = (t == PAD)
    first_pad = torch.where(is_pad.any(1), is_pad.int().argmax(1), torch.full((t.shape[0],), T))
    mask = pos[None] < first_pad[:, None]                      # the sentence ends at its first PAD
    n = mask.sum(1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(1)[n > 0] / n[n > 0].to(ell.dtype)
    return per.mean()
'''}, "'the mean of l over its positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'")
add("p5_padding_only_int64_kept", False, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.dtype in (torch.int64, torch.bool):          # counters and masks
            out[k] = last
        else:
            out[k] = torch.stack([s[k].to(torch.float64) for s in states]).mean(0).to(last.dtype)
    return out
'''}, "'integer tensors of any width, signed or unsigned ... are not averaged': int32/uint8 averaged and truncated")
add("p5_ok_sum_dtype_float32_half", True, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    n = len(states)
    for k in states[-1]:
        last = states[-1][k]
        if torch.is_floating_point(last):
            acc_dtype = torch.float64 if last.dtype == torch.float64 else torch.float32
            total = torch.stack([s[k] for s in states]).sum(dim=0, dtype=acc_dtype)
            out[k] = (total / n).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "sum(dtype=float32) for half precision, divide, round once")
add("p6_padding_asks_all_prefixes", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        if all(done):
            break
        lp = next_logprobs([[s] + o for s, o in zip(starts, outs)]).to(torch.float64)   # every sentence asked
        live = [i for i in range(len(starts)) if not done[i]]
        scores = lp[live] / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = scores.topk(top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        draws = torch.multinomial(torch.softmax(scores, -1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, draws):
            outs[i].append(int(t))
            done[i] = t == EOS
    return outs
'''}, "'ask next_logprobs once, with the prefixes of the unfinished sentences only'")
add("p6_ok_log_softmax_then_exp", True, {"sample": P6_OK.replace("probs = torch.softmax(scores, dim=-1)", "probs = torch.exp(torch.log_softmax(scores, dim=-1))")},
    "exp(log_softmax): the max-subtracted softmax again")
add("p6_offby1_topk_clip_V_minus_1", False, {"sample": P6_OK.replace("if top_k is not None and top_k < scores.shape[-1]:", "if top_k is not None:\n            top_k = min(top_k, scores.shape[-1] - 1) if scores.shape[-1] > 1 else 1")},
    "'top_k >= 1 may be V or larger than V ...: then every entry is kept'")
add("p8_paper_round_two_decimals", False, {"bleu": P8_OK.replace("return float(100 * bp * math.exp(logp))", "return round(100 * bp * math.exp(logp), 2)")},
    "sacreBLEU prints two decimals: 'times 100, returned as a Python float' fixes the value itself")
add("p8_ok_fractions_exact", True, {"bleu": '''
from fractions import Fraction
def corpus_bleu(hypotheses, references):
    num, den = [0] * 4, [0] * 4
    for hyp, ref in zip(hypotheses, references):
        for n in range(4):
            hc = Counter(tuple(hyp[i:i + n + 1]) for i in range(len(hyp) - n))
            rc = Counter(tuple(ref[i:i + n + 1]) for i in range(len(ref) - n))
            num[n] += sum(min(c, rc[g]) for g, c in hc.items())
            den[n] += sum(hc.values())
    if 0 in den or 0 in num:
        return 0.0
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    log_bp = 0.0 if c >= r else float(1 - Fraction(r, c))
    return 100.0 * math.exp(log_bp + sum(math.log(Fraction(m, d)) for m, d in zip(num, den)) / 4)
'''}, "exact ratios with fractions, one exp")
add("p8_offby1_bp_le", True, {"bleu": P8_OK.replace("bp = 1.0 if c >= r else math.exp(1 - r / c)", "bp = 1.0 if c > r else math.exp(1 - r / c)")},
    "at c == r, exp(1 - r/c) = exp(0) = 1: the same")
SUBMISSIONS = S
