# red team round 20, chapters 01/02 helper: blind submissions
BASE = {}
BASE["rnn_step"] = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)                                   # (B, D_h)
    B, D = h.shape
    keep = torch.diag_embed((1 - leak).expand(B, D))      # (B, D, D)
    return keep + (leak * (1 - t * t))[:, :, None] * p["W_hh"][None, :, :]
'''
BASE["costs"] = '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
'''
BASE["mc"] = 'answer_parallel = "b"\n'
BASE["rnn_unroll"] = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(device=x.device, dtype=torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, h_new, torch.zeros_like(h_new))
        h = torch.where(run, h_new, h)
    return torch.stack(outs, dim=1), h
'''
BASE["gradient_norms"] = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        hs.append(h)
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    logscale = torch.zeros(B, dtype=torch.float64, device=x.device)
    norms = []
    for k in range(T):
        if k > 0:
            s = T - k
            J = (1 - hs[s] * hs[s])[:, :, None] * p["W_hh"]
            P = P @ J
            m = P.abs().amax(dim=(-2, -1))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logscale = logscale + torch.log(m.double())
        n = torch.linalg.matrix_norm(P.double())
        norms.append((n * torch.exp(logscale)).mean())
    return torch.stack(norms).to(x.dtype)
'''
BASE["additive"] = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T                     # (B, S, A)
    cov = h.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(dim=1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": kind, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "kind": kind, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": "hostile", "cells": cells, "why": why})

# ---------------- shape-coincidence ----------------
W("shape_p1_batch_mean_derivative", "shape", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    D = h.shape[1]
    # one Jacobian per layer: the derivative of tanh, averaged over the batch
    d = (1 - t * t).mean(dim=0)                         # (D_h,)
    J = torch.diag(1 - leak) + (leak * d)[:, None] * p["W_hh"]
    return J.expand(x.shape[0], D, D).clone()
'''}, "'J[b, i, j] = dh'_{b,i}/dh_{b,j} ... (each example's new state depends on its own old state only)': the tanh derivative is averaged over the batch, right only for a batch of one (the visible by-hand case).")

W("shape_p5_reversed_product_order", "shape", {"gradient_norms": BASE["gradient_norms"].replace("P = P @ J", "P = J @ P")},
  "'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}': new Jacobians multiplied on the left gives J_{T-k}...J_{T-1}, the same only when D_h = 1 (the visible case) or when the matrices commute.")

W("shape_p5_column_scaled_jacobian", "shape", {"gradient_norms": BASE["gradient_norms"].replace(
    'J = (1 - hs[s] * hs[s])[:, :, None] * p["W_hh"]', 'J = p["W_hh"] * (1 - hs[s] * hs[s])[:, None, :]')},
  "'J_s = dh_s/dh_{s-1}': the tanh derivative scales rows (diag(1-h_s^2) W_hh); scaling columns (W_hh diag(1-h_s^2)) agrees only for D_h = 1, the visible case.")

W("shape_p6_context_from_first_weights", "shape", {"additive": BASE["additive"].replace(
    'ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(dim=1)',
    'ctx = torch.matmul(a, h)[:, 0]   # (B, S) @ (B, S, D_k)')},
  "'context_t = sum_j alpha_{t,j} h_j' per example: (B,S) @ (B,S,D_k) broadcasts to (B,B,D_k), and [:, 0] uses example 0's weights for every example; right for a batch of one (the visible value case).")

W("shape_p4_h0_width_from_input", "shape", {"rnn_unroll": BASE["rnn_unroll"].replace(
    'D = p["W_hh"].shape[0]', 'D = p["b_ih"].shape[0] if h0 is None else h0.shape[-1]').replace(
    "h = h0 if h0 is not None else x.new_zeros(B, D)", "h = h0 if h0 is not None else x.new_zeros(len(x), D)").replace(
    "outs[t] = torch.where(run, h_new, torch.zeros_like(h_new))", "outs[t] = h_new * run[:len(h_new)].to(x.dtype)").replace(
    "run = (t < L)[:, None]", "run = (t < L)[:, None]")},
  "placeholder")
SUBMISSIONS.pop()  # dropped: not wrong

# ---------------- aliasing / in-place ----------------
W("alias_p1_leak_data_clamp", "alias", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    leak.data.clamp_(0, 1)   # rates are in [0, 1]; .data so autograd does not complain
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    return torch.diag_embed((1 - leak).expand(B, D)) + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
'''}, "'do not write into leak, not even the values it already holds (a leak.clamp_(0, 1) of rates in [0, 1])': .data.clamp_ writes into leak's storage behind autograd's version counter.")

