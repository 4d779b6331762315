# Round 35, chapter 08-capstone: loop writer, tie-and-order, exception-path, mask-polarity, constructor students.

P1_OK = '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.full_like(targets, PAD)
    if T > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''

P4_OK = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    smooth = -others / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    keep = targets != PAD
    ell = torch.where(keep, ell, torch.zeros_like(ell))
    count = keep.sum(-1)
    per = ell.sum(-1) / count.clamp(min=1).to(ell.dtype)
    has = count > 0
    return per[has].mean()
'''

SUBMISSIONS = [
    # ---------------------------------------------------------------- Part 1
    {"name": "p1-loop-rows-correct", "correct": True, "cells": {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    rows = []
    for b in range(B):
        row = targets[b]
        shifted = torch.cat([row.new_full((1,), BOS), row[:-1]]) if T > 0 else row.clone()
        rows.append(torch.where(row == PAD, row.new_zeros(()) + PAD, shifted))
    tgt_in = torch.stack(rows) if rows else targets.new_zeros((0, T))
    return tgt_in, targets
'''}, "why": "loop writer over the batch, handles B=0 and T=0: correct (1031 rows is cheap)"},
    {"name": "p1-constructor-bos-int64", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    bos = torch.full((B, 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "why": "constructor: torch.full without dtype makes int64, cat promotes int32 targets: 'two integer tensors ... of the dtype of targets'"},
    {"name": "p1-exception-empty-returns-targets", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    if targets.shape[0] == 0:
        return targets, targets
    tgt_in = torch.roll(targets, 1, dims=1).clone()
    tgt_in[:, 0] = BOS
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "why": "exception path: early return for empty batch gives tgt_in = targets itself: 'return two (0, T) tensors, tgt_in a new one there too'"},
    {"name": "p1-mask-int-polarity", "correct": True, "cells": {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, min(T, 1)), BOS, dtype=targets.dtype, device=targets.device), targets[:, :max(T - 1, 0)]], dim=1)
    keep = (targets != PAD).to(targets.dtype)
    return shifted * keep + PAD * (1 - keep), targets.clone()
'''}, "why": "mask as 0/1 integer in targets' dtype, multiplied: correct (PAD = 0); T = 0 handled"},

    # ---------------------------------------------------------------- Part 2
    {"name": "p2-exception-assert-warmup", "correct": False, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    assert warmup > 0, "warm-up must be positive"
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
'''}, "why": "exception path: asserts warmup > 0 but text: '0 <= warmup < total' and '(With warmup = 0 there is no warm-up.)'"},
    {"name": "p2-constructor-float64-tensor", "correct": False, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    frac = torch.tensor(step - warmup, dtype=torch.float64) / torch.tensor(total - warmup, dtype=torch.float64)
    return float(floor + (peak - floor) / 2 * (1 + torch.cos(math.pi * frac)))
'''}, "why": "constructor: torch.tensor of a Python int beyond int64 raises: 'step, warmup and total are Python ints of any size: keep them exact'"},
    {"name": "p2-try-except-correct", "correct": True, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    try:
        if step <= warmup:
            return float(peak) * (step / warmup)
    except ZeroDivisionError:
        pass
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor) + (float(peak) - float(floor)) / 2.0 * (1.0 + math.cos(math.pi * progress))
'''}, "why": "exception path that is right: step >= 1 > warmup = 0 never divides, the except never fires"},

    # ---------------------------------------------------------------- Part 3
    {"name": "p3-hostile-zero", "correct": False, "cells": {"min_loss": '''
min_smoothed_loss = 0.0
'''}, "why": "hostile: stores a number that only satisfies the visible isinstance check"},
    {"name": "p3-loop-over-vocab-correct", "correct": True, "cells": {"min_loss": '''
eps_, V_ = 0.1, 8000
total_ = 0.0
for v_ in range(V_):
    t_ = eps_ / V_ + (1 - eps_ if v_ == 0 else 0.0)
    total_ -= t_ * math.log(t_)
min_smoothed_loss = total_
'''}, "why": "loop writer: entropy of the target distribution summed over the vocabulary in Python: correct"},

    # ---------------------------------------------------------------- Part 4
    {"name": "p4-loop-python-float", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits, dim=-1)
    total, n = 0.0, 0
    for b in range(B):
        keep = targets[b] != PAD
        if not keep.any():
            continue
        lp = logp[b][keep]
        y = targets[b][keep].long()
        nll = -lp.gather(1, y[:, None]).squeeze(1)
        others = torch.cat([lp[:, :PAD], lp[:, PAD + 1:]], dim=1).sum(1)
        ell = (1 - eps) * nll - eps / (V - 1) * others
        total += float(ell.mean())
        n += 1
    return torch.tensor(total / n)
