P3_LOOP = r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    total = 0
    active = 0
    emb = vocab * dim * (1 if tied else 2)
    total += emb
    active += emb
    total += dim
    active += dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + 2 * dim * n_kv_heads * head_dim
        total += common
        active += common
        if layer < first_dense:
            d = 3 * dim * dense_hidden
            total += d
            active += d
        else:
            one = 3 * dim * ffn_hidden
            router = dim * n_experts
            total += router + (n_experts + n_shared) * one
            active += router + (top_k + n_shared) * one
    return int(total), int(active)
'''

P3_FORMULA = r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    ok = n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts
    ok = ok and n_shared >= 0 and 0 <= first_dense <= n_layers
    if not ok:
        raise ValueError("invalid model")
    moe_blocks = n_layers - first_dense
    attn = dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
    swiglu = lambda width: 3 * dim * width
    shared_part = (2 * n_layers + 1) * dim + n_layers * attn + first_dense * swiglu(dense_hidden) \
        + (vocab * dim if tied else 2 * vocab * dim) + moe_blocks * (dim * n_experts + n_shared * swiglu(ffn_hidden))
    total = shared_part + moe_blocks * n_experts * swiglu(ffn_hidden)
    active = shared_part + moe_blocks * top_k * swiglu(ffn_hidden)
    return total, active
'''

P5_DICT = r'''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    known = ("parallel", "reordered", "sandwich")
    if not any(layout == k for k in known):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        f = ffn(n)          # the two sublayers read the same input: any order
        a = attn(n)
        return x + (a + f)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = torch.add(input=x, other=p1(attn(norm_1(x))))
    return torch.add(input=h, other=p2(ffn(norm_2(h))))
'''

P5_IFCHAIN = r'''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        out = x + attn(n)
        out = out + ffn(n)
        return out
    elif layout == "reordered":
        a = attn(x)
        h = x.clone()
        h = h + norm_1(a)
        return h + norm_2(ffn(h))
    elif layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms required")
        first, second = post_norms[0], post_norms[1]
        h = x + first(attn(norm_1(x)))
        return h + second(ffn(norm_2(h)))
    else:
        raise ValueError("layout must be parallel, reordered or sandwich")
'''

