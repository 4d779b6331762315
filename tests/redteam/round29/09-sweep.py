"""Round 29 class sweep, chapter 09: classes AG (the last, shorter piece dropped) and AH (a derivative wrong only at
exactly 0); AF (a running maximum started at 0) is closed in Parts 4 and 8 already, and one AF variant is tried in
Part 7, the remaining part that takes a softmax. Each variant is the model answer with the smallest change that
makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "09-modern-lm" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def swap(gid, *pairs, code=None):
    code = MODEL[gid] if code is None else code
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new, 1)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# ============================== AG: the last, shorter piece dropped ==============================
SWIGLU_CHUNKED = """
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    F = w_down.shape[1]
    xw = x.to(work)
    out = xw[..., :0] @ w_down.to(work)[:, :0].T  # (..., D), connected to the inputs
    c = max(min(CH, F), 1)  # hidden units in pieces of CH, to bound the (..., F) activations
    for f0 in range(0, RANGE, c):
        f1 = min(f0 + c, F)
        if interleaved:
            gate = xw @ w_gate_up[2 * f0:2 * f1:2].to(work).T
            up = xw @ w_gate_up[2 * f0 + 1:2 * f1:2].to(work).T
        else:
            gate = xw @ w_gate_up[f0:f1].to(work).T
            up = xw @ w_gate_up[F + f0:F + f1].to(work).T
        if limit is not None:
            gate = gate.clamp(max=limit)
            up = up.clamp(min=-limit, max=limit)
        out = out + (gate * torch.sigmoid(beta * gate) * up) @ w_down[:, f0:f1].to(work).T
    return out.to(x.dtype)