'''}, "why": "loop writer with a Python float accumulator: float32 result for float64 logits and no gradient: 'Return a 0-dimensional tensor of the dtype of logits' and 'must stay differentiable'"},
    {"name": "p4-loop-rows-correct", "correct": True, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits, dim=-1)
    not_pad = torch.ones(V, dtype=torch.bool, device=logits.device)
    not_pad[PAD] = False
    losses = []
    for b in range(B):
        keep = targets[b] != PAD
        if not bool(keep.any()):
            continue
        lp = logp[b][keep]
        y = targets[b][keep].long()
        nll = -lp.gather(1, y[:, None]).squeeze(1)
        ell = (1 - eps) * nll - eps / (V - 1) * lp[:, not_pad].sum(1)
        losses.append(ell.mean())
    return torch.stack(losses).mean()
'''}, "why": "loop writer over the sentences, tensors kept, empty rows skipped as the text says: correct"},
    {"name": "p4-mean-over-all-rows", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    ell = (1 - eps) * nll - eps / (V - 1) * others
    keep = (targets != PAD).to(ell.dtype)
    per = (ell * keep).sum(-1) / keep.sum(-1).clamp(min=1)
    return per.mean()
'''}, "why": "exception path: a row of PADs is guarded from dividing by 0 but still averaged in: 'over the sentences with at least one such position (a row of PADs counts for nothing)'"},
    {"name": "p4-mask-bitwise-not-uint8", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    ell = (1 - eps) * nll - eps / (V - 1) * others
    pad = (targets == PAD).to(torch.uint8)
    keep = (~pad).to(ell.dtype)
    count = keep.sum(-1)
    per = (ell * keep).sum(-1) / count
    has = (targets != PAD).any(-1)
    return per[has].mean()
'''}, "why": "mask polarity: ~ on a uint8 0/1 mask gives 255/254, so PAD positions weigh 254/255 of a real one: 'the mean of l over its positions whose target is not PAD'"},
    {"name": "p4-where-inf-mask-correct", "correct": True, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    col = torch.arange(V, device=logits.device)
    onehot = (col == targets.long().unsqueeze(-1))
    nll = -torch.where(onehot, logp, torch.zeros((), dtype=logp.dtype)).sum(-1)
    others = torch.where(col != PAD, logp, torch.zeros((), dtype=logp.dtype)).sum(-1)
    ell = (1 - eps) * nll - (eps / (V - 1)) * others
    keep = targets != PAD
    ell = torch.where(keep, ell, torch.zeros((), dtype=ell.dtype))
    count = keep.sum(-1)
    has = count > 0
    per = ell.sum(-1)[has] / count[has].to(ell.dtype)
    return per.mean()
'''}, "why": "mask-polarity student getting it right: torch.where(keep, value, 0) with the dtype given to every constructed tensor"},
    {"name": "p4-constructor-eps-tensor", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    e = torch.tensor(eps)
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    ell = (1 - e) * nll - e / (V - 1) * others
    keep = targets != PAD
    ell = torch.where(keep, ell, torch.zeros_like(ell))
    count = keep.sum(-1)
    per = ell.sum(-1) / count.clamp(min=1).to(ell.dtype)
    return per[count > 0].mean()
'''}, "why": "constructor: torch.tensor(eps) is float32, so for float64 logits eps is rounded (0.1 -> 0.10000000149) and '1 - 1e-12' becomes 1.0: 'a value just beside either end (1e-12, 1 - 1e-12) is no special case: the small share it gives still counts'"},

    # ---------------------------------------------------------------- Part 5
    {"name": "p5-exception-single-state", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    if len(states) == 1:
        return dict(states[0])
    keys = set(states[0])
    for s in states[1:]:
        if set(s) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in states[0]:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.zeros(t.shape, dtype=torch.float64 if t.dtype == torch.float64 else torch.float32)
            for s in states:
                acc = acc + s[k].detach().to(acc.dtype)
            out[k] = (acc / len(states)).to(t.dtype)
        else:
            out[k] = t
    return out
'''}, "why": "exception path: early return for one state hands back the given float tensors: 'in new tensors (also for a list of one state ...)'"},
    {"name": "p5-order-keys-list", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = list(states[0].keys())
    for s in states:
        if list(s.keys()) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    n = len(states)
    for k in keys:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.stack([s[k].detach().to(torch.promote_types(last.dtype, torch.float32)) for s in states]).sum(0)
            out[k] = (acc / n).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "why": "tie-and-order: compares key lists in order, so the same keys in another order raise: 'the same keys in another order do not differ'"},
    {"name": "p5-set-order-correct", "correct": True, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty list of states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
    out = {}
    for k in sorted(keys):
        shape = states[0][k].shape
        if any(s[k].shape != shape for s in states):
            raise ValueError("shapes differ")
        last = states[-1][k]
        if last.is_floating_point():
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            acc = torch.zeros(shape, dtype=wide, device=last.device)
            for s in states:
                acc += s[k].detach().to(wide)
            out[k] = (acc / len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "why": "tie-and-order / loop writer: result keys in sorted order (the text fixes no order of the result), accumulator built with explicit dtype: correct"},
    {"name": "p5-constructor-zeros-float32", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("mismatch")
    out = {}
    for k in first:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.zeros(last.shape)
            for s in states:
                acc += s[k].detach()
            out[k] = (acc / len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "why": "constructor: torch.zeros without dtype is float32, so float64 weights are averaged in float32: 'their element-wise mean, in their own dtype'"},
    {"name": "p5-loop-python-float-acc", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("mismatch")
    out = {}
    for k in first:
        last = states[-1][k]
        if last.is_floating_point():
            acc = 0.0
            for s in states:
                acc = acc + s[k].detach()
            out[k] = acc / len(states)
        else:
            out[k] = last
    return out
'''}, "why": "loop writer: a Python float accumulator takes the tensor's dtype, so float16 sums overflow: 'as accurate as averaging in float32 or better ... whose sum does not fit in float16'"},
    {"name": "p5-skip-empty-tensors", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("mismatch")
    out = {}
    for k in first:
        last = states[-1][k]
        if last.is_floating_point():
            if last.numel() == 0:
                out[k] = last
                continue
            acc = torch.stack([s[k].detach().to(torch.promote_types(last.dtype, torch.float32)) for s in states]).mean(0)
            out[k] = acc.to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "why": "exception path: an empty float tensor is returned as the given tensor rather than a new one: 'in new tensors' / 'tensors of no elements, are averaged like any others'"},

    # ---------------------------------------------------------------- Part 6
    {"name": "p6-exception-empty-return", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    if max_len == 0 or len(starts) == 0:
        return []
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None and top_k < s.shape[-1]:
            kth = torch.topk(s, top_k, dim=-1)
            s = torch.full_like(s, float("-inf")).scatter(-1, kth.indices, kth.values)
        probs = torch.softmax(s, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "exception path: max_len = 0 with sentences returns [] instead of one empty list per sentence: 'Return one list of Python ints per sentence'"},
    {"name": "p6-topk-threshold-ties", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None and top_k < s.shape[-1]:
            kth = torch.topk(s, top_k, dim=-1).values[:, -1:]
            s = s.masked_fill(s < kth, float("-inf"))
        probs = torch.softmax(s, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "tie-and-order: keeps every entry equal to the k-th largest, so ties keep more than top_k: 'keep the top_k largest entries of each row (the ones torch.topk returns)'"},
    {"name": "p6-constructor-temperature-tensor", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    temp = torch.tensor(temperature)
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temp
        if top_k is not None and top_k < s.shape[-1]:
            idx = torch.topk(s, top_k, dim=-1).indices
            keep = torch.zeros_like(s, dtype=torch.bool).scatter(-1, idx, True)
            s = s.masked_fill(~keep, float("-inf"))
        probs = torch.softmax(s, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "constructor: torch.tensor(temperature) is float32, so 1 + 1e-11 becomes 1.0 and 1e-4 is rounded: 'one just beside 1 (1 + 1e-11) divides like any other' / 'compare the probabilities you pass'"},
    {"name": "p6-mask-polarity-keep", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None:
            k = min(top_k, s.shape[-1])
            idx = torch.topk(s, k, dim=-1).indices
            keep = torch.zeros_like(s, dtype=torch.bool).scatter(-1, idx, True)
            s = s.masked_fill(keep, float("-inf")) if k < s.shape[-1] else s
        probs = torch.softmax(s, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "mask polarity: masked_fill with the keep mask hides the top_k and keeps the rest: 'keep the top_k largest entries ... and set the others to -inf'"},
    {"name": "p6-additive-log-mask-correct", "correct": True, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    if max_len == 0:
        return outs
    live = list(range(len(starts)))
    while live:
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None:
            try:
                idx = torch.topk(s, top_k, dim=-1).indices
                keep = torch.zeros(s.shape, dtype=s.dtype, device=s.device).scatter(-1, idx, 1.0)
                s = s + torch.log(keep)
            except RuntimeError:
                pass
        probs = torch.softmax(s, dim=-1)
        for r, i in enumerate(live):
            t = int(torch.multinomial(probs[r], 1, generator=generator))
            seqs[i].append(t)
            outs[i].append(t)
        live = [i for i in live if outs[i][-1] != EOS and len(outs[i]) < max_len]
    return outs
'''}, "why": "additive log(0/1) mask in float64 (-inf exactly), topk beyond V caught by except and everything kept, one multinomial per row in index order: correct"},
    {"name": "p6-loop-rows-correct", "correct": True, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    prefixes = [[s] for s in starts]
    results = [[] for _ in range(n)]
    finished = [max_len == 0 for _ in range(n)]
    for step in range(max_len):
        live = [i for i in range(n) if not finished[i]]
        if len(live) == 0:
            break
        lp = next_logprobs([prefixes[i] for i in live])
        for r, i in enumerate(live):
            row = lp[r] / temperature
            if top_k is not None and top_k < row.shape[0]:
                vals, idx = torch.topk(row, top_k)
                row = torch.full_like(row, float("-inf")).index_put((idx,), vals)
            p = torch.softmax(row, dim=0)
            t = torch.multinomial(p, 1, generator=generator).item()
            prefixes[i].append(t)
            results[i].append(t)
            if t == EOS or len(results[i]) == max_len:
                finished[i] = True
    return results
'''}, "why": "loop writer: one row at a time, one multinomial per row in order (allowed), topk values put back with index_put (no repeats): correct"},

    # ---------------------------------------------------------------- Part 7
    {"name": "p7-constructor-float32-scores", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        base = torch.tensor([sc for _, sc in live])
        cand = (base[:, None] + lp).reshape(-1)
        V = lp.shape[1]
        n = min(k, cand.numel())
        top = torch.topk(cand, n)
        new_live = []
        for sc, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, t = divmod(idx, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
        if not live:
            break
    for toks, sc in live:
        finished.append((toks, sc / length_penalty(len(toks), alpha)))
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "constructor: torch.tensor of the Python scores is float32, rounding them at every step: 'kept in float64 ... which the float32 a torch.tensor of Python floats gets by default rounds to one value'"},
    {"name": "p7-loop-vocab-correct", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, sc) in enumerate(live):
            row = lp[h].tolist()
            for t, l in enumerate(row):
                cands.append((sc + l, h, t))
        cands.sort(key=lambda c: -c[0])
        new_live = []
        for sc, h, t in cands[:k]:
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
        if not live:
            break
    for toks, sc in live:
        finished.append((toks, sc / length_penalty(len(toks), alpha)))
    best = finished[0]
    for f in finished[1:]:
        if f[1] > best[1]:
            best = f
    return best[0]
'''}, "why": "loop writer: Python floats (float64) over every hypothesis and token, sort keeps ties in any order the text allows: correct"},
    {"name": "p7-tie-last-index-correct", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    hyps = [[]]
    scores = None
    done = []
    for step in range(max_len):
        lp = next_logprobs([[start] + h for h in hyps])
        cand = lp + (scores[:, None] if scores is not None else torch.zeros((1, 1), dtype=lp.dtype))
        flat = cand.reshape(-1).flip(0)
        n = min(k, flat.numel())
        order = torch.sort(flat, descending=True, stable=True).indices[:n]
        V = lp.shape[1]
        new_h, new_s = [], []
        for j in order.tolist():
            idx = flat.numel() - 1 - j
            h, t = divmod(idx, V)
            toks = hyps[h] + [t]
            s = cand[h, t]
            if t == EOS:
                done.append((toks, float(s) / length_penalty(len(toks), alpha)))
            else:
                new_h.append(toks)
                new_s.append(s)
        if not new_h:
            hyps = []
            break
        hyps, scores = new_h, torch.stack(new_s)
    for i, h in enumerate(hyps):
        done.append((h, float(scores[i]) / length_penalty(len(h), alpha)))
    return max(reversed(done), key=lambda d: d[1])[0]
'''}, "why": "tie-and-order: ties for the last places go to the highest index (flip + stable sort), ties among finished to the last one: the text lets either win"},
    {"name": "p7-exception-fallback-greedy", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live]).double()
        base = torch.tensor([sc for _, sc in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        V = lp.shape[1]
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for sc, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, t = divmod(idx, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
        if not live:
            break
    for toks, sc in live:
        finished.append((toks, sc / length_penalty(len(toks), alpha)))
    try:
        return max(finished, key=lambda x: x[1])[0]
    except (ValueError, ZeroDivisionError):
        return finished[0][0]
'''}, "why": "exception-path student whose try is harmless here (finished is never empty): correct, labelled so to test nothing is refused"},

    # ---------------------------------------------------------------- Part 8
    {"name": "p8-set-ngrams", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h = [tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1)]
            rset = set(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            total[n - 1] += len(h)
            clipped[n - 1] += sum(1 for g in h if g in rset)
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(logp)
'''}, "why": "tie-and-order/containers: a set of reference n-grams counts a repeated hypothesis n-gram every time: 'each hypothesis n-gram counts at most as often as it occurs in its reference'"},
    {"name": "p8-exception-assert-nonempty", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    assert all(len(h) > 0 for h in hypotheses), "empty hypothesis"
    clipped = [0] * 4
    total = [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            total[n - 1] += sum(hc.values())
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(logp)
'''}, "why": "exception path: asserts a precondition the text does not state; an empty hypothesis is a valid sentence ('a corpus of any size', lengths c and r)"},
    {"name": "p8-constructor-float32-mean", "correct": False, "cells": {"bleu": '''
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
            total[n - 1] += sum(hc.values())
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    p = torch.tensor([clipped[i] / total[i] for i in range(4)])
    geo = torch.exp(torch.log(p).mean())
    bp = torch.exp(torch.tensor(1 - r / c)) if c < r else torch.tensor(1.0)
    return float(100 * bp * geo)
'''}, "why": "constructor: torch.tensor of Python floats is float32: BLEU off by ~1e-5 (and more for tiny precisions); the reference is sacreBLEU's float64 number"},
    {"name": "p8-loop-orders-correct", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped = {n: 0 for n in (1, 2, 3, 4)}
    total = {n: 0 for n in (1, 2, 3, 4)}
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for idx in range(len(hypotheses)):
        hyp, ref = hypotheses[idx], references[idx]
        for n in range(1, 5):
            counts = {}
            for i in range(len(hyp) - n + 1):
                g = tuple(hyp[i:i + n])
                counts[g] = counts.get(g, 0) + 1
            rcounts = {}
            for i in range(len(ref) - n + 1):
                g = tuple(ref[i:i + n])
                rcounts[g] = rcounts.get(g, 0) + 1
            for g, v in counts.items():
                total[n] += v
                clipped[n] += min(v, rcounts.get(g, 0))
    if any(total[n] == 0 or clipped[n] == 0 for n in total):
        return 0.0
    log_mean = sum(math.log(clipped[n]) - math.log(total[n]) for n in total) / 4.0
    bp = math.exp(1.0 - r / c) if c < r else 1.0
    return float(100.0 * bp * math.exp(log_mean))
'''}, "why": "loop writer with plain dicts and explicit loops: correct"},
]

# ------------------------------------------------------------------ second batch (same five kinds, subtler)
P5_CHECKED = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    out = {}
    try:
        for k in states[-1]:
            last = states[-1][k]
            if last.is_floating_point():
                wide = torch.promote_types(last.dtype, torch.float32)
                acc = None
                for s in states:
                    t = s[k].detach().to(wide)
                    acc = t.clone() if acc is None else acc + t
                out[k] = (acc / len(states)).to(last.dtype)
            else:
                for s in states:
                    if s[k].shape != last.shape:
                        raise ValueError("shapes differ")
                out[k] = last
    except (KeyError, RuntimeError) as e:
        raise ValueError(str(e))
    return out
'''

SUBMISSIONS += [
    {"name": "p1-constructor-float-mask", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    shifted = torch.cat([torch.full((B, min(T, 1)), BOS, dtype=targets.dtype), targets[:, :max(T - 1, 0)]], dim=1)
    keep = (targets != PAD).float()
    return (shifted * keep).to(targets.dtype), targets
'''}, "why": "constructor: a float32 0/1 mask multiplied in rounds ids above 2**24: 'ids from a vocabulary of any size: up to the largest id such a tensor can hold'"},
    {"name": "p4-constructor-full-weights", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    dist = torch.full((V,), eps / (V - 1))
    dist[PAD] = 0.0
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp * dist).sum(-1)
    ell = (1 - eps) * nll + smooth
    keep = targets != PAD
    ell = torch.where(keep, ell, torch.zeros((), dtype=ell.dtype))
    count = keep.sum(-1)
    has = count > 0
    return (ell.sum(-1)[has] / count[has]).mean()
