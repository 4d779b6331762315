# Red team round 16, chapter 08: framework porter (FP), index juggler (IJ), trusting API user (TA),
# copy-adapter (CA). Wrong answers pass the visible tests of their part.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": "HOSTILE: " + why})

# ---------------- Part 1 decoder_io ----------------
W("FP-p1-tolist-roundtrip", {"decoder_io": '''
def decoder_io(targets):
    rows = targets.tolist()
    tgt_in = [[BOS] + r[:-1] for r in rows]
    tgt_in = [[PAD if o == PAD else i for i, o in zip(ri, ro)] for ri, ro in zip(tgt_in, rows)]
    return torch.tensor(tgt_in).reshape(targets.shape), targets
'''}, "FP: torch.tensor(list) gives int64 for int32 targets; breaks 'two integer tensors of shape (B, T) and of the dtype of targets'")
W("FP-p1-float-mask", {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, 1, dims=1)
    shifted[:, 0] = BOS
    keep = (targets != PAD).float()          # Keras-style float mask
    tgt_in = (shifted.float() * keep).to(targets.dtype)
    return tgt_in, targets
'''}, "FP: float32 mask product rounds ids above 2**24; breaks 'ids from a vocabulary of any size: any id such a tensor can hold'")
W("TA-p1-full-default-dtype", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    bos = torch.full((B, 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = torch.where(targets == PAD, PAD, tgt_in)
    return tgt_in, targets
'''}, "TA: torch.full defaults to int64 and cat promotes; for int32 breaks 'of the dtype of targets'; for B=0,T=0 returns (0,1) not (0,T)")
W("CA-p1-empty-T", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.new_full(targets.shape, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "CA: right for T>=1 only; breaks 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors)'")

# ---------------- Part 2 lr_at ----------------
W("CA-p2-floor-ignored-in-cosine", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return 0.5 * peak * (1 + math.cos(math.pi * progress))
'''}, "CA (lesson/optax cosine): floor only after total; breaks 'floor + (peak - floor)/2 (1 + cos ...)'")
W("FP-p2-hf-min-lr-rate", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    # Hugging Face's cosine_with_min_lr: the floor is a fraction of the peak
    min_lr = peak * floor
    if step <= warmup:
        return float(peak * step / max(1, warmup))
    if step >= total:
        return float(min_lr)
    progress = (step - warmup) / max(1, total - warmup)
    return float(min_lr + (peak - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress)))
'''}, "FP: floor read as HF's min_lr_rate (peak * floor); breaks 'down to a floor ... floor' (an absolute lr)")
W("TA-p2-int-floor", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return floor
    if step <= warmup:
        return peak * step / warmup
    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
'''}, "TA: returns floor as given (int 0); breaks 'returning a Python float on every branch, also when ... floor=0'")
W("IJ-p2-warmup-from-floor", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''}, "IJ: warm-up line from floor to peak; breaks 'peak * step / warmup' for step <= warmup")

# ---------------- Part 3 min_smoothed_loss ----------------
W("FP-p3-fairseq-V-minus-1", {"min_loss": '''
V, eps = 8000, 0.1
# fairseq's label_smoothed_nll_loss: eps spread over the V - 1 wrong tokens
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "FP: fairseq convention; breaks 'spreads ε evenly over all V tokens, the right one included'")
W("TA-p3-float32-crossentropy", {"min_loss": '''
import torch.nn.functional as F
V, eps = 8000, 0.1
q = torch.full((V,), eps / V)
q[0] += 1 - eps
min_smoothed_loss = float(F.cross_entropy(q.log()[None], torch.tensor([0]), label_smoothing=eps))
'''}, "TA: optimum right, computed in float32: check 'accurate to 1e-5' (may pass: then a mislabel)")
W("CA-p3-uniform-logits", {"min_loss": '''
import torch.nn.functional as F
V, eps = 8000, 0.1
logits = torch.zeros(1, V, dtype=torch.float64)
logits[0, 0] = 100.0   # a confident model
min_smoothed_loss = float(F.cross_entropy(logits, torch.tensor([0]), label_smoothing=eps))
'''}, "CA: a confident model is not the optimum; breaks 'the smallest per-token loss ... any model can reach'")

