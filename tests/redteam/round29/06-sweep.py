# Round 29 class sweep, chapter 6 (classes AF, AG, AH; AI is not this chapter's). Each variant is the model answer
# (or a correct variant) with the smallest change that makes the class's mistake; "correct": True marks probes the
# text allows.
MINP = '''
def min_p_sample(logits, min_p, generator):
    {probs}
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''
EXPERT = '''
def expert_choice(router_logits, capacity):
    {probs}
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''
SHIFT0 = '''e = torch.exp({x} - {x}.amax(dim=-1, keepdim=True).clamp(min=0))
    probs = e / e.sum(dim=-1, keepdim=True)'''
GQA_HEAD = '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
'''
GQA_TAIL = '''
    return out.reshape(b, h, t, d).to(dtype)
'''
GQA_ONLINE = '''
    block = {block}
    m = torch.full(scores.shape[:-1] + (1,), {init}, dtype=scores.dtype)
    l = torch.zeros(scores.shape[:-1] + (1,), dtype=scores.dtype)
    acc = torch.zeros(scores.shape[:-1] + (d,), dtype=scores.dtype)
    for start in range(0, {stop}, block):
        sc = scores[..., start:start + block]
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        safe = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - safe)
        p = torch.exp(sc - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + torch.einsum("bgrts,bgsd->bgrtd", p, v[:, :, start:start + block])
        m = m_new
    out = acc / l
'''


def gqa(body):
    return GQA_HEAD + body + GQA_TAIL


WWM = '''
def whole_word_chosen(starts, pick):
    b, t = starts.shape
    positions = torch.arange(t).expand(starts.shape)
    marked = torch.where(starts, positions, torch.full_like(positions, -1))
    word_start = torch.full((b, t), -1, dtype=positions.dtype)
    carry = torch.full((b, 1), -1, dtype=positions.dtype)
    chunk = 65536
    for s in range(0, {stop}, chunk):
        part = torch.maximum(marked[:, s:s + chunk].cummax(dim=-1).values, carry)
        word_start[:, s:s + chunk] = part
        carry = part[:, -1:]
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
'''
DECAY_CHUNKS = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    t = q.shape[-2]
    c = {chunk}
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], 1, dtype=work)
    idx = torch.arange(c)
    gap = idx[:, None] - idx[None, :]
    inner = torch.where(gap >= 0, decay ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    carry_in = decay ** (idx + 1).to(work)
    outs = []
    for s in range({start}, {stop}, c):
        e = min(s + c, t)
        n = e - s
        pq, pk, vv = phi_q[..., s:e, :], phi_k[..., s:e, :], v[..., s:e, :]
        sim = (pq @ pk.transpose(-2, -1)) * inner[:n, :n]
        w_in = carry_in{carry}[:, None]
        top = sim @ vv + w_in * (pq @ state)
        bottom = sim.sum(-1, keepdim=True) + w_in * (pq @ norm)
        outs.append(top / bottom)
        back = (decay ** (n - 1 - idx[:n]).to(work))[:, None]
        state = decay ** n * state + (pk * back).transpose(-2, -1) @ vv
        norm = decay ** n * norm + (pk * back).sum(-2)[..., None]
    if not outs:
        return (v[..., :0, :] * 1).to(dtype)
    return torch.cat(outs, dim=-2).to(dtype)
'''
DECAY = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi = lambda x: {phi}
    phi_q, phi_k = phi(q), phi(k)
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(top / bottom)
    return torch.stack(outs, dim=-2).to(dtype)
'''

SUBMISSIONS = [
    # ---- AF: a running maximum (or shift) started at 0
    {"name": "AF-p4-shift-floored-at-0", "correct": False,
     "cells": {"min_p_sample": MINP.format(probs=SHIFT0.format(x="logits"))},
     "why": "AF: softmax shifted by max(0, row max): a row whose every logit is far below 0 gives 0/0"},
    {"name": "AF-p6-shift-floored-at-0", "correct": False,
     "cells": {"expert_choice": EXPERT.format(probs=SHIFT0.format(x="router_logits"))},
     "why": "AF: softmax shifted by max(0, row max): a token whose every logit is far below 0 gives 0/0"},
    {"name": "AF-p7-shift-floored-at-0", "correct": False,
     "cells": {"gqa_cached_attention": gqa('''
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True).clamp(min=0))
    out = torch.einsum("bgrts,bgsd->bgrtd", e / e.sum(dim=-1, keepdim=True), v)
