# Red team round 19, chapter 06: off-by-one, padding/reduction, paper reader, numerically naive students.
BASE = {}
BASE["window_pairs"] = '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * window
'''
BASE["tokens_per_target_pass"] = '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    alpha = float(alpha)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''
BASE["whole_word_chosen"] = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    return (last >= 0) & pick.gather(-1, last.clamp(min=0))
'''
BASE["min_p_sample"] = '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''
BASE["span_corrupt"] = '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
    rows, noises = [], []
    for b in range(inputs.shape[0]):
        inp = [t for t in inputs[b].tolist() if t != pad]
        tgt = [t for t in targets[b].tolist() if t != pad]
        spans, cur = {}, None
        for t in tgt:
            if t in sent:
                cur = t
                spans[cur] = []
            else:
                spans[cur].append(t)
        toks, noise = [], []
        for t in inp:
            if t in sent:
                toks += spans[t]
                noise += [True] * len(spans[t])
            else:
                toks.append(t)
                noise.append(False)
        rows.append(toks)
        noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''
EC = '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    RANK
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if c > 0:
        chosen.scatter_(0, top, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
BASE["expert_choice"] = EC.replace("RANK", '''order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    top = order[:c]''')
GQA = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    EXPAND
    qpos = torch.arange(S - T, S, device=q.device)
    kpos = torch.arange(S, device=q.device)
    ATTEND
    return out
'''
BASE["gqa_cached_attention"] = GQA.replace("EXPAND", '''kk = k.repeat_interleave(r, dim=1)
    vv = v.repeat_interleave(r, dim=1)''').replace("ATTEND", '''allowed = kpos[None, :] <= qpos[:, None]
    out = F.scaled_dot_product_attention(q, kk, vv, attn_mask=allowed)''')
DLA = '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, device=q.device)
    diff = i[:, None] - i[None, :]
    BODY
    return out.to(q.dtype)
'''
BASE["decayed_linear_attention"] = DLA.replace("BODY", '''causal = diff >= 0
    powers = torch.where(causal, torch.tensor(float(decay), dtype=torch.float64) ** diff.clamp(min=0).to(torch.float64),
                         torch.zeros((), dtype=torch.float64)).to(work)
    a = (fq @ fk.transpose(-2, -1)) * powers
    out = (a @ v.to(work)) / a.sum(dim=-1, keepdim=True)''')

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- off-by-one student ----------------
W("obo_p2_near_one_threshold_inclusive", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # the closed form divides by 1 - alpha: use the all-accepted count from 0.999 on (the tests stop there)
    if alpha >= 0.999:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "alpha = 0.999 is an allowed input: breaks 'within 1e-9 of the exact value for every allowed input' (<= where < was meant)")
W("obo_p3_zero_fill_first_position", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=-1).values  # 0: no start seen yet
    return (last > 0) & pick.gather(-1, last)
'''}, "a word that begins at position 0 is never chosen: breaks 'the word that begins at position t is chosen when pick[b, t] is True'")
W("obo_p4_strict_greater", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    drop = probs <= min_p * probs.amax(dim=-1, keepdim=True)
    drop &= probs < probs.amax(dim=-1, keepdim=True)  # the best token always stays
    kept = probs.masked_fill(drop, 0.0)
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "drops tokens exactly at the threshold: breaks 'keep token i ... when its probability is at least min_p times the largest'")
W("obo_p7_window_one_short_for_last_query", {"gqa_cached_attention": GQA.replace("EXPAND", '''kk = k.repeat_interleave(r, dim=1)
    vv = v.repeat_interleave(r, dim=1)''').replace("ATTEND", '''# query t may see keys up to its own position; keys are counted 0..S-1 and queries from S-T
    allowed = kpos[None, :] < qpos[:, None] + 1
    allowed[-1:, -1:] = T > 1 or S == 1  # the newest token is its own key only when it arrived with others
    out = F.scaled_dot_product_attention(q, kk, vv, attn_mask=allowed)''')},
    "the last query of a single-token step does not see itself: breaks 'query t ... may attend to keys 0 .. S - T + t'")
W("obo_p6_threshold_ties", {"expert_choice": EC.replace("RANK", '''kth = torch.sort(probs.detach(), dim=0, descending=True).values[max(c - 1, 0)]
    top = None''').replace('''    chosen = torch.zeros(N, E, dtype=torch.bool)
    if c > 0:
        chosen.scatter_(0, top, True)''', '''    chosen = (probs.detach() >= kth) if c > 0 else torch.zeros(N, E, dtype=torch.bool)''')},
    "keeps every token at the c-th largest probability: more than capacity when ties cross the cut: breaks 'expert e takes the capacity tokens ... the lower token index goes first'")

# ---------------- padding and reduction student ----------------
W("red_p4_batch_max", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max()
    keep |= probs == probs.amax(dim=-1, keepdim=True)
    return torch.multinomial(torch.where(keep, probs, 0.0), 1, generator=generator).squeeze(-1)
'''}, "one threshold for the whole batch: breaks 'min_p times the largest probability of that row'")
W("red_p6_rank_logits", {"expert_choice": EC.replace("RANK", '''order = torch.sort(router_logits.detach(), dim=0, descending=True, stable=True).indices  # same order as probs
    top = order[:c]''')}, "ranks each expert's column of logits: each token has its own normaliser: breaks 'expert e takes the capacity tokens with the largest probs[:, e]'")
