BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS, dtype=targets.dtype)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = torch.where(targets == PAD, torch.full_like(tgt_in, PAD), tgt_in)
    return tgt_in, targets.clone()
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step < total:
        frac = (step - warmup) / (total - warmup)
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))
    return float(floor)
'''
BASE["min_loss"] = '''
eps, V = 0.1, 8000
p_right = 1 - eps + eps / V
p_other = eps / V
min_smoothed_loss = -(p_right * math.log(p_right) + (V - 1) * p_other * math.log(p_other))
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = t != PAD
    cnt = mask.sum(1)
    per = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype)).sum(1)
    rows = cnt > 0
    return (per[rows] / cnt[rows].to(ell.dtype)).mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for kk in keys:
            if s[kk].shape != states[0][kk].shape:
                raise ValueError("shapes differ")
    out = {}
    for kk in states[0].keys():
        t = states[-1][kk]
        if t.is_floating_point():
            acc_dtype = torch.float64 if t.dtype == torch.float64 else torch.float32
            acc = torch.zeros(t.shape, dtype=acc_dtype)
            for s in states:
                acc = acc + s[kk].to(acc_dtype)
            out[kk] = (acc / len(states)).to(t.dtype)
        else:
            out[kk] = t.clone()
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    new = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            cut = torch.full_like(lp, float("-inf"))
            cut.scatter_(-1, idx, vals)
            lp = cut
        probs = torch.softmax(lp, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator).squeeze(1).tolist()
        still = []
        for i, tok in zip(live, toks):
            seqs[i].append(tok)
            new[i].append(tok)
            if tok != EOS and len(new[i]) < max_len:
                still.append(i)
        live = still
    return new
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, sc) in enumerate(live):
            for v in range(lp.shape[1]):
                cands.append((sc + float(lp[h, v]), toks + [v]))
        cands.sort(key=lambda c: -c[0])
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
        if not live:
            break
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())
            total[n - 1] += sum(hc.values())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''
SUBMISSIONS = [{"name": "base", "correct": True, "cells": {}, "why": "model"}]

def sub(gid, old, new, count=1):
    s = BASE[gid]
    assert s.count(old) >= 1, (gid, old)
    return s.replace(old, new, count)

def W(name, cells, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})
# ---------------- Part 1
W("p1_roll_times_mask", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, shifts=1, dims=1)
    tgt_in[:, 0] = BOS
    keep = (targets != PAD).to(targets.dtype)
    return tgt_in * keep + PAD * (1 - keep), targets
'''}, "different but correct: roll, then PAD through arithmetic with the mask", correct=True)
W("p1_replace_eos_by_pad", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.new_full(targets.shape, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[tgt_in == EOS] = PAD
    return tgt_in, targets
'''}, "different but correct under the stated layout (sentence, EOS, PADs): after the shift the only EOS left stands where the target is PAD", correct=True)
W("p1_bos_column_int64", {"decoder_io": '''
def decoder_io(targets):
    B = targets.shape[0]
    tgt_in = torch.cat([torch.full((B, 1), BOS), targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "'two integer tensors of shape (B, T) and of the dtype of targets': torch.cat promotes int32 targets to int64 (closed class: dtype)")
# ---------------- Part 2
W("p2_warmup_from_floor", {"lr_at": sub("lr_at", "return float(peak * step / warmup)", "return float(floor + (peak - floor) * step / warmup)")},
  "'lr = peak * step / warmup for step <= warmup': the warm-up starts at 0, not at the floor")
W("p2_floor_as_clamp", {"lr_at": sub("lr_at", "return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))",
  "return float(max(floor, peak / 2 * (1 + math.cos(math.pi * frac))))")},
  "'floor + (peak - floor)/2 (1 + cos(...))': the cosine decays from the peak to the floor, not to 0 then clamped")
W("p2_no_third_branch", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    frac = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * frac)))
'''}, "'reached at step total and kept afterwards': past total the cosine rises again")
W("p2_min_frac", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup and step <= warmup:
        return peak * (step / warmup)
    t = min(1.0, (step - warmup) / (total - warmup))
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * t))
'''}, "different but correct: one cosine branch with the progress clamped to 1 (cos(pi) = -1 gives the floor)", correct=True)
# ---------------- Part 3
W("p3_spread_over_others", {"min_loss": '''
eps, V = 0.1, 8000
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "'spreads eps evenly over all V tokens, the right one included'")
W("p3_cross_entropy_only_right", {"min_loss": '''
eps, V = 0.1, 8000
# best model puts all its mass... no: best is p = target distribution; loss = its entropy
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * q.log()).sum())
'''}, "different but correct: the entropy of the smoothed target computed with torch", correct=True)
W("p3_log2", {"min_loss": '''
eps, V = 0.1, 8000
p_right = 1 - eps + eps / V
p_other = eps / V
min_smoothed_loss = -(p_right * math.log2(p_right) + (V - 1) * p_other * math.log2(p_other))
'''}, "'in nats, natural logarithm'")
# ---------------- Part 4
W("p4_spread_over_V_with_pad", {"sentence_loss": sub("sentence_loss", "smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)", "smooth = -logp.sum(-1) / V")},
  "'spreads eps evenly over the V - 1 tokens other than PAD (... PAD is never a target and gets no share)'")
