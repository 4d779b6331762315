S = []
def add(name, correct, cells, why, kind):
    S.append({"name": name, "correct": correct, "cells": cells, "why": f"[{kind}] " + why})

# Part 1 window_pairs (no gradients, no tensors)
add("window_int_of_float_half", False, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return int(w * (w + 1) / 2) + (t - w) * window
'''}, "int() of a float half-product: 'count with Python integer arithmetic (exactly: not through float'", "python-scalar")
add("window_float_when_short", False, {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) / 2
    return window * (window + 1) // 2 + (t - window) * window
'''}, "returns a float when t <= window: 'Return a Python int'", "return-shape")
add("window_comb", True, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return math.comb(w + 1, 2) + max(t - window, 0) * window
'''}, "math.comb is exact integer arithmetic", "python-scalar")
add("window_offby_formula", True, {"window_pairs": '''
def window_pairs(t, window):
    if window >= t:
        return t * (t + 1) // 2
    # the first window-1 queries see 1..window-1 keys, the other t-window+1 see window keys
    return (window - 1) * window // 2 + (t - window + 1) * window
'''}, "another exact decomposition", "scale-placement")

# Part 2 tokens_per_target_pass
add("tokens_sum_int_alpha", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** k for k in range(gamma + 1))
'''}, "returns an int for alpha given as the int 0 or 1: 'Return a Python float, whatever the type of alpha'", "return-shape")
add("tokens_float32_tensor", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    powers = torch.tensor(float(alpha)) ** torch.arange(gamma + 1)
    return powers.sum().item()
'''}, "float32 accumulation: 'within 1e-9 of the exact value for every allowed input'", "python-scalar")
add("tokens_log_exp_no_zero_guard", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return (1.0 - math.exp((gamma + 1) * math.log(alpha))) / (1.0 - alpha)
'''}, "math.log(0) raises at alpha = 0: '0 <= alpha <= 1 (both ends included)'", "python-scalar")
add("tokens_horner", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total = 1.0
    for _ in range(gamma):
        total = 1.0 + alpha * total
    return float(total)
'''}, "Horner's sum of alpha**k, k = 0..gamma", "python-scalar")
add("tokens_isclose_guard", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if math.isclose(alpha, 1.0):
        return float(gamma + 1)
    return float((1 - alpha ** (gamma + 1)) / (1 - alpha))
'''}, "isclose (rel 1e-9) only moves alpha within 1e-9 of 1, which the tests do not use", "python-scalar")

add("tokens_split_last_term", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return gamma + 1.0
    # accepted drafts before the first rejection, plus the all-accepted bonus term
    return (1.0 - alpha ** gamma) / (1.0 - alpha) + alpha ** gamma
'''}, "sum_{k<gamma} alpha**k + alpha**gamma is the same sum", "scale-placement")

# Part 3 whole_word_chosen (no gradients)
add("wwm_truthy_start_zero", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur = None
        row = []
        for t, s in enumerate(srow):
            if s:
                cur = t
            row.append(bool(cur) and prow[cur])
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
'''}, "bool(cur) is False for a word that starts at position 0: 'Every position belongs to the word begun by the nearest start at or before it'", "python-scalar")
add("wwm_int_tensor", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=1)                      # 0 before the first word
    picked_word = torch.zeros(starts.shape[0], starts.shape[1] + 1, dtype=torch.long)
    picked_word[:, 1:] = (pick & starts).long()
    first = torch.zeros_like(picked_word)
    first.scatter_add_(1, word * starts.long(), picked_word[:, 1:])
    first[:, 0] = 0
    return first.gather(1, word)
'''}, "returns an int64 0/1 tensor: 'Return a **boolean** tensor of shape (B, T)' (tolist() == [[False, True...]] holds for 0/1)", "return-shape")
add("wwm_empty_tensor_of_list", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur, row = None, []
        for t, s in enumerate(srow):
            if s:
                cur = t
            row.append(cur is not None and prow[cur])
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool)
'''}, "torch.tensor([]) is (0,), not (0, T): 'The batch may be empty (B = 0): then return a (0, T) tensor'", "return-shape")
add("wwm_words_max", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=1)
    n_words = int(word[:, -1].max()) if T else 0
    table = torch.zeros(B, n_words + 1, dtype=torch.bool)
    table.scatter_(1, word * starts.long(), pick & starts)
    table[:, 0] = False
    return table.gather(1, word)