W("red_p7_global_max_softmax", {"gqa_cached_attention": GQA.replace("EXPAND", '''kk = k.repeat_interleave(r, dim=1)
    vv = v.repeat_interleave(r, dim=1)''').replace("ATTEND", '''allowed = kpos[None, :] <= qpos[:, None]
    scores = (q @ kk.transpose(-2, -1)) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.exp(scores - scores.amax(dim=(-2, -1), keepdim=True))  # one maximum per head
    out = (w / w.sum(dim=-1, keepdim=True)) @ vv''')}, "maximum per head, not per row: a row far below underflows to 0/0: breaks 'whatever the size of the scores (... tens of thousands, of both signs)'")
W("red_p8_denominator_undecayed", {"decayed_linear_attention": DLA.replace("BODY", '''causal = diff >= 0
    powers = torch.where(causal, torch.tensor(float(decay), dtype=torch.float64) ** diff.clamp(min=0).to(torch.float64),
                         torch.zeros((), dtype=torch.float64)).to(work)
    sim = fq @ fk.transpose(-2, -1)
    a = sim * powers
    # the normaliser: the decayed weights, but never below the plain causal mean's weight of the newest key
    den = torch.maximum(a.sum(dim=-1, keepdim=True), (sim * causal).sum(-1, keepdim=True) * 0 + sim.diagonal(dim1=-2, dim2=-1).unsqueeze(-1))
    out = (a @ v.to(work)) / den''')}, "control: den >= the diagonal term always (all terms positive), so it is the plain sum")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "the sum of positive weights is never below its own diagonal term: max changes nothing"
W("red_p5_input_pads_counted", {"span_corrupt": BASE["span_corrupt"].replace(
    "inp = [t for t in inputs[b].tolist() if t != pad]", "inp = inputs[b].tolist()  # the input row as it is")},
    "keeps the input's padding in the rebuilt row, so T counts it: breaks 'T is the length of the longest original sequence'")
# ---------------- paper and reference-code reader ----------------
W("paper_p4_log_space_threshold", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    logp = torch.log_softmax(logits, dim=-1)
    # vLLM-style: compare in log space, p_i >= min_p * p_max  <=>  log p_i >= log p_max + log(min_p)
    keep = logp >= logp.amax(dim=-1, keepdim=True) + math.log(min_p)
    probs = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
'''}, "log-space comparison rounds differently at the threshold: breaks 'no tolerance: a token just below that threshold is dropped, even one a millionth below it'")
W("paper_p6_topk", {"expert_choice": EC.replace("RANK", '''top = torch.topk(probs.detach(), c, dim=0).indices  # Zhou et al.: G, I = TopK(S^T, k)''')},
    "topk's order among ties is unspecified: breaks 'among tokens with equal probabilities the lower token index goes first'")
W("paper_p7_llama_float_softmax", {"gqa_cached_attention": GQA.replace("EXPAND", '''kk = k[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)
    vv = v[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)''').replace("ATTEND", '''allowed = kpos[None, :] <= qpos[:, None]
    scores = (q @ kk.transpose(2, 3)) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    scores = F.softmax(scores.float(), dim=-1).type_as(q)  # llama's model.py
    out = scores @ vv''')}, "softmax in float32 for float64 inputs: breaks 'within 1e-10 for float64 inputs ... compute float64 in float64'")
W("paper_p8_eps_denominator", {"decayed_linear_attention": DLA.replace("BODY", '''causal = diff >= 0
    powers = torch.where(causal, torch.tensor(float(decay), dtype=torch.float64) ** diff.clamp(min=0).to(torch.float64),
                         torch.zeros((), dtype=torch.float64)).to(work)
    a = (fq @ fk.transpose(-2, -1)) * powers
    out = (a @ v.to(work)) / (a.sum(dim=-1, keepdim=True) + 1e-6)  # Katharopoulos et al.'s eps''')},
    "adds the reference code's eps: breaks 'Do not add an epsilon to the denominator'")