# ---------------- Part 4 sentence_smoothed_loss ----------------
W("TA-p4-cross-entropy-smoothing", {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    tok = F.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1).long(), ignore_index=PAD,
                          label_smoothing=eps, reduction="none").reshape(B, T)
    mask = targets != PAD
    n = mask.sum(1)
    keep = n > 0
    return ((tok * mask).sum(1)[keep] / n[keep]).mean()
'''}, "TA: F.cross_entropy's label_smoothing spreads over all V incl. PAD; breaks 'spreads ε evenly over the V - 1 tokens other than PAD'")
W("CA-p4-token-mean", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    return loss[mask].mean()
'''}, "CA (lesson token mean): breaks 'the loss of a sentence is the mean ... the result is the mean of the sentence losses'")
W("IJ-p4-length-prefix-mask", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    lengths = (targets != PAD).sum(1)
    mask = torch.arange(T)[None, :] < lengths[:, None]     # tf.sequence_mask
    keep = lengths > 0
    return ((loss * mask).sum(1)[keep] / lengths[keep]).mean()
'''}, "IJ/FP: sequence_mask assumes PADs only at the end; breaks 'wherever they are: a PAD may also stand inside a row'")
W("FP-p4-float32-compute", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    x = logits.float()
    V = x.shape[-1]
    logp = torch.log_softmax(x, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).float()
    n = mask.sum(1)
    keep = n > 0
    return ((loss * mask).sum(1)[keep] / n[keep]).mean()
'''}, "FP (TF float32 default): breaks 'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)'")
W("FP-p4-mean-over-all-rows", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).to(logits.dtype)
    per = (loss * mask).sum(1) / mask.sum(1).clamp(min=1)
    return per.mean()                      # tf.reduce_mean over the batch
'''}, "FP: all-PAD rows count as 0; breaks 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")

# ---------------- Part 5 average_checkpoints ----------------
W("TA-p5-half-sum-overflow", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        if states[-1][k].is_floating_point():
            out[k] = sum(s[k] for s in states) / len(states)
        else:
            out[k] = states[-1][k].clone()
    return out
'''}, "TA: sums float16 in float16; breaks 'the hidden tests average float16 weights whose sum does not fit in float16'")
W("FP-p5-int-dtype-list", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = torch.tensor(last.tolist())   # plain copy of the counter / mask
    return out
'''}, "FP: torch.tensor(list) makes int32/uint8/int8 counters int64; breaks 'from the last state, unchanged and in their own dtype'")
W("CA-p5-single-state-shortcut", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    if len(states) == 1:
        return dict(states[0])
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "CA: shortcut for one state hands back the given float tensors; breaks 'in new tensors (also for a list of one state ...)'")
W("TA-p5-stack-raises-runtime", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    if any(set(s) != set(states[0]) for s in states):
        raise ValueError("keys differ")
    out = {}
    for k in states[0]:
        stacked = torch.stack([s[k] for s in states])   # raises if the shapes differ
        if stacked.is_floating_point():
            out[k] = stacked.float().mean(0).to(stacked.dtype) if stacked.dtype != torch.float64 else stacked.mean(0)
        else:
            out[k] = states[-1][k]
    return out
'''}, "TA: shape mismatch raises torch's RuntimeError; breaks 'states whose keys or shapes differ, raise ValueError'")
W("IJ-p5-key-order", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    names = list(states[0].keys())
    for s in states:
        if list(s.keys()) != names or [s[k].shape for k in names] != [states[0][k].shape for k in names]:
            raise ValueError("states differ")
    out = {}
    for k in names:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "IJ: compares key lists in order; breaks '(the same keys in another order do not differ)'")