W("p4_token_mean", {"sentence_loss": sub("sentence_loss", "return (per[rows] / cnt[rows].to(ell.dtype)).mean()", "return per.sum() / cnt.sum().to(ell.dtype)")},
  "'the loss of a sentence is the mean of l over its positions ...; the result is the mean of the sentence losses'")
W("p4_pad_row_counts_zero", {"sentence_loss": sub("sentence_loss", "return (per[rows] / cnt[rows].to(ell.dtype)).mean()", "return (per / cnt.clamp(min=1).to(ell.dtype)).mean()")},
  "'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")
W("p4_pad_prefix_length", {"sentence_loss": sub("sentence_loss", "mask = t != PAD", "first_pad = torch.where(t == PAD, torch.arange(t.shape[1]), t.shape[1]).min(1).values\n    mask = torch.arange(t.shape[1])[None, :] < first_pad[:, None]")},
  "'(wherever they are: a PAD may also stand inside a row)': counts only the positions before the first PAD")
W("p4_cross_entropy_builtin", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.nn.functional.log_softmax(logits, dim=-1)
    w = torch.ones(V, dtype=logits.dtype)
    w[PAD] = 0
    smooth = -(logp * w).sum(-1) / (V - 1)
    nll = torch.nn.functional.nll_loss(logp.reshape(B * T, V), targets.reshape(-1).long(), reduction="none", ignore_index=PAD).reshape(B, T)
    ell = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).to(logits.dtype)
    n = mask.sum(1)
    per = (ell * mask).sum(1)
    has = n > 0
    return (per[has] / n[has]).sum() / has.sum()
