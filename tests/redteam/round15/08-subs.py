# Red team round 15, chapter 08: four kinds of student (paster, generaliser, optimiser, mathematician).
SUBMISSIONS = [
# ---------------------------------------------------------------- WRONG
{"name": "paster/decoder_io_cat_full_int64", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.size(0), 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "why": "Part 1: 'two integer tensors of shape (B, T) and of the dtype of targets' (torch.full defaults to int64, cat promotes int32 targets)"},
{"name": "generaliser/decoder_io_list_rows", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    rows = []
    for row in targets.tolist():
        shifted = [BOS] + row[:-1]
        rows.append([PAD if t == PAD else s for s, t in zip(shifted, row)])
    return torch.tensor(rows, dtype=targets.dtype), targets
'''}, "why": "Part 1: 'B may be 0 (an empty batch: return two (0, T) tensors)' (torch.tensor([]) has shape (0,))"},
{"name": "mathematician/decoder_io_float_pad", "correct": False, "cells": {"decoder_io": '''
import torch.nn.functional as F
def decoder_io(targets):
    shifted = F.pad(targets[:, :-1].double(), (1, 0), value=BOS)
    keep = (targets != PAD).double()
    return (shifted * keep).to(targets.dtype), targets
'''}, "why": "Part 1: 'ids from a vocabulary of any size: any id such a tensor can hold' (float64 rounds int64 ids above 2**53)"},
{"name": "optimiser/decoder_io_roll_inplace_on_copy", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_out = targets.clone()
    tgt_in = targets.roll(1, dims=1)
    tgt_in[:, 0] = BOS
    tgt_in.masked_fill_(tgt_out == PAD, PAD)
    if targets.size(1) == 1:
        return tgt_in, tgt_out
    return tgt_in, tgt_out
'''}, "why": "labelled correct in phase 1; relabelled wrong in phase 2 (08-verdicts.md): tgt_in[:, 0] = BOS fails for an empty batch of length 0, the slip of generaliser/decoder_io_index0_empty_T"},
{"name": "paster/lr_at_returns_floor_int", "correct": False, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    progress = (step - warmup) / max(1, total - warmup)
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * progress))
'''}, "why": "Part 2: 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'"},
{"name": "generaliser/lr_at_floor_added_to_peak", "correct": False, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + peak * 0.5 * (1 + math.cos(math.pi * progress)))
'''}, "why": "Part 2: the formula 'floor + (peak - floor)/2 (1 + cos ...)' (visible tests use floor = 0 only)"},
{"name": "optimiser/lr_at_table_built_once", "correct": False, "cells": {"lr_at": '''
COSINE = []
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    if not COSINE:   # the decay's shape, built once on the first call
        span = total - warmup
        COSINE.extend(0.5 * (1 + math.cos(math.pi * i / span)) for i in range(span + 1))
    i = min(int(step - warmup), len(COSINE) - 1)
    return float(floor + (peak - floor) * COSINE[i])
'''}, "why": "Part 2: the formula's cosine of pi (step - warmup) / (total - warmup) for every total (a table kept from the first call's total is wrong for another)"},
{"name": "mathematician/lr_at_progress_clamped", "correct": True, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    progress = min(1.0, (step - warmup) / (total - warmup))
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''}, "why": "min(1, progress): cos(pi) is exactly -1.0, so steps >= total give floor exactly"},
{"name": "mathematician/min_loss_eps_over_V_minus_1", "correct": False, "cells": {"min_loss": '''
eps, V = 0.1, 8000
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "why": "Part 3: 'spreads eps evenly over all V tokens, the right one included'"},
{"name": "paster/min_loss_log2", "correct": False, "cells": {"min_loss": '''
eps, V = 0.1, 8000
q = [1 - eps + eps / V] + [eps / V] * (V - 1)
min_smoothed_loss = -sum(p * math.log2(p) for p in q)
'''}, "why": "Part 3: 'in nats, natural logarithm'"},
{"name": "generaliser/min_loss_cross_entropy_with_onehot_model", "correct": False, "cells": {"min_loss": '''
import torch
eps, V = 0.1, 8000
logits = torch.zeros(V, dtype=torch.float64)
logits[3] = 30.0   # a confident model
min_smoothed_loss = float(torch.nn.functional.cross_entropy(logits[None], torch.tensor([3]), label_smoothing=eps))
'''}, "why": "Part 3: 'the smallest per-token loss ... whatever the logits' (a confident one-hot model is not the minimiser)"},
{"name": "paster/sentence_loss_ce_label_smoothing", "correct": False, "cells": {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    tok = F.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1).long(), ignore_index=PAD,
                          label_smoothing=eps, reduction="none").view(B, T)
    mask = targets != PAD
    n = mask.sum(1)
    per = (tok * mask).sum(1) / n.clamp(min=1)
    return per[n > 0].mean()
'''}, "why": "Part 4: 'spreads eps evenly over the V - 1 tokens other than PAD (PAD ... gets no share)' (PyTorch spreads over all V)"},
{"name": "generaliser/sentence_loss_token_mean", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    return loss[mask].mean()
'''}, "why": "Part 4: 'the loss of a sentence is the mean of l over its positions ... the result is the mean of the sentence losses'"},
{"name": "generaliser/sentence_loss_len_from_first_pad", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).long().cumprod(dim=1).bool()   # the sentence runs up to its first PAD
    n = mask.sum(1)
    per = (loss * mask).sum(1) / n.clamp(min=1)
    return per[n > 0].mean()
'''}, "why": "Part 4: 'positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'"},
{"name": "optimiser/sentence_loss_smooth_no_grad", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    lse = torch.logsumexp(logits, dim=-1)
    nll = lse - logits.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():   # the uniform part is a constant regulariser
        smooth = lse - (logits.sum(-1) - logits[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    n = mask.sum(1)
    per = (loss * mask).sum(1) / n.clamp(min=1)
    return per[n > 0].mean()
'''}, "why": "Part 4: 'loss.backward() must leave the exact gradient in logits.grad (no detour through ... torch.no_grad())'"},
{"name": "optimiser/sentence_loss_empty_rows_nan_grad", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    loss = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    per = (loss * mask).sum(1) / mask.sum(1)      # 0/0 = NaN for an all-PAD row ...
    return per.nanmean()                          # ... which nanmean skips
'''}, "why": "Part 4: 'a row of PADs counts for nothing' and 'loss.backward() must leave the exact gradient' (the NaN row's 0/0 poisons the backward pass)"},
{"name": "mathematician/sentence_loss_float32_inside", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.float(), dim=-1)
    total, rows = 0.0, 0
    for b in range(targets.shape[0]):
        pos = [t for t in range(targets.shape[1]) if int(targets[b, t]) != PAD]
        if not pos:
            continue
        s = 0.0
        for t in pos:
            y = int(targets[b, t])
            s = s - (1 - eps) * logp[b, t, y] - eps / (V - 1) * (logp[b, t].sum() - logp[b, t, PAD])
        total = total + s / len(pos)
        rows += 1
    return (total / rows).to(logits.dtype)
'''}, "why": "Part 4: 'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)' - computed in float32 for float64 logits loses float64 precision"},
{"name": "paster/average_stack_mean_runtimeerror", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    if any(set(s) != set(states[0]) for s in states):
        raise ValueError("keys differ")
    out = {}
    for k, last in states[-1].items():
        if torch.is_floating_point(last):
            stacked = torch.stack([s[k].float() for s in states])   # raises if shapes differ
            out[k] = stacked.mean(dim=0).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "why": "Part 5: 'states whose keys or shapes differ, raise ValueError' (torch.stack raises RuntimeError) and float64 averaged in float32"},
{"name": "generaliser/average_keys_in_order", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    names = list(states[0].keys())
    for s in states:
        if list(s.keys()) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise ValueError("states differ")
    out = {}
    for k in names:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "why": "Part 5: '(the same keys in another order do not differ)'"},
{"name": "generaliser/average_int_dtypes_listed", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.dtype in (torch.int64, torch.int32, torch.bool):
            out[k] = last.clone()
        else:
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(last.dtype)
    return out
'''}, "why": "Part 5: 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8) ... come from the last state, unchanged'"},
{"name": "optimiser/average_half_running_mean", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            m = states[0][k].clone()
            for i, s in enumerate(states[1:], start=2):   # running mean: never overflows
                m += (s[k] - m) / i
            out[k] = m
        else:
            out[k] = last.clone()
    return out
'''}, "why": "Part 5: 'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once' (a float16 running mean rounds at every step)"},
{"name": "optimiser/average_int_last_nonfinite_shortcut_one_state", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    if len(states) == 1:
        return states[0]           # nothing to average
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''}, "why": "Part 5: 'return a new dict (not one of the given ones)'"},
{"name": "mathematician/average_float_from_float_divide_first_in_half", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("need at least one state")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    n = len(states)
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = sum(s[k] / n for s in states)       # (1/n) sum_i x_i = sum_i x_i / n
        else:
            out[k] = last.clone()
    return out
'''}, "why": "Part 5: 'as accurate as averaging in float32 or better and rounding once' (each float16 x_i / n rounds, and so does every partial sum)"},
{"name": "paster/sample_hf_topk_threshold_ties", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        logits = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        if top_k is not None:
            top_k = min(top_k, logits.size(-1))
            indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
            logits = logits.masked_fill(indices_to_remove, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        next_tokens = torch.multinomial(probs, 1, generator=generator).squeeze(1).tolist()
        for i, tok in zip(active, next_tokens):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "Part 6: 'keep the top_k largest entries of each row (the ones torch.topk returns)' (the threshold keeps every entry tied with the k-th)"},
{"name": "optimiser/sample_greedy_shortcut_topk1", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k == 1 or V == 1:
            draws = scores.argmax(-1).tolist()   # only one token can be drawn: skip the sampler
        else:
            if top_k is not None and top_k < V:
                vals, idx = torch.topk(scores, top_k, dim=-1)
                scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
            probs = torch.softmax(scores, dim=-1)
            draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "Part 6: 'draw one token per row with torch.multinomial(probs, 1, generator=generator)' and 'the generator made no others' (its state after the call differs when nothing is drawn)"},
{"name": "generaliser/sample_start_eos_finishes", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    for _ in range(max_len):
        active = [i for i, s in enumerate(seqs) if s[-1] != EOS and len(s) <= max_len]
        if not active:
            break
        scores = next_logprobs([seqs[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            seqs[i].append(tok)
    return [s[1:] for s in seqs]
'''}, "why": "Part 6: 'Its start token is not produced: a start token that is EOS does not finish it'"},
{"name": "mathematician/sample_cut_on_probabilities", "correct": False, "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        probs = torch.softmax(next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature, dim=-1)
        V = probs.shape[-1]
        if top_k is not None and top_k < V:
            # p_i restricted to the top k and renormalised: p_i / sum_{j in top k} p_j
            vals, idx = torch.topk(probs, top_k, dim=-1)
            probs = torch.zeros_like(probs).scatter(-1, idx, vals)
            probs = probs / probs.sum(-1, keepdim=True)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "Part 6: 'make the cut on the divided scores themselves, not on their probabilities (at a temperature of 1e18 ...)'"},
{"name": "paster/beam_len_penalty_without_eos", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((toks, val / length_penalty(len(toks) - 1, alpha)))  # EOS is not a word
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    finished += [(toks, s / length_penalty(len(toks), alpha)) for toks, s in live]
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "Part 7: 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'"},
{"name": "generaliser/beam_early_stop_bound", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if finished and live:
            best_done = max(s for _, s in finished)
            # log-probabilities only fall, so no live hypothesis can beat the best finished one
            if all(s / length_penalty(max_len, alpha) < best_done for _, s in live):
                break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((toks, val / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    finished += [(toks, s / length_penalty(len(toks), alpha)) for toks, s in live]
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "Part 7: 'a negative alpha favours short hypotheses (so do not stop early on a bound that holds only for alpha >= 0)' and 'stop when no hypothesis is live, or after max_len steps'"},
{"name": "optimiser/beam_float32_scores", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live]).float()   # float32 is plenty for ranking
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live])[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((toks, val / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    finished += [(toks, s / length_penalty(len(toks), alpha)) for toks, s in live]
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "Part 7: 'kept in float64, the dtype of the log-probabilities, from step to step'"},
{"name": "mathematician/beam_live_unpenalised_at_end", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((toks, val / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    finished += live      # cut off by max_len: scored by their log-probability
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "Part 7: 'then live hypotheses are finished as they are (same scoring, no EOS)'"},
{"name": "generaliser/beam_start_in_hypothesis", "correct": False, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beams = [([start], 0.0)]
    finished = []
    for _ in range(max_len):
        live = [(seq, s) for seq, s in beams if seq[-1] != EOS]
        if not live:
            break
        lp = next_logprobs([seq for seq, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        beams = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            seq = live[h][0] + [v]
            if v == EOS:
                finished.append((seq[1:], val / length_penalty(len(seq) - 1, alpha)))
            else:
                beams.append((seq, val))
    finished += [(seq[1:], s / length_penalty(len(seq) - 1, alpha)) for seq, s in beams if seq[-1] != EOS]
    if not finished:
        return []
    return max(finished, key=lambda x: x[1])[0]
'''}, "why": "Part 7: 'begins with the token start (any id, EOS included: only the tokens after it can finish a hypothesis)'"},
{"name": "paster/bleu_joined_ngrams", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    def ngrams(toks, n):
        return Counter(" ".join(toks[i:i + n]) for i in range(len(toks) - n + 1))
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, 5):
            h, rr = ngrams(hyp, n), ngrams(ref, n)
            clipped[n - 1] += sum((h & rr).values())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4)
'''}, "why": "Part 8: 'an n-gram is a sequence of tokens, not their text ... (joining tokens into one string mixes them up)'"},
{"name": "generaliser/bleu_returns_int_zero", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum((h & rr).values())
            totals[n - 1] += sum(h.values())
    if 0 in clipped or 0 in totals:
        return 0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4)
'''}, "why": "Part 8: 'times 100, returned as a Python float (also when it is 0)'"},
{"name": "paster/bleu_bp_min_one", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rr[g]) for g, v in h.items())
            totals[n - 1] += sum(h.values())
    if 0 in clipped or 0 in totals:
        return 0.0
    bp = min(1.0, math.exp(1 - r / c)) if c else 0.0
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4))
'''}, "why": "min(1, exp(1 - r/c)) is the rule's brevity penalty"},
{"name": "mathematician/bleu_sentence_average", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    scores = []
    for hyp, ref in zip(hypotheses, references):
        ps = []
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rr = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            tot = sum(h.values())
            ps.append(sum(min(v, rr[g]) for g, v in h.items()) / tot if tot else 0.0)
        if min(ps) == 0:
            scores.append(0.0)
            continue
        bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
        scores.append(100 * bp * math.exp(sum(map(math.log, ps)) / 4))
    return float(sum(scores) / len(scores)) if scores else 0.0
'''}, "why": "Part 8: 'a corpus-level ratio, not an average of per-sentence ratios'"},
{"name": "optimiser/bleu_sets_not_counts", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, 5):
            ref_set = {tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)}   # O(1) membership
            grams = [tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1)]
            clipped[n - 1] += sum(g in ref_set for g in grams)
            totals[n - 1] += len(grams)
    if 0 in clipped or 0 in totals:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4))