P6_F64 = r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0:
        raise ValueError("Dh must be even")
    if tuple(positions.shape) != (B, T):
        raise ValueError("positions must be (B, T)")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2.0 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new          # (B, 1, T, half)
    cos, sin = torch.cos(ang), torch.sin(ang)
    xd = x.to(torch.float64)
    x1, x2 = xd[..., :half], xd[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''

P6_MATH = r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 == 1:
        raise ValueError("odd head width")
    if positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:
        raise ValueError("positions shape")
    Dh = x.shape[-1]
    half = Dh // 2
    thetas = []
    for i in range(half):
        th = base ** (-2 * i / Dh)
        wl = 2 * math.pi / th
        if wl < original_context / high_freq_factor:
            thetas.append(th)
        elif wl > original_context / low_freq_factor:
            thetas.append(th / factor)
        else:
            sm = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
            thetas.append((1 - sm) * th / factor + sm * th)
    freq = torch.tensor(thetas, dtype=torch.float64)
    angles = torch.einsum("bt,f->btf", positions.double(), freq).unsqueeze(1)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    c = angles.cos().to(work)
    s = angles.sin().to(work)
    xw = x.to(work)
    rot = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    out = xw * torch.cat((c, c), dim=-1) + rot * torch.cat((s, s), dim=-1)
    return out.to(dtype=x.dtype)
'''

P8_MASK = r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    V = logits.shape[-1]
    seen = torch.zeros((B, V), dtype=torch.bool)
    seen.scatter_(1, prompt, True)
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for t in range(max_new_tokens):
        scores = logits[:, -1].clone()
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, penalised, scores)
        if temperature == 0:
            tok = torch.argmax(scores, dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        seen.scatter_(1, tok[:, None], True)
        if bool(finished.all()) or t == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1).to(torch.int64)
'''

P8_SETS = r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = int(prompt.shape[0])
    history = [set(row) for row in prompt.tolist()]
    done = [False] * B
    out_rows = [[] for _ in range(B)]
    logits, cache = step(prompt, None)
    n = 0
    while True:
        last = logits[:, -1]
        scores = last.clone()
        for b in range(B):
            for tid in history[b]:
                v = scores[b, tid]
                scores[b, tid] = v / penalty if v > 0 else v * penalty
        if temperature == 0:
            picks = torch.sort(scores, dim=-1, descending=True, stable=True).indices[:, 0]
        else:
            picks = torch.multinomial(torch.softmax(scores / temperature, dim=-1), num_samples=1,
                                      generator=generator)[:, 0]
        picks = picks.tolist()
        for b in range(B):
            tokb = pad_id if done[b] else int(picks[b])
            out_rows[b].append(tokb)
            history[b].add(tokb)
            if tokb == eos_id:
                done[b] = True
        n += 1
        if all(done) or n >= max_new_tokens:
            break
        feed = torch.tensor([[r[-1]] for r in out_rows], dtype=torch.int64)
        logits, cache = step(feed, cache)
    return torch.tensor(out_rows, dtype=torch.int64)
'''

P6_TABLE = r'''
ROPE_TABLES = {}

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape != (B, T):
        raise ValueError("Dh must be even and positions (B, T)")
    key = (float(base), float(factor), float(low_freq_factor), float(high_freq_factor), original_context, Dh)
    if key not in ROPE_TABLES:
        half = Dh // 2
        theta = torch.pow(torch.tensor(float(base), dtype=torch.float64),
                          -torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
        wavelen = 2 * math.pi / theta
        smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
        theta_new = theta.clone()
        slow = wavelen > original_context / low_freq_factor
        mid = ~slow & ~(wavelen < original_context / high_freq_factor)
        theta_new[slow] = theta[slow] / factor
        theta_new[mid] = ((1 - smooth) * theta / factor + smooth * theta)[mid]
        ang = torch.arange(131072, dtype=torch.float64)[:, None] * theta_new[None, :]
        ROPE_TABLES[key] = (ang.cos(), ang.sin())
    cos_t, sin_t = ROPE_TABLES[key]
    idx = positions.long()
    cos = cos_t[idx].unsqueeze(1)      # (B, 1, T, half): a fresh tensor (advanced indexing copies)
    sin = sin_t[idx].unsqueeze(1)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = cos.to(work), sin.to(work)
    a, b = x.to(work).chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1).to(x.dtype)
'''

P8_KW = r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    logits, cache = step(tokens=prompt, cache=None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    picked = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].to(torch.float32, copy=True)
        V = scores.size(-1)
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(dim=1, index=history, value=True)
        scores = torch.where(seen & (scores > 0), scores / penalty, scores)
        scores = torch.where(seen & ~(scores > 0) & ~(logits[:, -1] > 0), scores * penalty, scores)
        if temperature == 0:
            nxt = torch.argmax(input=scores, dim=-1)
        else:
            nxt = torch.multinomial(input=torch.softmax(scores / temperature, dim=-1), num_samples=1,
                                    generator=generator).view(-1)
        nxt = torch.where(finished, torch.tensor(pad_id, dtype=torch.int64), nxt)
        picked.append(nxt)
        finished = torch.logical_or(finished, nxt == eos_id)
        history = torch.cat([history, nxt[:, None]], dim=1)
        if i + 1 == max_new_tokens or bool(finished.all()):
            break
        logits, cache = step(tokens=nxt.unsqueeze(1), cache=cache)
    return torch.stack(picked, dim=1)
'''
SUBMISSIONS = [
    {"name": "p8_step_by_keyword_history_cat", "correct": True, "cells": {"generate_with_cache": P8_KW}, "why": "step(tokens=..., cache=...) by the names the text gives, history kept as a growing tensor, keyword arguments to torch"},
    {"name": "p6_cached_table_131072", "correct": True, "cells": {"rope_llama3": P6_TABLE}, "why": "float64 cos/sin table for every position of the 128K context kept between calls, gathered by index (a copy)"},
    {"name": "p3_loop_per_block", "correct": True, "cells": {"moe_params": P3_LOOP}, "why": "block-by-block Python int sums"},
    {"name": "p3_closed_form", "correct": True, "cells": {"moe_params": P3_FORMULA}, "why": "closed form, one validation expression"},
    {"name": "p5_ffn_first_any_eq", "correct": True, "cells": {"block_variant": P5_DICT}, "why": "parallel calls ffn before attn, x + (a + f), any(==), torch.add keywords"},
    {"name": "p5_if_chain_clone", "correct": True, "cells": {"block_variant": P5_IFCHAIN}, "why": "if/elif chain, post_norms indexed, clone of x"},
    {"name": "p6_all_float64_cast_back", "correct": True, "cells": {"rope_llama3": P6_F64}, "why": "everything in float64, one cast at the end"},
    {"name": "p6_python_thetas_einsum", "correct": True, "cells": {"rope_llama3": P6_MATH}, "why": "frequencies with math in a loop, angles by einsum in float64, rotation in float32"},
    {"name": "p8_seen_mask_where", "correct": True, "cells": {"generate_with_cache": P8_MASK}, "why": "presence mask by scatter, torch.where penalty"},
    {"name": "p8_python_sets_stable_sort", "correct": True, "cells": {"generate_with_cache": P8_SETS}, "why": "Python sets of seen ids, stable sort for greedy, per-element penalty"},
]