W("alias_p1_inplace_tanh_derivative", "alias", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    d = t.mul_(t).neg_().add_(1)        # 1 - tanh^2, computed in place to save memory
    B, D = h.shape
    return torch.diag_embed((1 - leak).expand(B, D)) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "'gradients must flow through J ... the hidden tests compare its gradients': tanh's backward needs its output, which mul_ overwrote, so backward raises.")

W("alias_p4_freeze_state_in_h0", "alias", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.long()
    outputs = x.new_zeros(B, T, D)
    for t in range(T - 1, -1, -1):
        run = t < L
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outputs[run, t] = h_new[run]
        h = h.clone() if t == T - 1 and h0 is None else h
        h[run] = h_new[run]                 # frozen states keep their value
    return outputs, h
'''}, "'Your functions must not change the tensors they are given': the state is updated in place, and with h0 given the first update writes into the caller's h0.")

W("alias_p6_coverage_inplace", "alias", {"additive": BASE["additive"].replace("cov = cov + a", "cov += a")},
  "'Gradients must flow through states and weights ... the hidden tests compare their gradients': cov is saved by the multiplication with w_c, and += overwrites it, so backward raises.")

W("alias_p6_zero_padding_states_inplace", "alias", {"additive": BASE["additive"].replace(
    'keys = h @ p["W_k"].T                     # (B, S, A)',
    'h.masked_fill_(~allowed[:, :, None], 0)   # clean the padding the encoder left\n    keys = h @ p["W_k"].T')},
  "'Your functions must not change the tensors they are given': the encoder states at padding positions are zeroed in the caller's h.")

# ---------------- early exit / special case ----------------
W("early_p1_elman_fast_path", "early", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    if bool((leak == 1).all()):        # ordinary Elman cell: no leak term at all
        return (1 - t * t)[:, :, None] * p["W_hh"]
    return torch.diag_embed((1 - leak).expand(B, D)) + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
'''}, "'the hidden tests compare its gradients with respect to every input (x, h, each tensor of p and leak) ... also where every rate is 0 or 1': the fast path drops leak from the graph.")

W("early_p4_single_step_ignores_lengths", "early", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    if T == 1:   # one step: nothing to reverse
        h1 = torch.tanh(x[:, 0] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        return h1[:, None], h1
''' + BASE["rnn_unroll"].split("h = h0 if h0 is not None else x.new_zeros(B, D)\n",1)[1]}, "'zeros at the padding positions ... (for a sequence of length 0, the start state)': with T = 1 a sequence of length 0 still reads its padding.")

W("early_p4_equal_lengths_shortcut", "early", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    if B > 0 and bool((lengths == lengths[0]).all()):   # no ragged batch: a plain reverse loop
        Lmax = int(lengths[0])
        outs = [None] * Lmax
        for t in range(Lmax - 1, -1, -1):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            outs[t] = h
        out = torch.stack(outs, 1) if outs else x.new_zeros(B, 0, D)
        return torch.cat([out, x.new_zeros(B, T - Lmax, D)], 1), h
''' + BASE["rnn_unroll"].split("h = h0 if h0 is not None else x.new_zeros(B, D)\n",1)[1]}, "'(for a sequence of length 0, the start state)' and 'the results ... belong to the caller': with every length 0 the shortcut returns h0 itself as first (shares memory with an input).")

W("early_p5_single_step_float32", "early", {"gradient_norms": BASE["gradient_norms"].replace(
    "    B, T, _ = x.shape\n", "    B, T, _ = x.shape\n    if T == 1:\n        return torch.tensor([math.sqrt(p['W_hh'].shape[0])])\n", 1)},
  "'The result has the dtype of x': the T = 1 fast path returns float32 for float64 and bfloat16 inputs.")