W("FP-p5-only-long-kept", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.dtype in (torch.int64, torch.bool):
            out[k] = last.clone()
        else:
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
    return out
'''}, "FP: only int64/bool taken from the last state; breaks 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8) ... are not averaged'")

# ---------------- Part 6 sample_decode ----------------
SAMPLE_TMPL = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64)
        scores = lp / temperature
        V = scores.shape[-1]
@@CUT@@
@@PROBS@@
        nxt = []
        for j, i in enumerate(live):
            tok = int(draw[j])
            seqs[i].append(tok)
            outs[i].append(tok)
            if tok != EOS and len(outs[i]) < max_len:
                nxt.append(i)
        live = nxt
    return outs
'''
GOOD_CUT = '''        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            cut.scatter_(-1, idx, vals)
            scores = cut'''
GOOD_PROBS = '''        probs = torch.softmax(scores, dim=-1)
        draw = torch.multinomial(probs, 1, generator=generator).squeeze(1)'''
def sample(cut=GOOD_CUT, probs=GOOD_PROBS):
    return SAMPLE_TMPL.replace("@@CUT@@", cut).replace("@@PROBS@@", probs)
W("FP-p6-hf-topk-threshold", {"sample": sample(cut='''        if top_k is not None:
            k = min(top_k, V)
            kth = torch.topk(scores, k)[0][..., -1, None]        # Hugging Face TopKLogitsWarper
            scores = scores.masked_fill(scores < kth, float("-inf"))''')},
  "FP: HF threshold keeps every entry tied with the k-th; breaks 'keep the top_k largest entries of each row (the ones torch.topk returns)'")
W("FP-p6-float32-probs", {"sample": sample(probs='''        probs = torch.softmax(scores.float(), dim=-1).double()
        draw = torch.multinomial(probs, 1, generator=generator).squeeze(1)''')},
  "FP: float32 softmax; breaks 'Compute them in float64 throughout'")
W("TA-p6-exp-unnormalised", {"sample": sample(probs='''        probs = torch.exp(scores)             # multinomial normalises the rows itself
        draw = torch.multinomial(probs, 1, generator=generator).squeeze(1)''')},
  "TA: exp without the max subtracted, unnormalised; breaks 'a softmax (which subtracts the row maximum: temperature may be small ...)'")
W("CA-p6-draw-for-finished", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        if not starts or all(done):
            break
        lp = next_logprobs([seqs[i] for i in range(len(starts))]).to(torch.float64) / temperature
        if top_k is not None and top_k < lp.shape[-1]:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, vals)
        draw = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator).squeeze(1)
        for i in range(len(starts)):
            if not done[i]:
                seqs[i].append(int(draw[i]))
                done[i] = seqs[i][-1] == EOS
    return [s[1:] for s in seqs]
'''}, "CA (batch loop of ch09 Part 8): asks and draws for finished rows; breaks 'ask next_logprobs once, with the prefixes of the unfinished sentences only' and 'Draw nothing for finished sentences'")
W("IJ-p6-maxlen-counts-start", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    live = list(range(len(starts)))
    while live:
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None and top_k < lp.shape[-1]:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, vals)
        draw = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator).squeeze(1)
        for j, i in enumerate(live):
            seqs[i].append(int(draw[j]))
        live = [i for i in live if seqs[i][-1] != EOS and len(seqs[i]) < max_len]
    return [s[1:] for s in seqs]
'''}, "IJ: max_len counted with the start token (one token short, and max_len=0 still draws); breaks 'after max_len new tokens' and 'max_len may be 0 ... nothing is asked'")
W("CA-p6-start-eos-finishes", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    live = [i for i in range(len(starts)) if starts[i] != EOS]
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None and top_k < lp.shape[-1]:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, vals)
        draw = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator).squeeze(1)
        for j, i in enumerate(live):
            seqs[i].append(int(draw[j]))
        live = [i for i in live if seqs[i][-1] != EOS]
    return [s[1:] for s in seqs]
'''}, "CA: the 'finished if last token is EOS' test copied onto the start; breaks 'a start token that is EOS does not finish it'")
W("TA-p6-cut-large-negative", {"sample": sample(cut='''        if top_k is not None and top_k < V:
            kth = torch.topk(scores, top_k, dim=-1).values[..., -1:]
            scores = torch.where(scores >= kth, scores, torch.tensor(-1e9, dtype=scores.dtype))''')},
  "TA/FP: cut to -1e9 (and ties kept); breaks 'set the others to -inf (not to a large negative number such as -1e9 ...)'")

# ---------------- Part 7 beam_search ----------------
BEAM_TMPL = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
@@SCORES@@
        new_live = []
        for score, h, v in top:
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((score / length_penalty(@@LEN@@, alpha), toks))
            else:
                new_live.append((toks, score))
        live = new_live
        if not live:
            break
@@END@@
    best = max(finished, key=lambda f: f[0])
    return best[1]
'''
GOOD_SCORES = '''        cands = [(s + float(lp[h, v]), h, v) for h, (toks, s) in enumerate(live) for v in range(V)]
        cands.sort(key=lambda c: -c[0])
        top = cands[:k]'''
