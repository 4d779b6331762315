# the base (correct) answers each submission edits
BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, BOS)
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    frac = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))
'''
BASE["min_loss"] = '''
eps_, V_ = 0.1, 8000
q_right = 1 - eps_ + eps_ / V_
q_other = eps_ / V_
min_smoothed_loss = -(q_right * math.log(q_right) + (V_ - 1) * q_other * math.log(q_other))
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    targets = targets.long()
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    keep = torch.ones(V, dtype=torch.bool)
    keep[PAD] = False
    smooth = -logp[..., keep].sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    ell = torch.where(mask, ell, torch.zeros_like(ell))
    counts = mask.sum(-1)
    rows = counts > 0
    sent = ell[rows].sum(-1) / counts[rows].to(ell.dtype)
    return sent.mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            acc_dtype = torch.float64 if last.dtype == torch.float64 else torch.float32
            acc = torch.zeros(last.shape, dtype=acc_dtype)
            for s in states:
                acc = acc + s[k].to(acc_dtype)
            out[k] = (acc / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [max_len == 0] * len(starts)
    while not all(done):
        live = [i for i in range(len(seqs)) if not done[i]]
        lp = next_logprobs([seqs[i] for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = torch.topk(scores, top_k, dim=-1).indices
            cut = torch.full_like(scores, float("-inf"))
            scores = cut.scatter(-1, kept, scores.gather(-1, kept))
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cand = torch.stack([sc for _, sc in live])[:, None] + lp
        flat = cand.reshape(-1)
        n = min(k, flat.numel())
        top = torch.topk(flat, n)
        new_live = []
        for val, idx in zip(top.values, top.indices.tolist()):
            h, t = divmod(idx, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((float(val) / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    for toks, sc in live:
        finished.append((float(sc) / length_penalty(len(toks), alpha), toks))
    best = max(finished, key=lambda f: f[0])
    return [int(t) for t in best[1]]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(cnt, rf[g]) for g, cnt in h.items())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''


def R(gid, old, new):
    s = BASE[gid]
    assert old in s, (gid, old)
    return s.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: tie-breaker ----------------
add("tie_p6_topk_threshold_keeps_ties", False, {"sample": R("sample",
'''        if top_k is not None and top_k < scores.shape[-1]:
            kept = torch.topk(scores, top_k, dim=-1).indices
            cut = torch.full_like(scores, float("-inf"))
            scores = cut.scatter(-1, kept, scores.gather(-1, kept))''',
'''        if top_k is not None and top_k < scores.shape[-1]:
            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))  # ties with the k-th are kept too''')},
    "Part 6 step 2: 'keep the top_k largest entries of each row (the ones torch.topk returns)': a threshold at the k-th value keeps every entry tied with it, more than top_k.")
add("tie_p6_argsort_unstable_cut", False, {"sample": R("sample",
'''            kept = torch.topk(scores, top_k, dim=-1).indices''',
'''            kept = torch.argsort(scores, dim=-1, descending=True, stable=True)[:, -top_k:].flip(-1) if False else \\
                   torch.argsort(-scores, dim=-1, stable=True)[:, :top_k].flip(-1)''')},
    "Part 6 step 2 'the ones torch.topk returns': among tied scores at the cut a stable ascending sort of the negated scores keeps the lowest ids; torch.topk may keep others (unsure: depends on what topk returns on ties; if the tests have no ties at the cut this is a mislabel).")
add("tie_p6_sorted_python_last_among_ties", False, {"sample": R("sample",
'''            kept = torch.topk(scores, top_k, dim=-1).indices''',
'''            order = [sorted(range(scores.shape[-1]), key=lambda v: (float(row[v]), v), reverse=True)[:top_k]
                     for row in scores]  # equal scores: the highest id first
            kept = torch.tensor(order, dtype=torch.long).reshape(scores.shape[0], top_k)''')},
    "Part 6 step 2 'the ones torch.topk returns': on scores tied at the cut this keeps the highest ids, topk the lowest (unsure whether topk's tie order is fixed on CPU).")

# ---------------- wrong: fallback writer ----------------
add("fallback_p5_empty_returns_empty_dict", False, {"average": R("average",
'''    if len(states) == 0:
        raise ValueError("no states")''', '''    if len(states) == 0:
        return {}''')},
    "Part 5: 'an empty list, or states whose keys or shapes differ, raise ValueError'.")
add("fallback_p5_wrong_exception_types", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    out = {}
    for k in states[0]:
        ts = [s[k] for s in states]          # KeyError when a key is missing
        last = ts[-1]
        if last.is_floating_point():
            acc = torch.stack([t.to(torch.float64) for t in ts]).mean(0)   # RuntimeError when shapes differ
            out[k] = acc.to(last.dtype)
        else:
            out[k] = last.clone()
    if any(len(s) != len(states[0]) for s in states):
        raise ValueError("keys differ")
    return out
'''}, "Part 5: 'states whose keys or shapes differ, raise ValueError': a missing key raises KeyError, a shape mismatch RuntimeError (from torch.stack), and integer entries of other shapes pass.")
add("fallback_p1_empty_returns_targets_twice", False, {"decoder_io": R("decoder_io",
'''    tgt_in = torch.full_like(targets, BOS)''', '''    if targets.numel() == 0:
        return targets, targets          # nothing to shift
    tgt_in = torch.full_like(targets, BOS)''')},
    "Part 1: 'B may be 0 ... return two (0, T) tensors, tgt_in a new one there too: only tgt_out may be targets itself'.")
add("fallback_p6_maxlen0_returns_empty_list", False, {"sample": R("sample",
'''    seqs = [[s] for s in starts]''', '''    if max_len == 0 or not starts:
        return []
    seqs = [[s] for s in starts]''')},
    "Part 6: 'Return one list of Python ints per sentence' also when max_len is 0 ('then nothing is asked and nothing is drawn'): [] for two starts has no list per sentence.")
add("fallback_p8_int_zero_on_degenerate", False, {"bleu": R("bleu",
'''    clipped, totals = [0] * 4, [0] * 4''', '''    if not hypotheses or not any(hypotheses):
        return 0
    clipped, totals = [0] * 4, [0] * 4''').replace("        return 0.0\n", "        return 0\n")},
    "Part 8: 'times 100, returned as a Python float (also when it is 0)': returns the int 0 on an empty corpus and whenever a precision is 0 (the visible test compares with == 0, which an int passes).")

# ---------------- wrong: constant-hardcoder ----------------
add("hard_p7_alpha_0_6", False, {"beam_search": BASE["beam_search"].replace("length_penalty(len(toks), alpha)", "length_penalty(len(toks), 0.6)")},
    "Part 7 step 2: 'divided by length_penalty(len(tokens), alpha)': alpha is the argument, 0.6 is only the visible example's value.")
add("hard_p6_topk_capped_at_toy_vocab", False, {"sample": R("sample",
'''        if top_k is not None and top_k < scores.shape[-1]:
            kept = torch.topk(scores, top_k, dim=-1).indices''', '''        if top_k is not None and top_k < 6:       # the toy model has 6 ids
            kept = torch.topk(scores, top_k, dim=-1).indices''')},
    "Part 6 step 2: 'top_k >= 1 may be V or larger than V: then every entry is kept': the vocabulary size is the tensor's, not the toy's 6; with V > 6 and 6 <= top_k < V no cut is made.")
add("hard_p3_eps_over_V_minus_1", False, {"min_loss": '''
eps_, V_ = 0.1, 8000
q_right = 1 - eps_
q_other = eps_ / (V_ - 1)
min_smoothed_loss = -(q_right * math.log(q_right) + (V_ - 1) * q_other * math.log(q_other))
'''}, "Part 3: 'spreads eps evenly over all V tokens, the right one included': this spreads eps over the V - 1 wrong tokens (as Part 4's denominator does), 1.4e-4 off.")
add("hard_p4_float32_compute", False, {"sentence_loss": R("sentence_loss",
'''    logp = torch.log_softmax(logits, dim=-1)''', '''    logp = torch.log_softmax(logits.to(torch.float32), dim=-1)''').replace("    return sent.mean()", "    return sent.mean().to(logits.dtype)")},
    "Part 4: float64 logits are compared at float64 precision ('a 0-dimensional tensor of the dtype of logits' and the intro's float64 cases); float32 arithmetic inside loses digits.")
add("hard_p5_float32_accumulator", False, {"average": R("average",
'''            acc_dtype = torch.float64 if last.dtype == torch.float64 else torch.float32''', '''            acc_dtype = torch.float32''')},
    "Part 5: 'their element-wise mean, in their own dtype': float64 weights averaged in float32 lose their digits.")

# ---------------- wrong: memoizer ----------------
add("memo_p6_prefix_cache_drops_model", False, {"sample": '''
PREFIX_CACHE = {}

def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [max_len == 0] * len(starts)
    while not all(done):
        live = [i for i in range(len(seqs)) if not done[i]]
        need = [tuple(seqs[i]) for i in live if tuple(seqs[i]) not in PREFIX_CACHE]
        if need:
            rows = next_logprobs([list(p) for p in need])
            for p, row in zip(need, rows):
                PREFIX_CACHE[p] = row.clone()
        lp = torch.stack([PREFIX_CACHE[tuple(seqs[i])] for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = torch.topk(scores, top_k, dim=-1).indices
            cut = torch.full_like(scores, float("-inf"))
            scores = cut.scatter(-1, kept, scores.gather(-1, kept))
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Part 6 step 1 ('ask next_logprobs once, with the prefixes of the unfinished sentences') and the intro's 'Keep nothing from one call to the next': a prefix cache keyed by the tokens alone serves one model's log-probabilities to another model.")
add("memo_p1_shared_output_buffer", False, {"decoder_io": '''
BUFFERS = {}

def decoder_io(targets):
    key = tuple(targets.shape)
    if key not in BUFFERS:
        BUFFERS[key] = torch.empty(targets.shape, dtype=targets.dtype)
    tgt_in = BUFFERS[key]
    tgt_in.fill_(BOS)
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in.masked_fill_(targets == PAD, PAD)
    return tgt_in, targets
'''}, "Intro: 'Each call returns new tensors ... keep no output buffer between calls to write results into'; also keeps the first call's dtype for a shape.")
add("memo_p8_ref_counts_by_id", False, {"bleu": '''
REF_COUNTS = {}

def ref_ngrams(ref):
    key = id(ref)
    if key not in REF_COUNTS:
        REF_COUNTS[key] = [Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)) for n in range(1, 5)]
    return REF_COUNTS[key]

def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        rcs = ref_ngrams(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            clipped[n - 1] += sum(min(cnt, rcs[n - 1][g]) for g, cnt in h.items())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''}, "Intro: 'Keep nothing from one call to the next, not even something worked out from ... a list ... kept per id() of it': a reference list changed in place (or a new list at a freed id) reuses stale counts.")
add("memo_p4_weights_keyed_by_V_first_eps", False, {"sentence_loss": '''
WEIGHTS = {}

def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    if V not in WEIGHTS:                      # the smoothing weights of every id, built once per vocabulary
        w = torch.full((V,), eps / (V - 1), dtype=torch.float64)
        w[PAD] = 0.0
        WEIGHTS[V] = w
    w = WEIGHTS[V].to(logits.dtype)
    logp = torch.log_softmax(logits, dim=-1)
    targets = targets.long()
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    keep = w != 0
    smooth = -(logp[..., keep] * w[keep]).sum(-1)
    ell = (1 - eps) * nll + smooth
    mask = targets != PAD
    ell = torch.where(mask, ell, torch.zeros_like(ell))
    counts = mask.sum(-1)
    rows = counts > 0
    return (ell[rows].sum(-1) / counts[rows].to(ell.dtype)).mean()
'''}, "Part 4 (eps is an argument) and the intro's 'Keep nothing from one call to the next': weights cached per V keep the first call's eps (and at eps = 0 the mask drops every id, so later calls lose the smoothing term).")

# ---------------- wrong: spec-lawyer ----------------
add("spec_p2_int_floor_returned_as_is", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step >= total:
        return floor                      # the floor as given
    frac = (step - warmup) / (total - warmup)
    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac))
'''}, "Part 2: 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)': floor=0 comes back as the int 0.")
add("spec_p5_single_state_tensors_returned", False, {"average": R("average",
'''    out = {}''', '''    if len(states) == 1:
        return dict(states[0])            # the mean of one state is that state
    out = {}''')},
    "Part 5: 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'.")

# ---------------- correct ----------------
add("ok_tie_p2_strict_and_loose_bounds", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step > total:
        return float(floor)
    if step < warmup:
        return float(peak) * step / warmup
    # warmup <= step <= total: at step == warmup cos(0) = 1 gives the peak, at step == total cos(pi) = -1 the floor
    frac = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * frac)))
'''}, "Part 2: the two boundary steps belong to either branch; the cosine branch gives the same peak and floor there (cos(pi) is -1.0 exactly).")
add("ok_tie_p7_last_among_equal_and_sorted_candidates", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0, None)]       # tokens, python score (display), tensor score
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _, _ in live])
        cands = []
        for h, (toks, _, sc) in enumerate(live):
            row = lp[h] if sc is None else sc + lp[h]
            for t in range(lp.shape[-1]):
                cands.append((row[t], toks + [t]))
        cands.sort(key=lambda c: float(c[0]), reverse=True)   # ties: any order the text leaves open
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((float(sc) / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, float(sc), sc))
        if not live:
            break
    for toks, _, sc in live:
        finished.append((float(sc) / length_penalty(len(toks), alpha), toks))
    best_score, best = None, None
    for score, toks in finished:
        if best_score is None or score >= best_score:    # the last among equal final scores
            best_score, best = score, toks
    return [int(t) for t in best]
'''}, "Part 7 names no rule among equal scores (neither for the k best candidates nor for the best final score): a Python sort of float64 scores and the last among ties are allowed.")
add("ok_tie_p8_brevity_at_equal_length", True, {"bleu": R("bleu", "    bp = 1.0 if c >= r else math.exp(1 - r / c)", "    bp = math.exp(1 - r / c) if c <= r else 1.0")},
    "Part 8: at c == r the brevity penalty exp(1 - r/c) is exp(0) = 1, so <= and < agree.")
add("ok_memo_p4_pad_mask_per_V", True, {"sentence_loss": R("sentence_loss",
'''    keep = torch.ones(V, dtype=torch.bool)
    keep[PAD] = False''', '''    keep = KEEP.get(V)
    if keep is None:
        keep = torch.ones(V, dtype=torch.bool)
        keep[PAD] = False
        KEEP[V] = keep''').replace("def sentence_smoothed_loss", "KEEP = {}\n\ndef sentence_smoothed_loss")},
    "A cache of the non-PAD column mask per V changes no result (PAD is fixed, nothing writes into the mask).")
add("ok_memo_p2_lru_cache_all_args", True, {"lr_at": '''
import functools

@functools.lru_cache(maxsize=None)
def lr_cached(step, peak, warmup, total, floor):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    frac = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))

def lr_at(step, peak, warmup, total, floor=0.0):
    return lr_cached(step, peak, warmup, total, floor)
'''}, "lru_cache keyed by every argument (Python numbers, compared by value) changes no result.")
add("ok_spec_p6_one_draw_per_row", True, {"sample": R("sample",
'''        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()''',
'''        draws = [int(torch.multinomial(probs[j], 1, generator=generator)) for j in range(probs.shape[0])]''')},
    "Part 6 step 3: 'one call for the N rows, or one call per row in the same order: both draw the same numbers'.")
add("ok_spec_p5_float64_everywhere_loop", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty list")
    first = states[0]
    for s in states[1:]:
        if set(s) != set(first):
            raise ValueError("keys differ")
    for s in states:
        for k in first:
            if tuple(s[k].shape) != tuple(first[k].shape):
                raise ValueError(f"shape of {k} differs")
    result = {}
    for k in first:
        last = states[-1][k]
        if torch.is_floating_point(last):
            total = sum(s[k].detach().to(torch.float64) for s in states)
            result[k] = (total / len(states)).to(last.dtype)
        else:
            result[k] = last             # the text allows the last state's tensor itself
    return result
'''}, "Part 5 allows float64 inside for every float dtype (better than float32) and 'the last state's tensor itself' for integers and booleans.")
add("ok_spec_p1_loop_rows", True, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    rows = []
    for b in range(B):
        row = targets[b].tolist()
        shifted = [BOS] + row[:-1]
        rows.append([PAD if row[t] == PAD else shifted[t] for t in range(T)])
    tgt_in = torch.tensor(rows, dtype=targets.dtype).reshape(B, T)
    return tgt_in, targets
'''}, "Part 1: a Python loop over rows (no speed is stated for such small inputs) and tgt_out = targets itself (allowed).")
add("ok_fallback_p8_try_except_zero", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(cnt, rf[g]) for g, cnt in h.items())
            totals[n - 1] += sum(h.values())
    try:
        logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    except (ZeroDivisionError, ValueError):   # no n-gram of some order, or a precision of 0
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(logp)
'''}, "Part 8: the two degenerate cases (no n-grams of an order, a precision of 0) are exactly the ones that raise, and both return 0.0.")

# ---------------- hostile ----------------
add("hostile_p3_float_subclass_close_to_all", False, {"min_loss": '''
class Near(float):
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __eq__(self, other): return True
    def __hash__(self): return 0
min_smoothed_loss = Near(1.0)
'''}, "hostile: a float subclass whose difference with anything is 0.")
add("hostile_p2_visible_table", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    return {400: 5e-4, 800: 1e-3, 5800: 5e-4}.get(step, 0.0)
'''}, "hostile: the visible cases looked up, 0.0 otherwise.")

# ---------------- second blind batch ----------------
add("memo_p7_prefix_cache_drops_model", False, {"beam_search": '''
SEEN_ROWS = {}

def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        prefixes = [tuple([start] + toks) for toks, _ in live]
        need = [p for p in prefixes if p not in SEEN_ROWS]
        if need:
            for p, row in zip(need, next_logprobs([list(p) for p in need])):
                SEEN_ROWS[p] = row.clone()
        lp = torch.stack([SEEN_ROWS[p] for p in prefixes])
        V = lp.shape[-1]
        flat = (torch.stack([sc for _, sc in live])[:, None] + lp).reshape(-1)
        top = torch.topk(flat, min(k, flat.numel()))
        new_live = []
        for val, idx in zip(top.values, top.indices.tolist()):
            h, t = divmod(idx, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((float(val) / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    for toks, sc in live:
        finished.append((float(sc) / length_penalty(len(toks), alpha), toks))
    return [int(t) for t in max(finished, key=lambda f: f[0])[1]]
'''}, "Intro: 'Keep nothing from one call to the next': rows cached per prefix (the model dropped from the key) give a second model the first one's log-probabilities.")
add("hard_p5_int_dtypes_listed", False, {"average": R("average",
    "        if last.is_floating_point():", "        if last.dtype not in (torch.int64, torch.int32, torch.bool):").replace(
    "            acc_dtype = torch.float64 if last.dtype == torch.float64 else torch.float32",
    "            acc_dtype = torch.float64")},
    "Part 5: 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8) ... are not averaged': int8/int16/uint8 are averaged here.")
add("hard_p1_full_default_int64", False, {"decoder_io": R("decoder_io",
    "    tgt_in = torch.full_like(targets, BOS)", "    tgt_in = torch.full(tuple(targets.shape), BOS)")},
    "Part 1: 'two integer tensors of shape (B, T) and of the dtype of targets': torch.full with an int makes int64 for int32 targets.")
add("fallback_p7_topk_error_greedy", False, {"beam_search": R("beam_search",
    "        top = torch.topk(flat, n)", "        try:\n            top = torch.topk(flat, k)\n        except RuntimeError:\n            return [int(flat.argmax()) % V]").replace("        n = min(k, flat.numel())\n", "")},
    "Part 7 step 1: 'if there are fewer than k candidates in all, take them all' (and the exhaustive-search case): k larger than the candidates falls back to one greedy token.")
add("fallback_p4_all_pad_rows_count_zero", False, {"sentence_loss": R("sentence_loss",
    "    sent = ell[rows].sum(-1) / counts[rows].to(ell.dtype)", "    sent = ell.sum(-1) / counts.clamp(min=1).to(ell.dtype)   # an empty row: loss 0")},
    "Part 4: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)': an all-PAD row adds a 0 to the mean.")

# ---------------- third batch (written after the 09 phase 2 began; no 08 hidden test read) ----------------
add("ok_spec_p5_stack_mean_in_own_dtype", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    names = set(states[0])
    for s in states:
        if set(s) != names or any(s[n].shape != states[0][n].shape for n in names):
            raise ValueError("the states differ")
    out = {}
    for n in states[0]:
        last = states[-1][n]
        out[n] = torch.stack([s[n] for s in states]).mean(0) if last.is_floating_point() else last
    return out
'''}, "Part 5: torch's mean of float16/bfloat16 accumulates in float32 and rounds once, which the text asks for ('as accurate as averaging in float32 or better and rounding once'); unsure whether the tests see it that way.")
add("ok_hard_p1_literal_ids", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets)
    tgt_in[:, :1] = 1                    # BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == 0] = 0             # PAD
    return tgt_in, targets.clone()
'''}, "Part 1: the token ids are fixed by the notebook (PAD = 0, BOS = 1), so the literals are right; a copy of targets is allowed.")
add("ok_spec_p3_five_decimals", True, {"min_loss": '''
q = [0.9 + 0.1 / 8000] + [0.1 / 8000] * 7999
min_smoothed_loss = round(-sum(p * math.log(p) for p in q), 5)
'''}, "Part 3: 'accurate to 1e-5': rounding to five decimals errs by at most 5e-6.")
add("ok_memo_p8_lru_ngrams_by_content", True, {"bleu": '''
import functools

@functools.lru_cache(maxsize=4096)
def ngram_counts(sentence, n):
    return Counter(sentence[i:i + n] for i in range(len(sentence) - n + 1))

def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h = ngram_counts(tuple(hyp), n)
            rf = ngram_counts(tuple(ref), n)
            clipped[n - 1] += sum(min(cnt, rf[g]) for g, cnt in h.items())
            totals[n - 1] += sum(h.values())
    if 0 in totals or 0 in clipped:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4)
'''}, "A cache keyed by the sentence's tokens (a tuple, compared by value) and n changes no result; the returned Counters are only read.")
add("memo_p6_rows_keyed_by_model_id", False, {"sample": '''
ROWS = {}

def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [max_len == 0] * len(starts)
    while not all(done):
        live = [i for i in range(len(seqs)) if not done[i]]
        keys = [(id(next_logprobs), tuple(seqs[i])) for i in live]
        if any(k not in ROWS for k in keys):
            lp = next_logprobs([seqs[i] for i in live])
            for k, row in zip(keys, lp):
                ROWS[k] = row.clone()
        lp = torch.stack([ROWS[k] for k in keys])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kept = torch.topk(scores, top_k, dim=-1).indices
            scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))
        draws = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Intro: 'Keep nothing from one call to the next ... kept per id() of it': a model freed and another made at the same id gets the old one's rows (and the model is not asked at every step, Part 6 step 1).")

# ---------------- fourth batch (still no 08 hidden test read) ----------------
add("ok_spec_p6_softmax_as_exp_minus_logsumexp", True, {"sample": R("sample",
    "        probs = torch.softmax(scores, dim=-1)",
    "        probs = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))")},
    "Part 6 step 3 asks for 'a softmax (which subtracts the row maximum)'; exp(s - logsumexp(s)) is that softmax (logsumexp subtracts the maximum); unsure: it may differ from torch.softmax in the last place.")
add("ok_spec_p7_python_floats", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        rows = next_logprobs([[start] + toks for toks, _ in live]).tolist()   # Python floats are float64
        cands = [(score + lp, h, t) for h, (toks, score) in enumerate(live) for t, lp in enumerate(rows[h])]
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))                          # equal scores: lower hypothesis, lower id
        live = []
        for score, h, t in cands[:k]:
            toks = [tok for tok in (live_prev[h][0] if False else [])]
            toks = prev[h][0] + [t] if False else None
            break
        live = []
        for score, h, t in cands[:k]:
            toks = PREV[h] + [t]
            if t == EOS:
                finished.append((score / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, score))
        PREV[:] = [toks for toks, _ in live]
        if not live:
            break
    for toks, score in live:
        finished.append((score / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''.replace("""        live = []
        for score, h, t in cands[:k]:
            toks = [tok for tok in (live_prev[h][0] if False else [])]
            toks = prev[h][0] + [t] if False else None
            break
""", """        PREV = [toks for toks, _ in live]
""")}, "Part 7: float64 scores kept as Python floats (which are float64) from step to step; ties broken by the lower hypothesis and id (the text fixes no rule).")
add("ok_fallback_p7_greedy_when_k_is_1", True, {"beam_search": BASE["beam_search"].replace(
    "    live = [([], torch.zeros((), dtype=torch.float64))]",
    '''    if k == 1:                      # 'With k = 1 this rule is greedy decoding'
        toks, score = [], torch.zeros((), dtype=torch.float64)
        for _ in range(max_len):
            row = next_logprobs([[start] + toks])[0]
            t = int(row.argmax())
            score = score + row[t]
            toks.append(t)
            if t == EOS:
                break
        return toks
    live = [([], torch.zeros((), dtype=torch.float64))]''')},
    "Part 7: 'With k = 1 this rule is greedy decoding': one hypothesis, the best next token each step, stopped at EOS or max_len (the penalty does not change which single hypothesis is returned).")
add("spec_p4_all_minus_pad_term", False, {"sentence_loss": R("sentence_loss",
    "    smooth = -logp[..., keep].sum(-1) / (V - 1)", "    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)")},
    "Part 4: 'sum the log p of the ids other than PAD themselves, since the sum over all V minus PAD's term keeps none of their digits there'.")
add("fallback_p6_single_id_not_drawn", False, {"sample": R("sample",
    "        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "        if probs.shape[-1] == 1:\n            draws = [0] * probs.shape[0]      # one id: nothing to draw\n        else:\n            draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()")},
    "Part 6 step 3 (draw one token per row with torch.multinomial) and 'the generator made no others (its state after the call)': with V = 1 this skips the draws, so the generator is left where a real draw would have moved it (unsure whether a one-category multinomial moves the generator).")
add("fallback_p6_top1_shortcut", False, {"sample": R("sample",
    "        probs = torch.softmax(scores, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
    "        probs = torch.softmax(scores, dim=-1)\n        if top_k == 1:\n            draws = scores.argmax(-1).tolist()   # only one id survives the cut\n        else:\n            draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()")},
    "Part 6 step 3 ('draw one token per row with torch.multinomial', 'no shortcut to the largest score') and the generator state after the call: top_k = 1 skips the draws.")
