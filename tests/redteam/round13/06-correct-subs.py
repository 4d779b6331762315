P5_LOOP = r'''
def restore_spans(inputs, targets, sentinels, pad):
    sentinel_ids = set(int(s) for s in sentinels.tolist())
    rows_tok, rows_noise = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = {}
        current = None
        for t in tgt:
            if t in sentinel_ids:
                current = t
                spans[current] = []
            elif t == pad:
                continue
            elif current is not None:
                spans[current].append(t)
        toks, noise = [], []
        for t in inp:
            if t == pad:
                continue
            if t in sentinel_ids:
                for h in spans.get(t, []):
                    toks.append(h)
                    noise.append(True)
            else:
                toks.append(t)
                noise.append(False)
        rows_tok.append(toks)
        rows_noise.append(noise)
    T = max((len(r) for r in rows_tok), default=0)
    B = len(rows_tok)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    mask = torch.zeros((B, T), dtype=torch.bool)
    for b in range(B):
        n = len(rows_tok[b])
        if n:
            tokens[b, :n] = torch.tensor(rows_tok[b], dtype=torch.int64)
            mask[b, :n] = torch.tensor(rows_noise[b], dtype=torch.bool)
    return tokens, mask
'''

P5_TORCH = r'''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.to(dtype=torch.int64)
    pieces, flags = [], []
    for b in range(B):
        inp = inputs[b].to(dtype=torch.int64)
        tgt = targets[b].to(dtype=torch.int64)
        tgt = tgt[tgt != pad]
        inp = inp[inp != pad]
        is_s_t = torch.isin(elements=tgt, test_elements=sent)
        starts = torch.nonzero(is_s_t).flatten().tolist()
        span_of = {}
        for i, s in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else tgt.shape[0]
            span_of[int(tgt[s].item())] = tgt[s + 1:end]
        is_s_i = torch.isin(elements=inp, test_elements=sent)
        out, nz = [], []
        for j in range(inp.shape[0]):
            if bool(is_s_i[j]):
                sp = span_of[int(inp[j].item())]
                out.append(sp)
                nz.append(torch.ones(sp.shape[0], dtype=torch.bool))
            else:
                out.append(inp[j:j + 1])
                nz.append(torch.zeros(1, dtype=torch.bool))
        pieces.append(torch.cat(out) if out else torch.zeros(0, dtype=torch.int64))
        flags.append(torch.cat(nz) if nz else torch.zeros(0, dtype=torch.bool))
    T = max([p.shape[0] for p in pieces], default=0)
    tokens = torch.full(size=(B, T), fill_value=pad, dtype=torch.int64)
    noise = torch.zeros(size=(B, T), dtype=torch.bool)
    for b in range(B):
        tokens[b, :pieces[b].shape[0]] = pieces[b]
        noise[b, :flags[b].shape[0]] = flags[b]
    return tokens, noise
'''

P6_SORT = r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    chosen = torch.zeros((N, E), dtype=torch.bool)
    for e in range(E):
        order = torch.sort(probs[:, e].detach(), descending=True, stable=True).indices
        chosen[order[:k], e] = True
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''

P6_RANK = r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(input=router_logits, dim=1)
    p = probs.detach()
    N = p.shape[0]
    idx = torch.arange(N)
    # rank[n, e]: tokens that beat token n for expert e (larger prob, or equal prob and lower index)
    greater = (p.unsqueeze(0) > p.unsqueeze(1))            # [n, m, e]: p[m,e] > p[n,e]
    equal = (p.unsqueeze(0) == p.unsqueeze(1))
    lower = (idx.view(1, N, 1) < idx.view(N, 1, 1))
    rank = (greater | (equal & lower)).sum(dim=1)
    chosen = rank < capacity
    gate = probs.masked_fill(~chosen, 0.0)
    return chosen, gate
'''

P6_TOPK_F64 = r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if capacity > 0 and N > 0:
        # stable argsort of -probs, then scatter
        order = torch.argsort(-probs.detach(), dim=0, stable=True)[:min(capacity, N)]
        chosen.scatter_(0, order, torch.ones_like(order, dtype=torch.bool))
    gate = probs * chosen.to(probs.dtype)
    return chosen, gate
'''

SUBMISSIONS = [
    {"name": "p5_python_loops", "correct": True, "cells": {"span_corrupt": P5_LOOP}, "why": "lists of Python ints, dict of spans"},
    {"name": "p5_isin_per_row", "correct": True, "cells": {"span_corrupt": P5_TORCH}, "why": "torch.isin per row, keyword arguments, cat"},
    {"name": "p6_stable_sort_loop", "correct": True, "cells": {"expert_choice": P6_SORT}, "why": "stable sort per expert, where"},
    {"name": "p6_pairwise_rank", "correct": True, "cells": {"expert_choice": P6_RANK}, "why": "counts who beats whom, masked_fill"},
    {"name": "p6_argsort_scatter_mul", "correct": True, "cells": {"expert_choice": P6_TOPK_F64}, "why": "argsort of -probs stable, scatter, gate by multiplication"},
]