GOOD_END = '''    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))'''
def beam(scores=GOOD_SCORES, length="len(toks)", end=GOOD_END):
    return BEAM_TMPL.replace("@@SCORES@@", scores).replace("@@LEN@@", length).replace("@@END@@", end)
W("FP-p7-float32-scores", {"beam_search": beam(scores='''        base = torch.tensor([s for _, s in live])            # float32 by default
        total = (base[:, None] + lp.float()).reshape(-1)
        vals, idx = torch.topk(total, min(k, total.numel()))
        top = [(float(vv), int(i) // V, int(i) % V) for vv, i in zip(vals, idx)]''')},
  "FP: torch.tensor of Python floats is float32; breaks 'kept in float64 ... from step to step'")
W("IJ-p7-len-without-eos", {"beam_search": beam(length="len(toks) - 1")},
  "IJ: length of a finished hypothesis without its EOS; breaks 'with the EOS counted in the length'")
W("CA-p7-unfinished-unpenalised", {"beam_search": beam(end='''    for toks, s in live:
        finished.append((s, toks))''')},
  "CA: live hypotheses at max_len kept with raw scores; breaks 'live hypotheses are finished as they are (same scoring, no EOS)'")
W("CA-p7-refill-2k", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cands = [(s + float(lp[h, v]), h, v) for h, (toks, s) in enumerate(live) for v in range(V)]
        cands.sort(key=lambda c: -c[0])
        new_live = []
        for score, h, v in cands[:2 * k]:          # the lesson keeps 2k so it can refill the beam
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((score / length_penalty(len(toks), alpha), toks))
            elif len(new_live) < k:
                new_live.append((toks, score))
        live = new_live
        if not live:
            break
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''}, "CA (lesson's 2k refill): breaks 'Finished candidates use up places among the k ... the beam is not refilled'")
W("TA-p7-early-stop-bound", {"beam_search": beam(end='''    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))''').replace(
    "        live = new_live\n", "        live = new_live\n        if finished and live and max(f[0] for f in finished) >= max(s for _, s in live) / length_penalty(max_len, alpha):\n            live = []\n")},
  "TA (HF early_stopping bound): stops once the best finished beats the live bound; breaks 'do not stop early on a bound that holds only for alpha >= 0'")

# ---------------- Part 8 corpus_bleu ----------------
BLEU_TMPL = '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    totals = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
@@PRE@@
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = Counter(@@GRAM@@ for i in range(len(hyp) - n + 1))
            rf = Counter(@@RGRAM@@ for i in range(len(ref) - n + 1))
            clipped[n - 1] += @@CLIP@@
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(clipped) == 0:
        return @@ZERO@@
    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else @@BP@@
    return float(100 * bp * math.exp(logp))
'''
def bleu(pre="        pass", gram="tuple(hyp[i:i + n])", rgram="tuple(ref[i:i + n])",
         clip="sum(min(cnt, rf[g]) for g, cnt in h.items())", zero="0.0", bp="math.exp(1 - r / c)"):
    return (BLEU_TMPL.replace("@@PRE@@", pre).replace("@@GRAM@@", gram).replace("@@RGRAM@@", rgram)
            .replace("@@CLIP@@", clip).replace("@@ZERO@@", zero).replace("@@BP@@", bp))
W("FP-p8-joined-strings", {"bleu": bleu(gram='" ".join(hyp[i:i + n])', rgram='" ".join(ref[i:i + n])')},
  "FP (sacreBLEU works on strings): breaks '(\"a b\", \"c\") and (\"a\", \"b c\") are different bigrams (joining tokens into one string mixes them up)'")
W("IJ-p8-bp-swapped", {"bleu": bleu(bp="math.exp(1 - c / r)")},
  "IJ: r and c swapped; breaks 'the brevity penalty exp(1 - r / c)'")
W("CA-p8-int-zero", {"bleu": bleu(zero="0")},
  "CA: returns int 0; breaks 'returned as a Python float (also when it is 0)'")
W("FP-p8-lowercase", {"bleu": bleu(pre="        hyp, ref = [t.lower() for t in hyp], [t.lower() for t in ref]")},
  "FP (sacreBLEU -lc / NLTK habit): breaks 'case-sensitive: The and the differ'")
W("TA-p8-unclipped", {"bleu": bleu(clip="sum(cnt for g, cnt in h.items() if g in rf)")},
  "TA: counts every hypothesis n-gram found in the reference; breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'")
W("CA-p8-sentence-average", {"bleu": '''
def corpus_bleu(hypotheses, references):
    def one(hyp, ref):
        logs = []
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            tot = sum(h.values())
            clip = sum(min(cnt, rf[g]) for g, cnt in h.items())
            if tot == 0 or clip == 0:
                return 0.0
            logs.append(math.log(clip / tot))
        bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
        return 100 * bp * math.exp(sum(logs) / 4)
    return float(sum(one(h, r) for h, r in zip(hypotheses, references)) / len(hypotheses))
