# Round 29 class sweep, chapter 03 (classes AF-AI of tests/redteam/round29/BRIEF-SWEEP.md): the model answer (or a
# correct variant that writes its softmax out) of each part with one class's mistake put in; "correct": True only where
# the text allows the answer.
from grading import solution_code

MODEL = solution_code("03-multi-head")


def rep(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)


def blocks(blk, drop):
    return f"range(0, max(1, n // {blk}) * {blk}, {blk})" if drop else f"range(0, n, {blk})"


def written(from_zero):
    """attention written out (instead of the setup's), its row maximum floored at 0 or taken as it is."""
    top = ("scores.amax(dim=-1, keepdim=True).clamp(min=0)  # max(0, ...): no -inf - -inf in an all-masked row"
           if from_zero else
           "scores.amax(dim=-1, keepdim=True)\n    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)")
    return f'''
def my_attention(q, k, v, allowed=None):
    given = q.dtype
    work = torch.float32 if given in (torch.float16, torch.bfloat16) else given
    q, k, v = q.to(work), k.to(work), v.to(work)
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    top = {top}
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    return ((e / torch.where(total > 0, total, torch.ones_like(total))) @ v).to(given)

'''


def online(blk, drop, from_zero):
    start = "torch.zeros" if from_zero else "torch.full"
    fill = "" if from_zero else ', float("-inf")'
    shift = "m_new" if from_zero else "torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)"
    return f'''
def my_attention(q, k, v, allowed=None):
    given = q.dtype
    work = torch.float32 if given in (torch.float16, torch.bfloat16) else given
    q, k, v = q.to(work) / math.sqrt(q.shape[-1]), k.to(work), v.to(work)
    lead, t, n = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2]), q.shape[-2], k.shape[-2]
    if allowed is None:
        allowed = torch.ones(t, n, dtype=torch.bool)
    allowed = allowed.expand(*lead, t, n)
    m = {start}((*lead, t, 1){fill}, dtype=work)
    l = torch.zeros((*lead, t, 1), dtype=work)
    acc = torch.zeros((*lead, t, v.shape[-1]), dtype=work)
    for j in {blocks(blk, drop)}:                                   # {blk} keys at a time
        z = (q @ k[..., j:j + {blk}, :].transpose(-2, -1)).masked_fill(~allowed[..., j:j + {blk}], float("-inf"))
        m_new = torch.maximum(m, z.amax(dim=-1, keepdim=True))
        shift = {shift}
        alpha = torch.exp(m - shift)
        p = torch.exp(z - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., j:j + {blk}, :]
        m = m_new
    return (acc / torch.where(l > 0, l, torch.ones_like(l))).to(given)

'''


def using(helper, cell, fn):
    return helper + rep(MODEL[cell], "attention(", "my_attention(") if fn else helper + MODEL[cell].replace("attention(", "my_attention(")


def p7_query_blocks(blk, drop):
    return rep(rep(MODEL["cache"], "    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. p + t\n"
               "    out = merge_heads(attention(q, k, v, allowed)) @ params[\"w_o\"].T + params[\"b_o\"]\n",
               f"""    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. p + t
    heads = torch.zeros_like(q)
    n = t
    for i in {blocks(blk, drop)}:                                   # {blk} new queries at a time
        heads[:, :, i:i + {blk}] = attention(q[:, :, i:i + {blk}], k, v, allowed[i:i + {blk}])
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
"""), "def causal_attention_with_cache", "def causal_attention_with_cache")


S = []


def add(name, cell, code, correct, why):
    S.append({"name": name, "correct": correct, "cells": {cell: code}, "why": why})


# ---- class AF: a softmax written out (the text allows it) whose row maximum is floored at 0
for cell, part in (("contributions", "p5"), ("left_padded", "p6"), ("cache", "p7")):
    add(f"af_{part}_written_softmax_max_floored", cell, written(True) + MODEL[cell].replace("attention(", "my_attention("),
        False, "AF: attention written out, its row maximum floored at 0 (whole rows far below 0 underflow to 0)")
    add(f"ok_{part}_written_softmax", cell, written(False) + MODEL[cell].replace("attention(", "my_attention("), True,
        "correct: attention written out, the row maximum taken as it is (0 only where it is -inf)")
    add(f"af_{part}_online_max_from_0", cell, online(64, False, True) + MODEL[cell].replace("attention(", "my_attention("),
        False, "AF: online softmax over blocks of 64 keys, the running maximum started at 0")
    # an online softmax over blocks of 64 keys runs thousands of operations at the million-key cases of Parts 6 and 7,
    # past the few hundred the text allows there: rightly refused, so labelled wrong in those parts
    add(f"ok_{part}_online_64", cell, online(64, False, False) + MODEL[cell].replace("attention(", "my_attention("),
        part == "p5", "correct in Part 5: online softmax over blocks of 64 keys; Parts 6 and 7: past the text's "
        "operation budget (a few hundred operations for one sentence, one head, one query) at a million keys")

# ---- class AG: the last shorter block dropped (Parts 5 and 6 closed in round 29; Part 7 here, Part 6's keys checked)
for blk in (8, 64, 256, 512, 1024, 4096):
    add(f"ag_p7_query_blocks_{blk}_last_dropped", "cache", p7_query_blocks(blk, True), False,
        f"AG: the new queries {blk} at a time, the last shorter block left at 0")
add("ok_p7_query_blocks_8", "cache", p7_query_blocks(8, False), True, "correct: the new queries 8 at a time")
for blk in (64, 4096):
    for cell, part in (("left_padded", "p6"), ("cache", "p7")):
        add(f"ag_{part}_online_keys_{blk}_last_dropped", cell,
            online(blk, True, False) + MODEL[cell].replace("attention(", "my_attention("), False,
            f"AG: online softmax over blocks of {blk} keys, the last shorter block dropped")

# ---- class AI: Part 6's mask given as (B, 1, S), which attention lines up as (H, T, S)
add("ai_p6_mask_b_1_s", "left_padded", rep(MODEL["left_padded"], "real[:, None, None, :]", "real[:, None, :]"), False,
    "AI: the padding mask (B, 1, S), read by broadcasting as (H, T, S)")
add("ai_p6_mask_b_s", "left_padded", rep(MODEL["left_padded"], "real[:, None, None, :]", "real"), False,
    "AI: the padding mask (B, S), read by broadcasting as (T, S)")
add("ok_p6_mask_b_1_1_s_expanded", "left_padded", rep(MODEL["left_padded"], "real[:, None, None, :]",
    "real[:, None, None, :].expand(-1, num_heads, x.shape[1], -1)"), True, "correct: the mask expanded to (B, H, T, S)")
add("ai_p7_mask_b_t_s", "cache", rep(MODEL["cache"], "attention(q, k, v, allowed)",
    "attention(q, k, v, allowed.expand(x.shape[0], t, p + t))"), False,
    "AI: a (B, T, S) causal mask, the same for every sequence, read as (H, T, S): an error where B != H")

SUBMISSIONS = S
