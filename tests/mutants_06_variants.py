"""Chapter 6 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks."""

CHAPTER = "06-variants"
FULL_MARKS = 16.0

# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
MUTANTS = {
    # Part 1
    "bert_labels_everywhere": ("test_bert_corrupt", {"bert_corrupt": """
def bert_corrupt(tokens, chosen, action, random_tokens, mask_id):
    inputs = tokens.clone()
    inputs[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    inputs[swap] = random_tokens[swap]
    return inputs, tokens.clone()
"""}),
    "bert_random_and_keep_swapped": ("test_bert_corrupt", {"bert_corrupt": """
def bert_corrupt(tokens, chosen, action, random_tokens, mask_id):
    inputs = tokens.clone()
    inputs[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.9)
    inputs[swap] = random_tokens[swap]
    return inputs, tokens.masked_fill(~chosen, IGNORE)
"""}),
    "bert_masks_unchosen_positions": ("test_bert_corrupt", {"bert_corrupt": """
def bert_corrupt(tokens, chosen, action, random_tokens, mask_id):
    inputs = tokens.clone()
    inputs[action < 0.8] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    inputs[swap] = random_tokens[swap]
    return inputs, tokens.masked_fill(~chosen, IGNORE)
"""}),
    # Part 2
    "top_p_drops_the_crossing_token": ("test_top_p_filter", {"top_p_filter": """
def top_p_filter(logits, p):
    probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
    keep_sorted = probs.cumsum(-1) <= p
    keep_sorted[..., 0] = True
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))
"""}),
    "top_p_without_sorting": ("test_top_p_filter", {"top_p_filter": """
def top_p_filter(logits, p):
    probs = torch.softmax(logits, -1)
    keep = probs.cumsum(-1) - probs < p
    return logits.masked_fill(~keep, float("-inf"))
"""}),
    "top_p_on_logits_not_probabilities": ("test_top_p_filter", {"top_p_filter": """
def top_p_filter(logits, p):
    scores, order = logits.sort(dim=-1, descending=True)
    scores = scores - scores.min(dim=-1, keepdim=True).values
    share = scores / scores.sum(dim=-1, keepdim=True).clamp_min(1e-12)
    keep_sorted = share.cumsum(-1) - share < p
    keep_sorted[..., 0] = True
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))
"""}),
    # Part 3
    "gqa_tiles_instead_of_interleaving": ("test_gqa_attention", {"gqa_attention": """
def gqa_attention(q, k, v):
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, reps, 1, 1), v.repeat(1, reps, 1, 1)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return w @ v
"""}),
    "gqa_without_scaling": ("test_gqa_attention", {"gqa_attention": """
def gqa_attention(q, k, v):
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    w = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    return w @ v
"""}),
    # Part 4
    "window_two_sided": ("test_sliding_window_mask", {"sliding_window_mask": """
def sliding_window_mask(t, window):
    i = torch.arange(t)
    return (i[:, None] - i[None, :]).abs() < window
"""}),
    "window_one_key_too_many": ("test_sliding_window_mask", {"sliding_window_mask": """
def sliding_window_mask(t, window):
    i = torch.arange(t)
    gap = i[:, None] - i[None, :]
    return (gap >= 0) & (gap <= window)
"""}),
    # Part 5
    "linear_without_normaliser": ("test_causal_linear_attention", {"causal_linear_attention": """
def causal_linear_attention(q, k, v):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    state = torch.cumsum(fk[..., :, None] * v[..., None, :], dim=-3)
    return (fq[..., None, :] @ state).squeeze(-2)
"""}),
    "linear_not_causal": ("test_causal_linear_attention", {"causal_linear_attention": """
def causal_linear_attention(q, k, v):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    kv = fk.transpose(-2, -1) @ v
    return (fq @ kv) / (fq @ fk.sum(-2)[..., None])
"""}),
    "linear_excludes_own_position": ("test_causal_linear_attention", {"causal_linear_attention": """
def causal_linear_attention(q, k, v):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    outer = fk[..., :, None] * v[..., None, :]
    state = torch.cumsum(outer, dim=-3) - outer + 1e-3 * outer
    z = torch.cumsum(fk, dim=-2) - fk + 1e-3 * fk
    return (fq[..., None, :] @ state).squeeze(-2) / (fq * z).sum(-1, keepdim=True)
"""}),
    "linear_elu_without_plus_one": ("test_causal_linear_attention", {"causal_linear_attention": """
def causal_linear_attention(q, k, v):
    fq, fk = F.elu(q), F.elu(k)
    state = torch.cumsum(fk[..., :, None] * v[..., None, :], dim=-3)
    z = torch.cumsum(fk, dim=-2)
    return (fq[..., None, :] @ state).squeeze(-2) / (fq * z).sum(-1, keepdim=True)
"""}),
    # Part 6
    "routing_gate_is_logit": ("test_route_with_capacity", {"route_with_capacity": """
def route_with_capacity(router_logits, capacity):
    gate, expert = router_logits.max(dim=-1)
    one_hot = F.one_hot(expert, router_logits.shape[-1])
    place = (one_hot.cumsum(0) * one_hot).sum(-1)
    return expert, gate, place <= capacity
"""}),
    "routing_capacity_off_by_one": ("test_route_with_capacity", {"route_with_capacity": """
def route_with_capacity(router_logits, capacity):
    gate, expert = router_logits.softmax(-1).max(dim=-1)
    one_hot = F.one_hot(expert, router_logits.shape[-1])
    place = (one_hot.cumsum(0) * one_hot).sum(-1)
    return expert, gate, place <= capacity + 1
"""}),
    "routing_keeps_last_tokens": ("test_route_with_capacity", {"route_with_capacity": """
def route_with_capacity(router_logits, capacity):
    gate, expert = router_logits.softmax(-1).max(dim=-1)
    one_hot = F.one_hot(expert, router_logits.shape[-1]).flip(0)
    place = (one_hot.cumsum(0) * one_hot).sum(-1).flip(0)
    return expert, gate, place <= capacity
"""}),
    # Part 7
    "balance_without_num_experts": ("test_load_balancing_loss", {"load_balancing_loss": """
def load_balancing_loss(probs, expert):
    f = torch.bincount(expert, minlength=probs.shape[1]).to(probs.dtype) / len(expert)
    return (f * probs.mean(0)).sum()
"""}),
    "balance_fraction_from_probabilities": ("test_load_balancing_loss", {"load_balancing_loss": """
def load_balancing_loss(probs, expert):
    p = probs.mean(0)
    return probs.shape[1] * (p * p).sum()
"""}),
    "balance_probability_from_counts": ("test_load_balancing_loss", {"load_balancing_loss": """
def load_balancing_loss(probs, expert):
    f = torch.bincount(expert, minlength=probs.shape[1]).to(probs.dtype) / len(expert)
    return probs.shape[1] * (f * f).sum() + 0 * probs.sum()
"""}),
    # Part 8
    "verify_accepts_when_p_exceeds_q": ("test_speculative_verify", {"speculative_verify": """
def speculative_verify(p, q, draft, u):
    for i, x in enumerate(draft.tolist()):
        if p[i, x] < q[i, x]:
            r = (p[i] - q[i]).clamp_min(0)
            return i, r / r.sum()
    return len(draft), p[len(draft)]
"""}),
    "verify_residual_not_normalised": ("test_speculative_verify", {"speculative_verify": """
def speculative_verify(p, q, draft, u):
    for i, x in enumerate(draft.tolist()):
        if not u[i] < p[i, x] / q[i, x]:
            return i, (p[i] - q[i]).clamp_min(0)
    return len(draft), p[len(draft)]
"""}),
    "verify_resamples_from_target": ("test_speculative_verify", {"speculative_verify": """
def speculative_verify(p, q, draft, u):
    for i, x in enumerate(draft.tolist()):
        if not u[i] < p[i, x] / q[i, x]:
            return i, p[i]
    return len(draft), p[len(draft)]
"""}),
    "verify_counts_past_a_rejection": ("test_speculative_verify", {"speculative_verify": """
def speculative_verify(p, q, draft, u):
    accepted, first_reject = 0, None
    for i, x in enumerate(draft.tolist()):
        if u[i] < p[i, x] / q[i, x]:
            accepted += 1
        elif first_reject is None:
            first_reject = i
    if first_reject is None:
        return accepted, p[len(draft)]
    r = (p[first_reject] - q[first_reject]).clamp_min(0)
    return accepted, r / r.sum()
"""}),
    "verify_bonus_from_last_draft_row": ("test_speculative_verify", {"speculative_verify": """
def speculative_verify(p, q, draft, u):
    for i, x in enumerate(draft.tolist()):
        if not u[i] < p[i, x] / q[i, x]:
            r = (p[i] - q[i]).clamp_min(0)
            return i, r / r.sum()
    return len(draft), p[len(draft) - 1]
"""}),
}