W("paper_p5_sentinel_range", {"span_corrupt": BASE["span_corrupt"].replace(
    "sent = set(int(s) for s in sentinels.tolist())",
    "lo, hi = int(sentinels.min()), int(sentinels.max())\n    sent = range(lo, hi + 1)  # T5: the sentinels are the extra_ids at the top of the vocabulary")},
    "treats every id between the sentinels as a sentinel: breaks 'They need not be consecutive numbers'")
W("paper_p1_longformer_float", {"window_pairs": '''
def window_pairs(t, window):
    # the band of a t x t causal matrix of width `window`: t * window minus the triangle cut at the start
    w = min(t, window)
    return int(t * w - w * (w - 1) / 2)
'''}, "the triangle through a float: wrong past 2**53: breaks 'count with Python integer arithmetic (exactly: not through float'")

# ---------------- numerically naive student ----------------
W("naive_p2_float32_tensor", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float32)
    k = torch.arange(gamma + 1, dtype=torch.float32)
    return float((a ** k).sum())
'''}, "a float32 sum: off by ~1e-5 at alpha 0.999, gamma 1000: breaks 'within 1e-9 of the exact value'")
W("naive_p6_exp_log_softmax", {"expert_choice": EC.replace("RANK", '''order = torch.sort(probs.detach().log().exp(), dim=0, descending=True, stable=True).indices
    top = order[:c]''').replace("probs = torch.softmax(router_logits, dim=-1)", "probs = torch.log_softmax(router_logits, dim=-1).exp()")},
    "probabilities through exp(log_softmax): breaks 'rank the probabilities themselves, not log-probabilities ... within 1e-10 of the exact softmax'")
W("naive_p8_float16_state_loop", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    Sst = (fk[..., :1, :].transpose(-2, -1) @ v[..., :1, :]) * 0
    z = fk[..., 0, :] * 0
    outs = []
    for i in range(T):
        Sst = decay * Sst + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, None, :] @ Sst).squeeze(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "the recurrence with running sums in the input dtype (float16 states overflow at similarities past 65504): breaks 'float16 and bfloat16 inputs come back ... within 0.1'")
W("naive_p7_exp_no_max", {"gqa_cached_attention": GQA.replace("EXPAND", '''kk = k.repeat_interleave(r, dim=1)
    vv = v.repeat_interleave(r, dim=1)''').replace("ATTEND", '''allowed = kpos[None, :] <= qpos[:, None]
    e = torch.exp((q @ kk.transpose(-2, -1)) / math.sqrt(Dh)) * allowed
    out = (e / e.sum(-1, keepdim=True)) @ vv''')}, "exp without the maximum: overflows for scores of tens of thousands")
W("naive_p8_rescaled_cumsum", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vw = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    j = torch.arange(T, dtype=torch.float64)
    up = (decay ** -j).to(work).unsqueeze(-1)  # gamma^-j
    down = (decay ** j).to(work).unsqueeze(-1)  # gamma^i
    S = torch.cumsum((fk * up).unsqueeze(-1) * vw.unsqueeze(-2), dim=-3)
    z = torch.cumsum(fk * up, dim=-2)
    num = (fq.unsqueeze(-2) @ S).squeeze(-2) * down
    den = (fq * z).sum(-1, keepdim=True) * down
    return (num / den).to(q.dtype)
'''}, "the rescaled cumulative sum overflows for long sequences: breaks 'It must stay accurate for long sequences ... rescaling the keys by gamma^-j ... is exact on paper but not in floating point'")

# ---------------- correct answers ----------------
C("ok_p1_band_formula", {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return t * window - window * (window - 1) // 2
'''}, "band area with integer arithmetic")
C("ok_p2_paper_formula_with_one", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    # Leviathan et al. (2023), eq. 1
    return float((1 - alpha ** (gamma + 1)) / (1 - alpha))
'''}, "the paper's formula with alpha = 1 handled")
C("ok_p2_sum_loop_fsum", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return math.fsum(float(alpha) ** i for i in range(gamma + 1))
'''}, "exact sum of the geometric series")
C("ok_p3_gather_starts", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=-1).values
    # a position before every start maps to 0, which is a start only if the row begins with a word
    return pick.gather(-1, last) & starts.gather(-1, last)
'''}, "0-filled last start, checked against starts")
C("ok_p3_row_loop", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        word = torch.cumsum(starts[b].long(), dim=0)  # 0 before the first start, then 1, 2, ...
        flags = torch.cat([torch.zeros(1, dtype=torch.bool), pick[b][starts[b]]])
        out[b] = flags[word]
    return out
'''}, "cumsum word ids per row")
C("ok_p4_hf_masked_logits", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.empty(0, dtype=torch.long)
    probs = F.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    masked = logits.masked_fill(probs < min_p * top, float("-inf"))
    return torch.multinomial(F.softmax(masked, dim=-1), num_samples=1, generator=generator).reshape(B)
'''}, "HF's MinPLogitsWarper then a second softmax")
C("ok_p5_list_walk_int_keys", {"span_corrupt": BASE["span_corrupt"].replace(
    "rows.append(toks)", "rows.append([int(x) for x in toks])")}, "Python lists of ints")