'''}, "different but correct: nll_loss with ignore_index and a weight vector for the smoothing term", correct=True)
# ---------------- Part 5
W("p5_key_order_matters", {"average": sub("average", "if set(s.keys()) != keys:", "if list(s.keys()) != list(states[0].keys()):")},
  "'the same keys in another order do not differ'")
W("p5_shapes_not_checked", {"average": sub("average", "            if s[kk].shape != states[0][kk].shape:\n                raise ValueError(\"shapes differ\")", "            pass")},
  "'states whose keys or shapes differ, raise ValueError': (1,) and () broadcast in the sum")
W("p5_bf16_not_float", {"average": sub("average", "if t.is_floating_point():", "if t.dtype in (torch.float16, torch.float32, torch.float64):")},
  "'floating-point tensors become their element-wise mean ... (float16, bfloat16)': bfloat16 taken from the last state")
W("p5_divide_each_in_half", {"average": sub("average", "acc = acc + s[kk].to(acc_dtype)\n            out[kk] = (acc / len(states)).to(t.dtype)",
  "acc = acc + (s[kk] / len(states)).to(acc_dtype)\n            out[kk] = acc.to(t.dtype)")},
  "'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once': each term divided (and rounded) in float16 first")
# ---------------- Part 6
W("p6_start_eos_finishes", {"sample": sub("sample", "    live = list(range(len(starts)))", "    live = [i for i, s in enumerate(starts) if s != EOS]")},
  "'Its start token is not produced: a start token that is EOS does not finish it'")
W("p6_threshold_topk", {"sample": sub("sample", "            vals, idx = torch.topk(lp, top_k, dim=-1)\n            cut = torch.full_like(lp, float(\"-inf\"))\n            cut.scatter_(-1, idx, vals)\n            lp = cut",
  "            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]\n            lp = lp.masked_fill(lp < kth, float(\"-inf\"))")},
  "'keep the top_k largest entries of each row (the ones torch.topk returns) and set the others to -inf': a threshold keeps every entry tied with the k-th")
W("p6_ask_all_rows", {"sample": sub("sample", "        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature",
  "        lp = next_logprobs(seqs).to(torch.float64)[live] / temperature")},
  "'ask next_logprobs once, with the prefixes of the unfinished sentences only'")
W("p6_topk_before_temperature", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    prefixes = [[s] for s in starts]
    active = [i for i in range(len(starts))] if max_len > 0 else []
    while active:
        lp = next_logprobs([prefixes[i] for i in active]).double()
        if top_k is not None:
            top = lp.topk(top_k, dim=-1)
            lp = torch.full_like(lp, -math.inf).scatter(-1, top.indices, top.values)
        probs = (lp / temperature).softmax(-1)
        drawn = [int(torch.multinomial(probs[r], 1, generator=generator)) for r in range(len(active))]
        nxt = []
        for i, tok in zip(active, drawn):
            prefixes[i].append(tok)
            out[i].append(tok)
            if tok != EOS and len(out[i]) < max_len:
                nxt.append(i)
        active = nxt
    return out
'''}, "different but correct: top-k cut before the temperature (a monotone scaling keeps the same entries), one draw per row", correct=True)
# ---------------- Part 7
W("p7_penalty_without_eos", {"beam_search": sub("beam_search", "finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:",
  "finished.append((sc / length_penalty(len(toks) - 1, alpha), toks))\n            else:")},
  "'its final score is its log-probability divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'")
W("p7_stop_at_first_finished", {"beam_search": sub("beam_search", "        if not live:\n            break", "        if not live or finished:\n            break")},
  "'stop when no hypothesis is live, or after max_len steps'")
W("p7_best_by_raw_logprob", {"beam_search": sub("beam_search", "return max(finished, key=lambda f: f[0])[1]",
  "return max(finished, key=lambda f: f[0] * length_penalty(len(f[1]), alpha))[1]")},
  "'Return the finished hypothesis with the best final score'")
W("p7_start_in_hyp", {"beam_search": sub("beam_search", "    live = [([], 0.0)]\n    finished = []", "    live = [([], 0.0)]\n    finished = []\n    if start == EOS:\n        return []")},
  "'any id, EOS included: only the tokens after it can finish a hypothesis'")
W("p7_live_unpenalised_at_end", {"beam_search": sub("beam_search", "    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))",
  "    for toks, sc in live:\n        finished.append((sc, toks))")},
  "'then live hypotheses are finished as they are (same scoring, no EOS)'")
# ---------------- Part 8
W("p8_join_ngrams", {"bleu": sub("bleu", "hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))\n            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))",
  "hc = Counter(\" \".join(hyp[i:i + n]) for i in range(len(hyp) - n + 1))\n            rc = Counter(\" \".join(ref[i:i + n]) for i in range(len(ref) - n + 1))")},
  "'tokens are compared exactly as given': n-grams joined with spaces make ['a b', 'c'] equal ['a', 'b c']")
W("p8_unclipped_presence", {"bleu": sub("bleu", "clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())", "clipped[n - 1] += sum(cnt for g, cnt in hc.items() if g in rc)")},
  "'each hypothesis n-gram counts at most as often as it occurs in its reference'")
W("p8_bp_swapped", {"bleu": sub("bleu", "bp = 1.0 if c >= r else math.exp(1 - r / c)", "bp = math.exp(1 - r / c) if c != r else 1.0")},
  "'times the brevity penalty exp(1 - r / c) when c is shorter than r (1 otherwise)': a longer hypothesis gets a bonus")