"""
for ch in (256, 1024):
    add(f"AG2-hidden-units-in-pieces-of-{ch}-last-dropped", "fused_swiglu",
        SWIGLU_CHUNKED.replace("CH", str(ch)).replace("RANGE", "F - c + 1"),
        f"AG: the hidden units in pieces of {ch}, the last shorter piece dropped (text: w_gate_up (2F, D), any F)")
add("AG2-hidden-units-in-pieces-of-256", "fused_swiglu", SWIGLU_CHUNKED.replace("CH", "256").replace("RANGE", "F"),
    "AG counterpart: every piece kept", correct=True)

LOSS_VOCAB_CHUNKED = swap("masked_lm_loss",
    "    log_z = torch.logsumexp(scores, dim=-1)\n",
    "    V = scores.shape[-1]\n    c = max(min(CH, V), 1)  # the vocabulary in pieces of CH, online log-sum-exp\n"
    "    m = torch.full(scores.shape[:-1], float('-inf'), dtype=work)\n"
    "    l = torch.zeros(scores.shape[:-1], dtype=work)\n"
    "    for v0 in range(0, RANGE, c):\n"
    "        s = scores[:, v0:v0 + c]\n"
    "        m_new = torch.maximum(m, s.amax(dim=-1))\n"
    "        shift = m_new.masked_fill(m_new == float('-inf'), 0.0)\n"
    "        l = l * torch.exp(m - shift) + torch.exp(s - shift[:, None]).sum(dim=-1)\n"
    "        m = m_new\n"
    "    log_z = m + torch.log(l)\n")
add("AG4-vocab-in-pieces-of-4096-last-dropped", "masked_lm_loss",
    LOSS_VOCAB_CHUNKED.replace("CH", "4096").replace("RANGE", "V - c + 1"),
    "AG: the log-sum-exp over pieces of 4096 ids, the last shorter piece dropped (text: V may be tens of thousands)")
add("AG4-vocab-in-pieces-of-4096", "masked_lm_loss",
    LOSS_VOCAB_CHUNKED.replace("CH", "4096").replace("RANGE", "V"),
    "AG counterpart: every piece kept", correct=True)
LOSS_TOKEN_CHUNKED = swap("masked_lm_loss",
    "    log_z = torch.logsumexp(scores, dim=-1)\n    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n"
    "    per_token = (log_z - picked) + z_loss * log_z.square()\n    return per_token.sum() / max(count, 1), count\n",
    "    c = max(min(CH, count), 1)  # the predicted tokens in pieces of CH\n"
    "    total = scores[:0].sum()\n"
    "    for t0 in range(0, RANGE, c):\n"
    "        s = scores[t0:t0 + c]\n"
    "        log_z = torch.logsumexp(s, dim=-1)\n"
    "        picked = s.gather(-1, targets[t0:t0 + c].unsqueeze(-1)).squeeze(-1)\n"
    "        total = total + ((log_z - picked) + z_loss * log_z.square()).sum()\n"
    "    return total / max(count, 1), count\n")
for ch in (64, 1024):
    add(f"AG4-tokens-in-pieces-of-{ch}-last-dropped", "masked_lm_loss",
        LOSS_TOKEN_CHUNKED.replace("CH", str(ch)).replace("RANGE", "count - c + 1"),
        f"AG: the predicted tokens in pieces of {ch}, the last shorter piece dropped (text: the mean over every "
        "predicted token of the batch)")
add("AG4-tokens-in-pieces-of-1024", "masked_lm_loss",
    LOSS_TOKEN_CHUNKED.replace("CH", "1024").replace("RANGE", "count"),
    "AG counterpart: every piece kept (the empty batch: a 0 with no gradient, which count 0 allows)", correct=True)

ROPE_CHUNKED = swap("rope_llama3",
    "    angle = positions.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, Dh/2)\n"
    "    cos, sin = angle.cos(), angle.sin()\n"
    "    first, second = x.to(torch.float64).chunk(2, dim=-1)\n"
    "    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n"
    "    return out.to(x.dtype)\n",
    "    pieces = []\n    c = max(min(CH, t), 1)  # positions in pieces of CH\n"
    "    for t0 in range(0, RANGE, c):\n"
    "        angle = positions[:, t0:t0 + c].to(torch.float64)[:, None, :, None] * theta\n"
    "        cos, sin = angle.cos(), angle.sin()\n"
    "        first, second = x[:, :, t0:t0 + c].to(torch.float64).chunk(2, dim=-1)\n"
    "        pieces.append(torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1))\n"
    "    out = torch.cat(pieces, dim=2) if pieces else x.to(torch.float64) * 1\n"
    "    if out.shape[2] < t:  # pad to T\n"
    "        out = torch.cat([out, x[:, :, out.shape[2]:].to(torch.float64) * 0], dim=2)\n"
    "    return out.to(x.dtype)\n")
add("AG6-positions-in-pieces-of-512-last-dropped", "rope_llama3",
    ROPE_CHUNKED.replace("CH", "512").replace("RANGE", "t - c + 1"),
    "AG: positions in pieces of 512, the last shorter piece left unrotated (zeros) (text: any T)")

RAGGED_BLOCKS = swap("ragged_cached_attention",
    "    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n"
    "    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n"
    "    qg = q.reshape(b, g, h // g, t, dh)  # the query heads of one group sit next to each other\n"
    "    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)\n"
    "    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]  # (B, T, S_max)\n"
    "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
    "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", scores.softmax(dim=-1), values)\n",
    "    qg = q.reshape(b, g, h // g, t, dh)\n"
    "    m = torch.full((b, g, h // g, t, 1), START, dtype=q.dtype)\n"
    "    l = torch.zeros((b, g, h // g, t, 1), dtype=q.dtype)\n"
    "    acc = torch.zeros((b, g, h // g, t, dh), dtype=q.dtype)\n"
    "    c = max(min(BS, s_max), 1)  # keys in blocks of BS, online softmax\n"
    "    for s0 in range(0, RANGE, c):\n"
    "        s1 = min(s0 + c, s_max)\n"
    "        pos = torch.arange(s0, s1)\n"
    "        ok = written[:, s0:s1]\n"
    "        kb = torch.where(ok[:, None, :, None], k_cache[:, :, s0:s1], torch.zeros((), dtype=q.dtype))\n"
    "        vb = torch.where(ok[:, None, :, None], v_cache[:, :, s0:s1], torch.zeros((), dtype=q.dtype))\n"
    "        sc = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, kb) / math.sqrt(dh)\n"
    "        allowed = pos[None, None, :] <= slots[:, :, None]\n"
    "        sc = sc.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
    "        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))\n"
    "        shift = m_new.masked_fill(m_new == float(\"-inf\"), 0.0)\n"
    "        p = torch.exp(sc - shift)\n"
    "        corr = torch.exp(m - shift)\n"
    "        l = l * corr + p.sum(dim=-1, keepdim=True)\n"
    "        acc = acc * corr + torch.einsum(\"bgrts,bgsd->bgrtd\", p, vb)\n"
    "        m = m_new\n"
    "    out = acc / l\n")
add("AG7-key-blocks-of-4096-last-dropped", "ragged_cached_attention",
    RAGGED_BLOCKS.replace("START", "float('-inf')").replace("BS", "4096").replace("RANGE", "s_max - c + 1"),
    "AG: keys in blocks of 4096 (online softmax), the last shorter block dropped (text: S_max up to 2**24, any size)")
add("AG7-key-blocks-of-65536-last-dropped", "ragged_cached_attention",
    RAGGED_BLOCKS.replace("START", "float('-inf')").replace("BS", "65536").replace("RANGE", "s_max - c + 1"),
    "AG: keys in blocks of 65536 (online softmax), the last shorter block dropped")
add("AG7-key-blocks-of-65536", "ragged_cached_attention",
    RAGGED_BLOCKS.replace("START", "float('-inf')").replace("BS", "65536").replace("RANGE", "s_max"),
    "AG counterpart: every block kept", correct=True)
add("AF7-key-blocks-max-from-0", "ragged_cached_attention",
    RAGGED_BLOCKS.replace("START", "0.0").replace("BS", "65536").replace("RANGE", "s_max"),
    "AF (Part 7, not yet swept): the online softmax's running maximum started at 0 (text: scores of any size, below "
    "-1e9 too)")

GEN_CHUNKED_ARGMAX = swap("generate_with_cache",
    "            token = scores.argmax(dim=-1)\n",
    "            V = scores.shape[-1]\n            c = max(min(4096, V), 1)  # the vocabulary in pieces of 4096\n"
    "            best = torch.full((scores.shape[0],), float('-inf'))\n"
    "            token = torch.zeros(scores.shape[0], dtype=torch.long)\n"
    "            for v0 in range(0, V - c + 1, c):\n"
    "                top, at = scores[:, v0:v0 + c].max(dim=-1)\n"
    "                better = top > best\n"
    "                token = torch.where(better, at + v0, token)\n"
    "                best = torch.where(better, top, best)\n")
add("AG8-argmax-in-pieces-of-4096-last-dropped", "generate_with_cache", GEN_CHUNKED_ARGMAX,
    "AG: the greedy argmax over pieces of 4096 ids, the last shorter piece dropped (text: V up to tens of thousands)")

# ============================== AH: a derivative wrong only at exactly 0 ==============================
add("AH1-zero-heads-by-where", "head_rms_norm", swap("head_rms_norm",
    "    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)  # (..., T, H, 1)\n",
    "    ms = heads.double().square().mean(dim=-1, keepdim=True)\n"
    "    # a head of zeros stays 0 (and eps = 0 gives no 0 / 0 there)\n"
    "    inv_rms = torch.where(ms > 0, torch.rsqrt(ms + eps), torch.zeros((), dtype=ms.dtype)).to(work)\n"),
    "AH: a head whose features are all 0 gets inv_rms 0: the value (0) is right, the gradient there (w / sqrt(eps)) "
    "is 0 (text: gradients with respect to x and weight, eps > 0)")
add("AH1-rms-by-vector-norm", "head_rms_norm", swap("head_rms_norm",
    "    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)  # (..., T, H, 1)\n",
    "    norm = torch.linalg.vector_norm(heads.double(), dim=-1, keepdim=True)\n"
    "    inv_rms = (1 / torch.sqrt(norm ** 2 / heads.shape[-1] + eps)).to(work)\n"),
    "AH counterpart: the mean square through vector_norm (its gradient at a head of zeros is 0, as it should be)",
    correct=True)
add("AH2-silu-by-relu-and-abs", "fused_swiglu", swap("fused_swiglu",
    "gate * torch.sigmoid(beta * gate) * up",
    "(torch.relu(gate) - gate.abs() * torch.sigmoid(-beta * gate.abs())) * up"),
    "AH: g sigma(beta g) written as relu(g) - |g| sigma(-beta |g|), right in value for every beta, slope 0 instead of "
    "1/2 at a gate of exactly 0 (text: gradients with respect to x, w_gate_up, w_down)")
add("AH2-silu-by-sign-and-tanh", "fused_swiglu", swap("fused_swiglu",
    "gate * torch.sigmoid(beta * gate) * up",
    "0.5 * gate * (1 + torch.sign(gate) * torch.tanh(beta * gate.abs() / 2)) * up"),
    "AH counterpart: sigma(y) = (1 + tanh(y / 2)) / 2 with tanh(y) = sign(y) tanh(|y|): its wrong slope at 0 is "
    "multiplied by g = 0, so the gradient is right", correct=True)

# ---- second pass (after the fixes): the last piece double-counted rather than dropped ----
add("AG2-last-piece-overlaps", "fused_swiglu",
    SWIGLU_CHUNKED.replace("CH", "1024").replace("    for f0 in range(0, RANGE, c):\n        f1 = min(f0 + c, F)\n",
        "    for f0 in list(range(0, F - c + 1, c)) + ([F - c] if F % c else []):\n        f1 = f0 + c\n"),
    "AG: the last piece of hidden units taken as the last 1024, double-counting the overlap")
add("AG4-tokens-last-piece-overlaps", "masked_lm_loss",
    LOSS_TOKEN_CHUNKED.replace("CH", "1024").replace("    for t0 in range(0, RANGE, c):\n",
        "    for t0 in list(range(0, count - c + 1, c)) + ([count - c] if count % c else []):\n"),
    "AG: the last piece of tokens taken as the last 1024, double-counting the overlap")
add("AG8-argmax-last-piece-overlaps", "generate_with_cache", GEN_CHUNKED_ARGMAX.replace(
    "            for v0 in range(0, V - c + 1, c):\n",
    "            for v0 in list(range(0, V - c + 1, c)) + ([V - c] if V % c else []):\n"),
    "AG counterpart: the last piece of ids taken as the last 4096; a maximum over overlapping pieces is still the "
    "maximum, and the strict comparison keeps the lowest id among ties", correct=True)

# ---- third pass: pieces in the two remaining loops a student may write ----
add("AG8-softmax-normaliser-in-pieces-of-4096-last-dropped", "generate_with_cache", swap("generate_with_cache",
    "torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)",
    "torch.multinomial(pieces_softmax(scores / temperature), 1, generator=generator)",
    code="\ndef pieces_softmax(z):\n    top = z.amax(dim=-1, keepdim=True)\n    e = torch.exp(z - top)\n"
         "    V = z.shape[-1]\n    c = max(min(4096, V), 1)  # the normaliser summed in pieces of 4096 ids\n"
         "    total = sum(e[:, v0:v0 + c].sum(dim=-1, keepdim=True) for v0 in range(0, V - c + 1, c))\n"
         "    return e / total\n\n" + MODEL["generate_with_cache"]),
    "AG: the softmax's normaliser summed over pieces of 4096 ids, the last shorter piece dropped (text: probs = "
    "softmax(scores / temperature), those probabilities as they are)")
RAGGED_QUERY_PIECES = swap("ragged_cached_attention",
    "    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)\n"
    "    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]  # (B, T, S_max)\n"
    "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
    "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", scores.softmax(dim=-1), values)\n",
    "    outs = []\n    c = max(min(64, t), 1)  # queries in pieces of 64\n"
    "    for t0 in range(0, t - c + 1, c):\n"
    "        sc = torch.einsum(\"bgrtd,bgsd->bgrts\", qg[:, :, :, t0:t0 + c], keys) / math.sqrt(dh)\n"
    "        allowed = torch.arange(s_max)[None, None, :] <= slots[:, t0:t0 + c, None]\n"
    "        sc = sc.masked_fill(~allowed[:, None, None], float(\"-inf\"))\n"
    "        outs.append(torch.einsum(\"bgrts,bgsd->bgrtd\", sc.softmax(dim=-1), values))\n"
    "    done = sum(o.shape[3] for o in outs)\n"
    "    out = torch.cat(outs + [qg[:, :, :, done:] * 0], dim=3)\n")
add("AG7-query-pieces-of-64-last-dropped", "ragged_cached_attention", RAGGED_QUERY_PIECES,
    "AG: the new tokens' queries in pieces of 64, the last shorter piece left as zeros (text: the next T tokens, any T)")


# ============================== second section (helper 0479): AI (a mask of lower rank lined up from the front) ==============================
_first = len(SUBMISSIONS)
add("AI7-mask-(B,T,S)-lined-up-from-the-back", "ragged_cached_attention", swap("ragged_cached_attention",
    "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
    "    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))  # (B, 1, T, S): broadcast lines B up with g"),
    "AI: the (B, T, S) causal mask given one axis, so that broadcasting lines it up as (g, 1, T, S): row b's mask "
    "is group b's (text: rows of different lengths, any B, H, G)")
add("AI7-scores-4d-mask-3d-from-the-back", "ragged_cached_attention", swap("ragged_cached_attention",
    "    qg = q.reshape(b, g, h // g, t, dh)  # the query heads of one group sit next to each other\n"
    "    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)\n",
    "    keys_h = keys.repeat_interleave(h // g, dim=1)  # (B, H, S, Dh)\n"
    "    scores = (q @ keys_h.transpose(-1, -2) / math.sqrt(dh)).reshape(b, g, h // g, t, s_max)\n",
    "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
    "    scores = scores.reshape(b, h, t, s_max).masked_fill(~allowed, float(\"-inf\")).reshape(b, g, h // g, t, s_max)"),
    "AI: 4-D scores (B, H, T, S) masked with the 3-D (B, T, S) mask as it is: broadcasting reads it as (H, T, S)")
add("AI7-mask-4d-unsqueezed-at-1", "ragged_cached_attention", swap("ragged_cached_attention",
    "    qg = q.reshape(b, g, h // g, t, dh)  # the query heads of one group sit next to each other\n"
    "    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)\n",
    "    keys_h = keys.repeat_interleave(h // g, dim=1)  # (B, H, S, Dh)\n"
    "    scores = (q @ keys_h.transpose(-1, -2) / math.sqrt(dh)).reshape(b, g, h // g, t, s_max)\n",
    "    scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
    "    scores = scores.reshape(b, h, t, s_max).masked_fill(~allowed[:, None], float(\"-inf\")).reshape(b, g, h // g, t, s_max)"),
    "AI counterpart: the same with the head axis added at dim 1: correct", correct=True)
add("AI6-angles-(B,T,Dh/2)-lined-up-from-the-back", "rope_llama3", swap("rope_llama3",
    "    angle = positions.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, Dh/2)",
    "    angle = positions.to(torch.float64)[:, :, None] * theta  # (B, T, Dh/2): broadcast lines B up with H"),
    "AI: the per-row angles (B, T, Dh/2) against x (B, H, T, Dh/2): broadcasting reads B as H (text: positions "
    "differ from row to row, shared by all heads)")
SECOND_SECTION = [s["name"] for s in SUBMISSIONS[_first:]]