# Mutants graded together in one submission (one notebook run each batch). No part calls another
# part's function, so mutants of different parts never interfere.
MUTANT_BATCHES = [
    ["bert_labels_everywhere", "top_p_drops_the_crossing_token", "gqa_tiles_instead_of_interleaving",
     "window_two_sided", "linear_without_normaliser", "routing_gate_is_logit", "balance_without_num_experts",
     "verify_accepts_when_p_exceeds_q"],
    ["bert_random_and_keep_swapped", "top_p_without_sorting", "gqa_without_scaling", "window_one_key_too_many",
     "linear_not_causal", "routing_capacity_off_by_one", "balance_fraction_from_probabilities",
     "verify_residual_not_normalised"],
    ["bert_masks_unchosen_positions", "top_p_on_logits_not_probabilities", "linear_excludes_own_position",
     "routing_keeps_last_tokens", "balance_probability_from_counts", "verify_resamples_from_target"],
    ["linear_elu_without_plus_one", "verify_counts_past_a_rejection"],
    ["verify_bonus_from_last_draft_row"],
]

# Correct answers that differ from the model answers: index assignment, explicit loops, matmul
# with repeat_interleave, a quadratic masked form, a Python-loop recurrence, counts by bincount.
CORRECT_VARIANTS = {
    "loops_and_quadratic_forms": {
        "bert_corrupt": """
def bert_corrupt(tokens, chosen, action, random_tokens, mask_id):
    inputs = tokens.clone()
    labels = torch.full_like(tokens, -100)
    labels[chosen] = tokens[chosen]
    inputs[chosen & (action < 0.8)] = mask_id
    middle = chosen & (action >= 0.8) & (action < 0.9)
    inputs[middle] = random_tokens[middle]
    return inputs, labels
""",
        "top_p_filter": """
def top_p_filter(logits, p):
    flat = logits.reshape(-1, logits.shape[-1])
    out = torch.full_like(flat, float("-inf"))
    for r in range(flat.shape[0]):
        probs = torch.softmax(flat[r], 0)
        mass = 0.0
        for j in torch.argsort(probs, descending=True).tolist():
            out[r, j] = flat[r, j]
            mass += probs[j].item()
            if mass >= p:
                break
    return out.reshape(logits.shape)
""",
        "gqa_attention": """
def gqa_attention(q, k, v):
    reps = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(reps, dim=1)
    v = v.repeat_interleave(reps, dim=1)
    return F.scaled_dot_product_attention(q, k, v)
""",
        "sliding_window_mask": """
def sliding_window_mask(t, window):
    m = torch.zeros(t, t, dtype=torch.bool)
    for i in range(t):
        m[i, max(0, i - window + 1): i + 1] = True
    return m
""",
        "causal_linear_attention": """
def causal_linear_attention(q, k, v):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    outs = []
    s = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    for i in range(q.shape[-2]):
        s = s + fk[..., i, :, None] * v[..., i, None, :]
        z = z + fk[..., i, :]
        num = (fq[..., i, :, None] * s).sum(-2)
        outs.append(num / (fq[..., i, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
""",
        "route_with_capacity": """
def route_with_capacity(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=1)
    expert = probs.argmax(dim=1)
    gate = probs.gather(1, expert[:, None])[:, 0]
    one_hot = F.one_hot(expert, router_logits.shape[1])
    rank = one_hot.cumsum(dim=0).gather(1, expert[:, None])[:, 0]
    return expert, gate, rank <= capacity
""",
        "load_balancing_loss": """
def load_balancing_loss(probs, expert):
    n, e = probs.shape
    counts = torch.bincount(expert, minlength=e).to(probs.dtype)
    return e / (n * n) * (counts * probs.sum(0)).sum()
""",
        "speculative_verify": """
def speculative_verify(p, q, draft, u):
    gamma = draft.shape[0]
    rows = torch.arange(gamma)
    accept = u < p[rows, draft] / q[rows, draft]
    rejected = (~accept).nonzero()
    if len(rejected) == 0:
        return gamma, p[gamma]
    i = int(rejected[0])
    r = torch.relu(p[i] - q[i])
    return i, r / r.sum()
""",
    },
}