W("early_p6_unmasked_when_first_row_full", "early", {"additive": BASE["additive"].replace(
    'e = e.masked_fill(~allowed, float("-inf"))', 'if not bool(allowed[0].all()):   # no padding: skip the mask\n            e = e.masked_fill(~allowed, float("-inf"))').replace(
    "ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(dim=1)", "ctx = (a[:, :, None] * h).sum(dim=1)")},
  "'padding positions get weight 0': whether to mask is decided from row 0 for the whole batch; a padded row after a full row 0 attends to its padding.")

# ---------------- library defaults ----------------
W("lib_p5_matrix_norm_ord2", "library", {"gradient_norms": BASE["gradient_norms"].replace(
    "torch.linalg.matrix_norm(P.double())", "torch.linalg.matrix_norm(P.double(), ord=2)")},
  "'the Frobenius norm of dh_{T-1}/dh_{T-1-k}': ord=2 in matrix_norm is the spectral norm (the largest singular value), equal to Frobenius only for D_h = 1 (the visible case).")

W("lib_p6_softmax_dtype_float32", "library", {"additive": BASE["additive"].replace(
    "a = torch.softmax(e, dim=-1)", "a = torch.softmax(e, dim=-1, dtype=torch.float32).to(e.dtype)   # stable softmax")},
  "'in the dtype of x' / float64 compared to 1e-10: softmax's dtype= argument computes float64 weights in float32.")

W("lib_p1_jacobian_without_create_graph", "library", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return (1 - leak) * hh + leak * t
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, vectorize=True)   # (B, D, B, D)
    return J.diagonal(dim1=0, dim2=2).permute(2, 0, 1)
'''}, "'gradients must flow through J ... torch.autograd.functional.jacobian needs create_graph=True for this': its default create_graph=False returns a J with no graph.")

W("lib_p1_eye_default_dtype", "library", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    keep = torch.eye(D) * (1 - leak)                        # diag(1 - leak)
    return keep + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
'''}, "'Return it in the dtype of x': torch.eye's default float32 promotes a bfloat16 result to float32.")

W("lib_p6_coverage_zeros_default_dtype", "library", {"additive": BASE["additive"].replace(
    "cov = h.new_zeros(B, S)", "cov = torch.zeros(B, S)")},
  "'in the dtype of x': torch.zeros is float32 by default; with bfloat16 inputs the scores become float32 (and the matmul with W_ih fails).")

# ---------------- correct ----------------
C("ok_p1_autograd_jacobian_create_graph", "library", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * t).sum(dim=0)   # examples are independent: sum over the batch
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True, vectorize=True)   # (D, B, D)
    return J.permute(1, 0, 2)
'''}, "autograd with create_graph=True, summing over the batch since examples do not interact.")

C("ok_p1_einsum_explicit", "shape", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.einsum("bi,hi->bh", x, p["W_ih"]) + p["b_ih"] + torch.einsum("bj,hj->bh", h, p["W_hh"]) + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    eye = torch.eye(h.shape[1], dtype=x.dtype, device=x.device)
    return torch.einsum("i,ij->ij", 1 - leak, eye)[None] + torch.einsum("bi,ij->bij", leak * d, p["W_hh"])
'''}, "einsum form of diag(1-leak) + diag(leak (1-t^2)) W_hh.")

C("ok_p2_expressions", "library", {"costs": '''
n, d = 4096, 512
attention_over_lstm = float((4 * n * d * d + 2 * n * n * d) / (4 * 2 * n * d * d))
d = 768
equal_cost_length = 2 * d   # 4 n d^2 + 2 n^2 d = 8 n d^2  <=>  n = 2 d
'''}, "2.5 and 1536 worked out.")