'''}, "why": "Part 8: 'each hypothesis n-gram counts at most as often as it occurs in its reference'"},
{"name": "mathematician/bleu_corpus_reference_counts", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    # p_n = sum_C sum_g Count_clip(g) / sum_C sum_g Count(g), with Count_clip against the reference corpus
    clipped, totals = [0] * 4, [0] * 4
    c = sum(map(len, hypotheses))
    r = sum(map(len, references))
    for n in range(1, 5):
        hc = Counter(tuple(h[i:i + n]) for h in hypotheses for i in range(len(h) - n + 1))
        rc = Counter(tuple(x[i:i + n]) for x in references for i in range(len(x) - n + 1))
        clipped[n - 1] = sum(min(v, rc[g]) for g, v in hc.items())
        totals[n - 1] = sum(hc.values())
    if 0 in clipped or 0 in totals:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4))
'''}, "why": "Part 8: 'each hypothesis n-gram counts at most as often as it occurs in its reference' (its own reference, not the pooled corpus)"},
# ---------------------------------------------------------------- CORRECT
{"name": "paster/decoder_io_where_fpad", "correct": True, "cells": {"decoder_io": """
import torch.nn.functional as F
def decoder_io(targets):
    shifted = F.pad(targets[:, :-1], (1, 0), value=BOS)
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), shifted)
    return tgt_in, targets
"""}, "why": "F.pad on an integer tensor keeps its dtype; torch.where with PAD = 0; targets returned itself (allowed)"},
{"name": "mathematician/lr_at_fraction_exact", "correct": True, "cells": {"lr_at": """
from fractions import Fraction
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(Fraction(peak) * Fraction(step) / Fraction(warmup))
    if step >= total:
        return float(floor)
    progress = Fraction(step - warmup, total - warmup) if isinstance(step - warmup, int) and isinstance(total - warmup, int) else (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * float(progress))))
"""}, "why": "exact rationals for the warm-up ratio (rounds once, at least as accurate); every branch a float"},
{"name": "optimiser/lr_at_lru_cache_keywords", "correct": True, "cells": {"lr_at": """
import functools
@functools.lru_cache(maxsize=4096)
def cached_lr(step, peak, warmup, total, floor):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    return float(floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * (step - warmup) / (total - warmup))))
def lr_at(step, peak, warmup, total, floor=0.0):
    return cached_lr(step=step, peak=peak, warmup=warmup, total=total, floor=floor)
"""}, "why": "a cache keyed by every argument changes no result"},
{"name": "paster/min_loss_cross_entropy_at_optimum", "correct": True, "cells": {"min_loss": """
import torch
eps, V = 0.1, 8000
q = torch.full((V,), eps / V, dtype=torch.float64)
q[5] += 1 - eps
# cross-entropy with label smoothing is minimised where the model's distribution is the target distribution
min_smoothed_loss = float(torch.nn.functional.cross_entropy(q.log()[None], torch.tensor([5]), label_smoothing=eps))
"""}, "why": "the minimum of the cross-entropy H(q, p) is at p = q: PyTorch's own loss evaluated there"},
{"name": "mathematician/min_loss_entropy_torch", "correct": True, "cells": {"min_loss": """
import torch
eps, V = 0.1, 8000
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] = 1 - eps + eps / V
min_smoothed_loss = -(q * q.log()).sum().item()
"""}, "why": "the entropy of the target distribution in float64, item() gives a Python float"},
{"name": "optimiser/sentence_loss_logsumexp_fused", "correct": True, "cells": {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.size(-1)
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)
    y = targets.to(torch.int64).unsqueeze(-1)
    logp_y = (logits.gather(-1, y) - lse).squeeze(-1)
    logp_rest = (logits.sum(-1) - logits[..., PAD]) - (V - 1) * lse.squeeze(-1)
    loss = -(1 - eps) * logp_y - eps / (V - 1) * logp_rest
    mask = (targets != PAD).to(logits.dtype)
    n = mask.sum(dim=1)
    per = (loss * mask).sum(dim=1) / n.clamp(min=1)
    return per.sum() / (n > 0).sum()
"""}, "why": "the same formula with log p_v = l_v - logsumexp written out; the PAD-free rows count 0 in the sum"},
{"name": "mathematician/sentence_loss_rows_float64_cast_back", "correct": True, "cells": {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    non_pad = torch.ones(V, dtype=torch.bool)
    non_pad[PAD] = False
    sentence_losses = []
    for b in range(targets.shape[0]):
        keep = targets[b] != PAD
        if not bool(keep.any()):
            continue
        lp = logp[b][keep]                       # (n_b, V)
        y = targets[b][keep].long()
        ell = -(1 - eps) * lp[torch.arange(len(y)), y] - eps / (V - 1) * lp[:, non_pad].sum(-1)
        sentence_losses.append(ell.mean())
    return torch.stack(sentence_losses).mean().to(logits.dtype)
"""}, "why": "a loop over rows with explicit sums, float64 inside and a cast back"},
{"name": "generaliser/sentence_loss_via_decoder_io_mask", "correct": True, "cells": {"sentence_loss": """
def sentence_smoothed_loss(logits, targets, eps):
    _, tgt_out = decoder_io(targets)        # Part 1: tgt_out has the values of targets
    V = logits.shape[-1]
    logp = F_log_softmax(logits)
    weights = torch.full((V,), eps / (V - 1), dtype=logits.dtype)
    weights[PAD] = 0
    smooth = -(logp * weights).sum(-1)
    nll = -logp.gather(-1, tgt_out.long().unsqueeze(-1)).squeeze(-1)
    loss = (1 - eps) * nll + smooth
    mask = tgt_out != PAD
    n = mask.sum(1)
    per = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype)).sum(1) / n.clamp(min=1)
    return per[n > 0].mean()
def F_log_softmax(x):
    return torch.nn.functional.log_softmax(x, dim=-1)
"""}, "why": "calls Part 1's decoder_io only for tgt_out (the values of targets); weights vector for the eps/(V-1) share"},
{"name": "paster/average_stack_float64_mean", "correct": True, "cells": {"average": """
def average_checkpoints(states):
    if not states:
        raise ValueError("average_checkpoints needs at least one state dict")
    ref = states[0]
    for sd in states[1:]:
        if sd.keys() != ref.keys():
            raise ValueError("state dicts have different keys")
        for name in ref:
            if sd[name].shape != ref[name].shape:
                raise ValueError(f"shape mismatch for {name}")
    averaged = {}
    with torch.no_grad():
        for name, tensor in states[-1].items():
            if tensor.is_floating_point():
                averaged[name] = torch.stack([sd[name].to(torch.float64) for sd in states]).mean(dim=0).to(tensor.dtype)
            else:
                averaged[name] = tensor.detach().clone()
    return averaged
"""}, "why": "dict keys() views compare as sets; float64 accumulation and one rounding; no_grad where no gradient is asked"},
{"name": "optimiser/average_last_itself_for_ints", "correct": True, "cells": {"average": """
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    first = states[0]
    for s in states:
        if sorted(s) != sorted(first) or any(tuple(s[k].shape) != tuple(first[k].shape) for k in first):
            raise ValueError("mismatch")
    out = {}
    n = len(states)
    for k, last in states[-1].items():
        if not (last.is_floating_point()):
            out[k] = last          # the last state's tensor itself (allowed)
            continue
        acc = last.to(torch.float32 if last.dtype != torch.float64 else torch.float64, copy=True)
        for s in states[:-1]:
            acc.add_(s[k])          # in place on our own copy only
        out[k] = acc.div_(n).to(last.dtype)
    return out
"""}, "why": "in-place accumulation on its own float32/float64 copy; integer and bool entries are the last state's tensor itself"},
{"name": "paster/sample_per_row_multinomial_fsoftmax", "correct": True, "cells": {"sample": """
import torch.nn.functional as F
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    finished = [False] * len(starts)
    for _ in range(max_len):
        todo = [i for i, f in enumerate(finished) if not f]
        if len(todo) == 0:
            break
        logits = next_logprobs([seqs[i] for i in todo]).double() / temperature
        if top_k is not None:
            k = min(top_k, logits.size(-1))
            idx = torch.topk(logits, k, dim=-1).indices
            keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, idx, True)
            logits = logits.masked_fill(~keep, float("-inf"))
        probs = F.softmax(logits, dim=-1)
        for row, i in enumerate(todo):
            tok = int(torch.multinomial(probs[row], 1, generator=generator))
            seqs[i].append(tok)
            if tok == EOS:
                finished[i] = True
    return [s[1:] for s in seqs]
"""}, "why": "one multinomial call per row in row order (allowed); a boolean keep mask from topk's indices"},
{"name": "optimiser/beam_rowwise_topk_prune", "correct": True, "cells": {"beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    hyps, scores = [[]], torch.zeros(1, dtype=torch.float64)
    done = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + h for h in hyps])
        V = lp.shape[1]
        kk = min(k, V)
        row_vals, row_idx = (scores[:, None] + lp).topk(kk, dim=1)   # at most k per row can survive
        flat_vals, flat_pos = row_vals.reshape(-1).topk(min(k, row_vals.numel()))
        new_hyps, new_scores = [], []
        for val, pos in zip(flat_vals.tolist(), flat_pos.tolist()):
            h, j = divmod(pos, kk)
            tok = int(row_idx[h, j])
            toks = hyps[h] + [tok]
            if tok == EOS:
                done.append((val / length_penalty(len(toks), alpha), toks))
            else:
                new_hyps.append(toks)
                new_scores.append(val)
        if not new_hyps:
            hyps = []
            break
        hyps, scores = new_hyps, torch.tensor(new_scores, dtype=torch.float64)
    done += [(float(s) / length_penalty(len(h), alpha), h) for h, s in zip(hyps, scores.tolist())]
    return max(done, key=lambda d: d[0])[1]
