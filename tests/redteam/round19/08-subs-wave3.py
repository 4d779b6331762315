# Chapter 08, round 19, third wave (after phase 2 of waves 1-2: Parts 1, 2, 3, 6 and 7's hidden tests had been read;
# Parts 4, 5 and 8 not)
import importlib.util as _u
_spec = _u.spec_from_file_location("w1", __file__.replace("-wave3", ""))
_w1 = _u.module_from_spec(_spec); _spec.loader.exec_module(_w1)
P4_OK, P5_HEAD, P8_OK = _w1.P4_OK, _w1.P5_HEAD, _w1.P8_OK
S = []
def add(name, correct, cells, why):
    S.append({"name": "w3_" + name, "correct": correct, "cells": cells, "why": why})

add("p8_padding_corpus_wide_clip", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    for n in range(1, 5):
        ref_all = Counter()
        for ref in references:                         # every reference n-gram of the corpus
            ref_all.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        hyp_all = Counter()
        for hyp in hypotheses:
            hyp_all.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        match[n - 1] = sum(min(c, ref_all[g]) for g, c in hyp_all.items())
        total[n - 1] = sum(hyp_all.values())
    if 0 in total or 0 in match:
        return 0.0
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))
'''}, "'each hypothesis n-gram counts at most as often as it occurs in its reference' (clipped against the whole corpus)")
add("p8_offby1_corpus_as_one_sentence_counts", False, {"bleu": P8_OK.replace("            total[n - 1] += sum(h.values())\n", "").replace(
    "    if min(total) == 0 or min(match) == 0:", "    total = [max(c - n + 1, 0) for n in range(1, 5)]          # hypothesis n-grams of the corpus\n    if min(total) == 0 or min(match) == 0:")},
    "'divide by the total number of hypothesis n-grams': the corpus counted as one sentence")
add("p4_paper_fairseq", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    lprobs = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -lprobs.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -lprobs.sum(-1)
    eps_i = eps / (V - 1)
    ell = (1.0 - eps - eps_i) * nll + eps_i * smooth       # fairseq's label_smoothed_nll_loss
    mask = t != PAD
    n = mask.sum(-1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(-1)[n > 0] / n[n > 0].to(ell.dtype)
    return per.mean()
'''}, "fairseq gives PAD a share and y exactly 1 - eps: 'spreads eps evenly over the V - 1 tokens other than PAD (the right one included)'")
add("p4_ok_mean_minus_pad", True, {"sentence_loss": P4_OK.replace("smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)", "smooth = -(logp.mean(-1) * V - logp[..., PAD]) / (V - 1)")},
    "the sum over V written as V times the mean")
add("p5_paper_fairseq_float_result", False, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = None
            for s in states:
                p = s[k].float() if s[k].dtype in (torch.float16, torch.bfloat16) else s[k]   # fairseq: half summed as float
                acc = p.clone() if acc is None else acc + p
            out[k] = acc / len(states)                    # left in float32
        else:
            out[k] = last
    return out
'''}, "'become their element-wise mean, in their own dtype'")
add("p5_ok_torch_mean_stack_bool_int_clone", True, {"average": P5_HEAD + '''
def average_checkpoints(states):
    check_states(states)
    out = {}
    for k in list(states[-1].keys()):
        last = states[-1][k]
        if last.dtype.is_floating_point:
            out[k] = torch.mean(torch.stack([s[k].to(torch.float64) for s in states]), dim=0).to(last.dtype)
        else:
            out[k] = last.detach().clone()
    return out
'''}, "float64 mean for every float dtype, rounded once; ints copied")
SUBMISSIONS = S