'''}, "Python int of .max() raises on an empty batch: 'The batch may be empty (B = 0): ... raise nothing'", "python-scalar")
add("wwm_cumsum_float32", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float32).expand(B, T)
    last_start = torch.where(starts, pos, torch.full((B, T), -1.0)).cummax(dim=1).values
    inside = last_start >= 0
    picked = pick.gather(1, last_start.clamp(min=0).long())
    return inside & picked
'''}, "float32 positions are exact below 2**24, which the text guarantees", "scale-placement")
add("wwm_list_loop", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur, row = None, []
        for t in range(T):
            if srow[t]:
                cur = t
            row.append(cur is not None and prow[cur])
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(B, T)
'''}, "loop over Python lists (allowed), reshape for B = 0", "python-scalar")

# Part 4 min_p_sample
MP = '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    probs = torch.softmax(logits, dim=-1)
    THRESH
    weights = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    NORMALISE
    DRAW
'''
DRAW_OK = '''if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(weights, 1, generator=generator).reshape(B)'''
TH_OK = "keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values"
def mp(th=TH_OK, draw=DRAW_OK, norm="weights = weights / weights.sum(dim=-1, keepdim=True)"):
    return MP.replace("THRESH", th).replace("DRAW", draw).replace("NORMALISE", norm)
add("minp_global_max", False, {"min_p_sample": mp(th="keep = probs >= min_p * float(probs.max())")},
    "threshold from the largest probability of the whole batch: 'at least min_p times the largest probability of that row'", "python-scalar")
add("minp_squeeze", False, {"min_p_sample": mp(draw='''if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(weights, 1, generator=generator).squeeze()''')},
    "squeeze() without a dim gives a 0-d tensor for B = 1: 'Return the token ids as an int64 tensor of shape (B,)'", "return-shape")
add("minp_strict", False, {"min_p_sample": mp(th="keep = probs > min_p * probs.max(dim=-1, keepdim=True).values")},
    "strict comparison drops a token exactly at the threshold: 'keep token i ... when its probability is **at least** min_p times the largest'", "scale-placement")
add("minp_skip_certain", False, {"min_p_sample": mp(draw='''if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    if int(keep.sum(dim=-1).max()) == 1:
        return probs.argmax(dim=-1)
    return torch.multinomial(weights, 1, generator=generator).reshape(B)''')},
    "skips the draw where every row keeps one token: 'Draw on every call with B >= 1, also where every row keeps a single token'", "python-scalar")
add("minp_log_space", True, {"min_p_sample": mp(th="keep = (logits - logits.max(dim=-1, keepdim=True).values) >= math.log(min_p)")},
    "the same threshold in log space: p_i >= min_p * p_max <=> l_i - l_max >= log(min_p) (more accurate, not less)", "scale-placement")
add("minp_unnormalised_weights", True, {"min_p_sample": mp(norm="pass")},
    "kept probabilities handed to multinomial unrenormalised: multinomial normalises each row, so the draw is from exactly the renormalised kept probabilities", "scale-placement")
add("minp_inverse_cdf", True, {"min_p_sample": mp(draw='''if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    cdf = weights.cumsum(dim=-1)
    u = torch.rand(B, 1, generator=generator, dtype=cdf.dtype) * cdf[:, -1:]
    idx = torch.searchsorted(cdf, u, right=True).clamp(max=logits.shape[-1] - 1)
    return idx.reshape(B)''')},
    "inverse-CDF draw from the generator (zero-width dropped tokens can never be hit)", "hand-backward")

# Part 5 restore_spans
RS = '''
def restore_spans(inputs, targets, sentinels, pad):
    SENTSET
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if IS_SENT(tok):
                cur = tok
                spans[cur] = []
            elif tok == PAD:
                cur = None
            elif cur is not None:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if IS_SENT(tok):
                hid = spans.get(tok, [])
                row += hid
                nz += [True] * len(hid)
            elif tok != PAD:
                row.append(tok)
                nz.append(False)
        rows.append(row)
        noises.append(nz)
    T = TLEN
    tokens = torch.full((len(rows), T), pad, dtype=TOKDT)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=TOKDT)
            noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    RET
'''
def rs(sentset="sent = set(sentinels.tolist())\n    IS = sent.__contains__", is_sent="IS", pad="pad", tlen="max((len(r) for r in rows), default=0)", tokdt="torch.int64", ret="return tokens, noise"):
    return RS.replace("SENTSET", sentset).replace("IS_SENT", is_sent).replace("PAD", pad).replace("TLEN", tlen).replace("TOKDT", tokdt).replace("RET", ret)
add("spans_consecutive_range", False, {"span_corrupt": rs(sentset="lo, hi = int(sentinels.min()), int(sentinels.max())\n    IS = lambda tok: lo <= tok <= hi")},
    "sentinels taken as the range min..max: 'They need not be consecutive numbers'", "sibling")
add("spans_pad_zero", False, {"span_corrupt": rs(pad="0")},
    "padding taken as 0 (the example's): 'Each row is right-padded with pad (a Python int)'", "sibling")
add("spans_list", False, {"span_corrupt": rs(ret="return [tokens, noise]")},
    "returns a list: 'Return (tokens, noise)' / 'a tuple of them (return a, b, not a list)'", "return-shape")
add("spans_input_dtype", False, {"span_corrupt": rs(tokdt="inputs.dtype")},
    "tokens keep int32 inputs' dtype: 'tokens (int64) holds the original sequences'", "return-shape")
add("spans_max_empty", False, {"span_corrupt": rs(tlen="max(len(r) for r in rows)")},
    "Python max of an empty batch raises: 'the batch may be empty ... Python's max of an empty sequence raises'", "python-scalar")
SPANS_LIST_ORDER = '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    sset = set(sent)
    B = inputs.shape[0]
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the lesson's span_corruption uses sentinels[0], sentinels[1], ... in turn
        spans, j, cur = {}, 0, None
        for tok in tgt:
            if j < len(sent) and tok == sent[j]:
                cur = tok
                spans[cur] = []
                j += 1
            elif tok == pad:
                cur = None
            elif cur is not None:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok in sset:
                hid = spans.get(tok, [])
                row += hid
                nz += [True] * len(hid)
            elif tok != pad:
                row.append(tok)
                nz.append(False)
        rows.append(row)
        noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''
add("spans_sentinel_list_order", False, {"span_corrupt": SPANS_LIST_ORDER},
    "expects the target's sentinels in the list's order: 'a row may use any of them ...; its target lists its sentinels in the order they appear in its input'", "sibling")
add("spans_match_by_order", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sset = set(sentinels.tolist())
    B = inputs.shape[0]
    out_tok, out_noise = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        groups = []
        for tok in tgt:
            if tok in sset:
                groups.append([])
            elif tok != pad and groups:
                groups[-1].append(tok)
        g = iter(groups)
        row, nz = [], []
        for tok in inp:
            if tok in sset:
                hid = next(g)
                row.extend(hid)
                nz.extend([True] * len(hid))
            elif tok != pad:
                row.append(tok)
                nz.append(False)
        out_tok.append(row)
        out_noise.append(nz)
    T = max(map(len, out_tok), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        n = len(out_tok[b])
        tokens[b, :n] = torch.tensor(out_tok[b], dtype=torch.int64)
        noise[b, :n] = torch.tensor(out_noise[b], dtype=torch.bool)
    return (tokens, noise)
'''}, "matches spans by order of appearance (the text says the target lists them in input order)", "sibling")
add("spans_isin_tensor_masks", True, {"span_corrupt": rs(sentset="sent = set(sentinels.to(torch.int64).tolist())\n    IS = lambda tok: tok in sent", ret="return tokens.clone(), noise.clone()")},
    "lambda membership, extra clones", "python-scalar")

# Part 6 expert_choice
EC = '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    PROBS
    RANK
    k = min(capacity, N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:k], True)
    GATE
'''
P_OK = "probs = torch.softmax(router_logits, dim=-1)"
R_OK = "order = torch.sort(probs, dim=0, descending=True, stable=True).indices"
G_OK = "gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))\n    return chosen, gate"
def ec(p=P_OK, r=R_OK, g=G_OK, extra=""):
    return extra + EC.replace("PROBS", p).replace("RANK", r).replace("GATE", g)
add("ec_detach_trick", False, {"expert_choice": ec(g='''gate = probs.detach() * chosen + (probs - probs.detach())
    return chosen, gate''')},
    "straight-through gate: gradient reaches the tokens no expert took: 'gradients must flow through gate ... compare its gradient with respect to router_logits with the reference's'", "hand-backward")
add("ec_softmax_fn_global_sum", False, {"expert_choice": ec(p="probs = RouterSoftmax.apply(router_logits)", extra='''
class RouterSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits):
        p = torch.softmax(logits, dim=-1)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        p, = ctx.saved_tensors
        return p * (g - (g * p).sum())
''')}, "hand-written softmax backward sums over every token, right for one token only: 'compare its gradient with respect to router_logits with the reference's'", "hand-backward")
add("ec_maskmul_fn_grad_for_bool", True, {"expert_choice": ec(g='''gate = MaskMul.apply(probs, chosen)
    return chosen, gate''', extra='''
class MaskMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, p, keep):
        ctx.save_for_backward(keep)
        return torch.where(keep, p, torch.zeros((), dtype=p.dtype))

    @staticmethod
    def backward(ctx, g):
        keep, = ctx.saved_tensors
        return torch.where(keep, g, torch.zeros((), dtype=g.dtype)), g   # a gradient for the bool input: autograd drops it
''')}, "hand-written masked gate with a right backward (the gradient returned for the bool mask is discarded by autograd)", "hand-backward")
add("ec_rank_logits", False, {"expert_choice": ec(r="order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices")},
    "ranks tokens by raw logits before the softmax: 'expert e takes the capacity tokens with the largest probs[:, e]'", "scale-placement")
add("ec_tiebreak_offset", False, {"expert_choice": ec(r='''score = probs - 1e-12 * torch.arange(N, dtype=probs.dtype)[:, None]
    order = torch.sort(score, dim=0, descending=True).indices''')},
    "tie-break by a tiny offset: 'probabilities that differ, however little, are ranked by their values: ... differ by less than 1e-13'", "python-scalar")
add("ec_list", False, {"expert_choice": ec(g='''gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return [chosen, gate]''')}, "returns a list: 'a tuple of them ... not a list'", "return-shape")
add("ec_gate_float32", False, {"expert_choice": ec(p="probs = torch.softmax(router_logits.float() if router_logits.dtype != torch.float64 else router_logits, dim=-1)")},
    "gate in float32 for float16/bfloat16 logits: 'gate ... in the dtype of router_logits (float16 and bfloat16 included)'", "return-shape")
add("ec_argsort_neg", True, {"expert_choice": ec(r="order = torch.argsort(-probs, dim=0, stable=True)")},
    "stable ascending sort of -probs: ties keep the lower index first", "scale-placement")
add("ec_python_sorted", True, {"expert_choice": ec(r='''cols = probs.detach().t().tolist()
    order = torch.tensor([sorted(range(N), key=lambda n: -col[n]) for col in cols], dtype=torch.int64).reshape(E, N).t()''')},
    "Python's stable sort on float64 copies of the probabilities (exact for every dtype)", "python-scalar")

# Part 7 gqa_cached_attention
GQ = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    QF
    kf, vf = k.to(work), v.to(work)
    qpos = torch.arange(S - T, S)
    allowed = torch.arange(S)[None, :] <= qpos[:, None]
    BODY
    return out.to(OUTDT)
'''
QF_OK = "qf = q.to(work).reshape(B, G, r, T, Dh)"
BODY_OK = '''scores = torch.einsum("bgrtd,bgsd->bgrts", qf, kf) * (1.0 / math.sqrt(Dh))
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, vf).reshape(B, H, T, Dh)'''
def gq(qf=QF_OK, body=BODY_OK, outdt="q.dtype", extra=""):
    return extra + GQ.replace("QF", qf).replace("BODY", body).replace("OUTDT", outdt)
GQ_FN = '''
class GroupedAttn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, allowed):
        ctx.save_for_backward(q, k, v, allowed)
        return grouped_attention(q, k, v, allowed)

    @staticmethod
    def backward(ctx, g):
        q, k, v, allowed = ctx.saved_tensors
        B, H, T, Dh = q.shape
        G = k.shape[1]
        r = H // G
        with torch.enable_grad():
            qq = q.detach().requires_grad_()
            kx = k.detach().repeat_interleave(r, dim=1).requires_grad_()
            vx = v.detach().repeat_interleave(r, dim=1).requires_grad_()
            w = torch.softmax((qq @ kx.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed, float("-inf")), dim=-1)
            gq, gk, gv = torch.autograd.grad(w @ vx, (qq, kx, vx), g)
        REDUCE
        return gq, gk, gv, None


def grouped_attention(q, k, v, allowed):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    s = torch.einsum("bgrtd,bgsd->bgrts", q.reshape(B, G, r, T, Dh), k) / math.sqrt(Dh)
    w = torch.softmax(s.masked_fill(~allowed, float("-inf")), dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''
FN_BODY = "out = GroupedAttn.apply(q.to(work), kf, vf, allowed)"
GQ_FN_OK = GQ_FN.replace('''            kx = k.detach().repeat_interleave(r, dim=1).requires_grad_()
            vx = v.detach().repeat_interleave(r, dim=1).requires_grad_()
            w = torch.softmax((qq @ kx.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed, float("-inf")), dim=-1)
            gq, gk, gv = torch.autograd.grad(w @ vx, (qq, kx, vx), g)''', '''            kk = k.detach().requires_grad_()
            vv = v.detach().requires_grad_()
            gq, gk, gv = torch.autograd.grad(grouped_attention(qq, kk, vv, allowed), (qq, kk, vv), g)''').replace("REDUCE", "")
add("gqa_fn_group_sum_order", False, {"gqa_cached_attention": gq(body=FN_BODY, extra=GQ_FN.replace("REDUCE", '''S = k.shape[2]
        gk = gk.reshape(B, r, G, S, Dh).sum(dim=1)
        gv = gv.reshape(B, r, G, S, Dh).sum(dim=1)'''))},
    "backward folds the repeated heads back in tile order where the forward interleaves them (right when G or H // G is 1): 'compare its gradients with respect to q, k and v'", "hand-backward")
add("gqa_fn_no_group_sum", False, {"gqa_cached_attention": gq(body=FN_BODY, extra=GQ_FN.replace("REDUCE", "pass"))},
    "backward returns key/value gradients of the expanded (B, H, S, Dh) shape, not summed back to (B, G, S, Dh): 'compare its gradients with respect to q, k and v'", "hand-backward")
add("gqa_fn_correct", True, {"gqa_cached_attention": gq(body=FN_BODY, extra=GQ_FN_OK)},
    "hand-written backward through autograd on the expanded heads, folded back in the right order", "hand-backward")
add("gqa_scale_in_q_dtype", False, {"gqa_cached_attention": gq(qf="qf = (q * Dh ** -0.5).to(work).reshape(B, G, r, T, Dh)", body=BODY_OK.replace(" * (1.0 / math.sqrt(Dh))", ""))},
    "scales q in its own dtype before the upcast: 'compute them in float32 and round once at the end, the scale 1 / sqrt(Dh) too'", "scale-placement")
add("gqa_mask_1e30", False, {"gqa_cached_attention": gq(body=BODY_OK.replace('float("-inf")', "-1e30"))},
    "large negative constant: 'mask with -inf, not with a large negative number ... a score a query may see can be that value'", "python-scalar")
add("gqa_float32_out", False, {"gqa_cached_attention": gq(outdt="work")},
    "returns float32 for float16/bfloat16 inputs: 'return (B, H, T, Dh) in the dtype of q (float16 and bfloat16 included'", "return-shape")
add("gqa_repeat_tile", False, {"gqa_cached_attention": gq(qf="qf = q.to(work)", body='''kx = kf.repeat(1, r, 1, 1)
    vx = vf.repeat(1, r, 1, 1)
    scores = (qf @ kx.transpose(-1, -2)) / math.sqrt(Dh)
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = w @ vx''')},
    "tiles the key/value heads (head h uses h % G): 'query head h uses key/value head h // (H // G)' (visible head 3 -> 1 either way)", "sibling")
add("gqa_sdpa_grouped_rows", True, {"gqa_cached_attention": gq(qf="qf = q.to(work).reshape(B, G, r * T, Dh)", body='''mask = allowed.repeat(r, 1)
    out = F.scaled_dot_product_attention(qf, kf, vf, attn_mask=mask).reshape(B, H, T, Dh)''')},
    "sdpa with the group's heads stacked along the query axis and a boolean mask", "sibling")
add("gqa_matmul_scale_python", True, {"gqa_cached_attention": gq(qf="qf = q.to(work).reshape(B, G, r * T, Dh)", body='''scale = Dh ** -0.5
    scores = (qf @ kf.transpose(-1, -2)).mul(scale).reshape(B, G, r, T, S)
    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=work))
    out = (torch.softmax(scores, dim=-1).reshape(B, G, r * T, S) @ vf).reshape(B, H, T, Dh)''')},
    "Python float scale applied to float32/float64 scores, torch.where with -inf", "python-scalar")

# Part 8 decayed_linear_attention
DL = '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    PHI
    fq, fk = phi(q.to(work)), phi(k.to(work))
    sim = fq @ fk.transpose(-1, -2)
    idx = torch.arange(T)
    gaps = idx[:, None] - idx[None, :]
    POW
    w = sim * powers
    NORM
    return out.to(q.dtype)
'''
PHI_OK = "phi = lambda x: F.elu(x) + 1"
POW_OK = '''powers = torch.where(gaps >= 0, torch.tensor(float(decay), dtype=torch.float64) ** gaps.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(work)'''
NORM_OK = "out = (w @ v.to(work)) / w.sum(dim=-1, keepdim=True)"
def dl(phi=PHI_OK, pw=POW_OK, norm=NORM_OK, extra=""):
    return extra + DL.replace("PHI", phi).replace("POW", pw).replace("NORM", norm)
add("dla_phi_fn_exp_slope", False, {"decayed_linear_attention": dl(phi="phi = Phi.apply", extra='''
class Phi(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = F.elu(x) + 1
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y          # d/dx exp(x) = exp(x) = phi(x)
''')}, "hand-written phi backward uses exp's slope everywhere (slope 1 for x > 0): 'compare its gradients with respect to q, k and v'", "hand-backward")
add("dla_norm_fn_den_const", False, {"decayed_linear_attention": dl(norm="out = Normalise.apply(w @ v.to(work), w.sum(dim=-1, keepdim=True))", extra='''
class Normalise(torch.autograd.Function):
    @staticmethod
    def forward(ctx, num, den):
        ctx.save_for_backward(den)
        return num / den

    @staticmethod
    def backward(ctx, g):
        den, = ctx.saved_tensors
        return g / den, None
''')}, "hand-written division gives the denominator no gradient: 'compare its gradients with respect to q, k and v'", "hand-backward")
add("dla_phi_fn_correct", True, {"decayed_linear_attention": dl(phi="phi = Phi.apply", extra='''
class Phi(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = F.elu(x) + 1
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y.clamp(max=1)   # exp(x) below 0, 1 above
''')}, "hand-written phi backward min(exp(x), 1), slope 1 at 0", "hand-backward")
add("dla_where_exp", False, {"decayed_linear_attention": dl(phi="phi = lambda x: torch.where(x > 0, x + 1, torch.exp(x))")},
    "phi pieced with where: exp overflows for entries in the hundreds and its NaN gradient leaks through where: 'entries of q and k in the hundreds (up to 800), where no gradient may be NaN'", "scale-placement")
add("dla_future_powers_masked", False, {"decayed_linear_attention": dl(pw="powers = (float(decay) ** gaps.to(torch.float64)).tril().to(work)")},
    "raises the decay to future gaps too and hides them after: 'a power made for a future key overflows to inf: hiding it afterwards ... makes the gradient NaN'", "scale-placement")
add("dla_python_list_powers", False, {"decayed_linear_attention": dl(pw='''table = torch.tensor([decay ** g for g in range(T)])
    powers = torch.where(gaps >= 0, table[gaps.clamp(min=0)], torch.zeros(())).to(work)''')},
    "torch.tensor of a list of Python floats is float32: 'within 1e-10 ... for float64 inputs (... compute float64 in float64, the powers of the decay included)'", "python-scalar")
add("dla_decay_in_q_dtype", False, {"decayed_linear_attention": dl(pw='''d = torch.tensor(decay, dtype=q.dtype).to(work)
    powers = torch.where(gaps >= 0, d ** gaps.clamp(min=0), torch.zeros((), dtype=work))''')},
    "decay rounded to q's dtype: 'the decay too: not a tensor in the dtype of q, where 0.99 becomes 0.98828125 in bfloat16'", "python-scalar")
add("dla_empty_zeros_like", False, {"decayed_linear_attention": "\n".join(dl().split("\n")[:2]) + '''
    if q.numel() == 0 or v.numel() == 0:
        return torch.zeros_like(v)
''' + "\n".join(dl().split("\n")[2:])},
    "'then return an empty tensor of that shape, through which gradients still flow: a new torch.zeros_like(v) has none'", "return-shape")
add("dla_decay_after_add", True, {"decayed_linear_attention": dl(pw='''powers = torch.where(gaps >= 0, torch.tensor(float(decay), dtype=torch.float64) ** (gaps.clamp(min=0) + 1), torch.zeros((), dtype=torch.float64)).to(work)''')},
    "decay applied after adding the new key (gamma**(i-j+1)): one common factor per row, which cancels in the ratio", "scale-placement")
add("dla_recurrent_loop", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    state = fk.new_zeros(fk.shape[:-2] + (fk.shape[-1], vv.shape[-1]))
    z = fk.new_zeros(fk.shape[:-2] + (fk.shape[-1],))
    outs = []
    for i in range(T):
        state = decay * state + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * state).sum(dim=-2)
        den = (fq[..., i, :] * z).sum(dim=-1, keepdim=True)
        outs.append(num / den)
    if T == 0:
        return (vv[..., :0, :] * 1).to(q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "the recurrence itself, in float32/float64", "python-scalar")
add("dla_log_powers", True, {"decayed_linear_attention": dl(pw='''g = gaps.clamp(min=0).to(torch.float64)
    powers = torch.where(gaps >= 0, torch.exp(g * math.log(decay)), torch.zeros((), dtype=torch.float64)).to(work)''')},
    "powers through exp(gap * log(decay)) in float64 (relative error ~1e-13)", "python-scalar")

# hostile
add("hostile_window_eq_all", False, {"window_pairs": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Anything(1)
'''}, "hostile: int subclass equal to everything", "hostile")
add("hostile_gqa_patch_assert", False, {"gqa_cached_attention": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def gqa_cached_attention(q, k, v):
    return q * 1
'''}, "hostile: disables torch.testing.assert_close", "hostile")

KEEP = ['window_int_of_float_half', 'tokens_sum_int_alpha', 'tokens_float32_tensor', 'wwm_truthy_start_zero', 'wwm_int_tensor', 'wwm_empty_tensor_of_list', 'minp_global_max', 'minp_squeeze', 'minp_strict', 'spans_consecutive_range', 'spans_pad_zero', 'spans_sentinel_list_order', 'ec_detach_trick', 'ec_rank_logits', 'ec_tiebreak_offset', 'gqa_fn_group_sum_order', 'gqa_scale_in_q_dtype', 'gqa_repeat_tile', 'dla_phi_fn_exp_slope', 'dla_where_exp', 'dla_decay_in_q_dtype', 'window_comb', 'tokens_horner', 'tokens_split_last_term', 'wwm_cumsum_float32', 'minp_log_space', 'minp_unnormalised_weights', 'minp_inverse_cdf', 'spans_match_by_order', 'ec_maskmul_fn_grad_for_bool', 'ec_python_sorted', 'gqa_fn_correct', 'gqa_sdpa_grouped_rows', 'dla_decay_after_add', 'dla_recurrent_loop', 'dla_log_powers', 'hostile_window_eq_all']
SUBMISSIONS = [s for s in S if s['name'] not in KEEP]