C("ok_p4_buffer_and_early_exit", "early", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    if B == 0:
        return x.new_zeros(0, T, D), x.new_zeros(0, D)
    h = h0.clone() if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(device=x.device, dtype=torch.int64)
    outputs = x.new_zeros(B, T, D)
    for t in range(int(L.max()) - 1, -1, -1):
        run = (L > t)[:, None]
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(run, h_new, h)
        outputs[:, t] = torch.where(run, h_new, 0.0)
    return outputs, h if int(L.max()) > 0 else h.clone()
'''}, "preallocated own output buffer, loop from the longest length, fast path for an empty batch (new tensors).")

C("ok_p4_gather_reverse_forward", "shape", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, Din = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(device=x.device, dtype=torch.long)
    pos = torch.arange(T, device=x.device)
    idx = L[:, None] - 1 - pos[None, :]                     # reversed position of step i
    valid = idx >= 0
    idx = idx.clamp(min=0)
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, Din))
    h = h0 if h0 is not None else x.new_zeros(B, D)
    outs = []
    for i in range(T):
        run = valid[:, i, None]
        h_new = torch.tanh(xr[:, i] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(run, h_new, h)
        outs.append(torch.where(run, h_new, torch.zeros_like(h_new)))
    rev = torch.stack(outs, 1)                              # rev[b, i] = state after x[b, L-1-i]
    out = torch.gather(rev, 1, idx[:, :, None].expand(B, T, D))
    return torch.where(valid[:, :, None], out, torch.zeros_like(out)), h
'''}, "gathers each sequence reversed, runs forward with the lesson's mask, gathers back (the index map is its own inverse).")

C("ok_p5_running_scale_einsum", "library", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    with torch.no_grad():
        xd = x.double(); W = {k: v.double() for k, v in p.items()}
        h = xd.new_zeros(B, D); hs = []
        for t in range(T):
            h = torch.tanh(xd[:, t] @ W["W_ih"].T + W["b_ih"] + h @ W["W_hh"].T + W["b_hh"])
            hs.append(h)
        P = torch.eye(D, dtype=torch.float64).repeat(B, 1, 1)
        log_s = xd.new_zeros(B)
        out = [xd.new_tensor(math.sqrt(D))]
        for k in range(1, T):
            P = torch.einsum("bij,bjk->bik", P, (1 - hs[T - k] ** 2)[:, :, None] * W["W_hh"])
            m = P.abs().flatten(1).max(dim=1).values
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]; log_s = log_s + m.log()
            out.append((torch.linalg.norm(P, dim=(-2, -1)) * log_s.exp()).sum() / B)
        return torch.stack(out).to(x.dtype)
'''}, "float64 with running renormalisation, no_grad (the part asks for no gradient), einsum, sum/B.")

C("ok_p6_normalize_where_buffers", "library", {"additive": '''
import torch.nn.functional as F
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    states = x.new_zeros(B, T, s0.shape[1]); weights = x.new_zeros(B, T, S)
    s = s0
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bh,ah->ba", s, p["W_q"])[:, None] + keys + cov[..., None] * p["w_c"]), p["v"])
        z = torch.where(allowed, e, float("-inf"))
        ez = torch.exp(z - z.amax(dim=-1, keepdim=True))
        a = F.normalize(ez, p=1.0, dim=-1)
        ctx = torch.bmm(a[:, None, :], torch.where(allowed[..., None], h, 0.0)).squeeze(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states[:, t] = s; weights[:, t] = a
    return states, weights
'''}, "where-masking, exp minus the allowed max, F.normalize(p=1) (its eps never acts: the sum is at least 1), own buffers.")

C("ok_p1_early_exit_correct", "early", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    J = (leak * (1 - t * t)).unsqueeze(-1) * p["W_hh"]
    J = J + torch.diag_embed((1 - leak).expand(B, D))
    return J
'''}, "same formula, summed in the other order.")

C("ok_p3_mc", "library", {"mc": "answer_parallel = 'B'.lower()\n"}, "b")

# ---------------- hostile ----------------
H("hostile_p3_str_subclass", {"mc": '''
class Answer(str):
    def __eq__(self, other): return True
    def __hash__(self): return 0
answer_parallel = Answer("a")
'''}, "a str subclass equal to everything")
H("hostile_p4_patch_assert_close", {"rnn_unroll": '''
torch.testing.assert_close = lambda *a, **k: None
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    return x.new_zeros(B, T, D), x.new_zeros(B, D)
'''}, "patches torch.testing.assert_close and returns zeros")

