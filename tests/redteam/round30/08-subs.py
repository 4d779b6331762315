"""Red-team round 30, chapter 08: blind submissions (kinds: V validator, B batch-mixer, G gradient-path,
I incremental, S second-call, OK correct, H hostile)."""

SUBMISSIONS = [
    {
        "name": 'V_decoder_io_refuses_negative_ids',
        "correct": False,
        "why": "Part 1: 'ids from a vocabulary of any size: any id such a tensor can hold' -- negative ids raise here.",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    if targets.dim() != 2:\n        raise ValueError("targets must be (B, T)")\n    if targets.numel() and bool((targets < 0).any()):\n        raise ValueError("token ids must be >= 0")\n    B, T = targets.shape\n    tgt_in = torch.empty((B, T), dtype=targets.dtype)\n    if T > 0:\n        tgt_in[:, 0] = BOS\n        tgt_in[:, 1:] = targets[:, :-1]\n    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)\n    return tgt_in, targets\n',
        },
    },
    {
        "name": 'V_lr_at_warmup0_repaired_to_1',
        "correct": False,
        "why": "Part 2: '(With warmup = 0 there is no warm-up.)' and '0 <= warmup < total' -- warmup 0 repaired to 1 shifts the cosine.",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    if warmup < 1:\n        warmup = 1          # avoid a division by zero\n    if step <= warmup:\n        return float(peak * step / warmup)\n    if step < total:\n        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))\n    return float(floor)\n',
        },
    },
    {
        "name": 'V_sentence_loss_refuses_eps_1',
        "correct": False,
        "why": "Part 4: '`eps` lies between 0 and 1, both included' -- eps = 1 raises.",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    if not 0 <= eps < 1:\n        raise ValueError("eps must lie in [0, 1)")\n\n    V = logits.shape[-1]\n    logp = torch.log_softmax(logits, dim=-1)\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    others = logp[..., PAD + 1:].sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    cnt = mask.sum(-1)\n    ell = ell.masked_fill(~mask, 0.0)\n    has = cnt > 0\n    sent = ell.sum(-1)[has] / cnt[has]\n    return sent.mean()\n',
        },
    },
    {
        "name": 'V_average_shape_check_by_numel',
        "correct": False,
        "why": "Part 5: 'states whose keys or shapes differ, raise ValueError' -- (2, 3) against (3, 2) passes silently.",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    first = states[0]\n    for s in states:\n        if set(s.keys()) != set(first.keys()):\n            raise ValueError("keys differ")\n        for k in first:\n            if s[k].numel() != first[k].numel():\n                raise ValueError("sizes differ")\n    last = states[-1]\n    out = {}\n    with torch.no_grad():\n        for k in last:\n            t = last[k]\n            if t.is_floating_point():\n                acc = torch.zeros(t.shape, dtype=torch.float64)\n                for s in states:\n                    acc = acc + s[k].to(torch.float64).reshape(t.shape)\n                out[k] = (acc / len(states)).to(t.dtype)\n            else:\n                out[k] = t.clone()\n    return out\n',
        },
    },
    {
        "name": 'V_average_checks_first_against_last_only',
        "correct": False,
        "why": "Part 5: 'states whose keys or shapes differ, raise ValueError' -- a middle state with an extra key or another shape is not checked (extra key: silently ignored).",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    first, last = states[0], states[-1]\n    if set(first) != set(last) or any(first[k].shape != last[k].shape for k in first):\n        raise ValueError("states differ")\n    out = {}\n    with torch.no_grad():\n        for k in last:\n            t = last[k]\n            if t.is_floating_point():\n                acc = torch.zeros(t.shape, dtype=torch.float64)\n                for s in states:\n                    acc = acc + s[k].to(torch.float64)\n                out[k] = (acc / len(states)).to(t.dtype)\n            else:\n                out[k] = t.clone()\n    return out\n',
        },
    },
    {
        "name": 'V_bleu_strips_tokens',
        "correct": False,
        "why": "Part 8: 'tokens are compared exactly as given ... a token may hold any characters, spaces included' -- ' a' and 'a' become equal.",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    if len(hypotheses) != len(references):\n        raise ValueError("one reference per hypothesis")\n    hypotheses = [[t.strip() for t in h] for h in hypotheses]\n    references = [[t.strip() for t in r] for r in references]\n\n    clipped = [0] * 4\n    totals = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())\n            totals[n - 1] += sum(hc.values())\n    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'V_bleu_empty_corpus_raises',
        "correct": False,
        "why": "Part 8: 'a corpus of any size' and 'times 100, returned as a Python float (also when it is 0)' -- an empty corpus raises instead of 0.0.",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    if len(hypotheses) == 0 or len(hypotheses) != len(references):\n        raise ValueError("need one reference per hypothesis, at least one pair")\n\n    clipped = [0] * 4\n    totals = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())\n            totals[n - 1] += sum(hc.values())\n    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'B_decoder_io_flat_shift',
        "correct": False,
        "why": "Part 1: 'tgt_in starts with BOS' -- rows after the first start with the previous row's last token (flattened shift).",
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    B, T = targets.shape\n    flat = targets.reshape(-1)\n    shifted = torch.cat([torch.tensor([BOS], dtype=targets.dtype), flat[:-1]]) if flat.numel() else flat.clone()\n    tgt_in = shifted.reshape(B, T).masked_fill(targets == PAD, PAD)\n    return tgt_in, targets\n',
        },
    },
    {
        "name": 'B_sentence_loss_all_pad_rows_counted',
        "correct": False,
        "why": "Part 4: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)' -- all-PAD rows enter the mean as 0.",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    logp = torch.log_softmax(logits, dim=-1)\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    others = logp[..., 1:].sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    ell = ell.masked_fill(~mask, 0.0)\n    sent = ell.sum(-1) / mask.sum(-1).clamp(min=1)\n    return sent.mean()\n',
        },
    },
    {
        "name": 'B_sentence_loss_global_max_shift',
        "correct": False,
        "why": "Part 4: 'log p = log_softmax(logits)', rows 'whose every score lies far below 0, near -1e4' -- the maximum over the whole tensor, not per row: such rows underflow to log 0.",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    z = logits - logits.max()                     # subtract the maximum for stability\n    logp = z - torch.log(torch.exp(z).sum(-1, keepdim=True))\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    others = logp[..., 1:].sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    cnt = mask.sum(-1)\n    ell = ell.masked_fill(~mask, 0.0)\n    has = cnt > 0\n    return (ell.sum(-1)[has] / cnt[has]).mean()\n',
        },
    },
    {
        "name": 'B_sample_topk_global_threshold',
        "correct": False,
        "why": "Part 6: 'keep the top_k largest entries of each row' -- one threshold for all rows keeps more than top_k in the others.",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[s] for s in starts]\n    out = [[] for _ in starts]\n    live = list(range(len(starts))) if max_len > 0 else []\n    while live:\n        lp = next_logprobs([list(seqs[i]) for i in live])\n        sc = lp / temperature\n        if top_k is not None and top_k < sc.shape[-1]:\n            kth = torch.topk(sc, top_k, dim=-1).values[:, -1].min()\n            sc = sc.masked_fill(sc < kth, float("-inf"))\n        probs = torch.softmax(sc, dim=-1)\n        draw = torch.multinomial(probs, 1, generator=generator)\n        nl = []\n        for j, i in enumerate(live):\n            t = int(draw[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nl.append(i)\n        live = nl\n    return out\n',
        },
    },
    {
        "name": 'B_bleu_reference_counts_pooled',
        "correct": False,
        "why": "Part 8: 'each hypothesis n-gram counts at most as often as it occurs in its reference' -- clipped against the pooled counts of all references.",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    hyp_counts = [Counter() for _ in range(4)]\n    ref_counts = [Counter() for _ in range(4)]\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hyp_counts[n - 1].update(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n            ref_counts[n - 1].update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n    clipped = [sum(min(v, ref_counts[n][g]) for g, v in hyp_counts[n].items()) for n in range(4)]\n    totals = [sum(hyp_counts[n].values()) for n in range(4)]\n    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'G_sentence_loss_detached_normaliser',
        "correct": False,
        "why": "Part 4: 'loss.backward() must leave the exact gradient in logits.grad' -- the normaliser is detached.",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True).detach()\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    others = logp[..., PAD + 1:].sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    cnt = mask.sum(-1)\n    ell = ell.masked_fill(~mask, 0.0)\n    has = cnt > 0\n    sent = ell.sum(-1)[has] / cnt[has]\n    return sent.mean()\n',
        },
    },
    {
        "name": 'G_sentence_loss_inplace_pad_column_zeroed',
        "correct": False,
        "why": "Part 4: 'loss.backward() must leave the exact gradient in logits.grad' -- an in-place write into log_softmax's saved output: backward raises.",
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    logp = torch.log_softmax(logits, dim=-1)\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    logp[..., PAD] = 0.0             # PAD gets no share\n    others = logp.sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    cnt = mask.sum(-1)\n    ell = ell.masked_fill(~mask, 0.0)\n    has = cnt > 0\n    return (ell.sum(-1)[has] / cnt[has]).mean()\n',
        },
    },
    {
        "name": 'I_sample_start_eos_finishes',
        "correct": False,
        "why": "Part 6: 'Its start token is not produced: a start token that is EOS does not finish it' -- the finished test reads the last token of the prefix, the start token at step 1.",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[s] for s in starts]\n    out = []\n    for step in range(max_len):\n        live = [i for i, s in enumerate(seqs) if s[-1] != EOS and len(s) - 1 < max_len]\n        if not live:\n            break\n        lp = next_logprobs([list(seqs[i]) for i in live])\n        sc = lp / temperature\n        if top_k is not None and top_k < sc.shape[-1]:\n            vals, idx = torch.topk(sc, top_k, dim=-1)\n            sc = torch.full_like(sc, float("-inf")).scatter(-1, idx, vals)\n        probs = torch.softmax(sc, dim=-1)\n        draw = torch.multinomial(probs, 1, generator=generator)\n        for j, i in enumerate(live):\n            seqs[i].append(int(draw[j, 0]))\n    return [s[1:] for s in seqs]\n',
        },
    },
    {
        "name": 'I_sample_asks_every_prefix',
        "correct": False,
        "why": "Part 6: 'ask next_logprobs once, with the prefixes of the unfinished sentences only' -- finished ones are asked too (their rows dropped afterwards).",
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[s] for s in starts]\n    out = [[] for _ in starts]\n    live = list(range(len(starts))) if max_len > 0 else []\n    while live:\n        lp = next_logprobs([list(s) for s in seqs])[live]\n        sc = lp / temperature\n        if top_k is not None and top_k < sc.shape[-1]:\n            vals, idx = torch.topk(sc, top_k, dim=-1)\n            sc = torch.full_like(sc, float("-inf")).scatter(-1, idx, vals)\n        probs = torch.softmax(sc, dim=-1)\n        draw = torch.multinomial(probs, 1, generator=generator)\n        nl = []\n        for j, i in enumerate(live):\n            t = int(draw[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nl.append(i)\n        live = nl\n    return out\n',
        },
    },
    {
        "name": 'I_beam_penalty_counts_start_token',
        "correct": False,
        "why": "Part 7: 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length' (tokens after start) -- the prefix length with the start token is used.",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        if not live:\n            break\n        lp = next_logprobs([[start] + h for h, _ in live])\n        V = lp.shape[-1]\n        base = torch.tensor([s for _, s in live], dtype=torch.float64)\n        scores = (base[:, None] + lp).reshape(-1)\n        n = min(k, scores.numel())\n        vals, idx = torch.topk(scores, n)\n        nl = []\n        for v, i in zip(vals.tolist(), idx.tolist()):\n            h = live[i // V][0] + [i % V]\n            if h[-1] == EOS:\n                finished.append((v / length_penalty(len(h) + 1, alpha), h))\n            else:\n                nl.append((h, v))\n        live = nl\n    for h, s in live:\n        finished.append((s / length_penalty(len(h) + 1, alpha), h))\n    best = max(finished, key=lambda f: f[0])\n    return best[1]\n',
        },
    },
    {
        "name": 'I_beam_live_at_end_penalised_as_if_eos',
        "correct": False,
        "why": "Part 7: 'live hypotheses are finished as they are (same scoring, no EOS)' -- their length counts an EOS they do not have.",
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        if not live:\n            break\n        lp = next_logprobs([[start] + h for h, _ in live])\n        V = lp.shape[-1]\n        base = torch.tensor([s for _, s in live], dtype=torch.float64)\n        scores = (base[:, None] + lp).reshape(-1)\n        n = min(k, scores.numel())\n        vals, idx = torch.topk(scores, n)\n        nl = []\n        for v, i in zip(vals.tolist(), idx.tolist()):\n            h = live[i // V][0] + [i % V]\n            if h[-1] == EOS:\n                finished.append((v / length_penalty(len(h), alpha), h))\n            else:\n                nl.append((h, v))\n        live = nl\n    for h, s in live:\n        finished.append((s / length_penalty(len(h) + 1, alpha), h))\n    best = max(finished, key=lambda f: f[0])\n    return best[1]\n',
        },
    },
    {
        "name": 'S_average_reuses_output_dict',
        "correct": False,
        "why": "Part 5: 'return a new dict' / intro: 'a result the caller holds must not change when your function is called again' -- one module dict is cleared and refilled on every call.",
        "cells": {
            'average': '\nAVERAGED = {}\n\ndef average_checkpoints(states):\n    if len(states) == 0:\n        raise ValueError("no states")\n    first = states[0]\n    for s in states:\n        if set(s.keys()) != set(first.keys()):\n            raise ValueError("keys differ")\n        for k in first:\n            if s[k].shape != first[k].shape:\n                raise ValueError("shapes differ")\n    AVERAGED.clear()\n    last = states[-1]\n    with torch.no_grad():\n        for k in last:\n            t = last[k]\n            if t.is_floating_point():\n                acc = torch.zeros(t.shape, dtype=torch.float64)\n                for s in states:\n                    acc = acc + s[k].to(torch.float64)\n                AVERAGED[k] = (acc / len(states)).to(t.dtype)\n            else:\n                AVERAGED[k] = t.clone()\n    return AVERAGED\n',
        },
    },
    {
        "name": 'S_bleu_reference_ngrams_cached_by_id',
        "correct": False,
        "why": "intro: 'Keep nothing from one call to the next ... kept per id() of it' -- reference n-grams cached by id(); a list changed in place (or a new list at a reused id) gets stale counts.",
        "cells": {
            'bleu': '\nREF_NGRAMS = {}\n\ndef ref_ngrams(ref):\n    key = id(ref)\n    if key not in REF_NGRAMS:\n        REF_NGRAMS[key] = [Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)) for n in range(1, 5)]\n    return REF_NGRAMS[key]\n\ndef corpus_bleu(hypotheses, references):\n    clipped = [0] * 4\n    totals = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        c += len(h)\n        r += len(ref)\n        rcs = ref_ngrams(ref)\n        for n in range(1, 5):\n            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n            clipped[n - 1] += sum(min(v, rcs[n - 1][g]) for g, v in hc.items())\n            totals[n - 1] += sum(hc.values())\n    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'S_beam_memo_of_model_rows',
        "correct": False,
        "why": "intro: 'Keep nothing from one call to the next' -- model rows memoised by prefix across calls: a later call with another model reuses the first model's log-probabilities.",
        "cells": {
            'beam_search': '\nSEEN = {}\n\ndef ask(next_logprobs, prefixes):\n    missing = [p for p in prefixes if tuple(p) not in SEEN]\n    if missing:\n        rows = next_logprobs(missing)\n        for p, row in zip(missing, rows):\n            SEEN[tuple(p)] = row.clone()\n    return torch.stack([SEEN[tuple(p)] for p in prefixes])\n\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], 0.0)]\n    finished = []\n    for _ in range(max_len):\n        if not live:\n            break\n        lp = ask(next_logprobs, [[start] + h for h, _ in live])\n        V = lp.shape[-1]\n        base = torch.tensor([s for _, s in live], dtype=torch.float64)\n        scores = (base[:, None] + lp).reshape(-1)\n        n = min(k, scores.numel())\n        vals, idx = torch.topk(scores, n)\n        nl = []\n        for v, i in zip(vals.tolist(), idx.tolist()):\n            h = live[i // V][0] + [i % V]\n            if h[-1] == EOS:\n                finished.append((v / length_penalty(len(h), alpha), h))\n            else:\n                nl.append((h, v))\n        live = nl\n    for h, s in live:\n        finished.append((s / length_penalty(len(h), alpha), h))\n    return max(finished, key=lambda f: f[0])[1]\n',
        },
    },
    {
        "name": 'S_sentence_loss_weights_cached_by_V',
        "correct": False,
        "why": "Part 4 / intro 'Keep nothing from one call to the next' -- the smoothing weights are cached per V with the first call's eps; a later eps on the same V is ignored.",
        "cells": {
            'sentence_loss': '\nWEIGHTS = {}\n\ndef smoothing_weights(V, eps, dtype):\n    if V not in WEIGHTS:\n        w = torch.full((V,), eps / (V - 1), dtype=torch.float64)\n        w[PAD] = 0.0\n        WEIGHTS[V] = w\n    return WEIGHTS[V].to(dtype)\n\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    logp = torch.log_softmax(logits, dim=-1)\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    w = smoothing_weights(V, eps, logits.dtype)\n    ell = -(1 - eps) * lp_y - (logp[..., 1:] * w[1:]).sum(-1)\n    mask = tg != PAD\n    cnt = mask.sum(-1)\n    ell = ell.masked_fill(~mask, 0.0)\n    has = cnt > 0\n    return (ell.sum(-1)[has] / cnt[has]).mean()\n',
        },
    },
    {
        "name": 'S_lr_at_sets_default_dtype',
        "correct": False,
        "why": "intro: 'do not change ... its process-wide settings (the default dtype ...)' -- left at float64 for every later cell.",
        "cells": {
            'lr_at': '\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    torch.set_default_dtype(torch.float64)     # cosine in double precision\n    if step <= warmup:\n        return float(peak * step / warmup)\n    if step < total:\n        c = torch.cos(torch.tensor(math.pi * (step - warmup) / (total - warmup)))\n        return float(floor + (peak - floor) / 2 * (1 + c))\n    return float(floor)\n',
        },
    },
    {
        "name": 'OK_decoder_io_roll_and_contiguous_copy',
        "correct": True,
        "why": 'roll, BOS in column 0, PAD where the target is PAD; tgt_out a copy (allowed).',
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    if targets.dim() != 2:\n        raise ValueError("targets must be (B, T)")\n    tgt_out = targets.contiguous().clone()\n    if tgt_out.shape[1] == 0:\n        return tgt_out.clone(), tgt_out\n    tgt_in = torch.roll(tgt_out, shifts=1, dims=1)\n    tgt_in[:, 0] = BOS\n    tgt_in = torch.where(tgt_out == PAD, torch.zeros_like(tgt_in), tgt_in)\n    return tgt_in, tgt_out\n',
        },
    },
    {
        "name": 'OK_lr_at_lru_cache_values_only',
        "correct": True,
        "why": 'A cache keyed on numbers only changes no result; every branch returns a float.',
        "cells": {
            'lr_at': '\nimport functools\n\n@functools.lru_cache(maxsize=None)\ndef lr_cached(step, peak, warmup, total, floor):\n    if step <= warmup:\n        return float(peak) * step / warmup\n    if step < total:\n        progress = (step - warmup) / (total - warmup)\n        return float(floor) + (float(peak) - float(floor)) * 0.5 * (1.0 + math.cos(math.pi * progress))\n    return float(floor)\n\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    return float(lr_cached(step, peak, warmup, total, floor))\n',
        },
    },
    {
        "name": 'OK_sentence_loss_nanmean_per_row',
        "correct": True,
        "why": 'NaN at PAD targets and nanmean per sentence; rows of PADs give NaN and are dropped.',
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    logp = logits.log_softmax(-1)\n    tg = targets.to(torch.int64)\n    lp_y = torch.gather(logp, 2, tg[..., None])[..., 0]\n    keep = torch.ones(V, dtype=torch.bool)\n    keep[PAD] = False\n    others = logp[..., keep].sum(-1)\n    ell = -(1 - eps) * lp_y - (eps / (V - 1)) * others\n    ell = ell.masked_fill(tg == PAD, float("nan"))\n    per_sentence = torch.nanmean(ell, dim=1)\n    return per_sentence[~torch.isnan(per_sentence)].mean()\n',
        },
    },
    {
        "name": 'OK_sentence_loss_manual_logsoftmax_detached_rowmax',
        "correct": True,
        "why": 'Row maximum detached: log-softmax is shift-invariant, so value and gradient are exact.',
        "cells": {
            'sentence_loss': '\ndef sentence_smoothed_loss(logits, targets, eps):\n    V = logits.shape[-1]\n    m = logits.amax(dim=-1, keepdim=True).detach()     # per row; the shift does not change log p\n    z = logits - m\n    logp = z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))\n    tg = targets.long()\n    lp_y = logp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)\n    others = logp[..., PAD + 1:].sum(-1)\n    ell = -(1 - eps) * lp_y - eps / (V - 1) * others\n    mask = tg != PAD\n    per = torch.where(mask, ell, torch.zeros_like(ell)).sum(-1)\n    cnt = mask.sum(-1)\n    has = cnt > 0\n    return (per[has] / cnt[has].to(per.dtype)).mean()\n',
        },
    },
    {
        "name": 'OK_average_stack_mean_float32',
        "correct": True,
        "why": "float32 accumulation for half/float32 (allowed: 'as accurate as averaging in float32'), the last state's own integer tensor (allowed).",
        "cells": {
            'average': '\ndef average_checkpoints(states):\n    if not states:\n        raise ValueError("need at least one state")\n    keys = set(states[0])\n    for s in states[1:]:\n        if set(s) != keys:\n            raise ValueError("keys differ")\n    for k in keys:\n        shapes = {tuple(s[k].shape) for s in states}\n        if len(shapes) != 1:\n            raise ValueError(f"shapes of {k} differ")\n    out = {}\n    for k in states[-1]:\n        t = states[-1][k]\n        if torch.is_floating_point(t):\n            wide = torch.float64 if t.dtype == torch.float64 else torch.float32\n            stacked = torch.stack([s[k].detach().to(wide) for s in states])\n            out[k] = stacked.mean(dim=0).to(t.dtype)\n        else:\n            out[k] = t\n    return out\n',
        },
    },
    {
        "name": 'OK_sample_per_row_draws_own_lists',
        "correct": True,
        "why": 'One multinomial call per row in row order (the text allows it); stops after max_len steps; the prefixes are its own lists.',
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    prefixes = [[s] for s in starts]\n    new = [[] for _ in starts]\n    for step in range(max_len):\n        live = [i for i in range(len(starts)) if not (new[i] and new[i][-1] == EOS)]\n        if not live:\n            break\n        logp = next_logprobs([prefixes[i] for i in live])\n        for j, i in enumerate(live):\n            row = logp[j] / temperature\n            if top_k is not None:\n                kk = min(top_k, row.shape[0])\n                kept = torch.topk(row, kk)\n                row = torch.full_like(row, -math.inf).index_put((kept.indices,), kept.values)\n            probs = torch.softmax(row, dim=0)\n            tok = int(torch.multinomial(probs, 1, generator=generator)[0])\n            prefixes[i].append(tok)\n            new[i].append(tok)\n    return new\n',
        },
    },
    {
        "name": 'OK_beam_rowwise_topk_then_merge',
        "correct": True,
        "why": 'The k best of all candidates are among the k best of each hypothesis: per-row topk then a merge gives the same beam.',
        "cells": {
            'beam_search': '\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    live = [([], torch.zeros((), dtype=torch.float64))]\n    done = []\n    for _ in range(max_len):\n        if not live:\n            break\n        lp = next_logprobs([[start] + toks for toks, _ in live])\n        cands = []\n        for (toks, score), row in zip(live, lp):\n            kk = min(k, row.shape[0])\n            vals, idx = torch.topk(score + row, kk)\n            cands += [(float(v), toks + [int(i)]) for v, i in zip(vals, idx)]\n        cands.sort(key=lambda c: -c[0])\n        live = []\n        for s, toks in cands[:k]:\n            if toks[-1] == EOS:\n                done.append((s / length_penalty(len(toks), alpha), toks))\n            else:\n                live.append((toks, torch.tensor(s, dtype=torch.float64)))\n    done += [(float(s) / length_penalty(len(t), alpha), t) for t, s in live]\n    return max(done, key=lambda d: d[0])[1]\n',
        },
    },
    {
        "name": 'OK_bleu_memo_on_tuples',
        "correct": True,
        "why": 'A cache keyed on tuples of the tokens (values, immutable) changes no result; Counter & clips.',
        "cells": {
            'bleu': '\nimport functools\n\n@functools.lru_cache(maxsize=100000)\ndef ngram_counts(tokens, n):\n    return Counter(tokens[i:i + n] for i in range(len(tokens) - n + 1))\n\ndef corpus_bleu(hypotheses, references):\n    if len(hypotheses) != len(references):\n        raise ValueError("one reference per hypothesis")\n    match = [0, 0, 0, 0]\n    total = [0, 0, 0, 0]\n    c = sum(len(h) for h in hypotheses)\n    r = sum(len(x) for x in references)\n    for h, ref in zip(hypotheses, references):\n        th, tr = tuple(h), tuple(ref)\n        for n in range(1, 5):\n            hc, rc = ngram_counts(th, n), ngram_counts(tr, n)\n            match[n - 1] += sum((hc & rc).values())\n            total[n - 1] += sum(hc.values())\n    if 0 in total or 0 in match:\n        return 0.0\n    score = math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)\n    if c < r:\n        score *= math.exp(1 - r / c)\n    return 100.0 * score\n',
        },
    },
    {
        "name": 'OK_min_loss_torch_float64',
        "correct": True,
        "why": 'The entropy of the smoothed target, computed with torch in float64.',
        "cells": {
            'min_loss': '\neps_, V_ = 0.1, 8000\nq = torch.full((V_,), eps_ / V_, dtype=torch.float64)\nq[5] += 1 - eps_\nmin_smoothed_loss = float(-(q * q.log()).sum())\n',
        },
    },
    {
        "name": 'OK_decoder_io_validates_eos_per_row',
        "correct": True,
        "why": 'Checks only what the text guarantees (a 2-D tensor, an EOS in every row); cat of a BOS column and the shifted targets.',
        "cells": {
            'decoder_io': '\ndef decoder_io(targets):\n    if targets.dim() != 2:\n        raise ValueError("targets must be a (B, T) tensor")\n    if targets.shape[0] > 0 and not bool((targets == EOS).any(dim=1).all()):\n        raise ValueError("every row must hold an EOS")\n    B, T = targets.shape\n    bos = torch.full((B, min(T, 1)), BOS, dtype=targets.dtype)\n    tgt_in = torch.cat([bos, targets[:, :max(T - 1, 0)]], dim=1)\n    tgt_in = torch.where(targets == PAD, torch.full_like(tgt_in, PAD), tgt_in)\n    return tgt_in, targets\n',
        },
    },
    {
        "name": 'OK_sample_nan_to_num_logprobs',
        "correct": True,
        "why": '-inf becomes -1.8e308, which still gets probability exactly 0 after the row-max softmax (and stays last for topk): the same probabilities, the same draws.',
        "cells": {
            'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    seqs = [[s] for s in starts]\n    out = [[] for _ in starts]\n    live = list(range(len(starts))) if max_len > 0 else []\n    while live:\n        lp = next_logprobs([list(seqs[i]) for i in live])\n        sc = torch.nan_to_num(lp) / temperature    # guard against -inf arithmetic\n        if top_k is not None and top_k < sc.shape[-1]:\n            vals, idx = torch.topk(sc, top_k, dim=-1)\n            sc = torch.full_like(sc, float("-inf")).scatter(-1, idx, vals)\n        probs = torch.softmax(sc, dim=-1)\n        draw = torch.multinomial(probs, 1, generator=generator)\n        nl = []\n        for j, i in enumerate(live):\n            t = int(draw[j, 0])\n            seqs[i].append(t)\n            out[i].append(t)\n            if t != EOS and len(out[i]) < max_len:\n                nl.append(i)\n        live = nl\n    return out\n',
        },
    },
    {
        "name": 'V_bleu_skips_empty_pairs',
        "correct": False,
        "why": "Part 8: 'the total reference length r' and 'the total hypothesis length c' -- an empty hypothesis's reference no longer counts in r (brevity penalty too mild).",
        "cells": {
            'bleu': '\ndef corpus_bleu(hypotheses, references):\n    clipped = [0] * 4\n    totals = [0] * 4\n    c = r = 0\n    for h, ref in zip(hypotheses, references):\n        if not h or not ref:\n            continue            # nothing to compare\n        c += len(h)\n        r += len(ref)\n        for n in range(1, 5):\n            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())\n            totals[n - 1] += sum(hc.values())\n    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4\n    bp = 1.0 if c >= r else math.exp(1 - r / c)\n    return float(100 * bp * math.exp(logp))\n',
        },
    },
    {
        "name": 'H_beam_calls_graders_reference',
        "correct": False,
        "why": "Hostile: looks for the grader's reference beam search in the calling frames and calls it; greedy otherwise.",
        "cells": {
            'beam_search': '\nimport sys as system_\n\ndef beam_search(next_logprobs, start, k, max_len, alpha):\n    me = beam_search.__code__\n    frame = system_._getframe(1)\n    while frame is not None:\n        for name, obj in list(frame.f_globals.items()) + list(frame.f_locals.items()):\n            cands = [obj] + (list(obj.values()) if isinstance(obj, dict) else [])\n            for c in cands:\n                code = getattr(c, "__code__", None)\n                if code is not None and code is not me and "beam" in code.co_name and c is not beam_search:\n                    try:\n                        return c(next_logprobs, start, k, max_len, alpha)\n                    except Exception:\n                        pass\n        frame = frame.f_back\n    toks = []\n    for _ in range(max_len):   # greedy\n        t = int(next_logprobs([[start] + toks])[0].argmax())\n        toks.append(t)\n        if t == EOS:\n            break\n    return toks\n',
        },
    },
    {
        "name": 'H_bleu_float_equal_to_anything',
        "correct": False,
        "why": 'Hostile: a float subclass that equals anything.',
        "cells": {
            'bleu': '\nclass Score(float):\n    def __sub__(self, other): return Score(0.0)\n    def __rsub__(self, other): return Score(0.0)\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    def __abs__(self): return 0.0\n    __hash__ = float.__hash__\n\ndef corpus_bleu(hypotheses, references):\n    return Score(0.0)\n',
        },
    },
]