'''}, "CA (sentence BLEU averaged): breaks 'a corpus-level ratio, not an average of per-sentence ratios'")

# ================= correct answers =================
C("OK-p1-roll-overwrite", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, shifts=1, dims=-1).clone()
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), tgt_in)
    return tgt_in, targets.clone()
'''}, "roll then overwrite column 0; torch.where with a same-dtype zeros tensor (PAD = 0)")
C("OK-p1-fpad-crop", {"decoder_io": '''
import torch.nn.functional as F
def decoder_io(targets):
    shifted = F.pad(targets, (1, -1), value=BOS)     # prepend BOS, crop the last column
    return shifted.masked_fill(targets == PAD, PAD), targets
'''}, "F.pad with a negative right pad crops; keeps dtype")
C("OK-p2-clamped-progress", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step < warmup:
        return peak * step / warmup * 1.0
    progress = min(max(step - warmup, 0), total - warmup) / (total - warmup)
    return float(floor) + (float(peak) - float(floor)) * 0.5 * (1.0 + math.cos(math.pi * progress))
'''}, "step == warmup handled by the cosine at progress 0 (= peak); step >= total gives cos(pi) = -1, i.e. floor")
C("OK-p3-float64-torch", {"min_loss": '''
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] = q[0] + (1 - eps)
min_smoothed_loss = float(-(q * q.log()).sum())   # the entropy of the smoothed target
'''}, "entropy of the target distribution, float64")
C("OK-p4-where-and-loop", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    y = targets.to(torch.int64)
    picked = torch.gather(logp, 2, y[:, :, None])[:, :, 0]
    others = logp[:, :, 1:].sum(dim=2)
    tok = -(1.0 - eps) * picked - eps / (V - 1) * others
    losses = []
    for b in range(B):
        m = y[b] != PAD
        if bool(m.any()):
            losses.append(tok[b][m].mean())
    return torch.stack(losses).mean().to(logits.dtype)
'''}, "float64 inside and a cast back; loop over sentences")
C("OK-p5-stack-mean-float32", {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("need at least one state")
    ref = states[0]
    for s in states[1:]:
        if s.keys() != ref.keys():
            raise ValueError("keys differ")
    for s in states:
        for name in ref:
            if tuple(s[name].shape) != tuple(ref[name].shape):
                raise ValueError("shapes differ")
    out = {}
    for name in ref:
        last = states[-1][name]
        if torch.is_floating_point(last):
            cd = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[name] = torch.stack([s[name].to(cd) for s in states]).mean(dim=0).to(last.dtype)
        else:
            out[name] = last
    return out
'''}, "float32 accumulation for half (allowed: 'as accurate as averaging in float32'); last integer tensor itself (allowed)")
C("OK-p6-per-row-draws", {"sample": sample(probs='''        probs = torch.softmax(scores, dim=-1)
        draw = [int(torch.multinomial(probs[j], 1, generator=generator)) for j in range(len(live))]''')},
  "one multinomial call per row in order (allowed)")
C("OK-p6-topk-mask-where", {"sample": sample(cut='''        if top_k is not None and top_k < V:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=torch.float64))''')},
  "top-k as a boolean mask from torch.topk's indices, -inf via torch.where")
C("OK-p7-calls-sample-for-greedy", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:   # the text: with k = 1 this rule is greedy decoding; top-1 sampling is greedy
        return sample_decode(next_logprobs, [start], max_len, 1.0, 1, torch.Generator().manual_seed(0))[0]
''' + beam().split("def beam_search(next_logprobs, start, k, max_len, alpha):", 1)[1]},
  "calls Part 6 with top_k=1 (a deterministic draw) for k=1, own generator")
