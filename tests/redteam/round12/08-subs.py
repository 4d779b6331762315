"""Red team round 12 submissions (self-contained copy of the helper's generated list)."""

SUBMISSIONS = [
    {
        "name": 'p1_dtype_long',
        "correct": False,
        "why": "breaks 'two integer tensors of shape (B, T) and of the dtype of targets' (int32 targets give int64)",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    B, T = targets.shape\n    tgt_in = torch.full((B, T), PAD, dtype=torch.long)\n    tgt_in[:, 0] = BOS\n    tgt_in[:, 1:] = targets[:, :-1]\n    tgt_in[targets == PAD] = PAD\n    return tgt_in, targets\n',
        },
    },
    {
        "name": 'p1_float_mask',
        "correct": False,
        "why": "breaks 'ids from a vocabulary of any size: any id such a tensor can hold' (ids above 2**24 round through float32)",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    shifted = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)\n    keep = (targets != PAD).float()\n    return (shifted.float() * keep).to(targets.dtype), targets\n',
        },
    },
    {
        "name": 'p1_strip_eos_inplace',
        "correct": False,
        "why": "breaks '`targets` itself must not change'",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    tgt_out = targets.clone()\n    targets[targets == EOS] = PAD          # drop the EOS from the sentence\n    tgt_in = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)\n    tgt_in[tgt_out == PAD] = PAD\n    return tgt_in, tgt_out\n',
        },
    },
    {
        "name": 'p1_view_flat',
        "correct": False,
        "why": "breaks intro 'tensors that are views and not contiguous, such as a transposed tensor' (.view fails)",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    B, T = targets.shape\n    flat = targets.view(B * T)\n    shifted = torch.cat([torch.full_like(flat[:1], BOS), flat[:-1]]).view(B, T)\n    shifted[:, 0] = BOS\n    shifted = torch.where(targets == PAD, torch.zeros_like(shifted), shifted)\n    return shifted, targets\n',
        },
    },
    {
        "name": 'p1_roll_where',
        "correct": True,
        "why": "correct: roll + where, returns targets itself (allowed: 'returning targets itself or a copy are both fine')",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    rolled = torch.roll(targets, shifts=1, dims=1)\n    rolled[:, 0] = BOS\n    return torch.where(targets.eq(PAD), targets, rolled), targets\n',
        },
    },
    {
        "name": 'p1_fpad',
        "correct": True,
        "why": 'correct: F.pad on an integer tensor, in-place masked_fill_ on own intermediate',
        "cells": {
            'decoder_io': '\nimport torch.nn.functional as F\ndef decoder_io(targets):\n    shifted = F.pad(targets[:, :-1], (1, 0), value=BOS)\n    shifted.masked_fill_(targets == PAD, PAD)\n    return shifted, targets.clone()\n',
        },
    },
    {
        "name": 'p2_int_floor',
        "correct": False,
        "why": "breaks 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    if step <= warmup:\n        return peak * step / warmup\n    if step >= total:\n        return floor\n    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))\n',
        },
    },
    {
        "name": 'p2_no_clamp_after_total',
        "correct": False,
        "why": "breaks 'down to a floor, reached at step total and kept afterwards' (the cosine rises again after total)",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    if step <= warmup:\n        return float(peak * step / warmup)\n    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))\n',
        },
    },
    {
        "name": 'p2_warmup_from_floor',
        "correct": False,
        "why": "breaks the formula 'peak * step / warmup' for step <= warmup (warms up from the floor)",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    if step <= warmup:\n        return float(floor + (peak - floor) * step / warmup)\n    if step >= total:\n        return float(floor)\n    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))\n',
        },
    },
    {
        "name": 'p2_tensor_result',
        "correct": False,
        "why": "breaks 'returning a Python float on every branch' (a 0-d float64 tensor)",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    step = torch.tensor(step, dtype=torch.float64)\n    if step <= warmup:\n        return peak * step / warmup\n    if step >= total:\n        return torch.tensor(float(floor), dtype=torch.float64)\n    return floor + (peak - floor) / 2 * (1 + torch.cos(math.pi * (step - warmup) / (total - warmup)))\n',
        },
    },
    {
        "name": 'p2_closed_form_kw',
        "correct": True,
        "why": 'correct: clamped progress instead of a third branch (cos(pi) = -1 gives exactly the floor)',
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    if warmup and step <= warmup:\n        return step * float(peak) / warmup\n    progress = min(1.0, (step - warmup) / (total - warmup))\n    return float(floor) + 0.5 * (float(peak) - float(floor)) * (1.0 + math.cos(math.pi * progress))\n',
        },
    },
    {
        "name": 'p3_excludes_right_token',
        "correct": False,
        "why": "breaks 'spreads eps evenly over all V tokens, the right one included'",
        "cells": {
            'min_loss': '\neps, V = 0.1, 8000\nq_y, q_o = 1 - eps, eps / (V - 1)\nmin_smoothed_loss = -(q_y * math.log(q_y) + (V - 1) * q_o * math.log(q_o))\n',
        },
    },
    {
        "name": 'p3_log2',
        "correct": False,
        "why": "breaks 'in nats, natural logarithm'",
        "cells": {
            'min_loss': '\neps, V = 0.1, 8000\nq_y, q_o = 1 - eps + eps / V, eps / V\nmin_smoothed_loss = -(q_y * math.log2(q_y) + (V - 1) * q_o * math.log2(q_o))\n',
        },
    },
    {
        "name": 'p3_torch_opt',
        "correct": True,
        "why": 'correct: the entropy of the target computed with torch in float64',
        "cells": {
            'min_loss': '\nt = torch.full((8000,), 0.1 / 8000, dtype=torch.float64)\nt[0] += 0.9\nmin_smoothed_loss = float(-(t * t.log()).sum())\n',
        },
    },
    {
        "name": 'p4_token_mean',
        "correct": False,
        "why": "breaks 'the loss of a sentence is the mean of l over its positions ... the result is the mean of the sentence losses'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = targets != PAD\n    return ell[m].mean()\n',
        },
    },
    {
        "name": 'p4_all_V',
        "correct": False,
        "why": "breaks 'spreads eps evenly over the V - 1 tokens other than PAD (PAD gets no share)'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n    ell = (1 - eps) * nll - eps * lp.mean(-1)\n    m = targets != PAD\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    cnt = m.sum(1)\n    keep = cnt > 0\n    return (ell.sum(1)[keep] / cnt[keep]).mean()\n',
        },
    },
    {
        "name": 'p4_excl_right',
        "correct": False,
        "why": "breaks 'the V - 1 tokens other than PAD (the right one included)' (excludes the right token instead)",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    y = targets.long()\n    nll = -lp.gather(-1, y.unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) + nll) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = targets != PAD\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    cnt = m.sum(1)\n    keep = cnt > 0\n    sent = ell.sum(1)[keep] / cnt[keep].to(ell.dtype)\n    return sent.mean()\n',
        },
    },
    {
        "name": 'p4_pad_rows_count_zero',
        "correct": False,
        "why": "breaks 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = (targets != PAD).to(ell.dtype)\n    sent = (ell * m).sum(1) / m.sum(1).clamp(min=1)\n    return sent.mean()\n',
        },
    },
    {
        "name": 'p4_prefix_length',
        "correct": False,
        "why": "breaks 'its positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = (targets != PAD).long().cumprod(1).bool()    # positions before the first PAD\n    cnt = m.sum(1)\n    keep = cnt > 0\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    return (ell.sum(1)[keep] / cnt[keep]).mean()\n',
        },
    },
    {
        "name": 'p4_float32',
        "correct": False,
        "why": "breaks 'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits.float(), dim=-1)\n    y = targets.long()\n    nll = -lp.gather(-1, y.unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = targets != PAD\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    cnt = m.sum(1)\n    keep = cnt > 0\n    sent = ell.sum(1)[keep] / cnt[keep].to(ell.dtype)\n    return sent.mean()\n',
        },
    },
    {
        "name": 'p4_handmade_lse',
        "correct": False,
        "why": "breaks intro 'logits in the hundreds, where a softmax that does not subtract the row maximum overflows'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = logits - logits.exp().sum(-1, keepdim=True).log()\n    y = targets.long()\n    nll = -lp.gather(-1, y.unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = targets != PAD\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    cnt = m.sum(1)\n    keep = cnt > 0\n    sent = ell.sum(1)[keep] / cnt[keep].to(ell.dtype)\n    return sent.mean()\n',
        },
    },
    {
        "name": 'p4_item',
        "correct": False,
        "why": "breaks 'loss.backward() must leave the exact gradient in logits.grad (no detour through Python numbers)'",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    y = targets.long()\n    nll = -lp.gather(-1, y.unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    m = targets != PAD\n    ell = torch.where(m, ell, torch.zeros_like(ell))\n    cnt = m.sum(1)\n    keep = cnt > 0\n    sent = ell.sum(1)[keep] / cnt[keep].to(ell.dtype)\n    return torch.tensor(sent.mean().item(), dtype=logits.dtype)\n',
        },
    },
    {
        "name": 'p4_loop_f64',
        "correct": True,
        "why": 'correct: per-row loop, einsum, float64 inside and a cast back',
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits.to(torch.float64), dim=-1)\n    others = torch.ones(V, dtype=torch.float64)\n    others[PAD] = 0.0\n    losses = []\n    for b in range(targets.shape[0]):\n        rows = (targets[b] != PAD).nonzero().flatten()\n        if rows.numel() == 0:\n            continue\n        y = targets[b, rows].long()\n        l = -(1 - eps) * lp[b, rows, y] - eps / (V - 1) * torch.einsum("tv,v->t", lp[b, rows], others)\n        losses.append(l.mean())\n    return torch.stack(losses).mean().to(logits.dtype)\n',
        },
    },
    {
        "name": 'p5_fp16_sum',
        "correct": False,
        "why": "breaks 'Half-precision tensors must be as accurate as averaging in float32 or better ... sum does not fit in float16'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if not states:\n        raise ValueError("empty")\n    keys = set(states[0])\n    out = {}\n    for s in states:\n        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):\n            raise ValueError("mismatch")\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            out[k] = sum(t.clone() for t in ts) / len(ts)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'p5_int64_only',
        "correct": False,
        "why": "breaks 'integer tensors of any width, signed or unsigned (int8 ... int64, uint8) ... come from the last state'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if not states:\n        raise ValueError("empty")\n    keys = set(states[0])\n    for s in states:\n        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):\n            raise ValueError("mismatch")\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].dtype in (torch.int64, torch.bool):\n            out[k] = ts[-1].clone()\n        else:\n            out[k] = torch.stack([t.double() for t in ts]).mean(0).to(ts[0].dtype)\n    return out\n',
        },
    },
    {
        "name": 'p5_key_order',
        "correct": False,
        "why": "breaks '(the same keys in another order do not differ)'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    keys = set(states[0].keys())\n    for s in states:\n        if list(s.keys()) != list(states[0].keys()):\n            raise ValueError("keys differ")\n        for k in keys:\n            if s[k].shape != states[0][k].shape:\n                raise ValueError("shapes differ")\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            acc = torch.stack([t.to(torch.float64) for t in ts]).mean(0)\n            out[k] = acc.to(ts[0].dtype)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'p5_empty_returns',
        "correct": False,
        "why": "breaks 'an empty list ... raise ValueError'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        return {}\n    keys = set(states[0].keys())\n    for s in states:\n        if set(s.keys()) != keys:\n            raise ValueError("keys differ")\n        for k in keys:\n            if s[k].shape != states[0][k].shape:\n                raise ValueError("shapes differ")\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            acc = torch.stack([t.to(torch.float64) for t in ts]).mean(0)\n            out[k] = acc.to(ts[0].dtype)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'p5_no_shape_check',
        "correct": False,
        "why": "breaks 'states whose ... shapes differ raise ValueError' (torch.stack raises RuntimeError; integers never compared)",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    for s in states:\n        if set(s) != set(states[0]):\n            raise ValueError("keys differ")\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            out[k] = torch.stack([t.to(torch.float64) for t in ts]).mean(0).to(ts[0].dtype)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'p5_inplace_acc',
        "correct": False,
        "why": "breaks 'do not change the given tensors'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    for s in states:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n            raise ValueError("mismatch")\n    out = {}\n    for k in states[0]:\n        if states[0][k].is_floating_point():\n            acc = states[0][k]\n            for s in states[1:]:\n                acc += s[k]\n            out[k] = acc / len(states)\n        else:\n            out[k] = states[-1][k]\n    return out\n',
        },
    },
    {
        "name": 'p5_reuse_last_dict',
        "correct": False,
        "why": "breaks 'return a new dict (not one of the given ones)' and 'the given dicts keep exactly their entries'",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    for s in states:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n            raise ValueError("mismatch")\n    out = states[-1]\n    for k in list(out):\n        if out[k].is_floating_point():\n            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(out[k].dtype)\n    return out\n',
        },
    },
    {
        "name": 'p5_extra_keys_later',
        "correct": False,
        "why": "breaks 'states whose keys ... differ raise ValueError' (extra keys in a later state pass)",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    out = {}\n    for k, t0 in states[0].items():\n        if any(k not in s or s[k].shape != t0.shape for s in states):\n            raise ValueError("mismatch")\n        ts = [s[k] for s in states]\n        if t0.is_floating_point():\n            out[k] = torch.stack([t.double() for t in ts]).mean(0).to(t0.dtype)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'p5_running_mean_f32',
        "correct": True,
        "why": 'correct: float64 running sum with in-place ops on its own accumulator',
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if isinstance(states, list) and len(states) == 0:\n        raise ValueError("empty")\n    first = states[0]\n    for s in states:\n        if sorted(s) != sorted(first) or any(tuple(s[k].shape) != tuple(first[k].shape) for k in first):\n            raise ValueError("mismatch")\n    result = dict()\n    for name in first:\n        last = states[-1][name]\n        if torch.is_floating_point(last):\n            acc = torch.zeros(last.shape, dtype=torch.float64)\n            for s in states:\n                acc.add_(s[name])\n            acc.div_(len(states))\n            result[name] = acc.to(last.dtype)\n        else:\n            result[name] = last.detach().clone()\n    return result\n',
        },
    },
    {
        "name": 'p6_float32_probs',
        "correct": False,
        "why": "breaks 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = torch.softmax(lp.float(), dim=-1).double()\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_topk_threshold',
        "correct": False,
        "why": "breaks 'keep the top_k largest entries of each row (the ones torch.topk returns)' (ties at the k-th keep more)",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]\n            lp = lp.masked_fill(lp < kth, -math.inf)\n        probs = torch.softmax(lp, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_ask_all',
        "correct": False,
        "why": "breaks 'ask next_logprobs once, with the prefixes of the unfinished sentences only' and 'Draw nothing for finished sentences'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[s] for s in starts]\n    out = [[] for _ in starts]\n    done = [False] * len(starts)\n    for _ in range(max_len):\n        if all(done) or not starts:\n            break\n        lp = next_logprobs(seqs).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        draws = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator)\n        for i in range(len(starts)):\n            if not done[i]:\n                t = int(draws[i, 0]); seqs[i].append(t); out[i].append(t)\n                done[i] = t == EOS\n    return out\n',
        },
    },
    {
        "name": 'p6_temp_mult',
        "correct": False,
        "why": "breaks 'divide them by temperature'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) * temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = torch.softmax(lp, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_maxlen0_asks',
        "correct": False,
        "why": "breaks '`max_len` may be 0 ...: then nothing is asked and nothing is drawn'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts)))\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        draws = torch.multinomial(torch.softmax(lp, dim=-1), 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0]); seqs[i].append(t); out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_start_eos_finishes',
        "correct": False,
        "why": "breaks 'Its start token is not produced: a start token that is EOS does not finish it'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = [i for i in range(len(starts)) if starts[i] != EOS] if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = torch.softmax(lp, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_pad_stops',
        "correct": False,
        "why": "breaks 'it may predict any id, PAD and BOS included: treat them like any other token'",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = torch.softmax(lp, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t not in (EOS, PAD) and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'p6_per_row_where',
        "correct": True,
        "why": "correct: torch.where for the cut, one multinomial call per row on a 1-d row (allowed: 'or one call per row in the same order')",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    hyps = [[s] for s in starts]\n    alive = [True] * len(starts) if max_len > 0 else [False] * len(starts)\n    while any(alive):\n        idx = [i for i, a in enumerate(alive) if a]\n        scores = next_logprobs([hyps[i] for i in idx]).double().div(temperature)\n        if top_k is not None:\n            keep = torch.zeros_like(scores, dtype=torch.bool)\n            keep.scatter_(1, torch.topk(scores, top_k, dim=1).indices, True)\n            scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=torch.float64))\n        probs = torch.softmax(scores, dim=1)\n        for row, i in enumerate(idx):\n            tok = torch.multinomial(probs[row], 1, generator=generator).item()\n            hyps[i].append(tok)\n            if tok == EOS or len(hyps[i]) - 1 >= max_len:\n                alive[i] = False\n    return [h[1:] for h in hyps]\n',
        },
    },
    {
        "name": 'p7_refill',
        "correct": False,
        "why": "breaks 'Finished candidates use up places among the k ... the beam is not refilled'",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + t for t, _ in live])\n        cands = sorted(((s + float(lp[i, v]), t + [v]) for i, (t, s) in enumerate(live) for v in range(lp.shape[1])),\n                       key=lambda c: -c[0])\n        live = []\n        for sc, t in cands[:2 * k]:\n            if t[-1] == EOS:\n                finished.append((sc / length_penalty(len(t), alpha), t))\n            elif len(live) < k:\n                live.append((t, sc))\n        if not live:\n            break\n    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]\n    return max(finished, key=lambda f: f[0])[1]\n',
        },
    },
    {
        "name": 'p7_len_without_eos',
        "correct": False,
        "why": "breaks 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        V = lp.shape[-1]\n        cands = []\n        for i, (toks, s) in enumerate(live):\n            for v in range(V):\n                cands.append((s + float(lp[i, v]), toks + [v]))\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for sc, toks in cands[:k]:\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks) - 1, alpha), toks))\n            else:\n                live.append((toks, sc))\n        if not live:\n            break\n    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))\n    best = max(finished, key=lambda f: f[0])\n    return [int(t) for t in best[1]]\n',
        },
    },
    {
        "name": 'p7_live_unpenalised',
        "correct": False,
        "why": "breaks 'then live hypotheses are finished as they are (same scoring, no EOS)'",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        V = lp.shape[-1]\n        cands = []\n        for i, (toks, s) in enumerate(live):\n            for v in range(V):\n                cands.append((s + float(lp[i, v]), toks + [v]))\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for sc, toks in cands[:k]:\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                live.append((toks, sc))\n        if not live:\n            break\n    for toks, sc in live:\n        finished.append((sc, toks))\n    best = max(finished, key=lambda f: f[0])\n    return [int(t) for t in best[1]]\n',
        },
    },
    {
        "name": 'p7_early_stop',
        "correct": False,
        "why": "breaks 'stop when no hypothesis is live, or after max_len steps'",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        V = lp.shape[-1]\n        cands = []\n        for i, (toks, s) in enumerate(live):\n            for v in range(V):\n                cands.append((s + float(lp[i, v]), toks + [v]))\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for sc, toks in cands[:k]:\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                live.append((toks, sc))\n        if not live:\n            break\n        if finished and max(f[0] for f in finished) >= max(s for _, s in live):\n            break\n    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))\n    best = max(finished, key=lambda f: f[0])\n    return [int(t) for t in best[1]]\n',
        },
    },
    {
        "name": 'p7_topk_no_min',
        "correct": False,
        "why": "breaks '(if there are fewer than k candidates in all, take them all)': torch.topk(k) raises",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + t for t, _ in live])\n        V = lp.shape[1]\n        total = torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + lp\n        vals, idx = torch.topk(total.flatten(), k)\n        new = []\n        for sc, j in zip(vals.tolist(), idx.tolist()):\n            t = live[j // V][0] + [j % V]\n            if t[-1] == EOS:\n                finished.append((sc / length_penalty(len(t), alpha), t))\n            else:\n                new.append((t, sc))\n        live = new\n        if not live:\n            break\n    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]\n    return max(finished, key=lambda f: f[0])[1]\n',
        },
    },
    {
        "name": 'p7_start_eos',
        "correct": False,
        "why": "breaks '(any id, EOS included: only the tokens after it can finish a hypothesis)': a start EOS ends the search with nothing",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    beams = [([start], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        live = [(p, s) for p, s in beams if p[-1] != EOS]\n        if not live:\n            break\n        lp = next_logprobs([p for p, _ in live])\n        cands = sorted(((s + float(lp[i, v]), p + [v]) for i, (p, s) in enumerate(live) for v in range(lp.shape[1])),\n                       key=lambda c: -c[0])[:k]\n        beams = []\n        for sc, p in cands:\n            if p[-1] == EOS:\n                finished.append((sc / length_penalty(len(p) - 1, alpha), p[1:]))\n            else:\n                beams.append((p, sc))\n        if not beams:\n            break\n    finished += [(s / length_penalty(len(p) - 1, alpha), p[1:]) for p, s in beams]\n    return max(finished, key=lambda f: f[0])[1]\n',
        },
    },
    {
        "name": 'p7_single_prefix_kw',
        "correct": True,
        "why": 'correct: asks next_logprobs one prefix at a time and calls length_penalty by keyword (allowed)',
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [(0.0, [])]\n    done = []\n    for _ in range(max_len):\n        cands = []\n        for score, toks in live:\n            row = next_logprobs([[start, *toks]])[0]\n            cands += [(score + float(row[v]), toks + [v]) for v in range(row.numel())]\n        cands.sort(key=lambda c: c[0], reverse=True)\n        live = []\n        for score, toks in cands[:min(k, len(cands))]:\n            if toks[-1] == EOS:\n                done.append((score / length_penalty(n=len(toks), alpha=alpha), toks))\n            else:\n                live.append((score, toks))\n        if not live:\n            break\n    done += [(s / length_penalty(alpha=alpha, n=len(t)), t) for s, t in live]\n    return max(done, key=lambda d: d[0])[1]\n',
        },
    },
    {
        "name": 'p8_join_strings',
        "correct": False,
        "why": "breaks 'an n-gram is a sequence of tokens, not their text: ... (joining tokens into one string mixes them up)'",
        "cells": {
            'bleu': "\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(' '.join(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n",
        },
    },
    {
        "name": 'p8_sentence_average',
        "correct": False,
        "why": "breaks 'sum the clipped counts over all sentences and divide by the total number of hypothesis n-grams (a corpus-level ratio, not an average of per-sentence ratios)'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    scores = []\n    for h, ref in zip(hypotheses, references):\n        ps = []\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            tot = sum(hg.values())\n            ps.append(sum(min(c, rg[g]) for g, c in hg.items()) / tot if tot else 0.0)\n        if min(ps) == 0:\n            scores.append(0.0)\n            continue\n        bp = 1.0 if len(h) >= len(ref) else math.exp(1 - len(ref) / len(h))\n        scores.append(100 * bp * math.exp(sum(math.log(p) for p in ps) / 4))\n    return float(sum(scores) / len(scores))\n',
        },
    },
    {
        "name": 'p8_lowercase',
        "correct": False,
        "why": "breaks 'tokens are compared exactly as given (case-sensitive: The and the differ)'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        h, ref = [t.lower() for t in h], [t.lower() for t in ref]\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'p8_int_zero',
        "correct": False,
        "why": "breaks 'times 100, returned as a Python float (also when it is 0)'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'p8_no_clip',
        "correct": False,
        "why": "breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(cnt for g, cnt in hg.items() if g in rg)\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'p8_bp_swapped',
        "correct": False,
        "why": "breaks 'the brevity penalty exp(1 - r / c)'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - c / r)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'p8_corpus_clip',
        "correct": False,
        "why": "breaks 'each hypothesis n-gram counts at most as often as it occurs in ITS reference' (clips against the whole corpus)",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    logp, c, r = 0.0, sum(map(len, hypotheses)), sum(map(len, references))\n    for n in range(1, 5):\n        hg, rg = Counter(), Counter()\n        for h, ref in zip(hypotheses, references):\n            hg.update(grams(h, n)); rg.update(grams(ref, n))\n        tot = sum(hg.values())\n        m = sum(min(cnt, rg[g]) for g, cnt in hg.items())\n        if tot == 0 or m == 0:\n            return 0.0\n        logp += math.log(m / tot) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return 100.0 * bp * math.exp(logp)\n',
        },
    },
    {
        "name": 'p8_bp_per_sentence',
        "correct": False,
        "why": "breaks 'the brevity penalty exp(1 - r/c) when the total hypothesis length c is shorter than the total reference length r'",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match, total, bps = [0] * 4, [0] * 4, []\n    for h, ref in zip(hypotheses, references):\n        bps.append(1.0 if len(h) >= len(ref) else (math.exp(1 - len(ref) / len(h)) if h else 0.0))\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    bp = sum(bps) / len(bps)\n    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))\n',
        },
    },
    {
        "name": 'p8_fractions_loops',
        "correct": True,
        "why": 'correct: dictionaries, product of fourth roots instead of exp of mean log, tuples of tokens',
        "cells": {
            'bleu': '\nfrom fractions import Fraction\ndef corpus_bleu(hypotheses, references):\n    num = {n: 0 for n in range(1, 5)}\n    den = {n: 0 for n in range(1, 5)}\n    hyp_len = ref_len = 0\n    for hyp, ref in zip(hypotheses, references):\n        hyp, ref = tuple(hyp), tuple(ref)\n        hyp_len += len(hyp); ref_len += len(ref)\n        for n in range(1, 5):\n            ref_counts = {}\n            for i in range(len(ref) - n + 1):\n                ref_counts[ref[i:i + n]] = ref_counts.get(ref[i:i + n], 0) + 1\n            hyp_counts = {}\n            for i in range(len(hyp) - n + 1):\n                hyp_counts[hyp[i:i + n]] = hyp_counts.get(hyp[i:i + n], 0) + 1\n            den[n] += sum(hyp_counts.values())\n            num[n] += sum(min(v, ref_counts.get(g, 0)) for g, v in hyp_counts.items())\n    if any(den[n] == 0 or num[n] == 0 for n in num):\n        return 0.0\n    prod = 1.0\n    for n in num:\n        prod *= float(Fraction(num[n], den[n])) ** 0.25\n    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0\n    return prod * bp * 100.0\n',
        },
    },
    {
        "name": 'hostile_patch_assert_close',
        "correct": False,
        "why": 'hostile: disables torch.testing.assert_close and returns constants',
        "cells": {
            'lr_at': '\ntorch.testing.assert_close = lambda *a, **k: None\nimport builtins\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    return 5e-4 if step != 800 else 1e-3\n',
        },
    },
    {
        "name": 'hostile_lying_float',
        "correct": False,
        "why": 'hostile: a float subclass that compares equal to everything',
        "cells": {
            'bleu': '\nclass AlwaysClose(float):\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    def __sub__(self, other): return AlwaysClose(0.0)\n    def __rsub__(self, other): return AlwaysClose(0.0)\n    def __abs__(self): return 0.0\n    def __lt__(self, other): return True\n    def __hash__(self): return 0\ndef corpus_bleu(hypotheses, references):\n    return AlwaysClose(50.0)\n',
        },
    },
    {
        "name": 'hostile_rebind_helpers',
        "correct": False,
        "why": "hostile: rebinds the grader's underscore helpers to identities and returns the last state",
        "cells": {
            'average': '\nimport sys\ng = sys.modules["__main__"].__dict__\nfor name in list(g):\n    if name.startswith("_") and callable(g[name]) and name not in ("__builtins__",):\n        try: g[name] = (lambda *a, **k: a[0] if a else None)\n        except Exception: pass\ndef average_checkpoints(states):\n    return {k: v for k, v in states[-1].items()}\n',
        },
    },
    {
        "name": 'w2_p1_positive_mask',
        "correct": False,
        "why": "breaks 'ids from a vocabulary of any size: any id such a tensor can hold' and 'wherever tgt_out is PAD, tgt_in is PAD' (a negative id also masks its position: tests 'is a real token' as > 0)",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    shifted = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)\n    return torch.where(targets > PAD, shifted, torch.zeros_like(shifted)), targets\n',
        },
    },
    {
        "name": 'w2_p5_float32_everything',
        "correct": False,
        "why": "breaks 'floating-point tensors ... become their element-wise mean, in their own dtype' (float64 weights averaged in float32)",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    for s in states:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n            raise ValueError("mismatch")\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            out[k] = torch.stack([t.float() for t in ts]).mean(0).to(ts[0].dtype)\n        else:\n            out[k] = ts[-1].clone()\n    return out\n',
        },
    },
    {
        "name": 'w2_p5_share_tensors',
        "correct": True,
        "why": "correct: a new dict whose integer entries (and, for one state, all entries) are the last state's own tensors, unchanged; the text asks for a new dict and unchanged inputs, not for copies of the tensors",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    for s in states:\n        if set(s) != set(states[0]) or any(s[k].shape != states[0][k].shape for k in s):\n            raise ValueError("mismatch")\n    if len(states) == 1:\n        return dict(states[0])\n    out = {}\n    for k in states[0]:\n        ts = [s[k] for s in states]\n        if ts[0].is_floating_point():\n            out[k] = torch.stack([t.double() for t in ts]).mean(0).to(ts[0].dtype)\n        else:\n            out[k] = states[-1][k]\n    return out\n',
        },
    },
    {
        "name": 'w2_p6_exp_unnormalised',
        "correct": False,
        "why": "breaks 'turn each row into probabilities with a softmax' (exp of log-probs over a temperature is not normalised; multinomial accepts it)",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = lp.exp()\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = int(draws[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'w2_p6_tensor_tokens',
        "correct": False,
        "why": "breaks 'Return one list of Python ints per sentence' (0-d tensors)",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[int(s)] for s in starts]\n    out = [[] for _ in starts]\n    active = list(range(len(starts))) if max_len > 0 else []\n    while active:\n        lp = next_logprobs([list(seqs[i]) for i in active]).to(torch.float64) / temperature\n        if top_k is not None:\n            vals, idx = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, -math.inf).scatter(-1, idx, vals)\n        probs = torch.softmax(lp, dim=-1)\n        draws = torch.multinomial(probs, 1, generator=generator)\n        nxt = []\n        for j, i in enumerate(active):\n            t = draws[j, 0]\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nxt.append(i)\n        active = nxt\n    return out\n',
        },
    },
    {
        "name": 'w2_p7_len_with_start',
        "correct": False,
        "why": "breaks 'length_penalty(len(tokens), alpha), with the EOS counted in the length' (counts the start token too)",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        V = lp.shape[-1]\n        cands = []\n        for i, (toks, s) in enumerate(live):\n            for v in range(V):\n                cands.append((s + float(lp[i, v]), toks + [v]))\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for sc, toks in cands[:k]:\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks) + 1, alpha), toks))\n            else:\n                live.append((toks, sc))\n        if not live:\n            break\n    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))\n    best = max(finished, key=lambda f: f[0])\n    return [int(t) for t in best[1]]\n',
        },
    },
    {
        "name": 'w2_p7_torch_topk_min',
        "correct": True,
        "why": 'correct: torch.topk over the flattened scores with min(k, numel)',
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    hyps, scores = [[]], torch.zeros(1, dtype=torch.float64)\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start, *h] for h in hyps])\n        total = (scores[:, None] + lp).reshape(-1)\n        vals, idx = torch.topk(total, min(k, total.numel()))\n        V = lp.shape[1]\n        keep_h, keep_s = [], []\n        for sc, j in zip(vals.tolist(), idx.tolist()):\n            toks = hyps[j // V] + [j % V]\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                keep_h.append(toks); keep_s.append(sc)\n        if not keep_h:\n            hyps = []\n            break\n        hyps, scores = keep_h, torch.tensor(keep_s, dtype=torch.float64)\n    finished += [(float(s) / length_penalty(len(h), alpha), h) for h, s in zip(hyps, scores.tolist())]\n    return max(finished, key=lambda f: f[0])[1]\n',
        },
    },
    {
        "name": 'w2_p8_set_ngrams',
        "correct": False,
        "why": "breaks 'divide by the total number of hypothesis n-grams' / clipping counts (repeated n-grams counted once)",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(set(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'w2_p8_rounded',
        "correct": False,
        "why": "breaks 'This is sacreBLEU's corpus BLEU ... times 100, returned as a Python float' (rounded to two decimals as sacreBLEU prints it)",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return round(100 * bp * math.exp(logp), 2)\n',
        },
    },
    {
        "name": 'w2_p8_hyp_len_as_ref',
        "correct": True,
        "why": 'correct: c == r takes the exp branch, exp(0) = 1 exactly',
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n    bp = 1.0 if c > r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'w2_p4_ce_parts',
        "correct": True,
        "why": 'correct: F.cross_entropy on a transposed view for the target term, boolean column selection for the smoothing term',
        "cells": {
            'sentence_loss': '\nimport torch.nn.functional as F\ndef sentence_smoothed_loss(logits, targets, eps):\n    B, T, V = logits.shape\n    y = targets.to(torch.int64)\n    nll = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")          # (B, T)\n    lp = F.log_softmax(logits, dim=-1)\n    not_pad = torch.ones(V, dtype=torch.bool); not_pad[PAD] = False\n    smooth = -lp[..., not_pad].mean(-1)\n    ell = (1 - eps) * nll + eps * smooth\n    real = targets.ne(PAD)\n    per_row = torch.where(real, ell, ell.new_zeros(())).sum(1)\n    n = real.sum(1)\n    rows = n.nonzero().flatten()\n    return (per_row[rows] / n[rows]).mean()\n',
        },
    },
    {
        "name": 'w3_p4_calls_decoder_io_kw',
        "correct": True,
        "why": "correct (phase 2, after reading the mutant file's header): Part 4 calls Part 1 by keyword under no_grad, on int32 or transposed targets",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    with torch.no_grad():\n        _, gold = decoder_io(targets=targets)          # Part 1: tgt_out has the values of targets\n    V = logits.shape[-1]\n    lp = torch.log_softmax(logits, dim=-1)\n    nll = -lp.gather(-1, gold.long().unsqueeze(-1)).squeeze(-1)\n    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)\n    ell = (1 - eps) * nll + eps * smooth\n    real = gold != PAD\n    n = real.sum(1)\n    keep = n > 0\n    return (torch.where(real, ell, torch.zeros_like(ell)).sum(1)[keep] / n[keep]).mean()\n',
        },
    },
    {
        "name": 'w3_p7_greedy_via_sample',
        "correct": True,
        "why": 'correct (phase 2): with k = 1 the rule is greedy decoding, done by Part 6 with top_k = 1 on a single sentence',
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    if k == 1:  # greedy decoding: sampling with top_k = 1 always draws the best token (Part 6)\n        return sample_decode(next_logprobs, [start], max_len, 1.0, 1, torch.Generator().manual_seed(0))[0]\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        V = lp.shape[-1]\n        cands = []\n        for i, (toks, s) in enumerate(live):\n            for v in range(V):\n                cands.append((s + float(lp[i, v]), toks + [v]))\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for sc, toks in cands[:k]:\n            if toks[-1] == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                live.append((toks, sc))\n        if not live:\n            break\n    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))\n    best = max(finished, key=lambda f: f[0])\n    return [int(t) for t in best[1]]\n',
        },
    },
    {
        "name": 'w3_p8_mean_via_average',
        "correct": True,
        "why": "correct (phase 2): the geometric mean through Part 5's average of four one-entry states of 0-d float64 tensors",
        "cells": {
            'bleu': "\ndef corpus_bleu(hypotheses, references):\n    def grams(toks, n):\n        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))\n    match = [0] * 4\n    total = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hg, rg = grams(h, n), grams(ref, n)\n            match[n - 1] += sum(min(cnt, rg[g]) for g, cnt in hg.items())\n            total[n - 1] += sum(hg.values())\n    if min(total) == 0 or min(match) == 0:\n        return 0.0\n    logs = [{'logp': torch.tensor(math.log(m / t), dtype=torch.float64)} for m, t in zip(match, total)]\n    with torch.no_grad():\n        logp = float(average_checkpoints(logs)['logp'])   # Part 5 on 0-d float64 tensors\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n",
        },
    },
]