W("p8_sentence_average", {"bleu": '''
def corpus_bleu(hypotheses, references):
    def ngrams(toks, n):
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    logs = []
    for n in range(1, 5):
        ratios = []
        for hyp, ref in zip(hypotheses, references):
            h, rr = ngrams(hyp, n), ngrams(ref, n)
            if sum(h.values()):
                ratios.append(sum((h & rr).values()) / sum(h.values()))
        p = sum(ratios) / len(ratios) if ratios else 0.0
        if p == 0:
            return 0.0
        logs.append(math.log(p))
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(logs) / 4)
'''}, "'a corpus-level ratio, not an average of per-sentence ratios'")
W("p8_counter_and_geomean", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = Counter(); count = Counter()
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp); ref_len += len(ref)
        for n in (1, 2, 3, 4):
            h = Counter(zip(*[hyp[i:] for i in range(n)]))
            rr = Counter(zip(*[ref[i:] for i in range(n)]))
            match[n] += sum((h & rr).values())
            count[n] += sum(h.values())
    prod = 1.0
    for n in (1, 2, 3, 4):
        if count[n] == 0 or match[n] == 0:
            return 0.0
        prod *= match[n] / count[n]
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * prod ** 0.25
'''}, "different but correct: Counter intersection and zip n-grams, product to the 1/4", correct=True)
# ---------------- hostile
W("hostile_float_lies", {"lr_at": '''
class Close(float):
    def __sub__(self, o): return Close(0.0)
    def __rsub__(self, o): return Close(0.0)
    def __abs__(self): return 0.0
    def __eq__(self, o): return True
    __hash__ = float.__hash__
def lr_at(step, peak, warmup, total, floor=0.0):
    return Close(0.0)
'''}, "hostile: a float subclass that is close to everything")
W("hostile_patch_multinomial_and_eq", {"sample": '''
import builtins
_orig_all = builtins.all
builtins.all = lambda it: True
torch.Tensor.__eq__ = lambda self, other: True
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    return [[EOS] for _ in starts]
'''}, "hostile: patches builtins.all and Tensor.__eq__ (and uses a name with a leading underscore)")
W("hostile_read_notebook", {"bleu": '''
import glob, json, os
def corpus_bleu(hypotheses, references):
    # look for the instructor's solution on disk and call it
    for path in glob.glob("/work/*/solutions/08-*/exercises.ipynb") + glob.glob("../../solutions/08-*/exercises.ipynb") + glob.glob("solutions/08-*/exercises.ipynb"):
        try:
            nb = json.load(open(path))
            for c in nb["cells"]:
                if "def corpus_bleu" in "".join(c["source"]):
                    ns = {"Counter": Counter, "math": math}
                    exec("".join(c["source"]).split("### BEGIN SOLUTION")[-1].split("### END SOLUTION")[0].replace("    ", "    ", 1), ns)
                    if "corpus_bleu" in ns:
                        return ns["corpus_bleu"](hypotheses, references)
        except Exception:
            pass
    same = sum(h == r for h, r in zip(hypotheses, references))
    return 100.0 if same == len(hypotheses) else 0.0
'''}, "hostile: reads the solution notebook from disk; otherwise 100 for identical corpora and 0 else")
# ================= wave 2
W("p5_keys_subset_only", {"average": sub("average", "if set(s.keys()) != keys:", "if not all(kk in s for kk in keys):")},
  "'states whose keys ... differ, raise ValueError': a later state with an extra key is not detected")
W("p5_shape_check_floats_only", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    names = set(states[0])
    out = {}
    for s in states[1:]:
        if set(s) != names:
            raise ValueError("keys differ")
    for name in states[0]:
        last = states[-1][name]
        if last.is_floating_point():
            if any(s[name].shape != last.shape for s in states):
                raise ValueError("shapes differ")
            acc = torch.zeros(last.shape, dtype=torch.float64 if last.dtype == torch.float64 else torch.float32)
            for s in states:
                acc += s[name]
            out[name] = (acc / len(states)).to(last.dtype)
        else:
            out[name] = last.clone()
    return out
'''}, "'states whose keys or shapes differ, raise ValueError': shapes checked for floating-point tensors only, a step counter of another shape passes")
W("p5_bool_averaged", {"average": sub("average", "if t.is_floating_point():", "if t.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):")},
  "'integer tensors ... and boolean tensors (counters, masks) are not averaged: they come from the last state'")