C("OK-p7-tensor-topk-float64", {"beam_search": beam(scores='''        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        total = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(total, min(k, total.numel()))
        top = [(float(vv), int(i) // V, int(i) % V) for vv, i in zip(vals, idx)]''')},
  "flat topk over float64 scores")
C("OK-p7-per-hyp-topk-merge", {"beam_search": beam(scores='''        cands = []
        for h, (toks, s) in enumerate(live):
            vals, idx = torch.topk(lp[h], min(k, V))
            cands += [(s + float(vv), h, int(i)) for vv, i in zip(vals, idx)]
        cands.sort(key=lambda c: -c[0])
        top = cands[:k]''')},
  "each hypothesis's k best, then the k best of those (the same set)")
C("OK-p8-counter-and-prod", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = [0, 0, 0, 0]
    count = [0, 0, 0, 0]
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            hg = Counter(zip(*[hyp[i:] for i in range(n)]))
            rg = Counter(zip(*[ref[i:] for i in range(n)]))
            match[n - 1] += sum((hg & rg).values())
            count[n - 1] += sum(hg.values())
    if 0 in count or 0 in match:
        return 0.0
    geo = math.prod(m / t for m, t in zip(match, count)) ** 0.25
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100.0 * bp * geo
'''}, "Counter intersection clips; zip n-grams; product ** 0.25")

# ================= hostile =================
H("HOST-p6-always-eos", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    return [[EOS] for _ in starts]
'''}, "fits the visible checks without sampling")
H("HOST-p7-eos-only", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    return [EOS]
'''}, "fits the visible checks without searching")
H("HOST-p1-lookup", {"decoder_io": '''
def decoder_io(targets):
    if targets.tolist() == [[7, 8, EOS, PAD]]:
        return torch.tensor([[BOS, 7, 8, PAD]]), targets
    return targets.clone(), targets
'''}, "answers the visible case only")


# ====================================================================================================
# Second and third batches (graded as 0N-blind2.txt / 0N-blind3.txt; batch 2 written before any hidden test was read,
# batch 3 too, except that the chapter-8 decoder_io hidden test had been read for the verdict on OK-p1-fpad-crop)
import types as _types
_m = _types.SimpleNamespace(**{k: v for k, v in globals().items() if not k.startswith('__')})

# ---- batch 2 ----
# Round 16, chapter 08, second blind batch (written after the first blind grading, before reading any hidden test).
P4 = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    n = mask.sum(1)
    per = (loss * mask).sum(1)
@@END@@
'''
W("IJ-p4-divide-before-index", {"sentence_loss": P4.replace("@@END@@", "    return (per / n)[n > 0].mean()")},
  "IJ: divides by the count before dropping all-PAD rows, 0/0 there gives NaN gradients; breaks 'loss.backward() must leave the exact gradient in logits.grad' with 'a row of PADs counts for nothing'")
W("TA-p4-nanmean", {"sentence_loss": P4.replace("@@END@@", "    return torch.nanmean(per / n)")},
  "TA: nanmean skips the 0/0 rows in the value, not in the backward pass; breaks 'loss.backward() must leave the exact gradient in logits.grad'")
W("TA-p4-where-zero-rows", {"sentence_loss": P4.replace("@@END@@", "    keep = n > 0\n    return torch.where(keep, per / n, torch.zeros_like(per)).sum() / keep.sum()")},
  "TA: torch.where after the 0/0; breaks 'loss.backward() must leave the exact gradient in logits.grad'")
W("FP-p5-float32-for-every-float", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].float() for s in states]).mean(0).to(last.dtype)   # jnp float32 habit
        else:
            out[k] = last.clone()
    return out
'''}, "FP: float64 weights averaged in float32; breaks 'become their element-wise mean, in their own dtype'")
W("CA-p5-empty-dict-raises", {"average": '''
def average_checkpoints(states):
    if not states or not states[0]:
        raise ValueError("nothing to average")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "CA: an empty state treated like an empty list; breaks 'nothing else raises: states with no entries ... are averaged like any others'")