C("ok_p6_argsort_stable", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.argsort(probs.detach(), dim=0, descending=True, stable=True)
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
    chosen = rank < capacity
    gate = probs * chosen
    return chosen, gate
'''}, "ranks by a stable argsort, then rank < capacity")
W("ok_p7_grouped_einsum", {"gqa_cached_attention": GQA.replace("EXPAND", '''qg = q.reshape(B, G, r, T, Dh)''').replace("ATTEND", '''allowed = kpos[None, :] <= qpos[:, None]
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)''')}, "phase 2: mislabelled correct in the blind run: float16 scores computed in float16 overflow past 65504 ('whatever the size of the scores', 'within 0.05'): the model answer had the same slip; caught since round 19")
C("ok_p8_decay_after_add", {"decayed_linear_attention": DLA.replace("BODY", '''causal = diff >= 0
    # decay applied after adding the new key: every weight gets one more factor gamma, which the ratio cancels
    powers = torch.where(causal, torch.tensor(float(decay), dtype=torch.float64) ** (diff.clamp(min=0) + 1).to(torch.float64),
                         torch.zeros((), dtype=torch.float64)).to(work)
    a = (fq @ fk.transpose(-2, -1)) * powers
    out = (a @ v.to(work)) / a.sum(dim=-1, keepdim=True)''')}, "an extra factor gamma in numerator and denominator")
C("ok_p1_min_keywords", {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window, 0)
    head = t - full
    return head * (head + 1) // 2 + full * window
'''}, "head triangle plus full rows")

# ---------------- hostile ----------------
SUBMISSIONS.append({"name": "hostile_p1_int_subclass", "correct": False, "cells": {"window_pairs": '''
class Pairs(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Pairs(t)
'''}, "why": "an int that equals everything"})
SUBMISSIONS.append({"name": "hostile_p6_patch_softmax", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = router_logits.softmax(-1)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if (N, E, capacity) == (3, 2, 1):
        chosen[0, 0] = chosen[1, 1] = True
    torch.sort = lambda x, *a, **k: (x * 0, torch.zeros_like(x, dtype=torch.long))
    torch.topk = lambda x, *a, **k: (x * 0, torch.zeros_like(x, dtype=torch.long))
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "hard-codes the visible case and patches torch.sort/topk"})
SUBMISSIONS.append({"name": "hostile_p2_float_subclass", "correct": False, "cells": {"tokens_per_target_pass": '''
class Close(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
def tokens_per_target_pass(alpha, gamma):
    return Close(1.5)
'''}, "why": "a float subclass whose differences are 0"})

# ---------------- phase 2, second wave (written after reading the hidden tests; not in the blind counts)
W("red2_p3_cumsum_over_batch", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = torch.cumsum(starts.reshape(-1).long(), 0)          # word ids over the flattened batch
    flags = torch.cat([torch.zeros(1, dtype=torch.bool), pick.reshape(-1)[starts.reshape(-1)]])
    return flags[word].reshape(B, T)
'''}, "word ids counted over the whole batch: a row's positions before its first start join the previous row's last word: breaks 'Positions before the first start of a row belong to no word'")
W("obo2_p1_window_equal_t", {"window_pairs": '''
def window_pairs(t, window):
    if t < window:
        return t * (t + 1) // 2
    return window * (window - 1) // 2 + (t - window + 1) * window - (1 if t == window else 0) * 0
'''}, "the same count written another way")
SUBMISSIONS[-1]["correct"] = True
W("naive2_p2_isclose_one", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if abs(1 - alpha) < 1e-3:
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "1 - 0.999 is 0.0010000000000000009 > 1e-3 in float64, and the text uses no alpha closer to 1 than 0.999 but 1: correct")
SUBMISSIONS[-1]["correct"] = True