''')},
     "why": "AF: the softmax shift max(0, row max)"},
    {"name": "AF-p7-online-max-from-0", "correct": False,
     "cells": {"gqa_cached_attention": gqa(GQA_ONLINE.format(block=1024, init="0.0", stop="s"))},
     "why": "AF: online softmax over key blocks of 1024, running maximum started at 0"},
    {"name": "AF-p7-online-max-from-minus-inf", "correct": True,
     "cells": {"gqa_cached_attention": gqa(GQA_ONLINE.format(block=1024, init='float("-inf")', stop="s"))},
     "why": "correct: online softmax over key blocks of 1024 started at -inf"},
    # ---- AG: the last, shorter piece dropped
    {"name": "AG-p7-key-blocks-1024-last-dropped", "correct": False,
     "cells": {"gqa_cached_attention": gqa(GQA_ONLINE.format(block=1024, init='float("-inf")',
                                                             stop="max(s - s % block, min(s, block))"))},
     "why": "AG: key blocks of 1024, the last shorter block dropped when a full one precedes it"},
    {"name": "AG-p7-key-blocks-8-last-dropped", "correct": False,
     "cells": {"gqa_cached_attention": gqa(GQA_ONLINE.format(block=8, init='float("-inf")',
                                                             stop="max(s - s % block, min(s, block))"))},
     "why": "AG: key blocks of 8, the last shorter block dropped when a full one precedes it"},
    {"name": "AG-p7-key-blocks-4096-last-dropped", "correct": False,
     "cells": {"gqa_cached_attention": gqa(GQA_ONLINE.format(block=4096, init='float("-inf")',
                                                             stop="max(s - s % block, min(s, block))"))},
     "why": "AG: key blocks of 4096, the last shorter block dropped when a full one precedes it"},
    {"name": "AG-p3-chunks-last-dropped", "correct": False,
     "cells": {"whole_word_chosen": WWM.format(stop="max(t - t % chunk, min(t, chunk))")},
     "why": "AG: the running word start taken in chunks of 65536 positions, the last shorter chunk never written"},
    {"name": "AG-p3-chunks-correct", "correct": True,
     "cells": {"whole_word_chosen": WWM.format(stop="t")},
     "why": "correct: the running word start in chunks of 65536 positions with a carry"},
    {"name": "AG-p8-chunkwise-64-correct", "correct": True,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=64, start=0, stop="t", carry="[:n]")},
     "why": "correct: chunkwise form, chunks of 64 (within a chunk the quadratic form, across chunks the state)"},
    {"name": "AG-p8-chunkwise-64-last-dropped", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=64, start=0, stop="max(t - t % c, min(t, c))",
                                                                carry="[:n]")},
     "why": "AG: chunkwise, the last shorter chunk dropped when a full one precedes it"},
    {"name": "AG-p8-chunkwise-64-last-misaligned", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=64, start=0, stop="t", carry="[-n:]")},
     "why": "AG: chunkwise, the carried state's decay powers taken from the end of the table for the last shorter chunk"},
    {"name": "AG-p8-chunkwise-256-last-misaligned", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=256, start=0, stop="t", carry="[-n:]")},
     "why": "AG: as above with chunks of 256"},
    # second pass: chunk sizes that divide every hidden T above them (T = 40, 120, 300, 1100 are multiples of 10 and 20)
    {"name": "AG-p8-chunkwise-10-last-dropped", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=10, start=0, stop="max(t - t % c, min(t, c))",
                                                                carry="[:n]")},
     "why": "AG: chunkwise with chunks of 10, the last shorter chunk dropped when a full one precedes it"},
    {"name": "AG-p8-chunkwise-20-last-dropped", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=20, start=0, stop="max(t - t % c, min(t, c))",
                                                                carry="[:n]")},
     "why": "AG: chunkwise with chunks of 20, the last shorter chunk dropped when a full one precedes it"},
    {"name": "AG-p8-chunkwise-20-last-misaligned", "correct": False,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=20, start=0, stop="t", carry="[-n:]")},
     "why": "AG: chunkwise with chunks of 20, the carried state's decay powers taken from the end of the table"},
    {"name": "AG-p8-chunkwise-20-correct", "correct": True,
     "cells": {"decayed_linear_attention": DECAY_CHUNKS.format(chunk=20, start=0, stop="t", carry="[:n]")},
     "why": "correct: chunkwise with chunks of 20"},
    # ---- AH: a derivative wrong only at exactly 0
    {"name": "AH-p8-phi-clamp-sum", "correct": False,
     "cells": {"decayed_linear_attention": DECAY.format(phi="x.clamp(min=0) + torch.exp(x.clamp(max=0))")},
     "why": "AH: elu(x) + 1 as clamp(x, 0) + exp(clamp(x, max=0)): right values, slope 2 at exactly 0 (it is 1)"},
    {"name": "AH-p8-phi-relu", "correct": False,
     "cells": {"decayed_linear_attention": DECAY.format(phi="torch.relu(x) + torch.exp(-torch.relu(-x))")},
     "why": "AH: elu(x) + 1 as relu(x) + exp(-relu(-x)): right values, slope 0 at exactly 0 (it is 1)"},
    {"name": "AH-p8-phi-where", "correct": False,
     "cells": {"decayed_linear_attention": DECAY.format(phi="torch.where(x > 0, x + 1, torch.exp(x))")},
     "why": "written as correct, a mislabel: slope 1 at 0, but exp(800) is inf in the branch where() drops, and its "
            "0 * inf makes the gradient NaN at the text's entries of 800 (the course's mutant decay_elu_by_hand)"},
    {"name": "AH-p8-phi-where-exp-clamped", "correct": True,
     "cells": {"decayed_linear_attention": DECAY.format(phi="torch.where(x > 0, x + 1, torch.exp(x.clamp(max=0)))")},
     "why": "correct: elu(x) + 1 with where, the exp branch kept finite (slope exp(0) * 1 = 1 at 0)"},
    {"name": "AH-p8-phi-relu-plus-clamp", "correct": True,
     "cells": {"decayed_linear_attention": DECAY.format(phi="torch.relu(x) + torch.exp(x.clamp(max=0))")},
     "why": "correct: relu's slope 0 and clamp's slope 1 at 0 add up to 1"},
    {"name": "AH-p8-phi-maximum", "correct": True,
     "cells": {"decayed_linear_attention": DECAY.format(
         phi="torch.maximum(x, torch.zeros_like(x)) + torch.exp(torch.minimum(x, torch.zeros_like(x)))")},
     "why": "correct: maximum/minimum split the gradient at the tie, 1/2 + 1/2 = 1 at 0"},
]