W("p5_stack_mean_no_clone", {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("empty")
    ref = states[0]
    for s in states:
        if s.keys() != ref.keys() or any(s[n].shape != ref[n].shape for n in ref):
            raise ValueError("mismatch")
    res = dict()
    for n in ref:
        ts = [s[n] for s in states]
        if torch.is_floating_point(ts[-1]):
            up = torch.float64 if ts[-1].dtype == torch.float64 else torch.float32
            res[n] = torch.stack([t.to(up) for t in ts]).mean(0).to(ts[-1].dtype)
        else:
            res[n] = ts[-1].detach().clone()
    return res
'''}, "different but correct: dict-keys view comparison, stacked mean in float32/float64", correct=True)
W("p6_asks_when_max_len_zero", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    new = [[] for _ in starts]
    live = list(range(len(starts)))
    while live:
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, vals)
        toks = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator).squeeze(1).tolist()
        still = []
        for i, tok in zip(live, toks):
            seqs[i].append(tok); new[i].append(tok)
            if tok != EOS and len(new[i]) < max_len:
                still.append(i)
        live = still
    return new
'''}, "'max_len may be 0 ...: then nothing is asked and nothing is drawn': this draws one token before it checks the length")
W("p7_per_hypothesis_calls", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beam = [(0.0, [])]
    done = []
    step = 0
    while beam and step < max_len:
        step += 1
        pool = []
        for score, toks in beam:
            row = next_logprobs([[start] + toks])[0]
            for tok, lp in enumerate(row.tolist()):
                pool.append((score + lp, toks + [tok]))
        pool = sorted(pool, key=lambda c: c[0], reverse=True)[:k]
        beam = [(s, t) for s, t in pool if t[-1] != EOS]
        done += [(s / length_penalty(len(t), alpha), t) for s, t in pool if t[-1] == EOS]
    done += [(s / length_penalty(len(t), alpha), t) for s, t in beam]
    return sorted(done, key=lambda d: d[0], reverse=True)[0][1]
'''}, "different but correct: one call per live hypothesis (the toy model scores each prefix on its own)", correct=True)
W("p8_lowercase", {"bleu": sub("bleu", "    for hyp, ref in zip(hypotheses, references):\n", "    for hyp, ref in zip(hypotheses, references):\n        hyp = [w.lower() for w in hyp]; ref = [w.lower() for w in ref]\n")},
  "'tokens are compared exactly as given (case-sensitive: The and the differ)'")
W("p8_distinct_ngram_denominator", {"bleu": sub("bleu", "total[n - 1] += sum(hc.values())", "total[n - 1] += len(hc)")},
  "'divide by the total number of hypothesis n-grams': distinct n-grams counted once")
W("p8_corpus_level_clipping", {"bleu": '''
def corpus_bleu(hypotheses, references):
    c = sum(len(h) for h in hypotheses); r = sum(len(x) for x in references)
    logs = 0.0
    for n in range(1, 5):
        hc, rc = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            hc.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        tot = sum(hc.values())
        match = sum(min(v, rc[g]) for g, v in hc.items())
        if tot == 0 or match == 0:
            return 0.0
        logs += math.log(match / tot) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(logs)
'''}, "'each hypothesis n-gram counts at most as often as it occurs in its reference': clipped against the whole corpus's references instead of its own")
W("p8_bp_before_zero_check", {"bleu": sub("bleu", "    if min(total) == 0 or min(clipped) == 0:\n        return 0.0\n", "    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    if min(total) == 0 or min(clipped) == 0:\n        return 0.0\n")},
  "'if there is no hypothesis n-gram of some order at all ..., BLEU is 0': all-empty hypotheses divide by c = 0")