# ---------------- second wave (written before any grading output was read beyond the summary lines) ----------------
W("early_p4_all_empty_returns_h0", "early", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "    L = lengths.to(device=x.device, dtype=torch.long)\n",
    "    L = lengths.to(device=x.device, dtype=torch.long)\n    if not bool((L > 0).any()):   # nothing to read: zeros out, start state back\n        return x.new_zeros(B, T, D), h\n", 1)},
  "'Every tensor they return belongs to the caller ... sharing memory with no input': with every length 0 (or an empty batch) first is the caller's h0 object itself.")

W("early_p5_width_one_no_abs", "early", {"gradient_norms": BASE["gradient_norms"].replace(
    "    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)\n",
    "    if D == 1:   # scalars: the product is a cumulative product of the slopes\n"
    "        slopes = torch.stack([(1 - hs[s] ** 2)[:, 0] * p['W_hh'][0, 0] for s in range(T - 1, 0, -1)], 1) if T > 1 else x.new_zeros(B, 0)\n"
    "        prods = torch.cat([x.new_ones(B, 1), torch.cumprod(slopes, dim=1)], 1)\n"
    "        return prods.mean(0)\n"
    "    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)\n", 1)},
  "'the Frobenius norm of dh_{T-1}/dh_{T-1-k}': the D_h = 1 fast path returns the signed product, negative where W_hh < 0 (the visible W_hh is 0.5).")

W("early_p6_no_coverage_one_softmax", "early", {"additive": BASE["additive"].replace(
    "    for t in range(T):\n",
    "    if bool((p['w_c'] == 0).all()):   # no coverage term: the attention does not change from step to step\n"
    "        e = torch.tanh((s0 @ p['W_q'].T)[:, None, :] + keys) @ p['v']\n"
    "        a = torch.softmax(e.masked_fill(~allowed, float('-inf')), dim=-1)\n"
    "        ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(dim=1)\n"
    "        for t in range(T):\n"
    "            s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p['W_ih'].T + p['b_ih'] + s @ p['W_hh'].T + p['b_hh'])\n"
    "            states.append(s); weights.append(a)\n"
    "        return torch.stack(states, 1), torch.stack(weights, 1)\n"
    "    for t in range(T):\n", 1)},
  "'e_{t,j} = v^T tanh(W_q s_{t-1} + ...)': with w_c = 0 the query s_{t-1} still changes every step; the shortcut keeps step 0's weights.")

W("lib_p5_global_max_scaling", "library", {"gradient_norms": BASE["gradient_norms"].replace(
    "m = P.abs().amax(dim=(-2, -1))", "m = P.abs().max().expand(B)")},
  "'scale the product first (by its largest entry, say)', per example: Tensor.max() without dim scales every example by the batch's largest entry, so an example far smaller than the others still underflows in its squares.")

W("alias_p4_empty_batch_returns_h0", "alias", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "    h = h0 if h0 is not None else x.new_zeros(B, D)\n",
    "    h = h0 if h0 is not None else x.new_zeros(B, D)\n    if B == 0:\n        return x.new_zeros(0, T, D), h\n", 1)},
  "'return new tensors on every call, sharing memory with no input': for an empty batch first is h0 itself.")

C("ok_p6_softmax_implicit_dim", "library", {"additive": BASE["additive"].replace(
    "a = torch.softmax(e, dim=-1)", "a = torch.nn.functional.softmax(e)   # (B, S): the implicit dim is 1")},
  "F.softmax without dim: for 2-D (B, S) scores it picks dim 1, the source positions (the scores here are always 2-D).")

C("ok_p4_all_empty_clone", "early", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "    L = lengths.to(device=x.device, dtype=torch.long)\n",
    "    L = lengths.to(device=x.device, dtype=torch.long)\n    if not bool((L > 0).any()):\n        return x.new_zeros(B, T, D), h.clone()\n", 1)},
  "empty-sequence fast path that returns a copy of the start state.")