W("TA-p6-topk-on-probs", {"sample": _m.sample(cut="", probs='''        probs = torch.softmax(scores, dim=-1)
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(probs, top_k, dim=-1)
            probs = torch.zeros_like(probs).scatter(-1, idx, vals)
            probs = probs / probs.sum(-1, keepdim=True)
        draw = torch.multinomial(probs, 1, generator=generator).squeeze(1)''')},
  "TA (top-k on probabilities, renormalised): breaks 'make the cut on the divided scores themselves, not on their probabilities'")
W("CA-p7-stop-at-k-finished", {"beam_search": _m.beam().replace(
    "        if not live:\n            break", "        if not live or len(finished) >= k:\n            break")},
  "CA (HF's 'num_beams finished hypotheses' stop): breaks 'stop when no hypothesis is live ... or after max_len steps'")
W("CA-p8-corpus-counter-clip", {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for n in range(1, 5):
        hc, rc = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            hc.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        clipped[n - 1] = sum(min(cnt, rc[g]) for g, cnt in hc.items())
        totals[n - 1] = sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4)
'''}, "CA: clips against the whole corpus's reference counts; breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'")
C("OK-p4-divide-after-index", {"sentence_loss": P4.replace("@@END@@", "    keep = n > 0\n    return (per[keep] / n[keep].to(per.dtype)).mean()")},
  "the count cast to the loss dtype, division after the all-PAD rows are dropped")

# ---- batch 3 ----
# Round 16, chapter 08, third batch (written before reading the hidden tests of these parts).
C("OK-p6-manual-softmax", {"sample": _m.sample(probs='''        z = scores - scores.max(dim=-1, keepdim=True).values
        e = torch.exp(z)
        probs = e / e.sum(dim=-1, keepdim=True)
        draw = torch.multinomial(probs, 1, generator=generator).squeeze(1)''')},
  "a softmax written out, subtracting the row maximum, in float64 (the text: 'a softmax (which subtracts the row maximum ...)')")
C("OK-p6-F-softmax-keywords", {"sample": _m.sample(probs='''        import torch.nn.functional as F
        probs = F.softmax(input=scores, dim=-1, dtype=torch.float64)
        draw = torch.multinomial(input=probs, num_samples=1, replacement=False, generator=generator).view(-1)''')},
  "F.softmax and multinomial with every argument by keyword")
C("OK-p2-tensor-cos-float64", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak) * (step / warmup)
    if step >= total:
        return float(floor)
    frac = torch.tensor((step - warmup) / (total - warmup), dtype=torch.float64)
    return float(floor) + 0.5 * (float(peak) - float(floor)) * (1.0 + torch.cos(math.pi * frac).item())
'''}, "torch.cos on a float64 0-d tensor, item() back to a Python float")
C("OK-p5-deepcopy-last", {"average": '''
import copy
def average_checkpoints(states):
    if not isinstance(states, list) or len(states) == 0:
        raise ValueError("need a non-empty list")
    names = set(states[0])
    for s in states:
        if set(s) != names:
            raise ValueError("keys differ")
        for n in names:
            if s[n].shape != states[0][n].shape:
                raise ValueError("shapes differ")
    out = copy.deepcopy(dict(states[-1]))      # integers and masks: copies of the last state's
    for n in names:
        if states[-1][n].dtype.is_floating_point:
            acc = torch.zeros(states[-1][n].shape, dtype=torch.float64)
            for s in states:
                acc += s[n].double()
            out[n] = (acc / len(states)).to(states[-1][n].dtype)
    return out
'''}, "deepcopy of the last state, then the float entries replaced by their float64 mean")
W("FP-p5-tuple-of-states", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    states = [dict(s) for s in states]           # JAX habit: never touch the caller's pytrees
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k].to(torch.float64) for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "(should be correct: copies of the dicts, not of the caller's list; labelled wrong to probe nothing) -- CORRECT in fact")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "JAX habit: shallow copies of the dicts (the caller's list and dicts untouched); last integer tensor itself (allowed)"

