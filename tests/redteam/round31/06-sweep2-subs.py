# Round 31 sweep 2, chapters 05 and 06: variants of class AP (gradients checked at one rank only) and AQ (positions
# through float32). SUBS = {name: (test grade_id, {answer grade_id: code})}; CORRECT in a name marks an answer the
# text allows. Graded in plain processes, one forked process per variant, as tests/cellrun.py runs a notebook.
DECAYED_FORWARD = '''
def decayed_forward(q, k, v, decay):
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
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(top / bottom)
    return torch.stack(outs, dim=-2).to(dtype)
'''
DECAYED_FUNCTION = DECAYED_FORWARD + '''
class DecayedAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, decay):
        ctx.save_for_backward(q, k, v)
        ctx.decay = decay
        return decayed_forward(q, k, v, decay)

    @staticmethod
    def backward(ctx, g):
        q0, k0, v0 = ctx.saved_tensors
        work = torch.float32 if q0.dtype in (torch.float16, torch.bfloat16) else q0.dtype
        q, k, v, g = q0.to(work), k0.to(work), v0.to(work), g.to(work)
        fq, fk = F.elu(q) + 1, F.elu(k) + 1
        t = q.shape[-2]
        i = torch.arange(t)
        gap = i[:, None] - i[None, :]
        dec = torch.where(gap >= 0, ctx.decay ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
        A = MM(fq, TR(fk)) * dec
        den = A.sum(-1, keepdim=True)
        out = MM(A, v) / den
        dnum = g / den
        dden = -(g * out).sum(-1, keepdim=True) / den
        dA = MM(dnum, TR(v)) + dden
        dv = MM(TR(A), dnum)
        dM = dA * dec
        dfq, dfk = MM(dM, fk), MM(TR(dM), fq)
        dq = dfq * torch.where(q > 0, torch.ones_like(q), torch.exp(q.clamp(max=0)))
        dk = dfk * torch.where(k > 0, torch.ones_like(k), torch.exp(k.clamp(max=0)))
        return dq.to(q0.dtype), dk.to(k0.dtype), dv.to(v0.dtype), None


def decayed_linear_attention(q, k, v, decay):
    return DecayedAttention.apply(q, k, v, decay)
'''
RMS_FUNCTION = '''
class RMSNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)
        return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        x0, w0 = ctx.saved_tensors
        work = torch.float32 if x0.dtype in (torch.float16, torch.bfloat16) else x0.dtype
        x, w, g = x0.to(work), w0.to(work), g.to(work)
        r = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + ctx.eps)
        gw = g * w
        gx = r * gw - x * r ** 3 * (gw * x).mean(dim=-1, keepdim=True)
        gweight = WSUM(g * x * r)
        return gx.to(x0.dtype), gweight.to(w0.dtype), None


def rms_norm(x, weight, eps=1e-6):
    return RMSNormFn.apply(x, weight, eps)
'''
GENERIC_MM = "MM = torch.matmul\nTR = lambda t: t.transpose(-2, -1)\n"
BMM = "MM = torch.bmm\nTR = lambda t: t.transpose(1, 2)\n"

