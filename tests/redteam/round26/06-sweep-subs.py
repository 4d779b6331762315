SUBMISSIONS = [
 {"name": "SW-whole-squeeze", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values.squeeze()
    word_start = word_start.reshape(starts.shape) if word_start.dim() == 2 else word_start.unsqueeze(0)
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
'''}, "why": "SQ sweep: squeeze() drops T = 1, unsqueeze(0) puts it back as a batch axis"},
 {"name": "SW-expert-squeeze", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, order, True).squeeze()
    chosen = chosen.reshape(probs.shape) if chosen.dim() == 2 else chosen[:, None]
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "SQ sweep: squeeze() then [:, None]: N = 1 becomes (E, 1)"},
 {"name": "SW-decayed-keepdim", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1)
        outs.append(top / (bottom if bottom.dim() == 0 else bottom[:, None] if top.shape[-1] != bottom.shape[-1] else bottom))
    return torch.stack(outs, dim=-2).to(dtype)
'''}, "why": "SQ sweep: keepdim dropped; divides along Dv when the batch equals Dv"},
 {"name": "SW-spans-view", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B, Li = inputs.shape
    Lt = targets.shape[1]
    flat_in, flat_tg = inputs.view(-1).tolist(), targets.view(-1).tolist()
    is_sentinel = set(sentinels.tolist())
    rows = []
    for b in range(B):
        row_in, row_tg = flat_in[b * Li:(b + 1) * Li], flat_tg[b * Lt:(b + 1) * Lt]
        hidden, current = {}, None
        for token in row_tg:
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        restored = []
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max((len(row) for row in rows), default=0)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return tokens, noise
'''}, "why": "ST sweep: view(-1) on inputs"},
 {"name": "SW-decayed-view", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    lead, T = q.shape[:-2], q.shape[-2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q = q.view(-1, T, q.shape[-1]).to(work); k = k.view(-1, T, k.shape[-1]).to(work); v2 = v.view(-1, T, v.shape[-1]).to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(q.shape[0], q.shape[-1], v2.shape[-1], dtype=work)
    norm = torch.zeros(q.shape[0], q.shape[-1], dtype=work)
    outs = []
    for i in range(T):
        state = decay * state + phi_k[:, i, :, None] * v2[:, i, None, :]
        norm = decay * norm + phi_k[:, i, :]
        outs.append(torch.einsum("nd,nde->ne", phi_q[:, i], state) / (phi_q[:, i] * norm).sum(-1, keepdim=True))
    out = torch.stack(outs, dim=1) if T else torch.zeros(q.shape[0], 0, v2.shape[-1], dtype=work)
    return out.reshape(*lead, T, v.shape[-1]).to(dtype)
'''}, "why": "ST sweep: view on q, k, v"},
]