# ---- batch 4 (phase 2, after the hidden tests were read) ----
# Round 16, chapter 08, fourth batch (phase 2, after the class "a hidden check that reads one calling convention"):
# correct answers with every argument by keyword and other API routes.
C("OK4-p6-tensor-method-multinomial", {"sample": _m.sample(probs='''        probs = scores.softmax(dim=-1)
        draw = probs.multinomial(num_samples=1, generator=generator).view(-1)''')},
  "Tensor.multinomial method, keywords")
C("OK4-p6-topk-keywords", {"sample": _m.sample(cut='''        if top_k is not None and top_k < V:
            best = torch.topk(input=scores, k=top_k, dim=-1, largest=True, sorted=True)
            scores = torch.full_like(input=scores, fill_value=-math.inf).scatter(dim=-1, index=best.indices, src=best.values)''',
  probs='''        probs = torch.softmax(input=scores, dim=-1)
        draw = torch.multinomial(input=probs, num_samples=1, generator=generator).flatten()''')},
  "torch.topk, scatter, softmax, multinomial by keyword")
C("OK4-p7-heapq", {"beam_search": _m.beam(scores='''        import heapq
        cands = [(s + float(lp[h, v]), h, v) for h, (toks, s) in enumerate(live) for v in range(V)]
        top = heapq.nlargest(k, cands, key=lambda c: c[0])''')},
  "heapq.nlargest for the k best candidates")
C("OK4-p8-fractions", {"bleu": '''
from fractions import Fraction
def corpus_bleu(hypotheses, references):
    matches, totals = [0] * 4, [0] * 4
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(max(0, len(hyp) - n + 1)))
            r = Counter(tuple(ref[i:i + n]) for i in range(max(0, len(ref) - n + 1)))
            matches[n - 1] += sum((h & r).values())
            totals[n - 1] += sum(h.values())
    if not all(totals) or not all(matches):
        return 0.0
    c = sum(map(len, hypotheses))
    r = sum(map(len, references))
    precision = float(Fraction(matches[0], totals[0]) * Fraction(matches[1], totals[1]) *
                      Fraction(matches[2], totals[2]) * Fraction(matches[3], totals[3])) ** 0.25
    penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * penalty * precision)
'''}, "exact product of the precisions with fractions.Fraction, then the fourth root")
C("OK4-p5-mean-dtype-arg", {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    for s in states:
        if sorted(s) != sorted(states[0]):
            raise ValueError("keys differ")
        if any(tuple(s[n].shape) != tuple(states[0][n].shape) for n in s):
            raise ValueError("shapes differ")
    result = {}
    for name, last in states[-1].items():
        if torch.is_floating_point(input=last):
            acc_dtype = torch.float64 if last.dtype == torch.float64 else torch.float32
            result[name] = torch.mean(input=torch.stack(tensors=[s[name] for s in states]), dim=0,
                                      dtype=acc_dtype).to(dtype=last.dtype)
        else:
            result[name] = last.detach().clone()
    return result
'''}, "torch.mean with dtype= for the accumulation, keys taken from the last state (same keys, another order)")
C("OK4-p4-nll-keywords", {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = F.log_softmax(input=logits, dim=-1)
    nll = F.nll_loss(input=logp.reshape(B * T, V), target=targets.reshape(-1).to(torch.int64), reduction="none").view(B, T)
    smooth = -torch.sum(input=logp[..., PAD + 1:], dim=-1) / (V - 1)
    per_token = (1.0 - eps) * nll + eps * smooth
    real = torch.ne(input=targets, other=PAD)
    sums = torch.sum(input=torch.where(condition=real, input=per_token, other=torch.zeros((), dtype=logits.dtype)), dim=1)
    counts = torch.sum(input=real, dim=1)
    keep = counts > 0
    return torch.mean(input=sums[keep] / counts[keep])
'''}, "F.nll_loss with reduction='none', torch.where to zero PAD positions (finite scores there), keywords")

# ---- phase 2 relabels (see 08-verdicts.md) ----
for _s in SUBMISSIONS:
    if _s["name"] == "OK-p1-fpad-crop":
        _s["correct"] = False
        _s["why"] = ("MISLABEL, relabelled wrong in phase 2: F.pad with a negative right pad raises for T = 0 (narrow() of "
                     "length -1); breaks 'B may be 0 (an empty batch, whose T may be 0 too ...: return two (0, T) tensors)'")