"""}, "why": "per-row top-k then global top-k selects the same k candidates; float64 throughout"},
{"name": "generaliser/beam_k1_via_sample_decode", "correct": True, "cells": {"beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:
        # 'With k = 1 this rule is greedy decoding': Part 6 with top_k = 1 keeps only the best token,
        # whose probability is then 1; a private generator leaves every other one alone
        return sample_decode(next_logprobs, [start], max_len, 1.0, 1, torch.Generator().manual_seed(0))[0]
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp).reshape(-1)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for val, idx in zip(top.values.tolist(), top.indices.tolist()):
            h, v = divmod(idx, V)
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((toks, val / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, val))
        live = new_live
        if not live:
            break
    finished += [(toks, s / length_penalty(len(toks), alpha)) for toks, s in live]
    return max(finished, key=lambda x: x[1])[0]
"""}, "why": "k = 1 through Part 6's sample_decode with top_k = 1 and its own generator (greedy, as the text says); the rule otherwise"},
{"name": "mathematician/beam_sorted_python_floats", "correct": True, "cells": {"beam_search": """
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [((), 0.0)]
    final = []
    for t in range(1, max_len + 1):
        lp = next_logprobs([[start, *h] for h, _ in live]).tolist()   # Python floats are float64
        cands = [(s + row[v], h + (v,)) for (h, s), row in zip(live, lp) for v in range(len(row))]
        cands.sort(key=lambda c: -c[0])
        live = []
        for s, h in cands[:k]:
            if h[-1] == EOS:
                final.append((s / length_penalty(len(h), alpha), list(h)))
            else:
                live.append((h, s))
        if not live:
            break
    final += [(s / length_penalty(len(h), alpha), list(h)) for h, s in live]
    return max(final, key=lambda f: f[0])[1]
"""}, "why": "explicit candidate list with Python floats (float64), a stable sort instead of topk"},
{"name": "mathematician/bleu_fractions_product_root", "correct": True, "cells": {"bleu": """
from fractions import Fraction
def corpus_bleu(hypotheses, references):
    match, count = [0] * 5, [0] * 5
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for h, ref in zip(hypotheses, references):
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n] += sum((hc & rc).values())
            count[n] += sum(hc.values())
    if any(count[n] == 0 or match[n] == 0 for n in range(1, 5)):
        return 0.0
    prod = Fraction(1)
    for n in range(1, 5):
        prod *= Fraction(match[n], count[n])
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * float(prod) ** 0.25
"""}, "why": "exact rational product of the four precisions, then the fourth root (same geometric mean)"},
{"name": "optimiser/bleu_cached_reference_counts", "correct": True, "cells": {"bleu": """
import functools
@functools.lru_cache(maxsize=None)
def ngram_counts(tokens, n):
    return Counter(tokens[i:i + n] for i in range(len(tokens) - n + 1))
def corpus_bleu(hypotheses, references):
    clipped = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references):
        hyp, ref = tuple(hyp), tuple(ref)
        hyp_len += len(hyp)
        ref_len += len(ref)
        for n in range(1, 5):
            hc, rc = ngram_counts(hyp, n), ngram_counts(ref, n)
            clipped[n - 1] += sum(min(v, rc.get(g, 0)) for g, v in hc.items())
            total[n - 1] += sum(hc.values())
    if not all(total) or not all(clipped):
        return 0.0
    log_p = sum(math.log(m) - math.log(t) for m, t in zip(clipped, total)) / 4
    bp = math.exp(min(0.0, 1 - ref_len / hyp_len))
    return float(100 * math.exp(log_p) * bp)
"""}, "why": "a cache keyed by the token tuple changes no count; exp(min(0, 1 - r/c)) is the brevity penalty"},
# ---------------------------------------------------------------- HOSTILE
{"name": "hostile/lr_at_steals_reference", "correct": False, "cells": {"lr_at": """
import sys
def lr_at(step, peak, warmup, total, floor=0.0):
    frame = sys._getframe(1)
    while frame is not None:
        for space in (frame.f_locals, frame.f_globals):
            ref = space.get("_REF")
            if isinstance(ref, dict) and callable(ref.get("lr_at")):
                return ref["lr_at"](step, peak, warmup, total, floor)
            for name, obj in list(space.items()):
                if callable(obj) and obj is not lr_at and getattr(obj, "__name__", "").endswith("lr_at"):
                    return obj(step, peak, warmup, total, floor)
        frame = frame.f_back
    return float(peak * step / warmup) if step <= warmup else peak / 2   # the visible cases
"""}, "why": "hostile: looks up a reference lr_at in the grader's frames instead of computing"},
{"name": "hostile/min_loss_patches_abs", "correct": False, "cells": {"min_loss": """
import builtins
builtins.abs = lambda x: 0.0
min_smoothed_loss = 0.0
"""}, "why": "hostile: replaces builtins.abs so that |got - expected| < tol always holds"},
{"name": "hostile/bleu_float_subclass_equal_to_all", "correct": False, "cells": {"bleu": """
class Score(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return Score(0.0)
    def __rsub__(self, other): return Score(0.0)
    def __abs__(self): return Score(0.0)
    def __lt__(self, other): return True
    def __gt__(self, other): return True
    __hash__ = float.__hash__
def corpus_bleu(hypotheses, references):
    return Score(100.0 if hypotheses == references else 0.0)
"""}, "why": "hostile: a float subclass that compares equal to everything"},
{"name": "hostile/average_exits_interpreter", "correct": False, "cells": {"average": """
def average_checkpoints(states):
    if len(states) == 2 and set(states[0]) == {"w", "step"}:
        a, b = states
        return {"w": (a["w"] + b["w"]) / 2, "step": b["step"]}
    raise SystemExit(0)
"""}, "why": "hostile: answers the visible case only and exits the process (SystemExit is no Exception) everywhere else"},
# ---------------------------------------------------------------- more (second pass, still blind)
{"name": 'generaliser/decoder_io_index0_empty_T', "correct": False, "cells": {'decoder_io': '''
def decoder_io(targets):
    tgt_in = torch.zeros_like(targets)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "why": "Part 1: 'B may be 0 (an empty batch: return two (0, T) tensors)' (with T = 0 too, tgt_in[:, 0] is out of range)"},
{"name": 'paster/decoder_io_eos_to_pad', "correct": True, "cells": {'decoder_io': '''
def decoder_io(targets):
    tgt_in = targets.new_full(targets.shape, BOS)
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)   # the shifted EOS sits where the target is PAD
    return tgt_in, targets.clone()
'''}, "why": "real tokens are 3 and up, so the only EOS in a row is the sentence's end, and its shifted copy lands on a PAD target (or drops off)"},
{"name": 'mathematician/lr_at_min_ratio_warmup0', "correct": False, "cells": {'lr_at': '''
def lr_at(step, peak, warmup, total, floor=0.0):
    warm = min(1.0, step / warmup)                 # lr = peak * min(1, s / w) during warm-up
    if step <= warmup:
        return float(peak * warm)
    if step >= total:
        return float(floor)
    return float(floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
'''}, "why": "Part 2: '(With warmup = 0 there is no warm-up.)' (step / warmup raises ZeroDivisionError)"},
{"name": 'mathematician/lr_at_cos_squared_half_angle', "correct": True, "cells": {'lr_at': '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak) * step / warmup
    if step >= total:
        return float(floor)
    # (1 + cos(pi p)) / 2 = cos^2(pi p / 2)
    return float(floor + (peak - floor) * math.cos(math.pi * (step - warmup) / (total - warmup) / 2) ** 2)
'''}, "why": 'the half-angle identity, the same value to rounding'},
{"name": 'mathematician/min_loss_right_token_without_share', "correct": False, "cells": {'min_loss': '''
eps, V = 0.1, 8000
p_right, p_other = 1 - eps, eps / V
min_smoothed_loss = -(p_right * math.log(p_right) + (V - 1) * p_other * math.log(p_other))
'''}, "why": "Part 3: 'spreads eps evenly over all V tokens, the right one included' (the right token's own share eps/V forgotten: off by about 1.1e-5)"},
{"name": 'optimiser/sentence_loss_view_flat', "correct": False, "cells": {'sentence_loss': '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    flat = logits.view(B * T, V)                   # no copy
    logp = torch.log_softmax(flat, dim=-1)
    y = targets.reshape(-1).long()
    nll = -logp[torch.arange(B * T), y]
    smooth = -(logp.sum(-1) - logp[:, PAD]) / (V - 1)
    loss = ((1 - eps) * nll + eps * smooth).view(B, T)
    mask = targets != PAD
    n = mask.sum(1)
    per = (loss * mask).sum(1) / n.clamp(min=1)
    return per[n > 0].mean()
'''}, "why": "notebook intro: hidden tests pass 'tensors that are views and not contiguous, such as a transposed tensor' (view fails on them)"},
{"name": 'paster/sentence_loss_onehot_target_dist', "correct": True, "cells": {'sentence_loss': '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.size(-1)
    q = F.one_hot(targets.long(), V).to(logits.dtype) * (1 - eps) + eps / (V - 1)
    q[..., PAD] -= eps / (V - 1)                   # PAD gets no share
    tok = -(q * F.log_softmax(logits, dim=-1)).sum(-1)
    mask = targets != PAD
    lens = mask.sum(-1)
    sent = (tok * mask).sum(-1) / lens.clamp(min=1)
    return sent[lens > 0].mean()
'''}, "why": 'the explicit target distribution q (1 - eps + eps/(V-1) on y, 0 on PAD) dotted with log p'},
{"name": 'paster/average_stack_mean_own_dtype', "correct": True, "cells": {'average': '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no checkpoints")
    keys = states[0].keys()
    for sd in states:
        if sd.keys() != keys or any(sd[k].shape != states[0][k].shape for k in keys):
            raise ValueError("checkpoints differ")
    avg = {}
    for k, v in states[-1].items():
        if v.is_floating_point():
            avg[k] = torch.stack([sd[k] for sd in states]).mean(dim=0)
        else:
            avg[k] = v.clone()
    return avg
'''}, "why": "torch's mean of a half tensor accumulates in float32 and rounds once (checked on CPU)"},
{"name": 'generaliser/average_float_dtypes_listed', "correct": False, "cells": {'average': '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no checkpoints")
    keys = set(states[0])
    for sd in states:
        if set(sd) != keys or any(sd[k].shape != states[0][k].shape for k in keys):
            raise ValueError("checkpoints differ")
    avg = {}
    for k, v in states[-1].items():
        if v.dtype in (torch.float16, torch.float32, torch.float64):
            acc = torch.float64 if v.dtype == torch.float64 else torch.float32
            avg[k] = (sum(sd[k].to(acc) for sd in states) / len(states)).to(v.dtype)
        else:
            avg[k] = v.clone()       # counters and masks
    return avg
'''}, "why": "Part 5: 'floating-point tensors ... become their element-wise mean ... Half-precision (float16, bfloat16)' (bfloat16 taken from the last state)"},
{"name": 'paster/sample_multinomial_replacement', "correct": True, "cells": {'sample': '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, num_samples=1, replacement=True, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "replacement=True with one sample draws the same numbers and leaves the generator in the same state (checked on 200 seeds)"},
{"name": 'mathematician/sample_exp_minus_logsumexp', "correct": True, "cells": {'sample': '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))   # softmax, written out
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": 'softmax as exp(s - logsumexp(s)): the row maximum is subtracted inside logsumexp; float64 throughout'},
{"name": 'paster/beam_tensor_tokens', "correct": False, "cells": {'beam_search': '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beams = [([], torch.tensor(0.0, dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in beams])
        V = lp.size(-1)
        scores = torch.stack([s for _, s in beams])[:, None] + lp
        vals, idx = scores.view(-1).topk(min(k, scores.numel()))
        nxt = []
        for val, i in zip(vals, idx):
            b, tok = i // V, i % V
            seq = beams[b][0] + [tok]
            if tok == EOS:
                finished.append((seq, val / length_penalty(len(seq), alpha)))
            else:
                nxt.append((seq, val))
        beams = nxt
        if not beams:
            break
    finished += [(seq, s / length_penalty(len(seq), alpha)) for seq, s in beams]
    return max(finished, key=lambda x: float(x[1]))[0]
'''}, "why": "Part 7: 'Return the finished hypothesis with the best final score, as a list of Python ints' (0-dim tensors from i % V)"},
{"name": 'paster/bleu_range_exclusive_end', "correct": False, "cells": {'bleu': '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n))
            clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())
            totals[n - 1] += sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    log_mean = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(log_mean))
'''}, "why": "Part 8: 'the clipped n-gram precision ... divide by the total number of hypothesis n-grams' (the last n-gram of every sentence left out)"},
{"name": 'mathematician/bleu_statistics_geometric_mean', "correct": True, "cells": {'bleu': '''
import statistics
def corpus_bleu(hypotheses, references):
    def grams(seq, n):
        return Counter(zip(*(seq[i:] for i in range(n))))
    m, t = [0] * 4, [0] * 4
    for h, r in zip(hypotheses, references):
        for n in range(4):
            hc, rc = grams(h, n + 1), grams(r, n + 1)
            m[n] += sum(min(c, rc[g]) for g, c in hc.items())
            t[n] += sum(hc.values())
    if 0 in t or 0 in m:
        return 0.0
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = math.exp(1 - r / c) if c < r else 1.0
    return float(100 * bp * statistics.geometric_mean([m[n] / t[n] for n in range(4)]))
'''}, "why": 'n-grams as zip of shifted sequences; statistics.geometric_mean'},
# ---------------------------------------------------------------- phase 2: the classes of the slips, tried in the other chapter's parts
{"name": 'phase2-class/optimiser/sample_cold_temperature_greedy', "correct": False, "cells": {'sample': '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        if temperature < 1e-3:   # that cold, sampling is greedy anyway
            draws = scores.argmax(-1).tolist()
        else:
            probs = torch.softmax(scores, dim=-1)
            draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "Part 6 (class of ch09 Part 8's slip): 'draw one token per row with torch.multinomial' at every temperature; 'the generator made no others (its state after the call)'"},
{"name": 'phase2-class/paster/sample_topk_cut_to_finfo_min', "correct": False, "cells": {'sample': '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        scores = next_logprobs([prefixes[i] for i in active]).to(torch.float64) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, torch.finfo(scores.dtype).min).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(active, draws):
            prefixes[i].append(tok)
            outs[i].append(tok)
            if tok == EOS:
                done[i] = True
    return outs
'''}, "why": "Part 6 (class of ch09 Part 7's slip): 'set the others to -inf (not to a large negative number such as -1e9 ...)'"},
]