SUBS = {
    # 06 Part 8 (q, k (..., T, Dh)): the gradient checks all used 3-D inputs
    "AP-06p8-backward-bmm": ("test_decayed_linear_attention", {"decayed_linear_attention": BMM + DECAYED_FUNCTION}),
    "AP-06p8-backward-transpose-1-2": ("test_decayed_linear_attention", {"decayed_linear_attention":
        "MM = torch.matmul\nTR = lambda t: t.transpose(1, 2)\n" + DECAYED_FUNCTION}),
    "AP-06p8-backward-generic-CORRECT": ("test_decayed_linear_attention", {"decayed_linear_attention": GENERIC_MM + DECAYED_FUNCTION}),
    # 05 Part 1 (x (..., D)): the weight gradient summed over the leading dims
    "AP-05p1-backward-sum-dims-0-1": ("test_rms_norm", {"rms_norm": "WSUM = lambda t: t.sum(dim=(0, 1))\n" + RMS_FUNCTION}),
    "AP-05p1-backward-sum-dim-0": ("test_rms_norm", {"rms_norm": "WSUM = lambda t: t.sum(dim=0)\n" + RMS_FUNCTION}),
    "AP-05p1-backward-up-to-two-leading": ("test_rms_norm", {"rms_norm":
        "WSUM = lambda t: t.sum(dim=tuple(range(min(t.dim() - 1, 2)))) if t.dim() > 1 else t\n" + RMS_FUNCTION}),
    "AP-05p1-backward-view-B-T": ("test_rms_norm", {"rms_norm":
        "WSUM = lambda t: t.reshape(t.shape[0] if t.dim() > 1 else 1, -1, t.shape[-1]).sum(dim=(0, 1))\n" + RMS_FUNCTION}),
    "AP-05p1-backward-generic-CORRECT": ("test_rms_norm", {"rms_norm": "WSUM = lambda t: t.reshape(-1, t.shape[-1]).sum(0)\n" + RMS_FUNCTION}),
}

import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/
from grading import solution_code
_M5, _M6 = solution_code("05-encoder-decoder"), solution_code("06-variants")


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)


SUBS.update({
    "AQ-06p7-positions-float32": ("test_gqa_cached_attention", {"gqa_cached_attention": swap(swap(_M6["gqa_cached_attention"],
        "torch.arange(s - t, s)", "torch.arange(s - t, s, dtype=torch.float32)"),
        "torch.arange(s)[None, :]", "torch.arange(s, dtype=torch.float32)[None, :]")}),
    "AQ-06p6-ranks-float32": ("test_expert_choice", {"expert_choice": swap(swap(_M6["expert_choice"],
        "torch.empty_like(order)", "torch.empty(order.shape, dtype=torch.float32)"),
        "torch.arange(n)", "torch.arange(n, dtype=torch.float32)")}),
    "AQ-06p8-gaps-float32-quadratic": ("test_decayed_linear_attention", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    pos = torch.arange(q.shape[-2], dtype=torch.float32)
    gap = (pos[:, None] - pos[None, :]).to(work)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros((), dtype=work))
    sc = (fq @ fk.transpose(-2, -1)) * weight
    return ((sc @ v) / sc.sum(-1, keepdim=True)).to(dtype)
'''}),
    "AQ-05p6-positions-float32-CORRECT": ("test_cached_attention", {"cached_attention": swap(swap(_M5["cached_attention"],
        "torch.arange(past, past + n, device=x_new.device)", "torch.arange(past, past + n, device=x_new.device, dtype=torch.float32)"),
        "torch.arange(past + n, device=x_new.device)", "torch.arange(past + n, device=x_new.device, dtype=torch.float32)")}),
    "AQ-05p4-positions-float32-CORRECT": ("test_packed_masks", {"packed_masks": swap(_M5["packed_masks"],
        "causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()",
        "pos = torch.arange(t, dtype=torch.float32)\n    causal = pos[None, :] <= pos[:, None]")}),
})

SUBS.update({
    # the bmm backward made to take a 2-D input too (a batch of one added and dropped): wrong for 4-D inputs only
    "AP-06p8-backward-bmm-2d-and-3d": ("test_decayed_linear_attention", {"decayed_linear_attention":
        "MM = lambda a, b: torch.bmm(a[None], b[None])[0] if a.dim() == 2 else torch.bmm(a, b)\nTR = lambda t: t.transpose(-2, -1)\n"
        + DECAYED_FUNCTION}),
})

SUBS.update({
    # Part 3: the prompt length through float32 (the counts are Python ints; the tests reach 2**62)
    "AQ-05p3-prompt-through-float32": ("test_cache_count_without", {"cache_count_without": swap(_M5["cache_count_without"],
        "full, rest = divmod(prompt_len, chunk)",
        "p32 = int(torch.tensor(float(prompt_len), dtype=torch.float32).item())\n    full, rest = divmod(p32, chunk)")}),
})