'''}, "why": "constructor: torch.full without dtype makes the smoothing weights float32, so eps/(V-1) is rounded for float64 logits (and 0 x -inf at PAD's column would be NaN were PAD's score -inf): the loss formula with eps/(V-1) exactly"},
    {"name": "p4-mask-where-float-correct", "correct": True, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits, dim=-1)
    y = targets.to(torch.long)
    nll = -torch.gather(logp, 2, y[..., None])[..., 0]
    others = logp[..., 1:].sum(-1) if PAD == 0 else torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], -1).sum(-1)
    ell = (1.0 - eps) * nll - (eps / (V - 1)) * others
    keep = targets.ne(PAD)
    n = keep.sum(dim=1)
    sent = torch.where(keep, ell, ell.new_zeros(())).sum(dim=1)
    rows = n.nonzero().squeeze(1)
    return (sent[rows] / n[rows].to(ell.dtype)).mean()
'''}, "why": "keyword-light tensor code, PAD column sliced off, rows picked by nonzero: correct"},
    {"name": "p5-exception-keys-by-error", "correct": False, "cells": {"average": P5_CHECKED},
     "why": "exception path: relies on KeyError/RuntimeError to detect mismatched states; a later state with an extra key, or float tensors of broadcastable shapes ((3,) and (1,)), raise nothing: 'states whose keys or shapes differ, raise ValueError'"},
    {"name": "p5-constructor-promote-correct", "correct": True, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states to average")
    ref = states[0]
    for s in states[1:]:
        if s.keys() != ref.keys():
            raise ValueError("keys differ")
        for name in ref:
            if s[name].shape != ref[name].shape:
                raise ValueError(f"shape of {name} differs")
    result = {}
    for name, last in states[-1].items():
        if torch.is_floating_point(last):
            acc_dtype = torch.promote_types(last.dtype, torch.float32)
            total = torch.zeros(last.shape, dtype=acc_dtype, device=last.device)
            for s in states:
                total = total + s[name].detach().to(acc_dtype)
            result[name] = torch.div(total, len(states)).to(last.dtype)
        else:
            result[name] = last.clone()
    return result
'''}, "why": "dict keys views compared (order-free), zeros given the promoted dtype, clone of the last integer tensor: correct"},
    {"name": "p6-sort-stable-ties", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None and top_k < s.shape[-1]:
            order = torch.sort(s, dim=-1, descending=True, stable=True).indices[:, top_k:]
            s = s.scatter(-1, order, float("-inf"))
        probs = torch.softmax(s, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "tie-and-order: a stable descending sort keeps the lowest indices among tied scores, which need not be the ones torch.topk returns: 'keep the top_k largest entries of each row (the ones torch.topk returns)'"},
    {"name": "p6-exception-greedy-small-temp", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        s = lp / temperature
        if top_k is not None and top_k < s.shape[-1]:
            vals, idx = torch.topk(s, top_k, dim=-1)
            s = torch.full_like(s, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(s, dim=-1)
        if not torch.isfinite(probs).all() or temperature < 1e-6:
            tok = s.argmax(-1).tolist()
        else:
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            outs[i].append(t)
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "why": "exception path: falls back to argmax (drawing nothing) for tiny temperatures: 'at every temperature however small (no shortcut to the largest score), and that the generator made no others'"},
    {"name": "p7-constructor-zeros-init-correct", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    hyps = [[]]
    scores = torch.zeros(1)
    finished = []
    for step in range(max_len):
        lp = next_logprobs([[start] + h for h in hyps])
        cand = scores[:, None] + lp
        V = lp.shape[1]
        try:
            top = torch.topk(cand.reshape(-1), k)
        except RuntimeError:
            top = torch.topk(cand.reshape(-1), cand.numel())
        new_h, new_s = [], []
        for val, idx in zip(top.values, top.indices.tolist()):
            h, t = divmod(idx, V)
            toks = hyps[h] + [t]
            if t == EOS:
                finished.append((toks, float(val) / length_penalty(len(toks), alpha)))
            else:
                new_h.append(toks)
                new_s.append(val)
        hyps = new_h
        if not hyps:
            break
        scores = torch.stack(new_s)
    for h, sc in zip(hyps, scores.tolist() if hyps else []):
        finished.append((h, sc / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "why": "constructor: the first scores are float32 zeros, but float32 (1,) + float64 (1, V) promotes to float64 and every later score comes from that: correct; topk beyond the candidates caught by except"},
    {"name": "p7-loop-steps-off-by-one", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    step = 0
    while live and step < max_len - 1 or step == 0:
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, sc) in enumerate(live):
            for t, l in enumerate(lp[h].tolist()):
                cands.append((sc + l, h, t))
        cands.sort(key=lambda c: -c[0])
        new_live = []
        for sc, h, t in cands[:k]:
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
        step += 1
    for toks, sc in live:
        finished.append((toks, sc / length_penalty(len(toks), alpha)))
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "loop writer: the step loop stops one step early (max_len - 1 steps, at least one): 'or after max_len steps'"},
    {"name": "p8-counter-and-correct", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = [0, 0, 0, 0]
    count = [0, 0, 0, 0]
    for hyp, ref in zip(hypotheses, references):
        for n in range(4):
            hg = Counter(zip(*[hyp[i:] for i in range(n + 1)]))
            rg = Counter(zip(*[ref[i:] for i in range(n + 1)]))
            match[n] += sum((hg & rg).values())
            count[n] += sum(hg.values())
    c = sum(map(len, hypotheses))
    r = sum(map(len, references))
    try:
        log_p = sum(math.log(m / t) for m, t in zip(match, count)) / 4
    except (ValueError, ZeroDivisionError):
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(log_p)
'''}, "why": "Counter & (clipped min) over zip n-grams, zero precision caught by the except: correct"},
]
