# Red-team round 6, chapter 01-rnn-motivation: submissions written blind (student notebook + lesson only).
SUBMISSIONS = [
# ---------------- Part 1: rnn_step ----------------
{"name": "rnn_step_hh_without_transpose", "correct": False,
 "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"] + p["b_hh"])
    return (1 - leak) * h + leak * new
'''},
 "why": "Uses h @ W_hh instead of h @ W_hh.T; the visible W_hh is symmetric. Breaks 'A weight W of shape (out, in) is applied as x @ W.T' and the formula h W_hh^T."},
{"name": "rnn_step_caches_weights_by_id", "correct": False,
 "cells": {"rnn_step": '''
WEIGHT_CACHE = {}

def rnn_step(x, h, p, leak):
    # transposing and adding the biases once per parameter dict saves work inside a loop
    key = id(p)
    if key not in WEIGHT_CACHE:
        WEIGHT_CACHE[key] = (p["W_ih"].T.contiguous(), p["W_hh"].T.contiguous(), p["b_ih"] + p["b_hh"])
    w_ih_t, w_hh_t, b = WEIGHT_CACHE[key]
    new = torch.tanh(x @ w_ih_t + h @ w_hh_t + b)
    return (1 - leak) * h + leak * new
'''},
 "why": "State kept between calls: a new dict p that reuses a freed dict's id (or a dict whose tensors changed) gets the old weights. Breaks 'Write rnn_step(x, h, p, leak), with p a dict like those of make_rnn_params' (the step is a function of its arguments)."},
{"name": "rnn_step_drops_b_ih", "correct": False,
 "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + h @ p["W_hh"].T + p["b_hh"])
    return (1 - leak) * h + leak * new
'''},
 "why": "Leaves out b_ih (zero in the visible test). Breaks the formula tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."},
# ---------------- Part 2: costs ----------------
{"name": "costs_three_projections", "correct": False,
 "cells": {"costs": '''
n, d = 4096, 512
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2.5 * 768
'''},
 "why": "Counts Q, K, V but not the output projection. Breaks 'a self-attention layer computes four projections (queries, keys, values and the output)'."},
{"name": "costs_one_n2d_product", "correct": False,
 "cells": {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + n * n * d) / (8 * n * d * d)
equal_cost_length = 4 * 768
'''},
 "why": "Counts n^2 d once (only QK^T). Breaks 'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds'."},
# ---------------- Part 3: mc ----------------
{"name": "mc_both_parallel", "correct": False,
 "cells": {"mc": '''
answer_parallel = "c"
'''},
 "why": "The Elman map h -> tanh(h W^T + x U^T) does not compose into a map of the same form, so it has no associative scan. Breaks 'Hint: what do you get when you compose two maps h -> a . h + c?'."},
# ---------------- Part 4: rnn_unroll_reverse ----------------
{"name": "unroll_first_taken_from_outputs", "correct": False,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    lengths = lengths.to(x.device).long()
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        running = (t < lengths)[:, None]
        h = torch.where(running, h_new, h)
        outputs[t] = torch.where(running, h_new, torch.zeros_like(h_new))
    outputs = torch.stack(outputs, dim=1)
    return outputs, outputs[:, 0]  # the last state read is the one at t = 0
'''},
 "why": "first = outputs[:, 0] is zeros for a sequence of length 0, not h0 (equal only when h0 is None). Breaks 'first (B, D_h): ... (for a sequence of length 0, the start state)'."},
{"name": "unroll_sorted_batch_first_not_unsorted", "correct": False,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    # like pack_padded_sequence: sort the batch by length, longest first, then undo the sort
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.to(x.device).long()
    order = torch.argsort(lengths, descending=True, stable=True)
    inverse = torch.argsort(order)
    xs, ls = x[order], lengths[order]
    h = h0[order] if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        h_new = torch.tanh(xs[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        running = (t < ls)[:, None]
        h = torch.where(running, h_new, h)
        outputs[t] = torch.where(running, h_new, torch.zeros_like(h_new))
    return torch.stack(outputs, dim=1)[inverse], h
'''},
 "why": "Unsorts outputs but returns first in sorted order: right only when lengths are already sorted (the visible [5, 2]). Row b of first then depends on its batch neighbours. Breaks 'first (B, D_h): the state after reading x[b, 0]'."},
{"name": "unroll_rnn_step_with_float32_ones", "correct": False,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    ones = torch.ones(D_h)
    lengths = lengths.to(x.device).long()
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        h_new = rnn_step(x[:, t], h, p, ones)
        running = (t < lengths)[:, None]
        h = torch.where(running, h_new, h)
        outputs[t] = torch.where(running, h_new, torch.zeros_like(h_new))
    return torch.stack(outputs, dim=1), h
'''},
 "why": "CLASSIC (dtype): a float32 torch.ones(D_h) as the rates turns bfloat16 steps into float32. Breaks 'Everything has the dtype of x' and the intro's warning about a torch.ones(n) in the arithmetic."},
{"name": "unroll_writes_into_h0", "correct": False,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    lengths = lengths.to(x.device).long()
    outputs = torch.zeros(B, T, D_h, dtype=x.dtype, device=x.device)
    for t in range(T - 1, -1, -1):
        running = t < lengths
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h[running] = h_new[running]          # update the running rows in place
        outputs[running, t] = h_new[running]
    return outputs, h
'''},
 "why": "CLASSIC (in-place): writes the states into the caller's h0. Breaks 'Your functions must not change the tensors they are given'."},
{"name": "unroll_lengths_minus_one_wraps_uint8", "correct": False,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    last = lengths.to(x.device) - 1           # index of each sequence's last real token
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        running = (t <= last)[:, None]
        h = torch.where(running, h_new, h)
        outputs[t] = torch.where(running, h_new, torch.zeros_like(h_new))
    return torch.stack(outputs, dim=1), h
'''},
 "why": "Integer overflow: with uint8 lengths, lengths - 1 for a length-0 sequence wraps to 255, so it reads all T columns. Breaks 'lengths is an integer tensor (B,) with 0 <= lengths[b] <= T' (any integer dtype, length 0 included)."},
# ---------------- Part 5: jacobian_norms ----------------
{"name": "jacnorm_norm_of_the_mean", "correct": False,
 "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    prod = torch.eye(D_h, dtype=x.dtype, device=x.device).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(prod.mean(0))]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        prod = prod @ J
        norms.append(torch.linalg.matrix_norm(prod.mean(0)))
    return torch.stack(norms)
'''},
 "why": "Averages the Jacobians over the batch, then takes the norm. Breaks 'computed for each example and then averaged over the batch (norm first, then mean)'."},
{"name": "jacnorm_previous_state_in_J", "correct": False,
 "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = [h]
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    # states[s + 1] is h_s; J_s uses the state it is applied to, h_{s-1} = states[s]
    prod = torch.eye(D_h, dtype=x.dtype, device=x.device).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(prod).mean()]
    for k in range(1, T):
        s = T - k
        J = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]
        prod = prod @ J
        norms.append(torch.linalg.matrix_norm(prod).mean())
    return torch.stack(norms)
'''},
 "why": "Uses tanh' at h_{s-1} instead of h_s (all states are 0 in the visible case). Breaks 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)'."},
{"name": "jacnorm_product_in_reverse_order", "correct": False,
 "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    prod = torch.eye(D_h, dtype=x.dtype, device=x.device).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(prod).mean()]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        prod = J @ prod
        norms.append(torch.linalg.matrix_norm(prod).mean())
    return torch.stack(norms)
'''},
 "why": "Multiplies the Jacobians in the reverse order (J_{T-k} ... J_{T-1}); same in 1x1. Breaks the fixed order dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}."},
{"name": "jacnorm_spectral_norm", "correct": False,
 "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    prod = torch.eye(D_h, dtype=x.dtype, device=x.device).expand(B, D_h, D_h)
    norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        prod = prod @ J
        norms.append(torch.linalg.matrix_norm(prod, ord=2).mean())
    return torch.stack(norms)
'''},
 "why": "Spectral norm (largest singular value) instead of the Frobenius norm; equal for 1x1. Breaks 'entry k is the Frobenius norm of dh_{T-1}/dh_{T-1-k}'."},
# ---------------- Part 6: coverage_decoder ----------------
{"name": "coverage_query_hoisted_from_s0", "correct": False,
 "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T                 # the same at every step: computed once
    query = (s0 @ p["W_q"].T)[:, None, :]  # computed once too
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh(query + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
 "why": "Scores every step against s_{-1} (the visible case has W_q = 0). Breaks 'the query is the decoder's previous state' and e_{t,j} = v^T tanh(W_q s_{t-1} + ...)."},
{"name": "coverage_mean_instead_of_sum", "correct": False,
 "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    total = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    s = s0
    states, weights = [], []
    for t in range(T):
        cov = total / max(t, 1)            # average attention received so far
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        total = total + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
 "why": "Coverage is the mean of the earlier weights, equal to the sum only for t <= 1 (the visible case has T = 2). Breaks c_{t+1,j} = c_{t,j} + alpha_{t,j}."},
{"name": "coverage_recurrence_from_s0", "correct": False,
 "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    prev = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((prev @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        prev = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s0 @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(prev); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
 "why": "The recurrent term uses s_{-1} at every step (W_hh = 0 in the visible case). Breaks s_t = tanh(... + s_{t-1} W_hh^T + b_hh)."},
# ---------------- hostile ----------------
{"name": "hostile_patch_assert_close", "correct": False,
 "cells": {"gradient_norms": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None

def jacobian_norms(x, p):
    return torch.ones(x.shape[1], dtype=x.dtype)
'''},
 "why": "HOSTILE: disables torch.testing.assert_close so that a constant answer passes."},
{"name": "hostile_str_that_equals_everything", "correct": False,
 "cells": {"mc": '''
class Answer(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__

answer_parallel = Answer("a")
'''},
 "why": "HOSTILE: a str subclass that compares equal to every answer."},
{"name": "hostile_borrow_grader_reference", "correct": False,
 "cells": {"rnn_unroll": '''
import sys

def rnn_unroll_reverse(x, lengths, p, h0=None):
    # use whatever reference the grader keeps around, in globals or in the calling frames
    frame = sys._getframe(1)
    spaces = [globals()]
    while frame is not None:
        spaces.append(frame.f_locals)
        spaces.append(frame.f_globals)
        frame = frame.f_back
    for space in spaces:
        for name, value in list(space.items()):
            if callable(value) and value is not rnn_unroll_reverse and "unroll" in name.lower():
                try:
                    return value(x, lengths, p, h0)
                except Exception:
                    pass
            if isinstance(value, dict):
                for key, f in list(value.items()):
                    if callable(f) and "unroll" in str(key).lower() and f is not rnn_unroll_reverse:
                        try:
                            return f(x, lengths, p, h0)
                        except Exception:
                            pass
    # fallback: ignores h0
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype)
    lengths = lengths.long()
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        running = (t < lengths)[:, None]
        h = torch.where(running, h_new, h)
        outputs[t] = torch.where(running, h_new, torch.zeros_like(h_new))
    return torch.stack(outputs, dim=1), h
'''},
 "why": "HOSTILE: looks for the grader's reference implementation in globals and the calling frames and returns its result; its own fallback ignores h0."},
# ---------------- correct, written differently ----------------
{"name": "ok_rnn_step_lerp", "correct": True,
 "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    pre = torch.addmm(p["b_ih"] + p["b_hh"], x, p["W_ih"].t())
    pre = torch.addmm(pre, h, p["W_hh"].t())
    return torch.lerp(h, torch.tanh(pre), leak)
'''},
 "why": "Correct: addmm for the two products, torch.lerp for the leaky update."},
{"name": "ok_unroll_per_sequence_loop", "correct": True,
 "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    outputs = x.new_zeros(B, T, D_h)
    firsts = []
    for b in range(B):
        h = (h0[b] if h0 is not None else x.new_zeros(D_h))[None]
        for t in reversed(range(int(lengths[b]))):
            h = rnn_step(x[b, t][None], h, p, x.new_ones(D_h))
            outputs[b, t] = h[0]
        firsts.append(h[0])
    return outputs, torch.stack(firsts)
'''},
 "why": "Correct: one sequence at a time, calling rnn_step with rates of the dtype of x."},
{"name": "ok_jacnorm_vmap_jacrev", "correct": True,
 "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]

    def step(x_t, h):
        return torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])

    h = x.new_zeros(B, D_h)
    jacobians = []
    for t in range(T):
        jacobians.append(torch.func.vmap(torch.func.jacrev(step, argnums=1))(x[:, t], h))  # (B, D_h, D_h)
        h = step(x[:, t], h)
    result = [x.new_full((B,), math.sqrt(D_h)).mean()]
    prod = None
    for k in range(1, T):
        J = jacobians[T - k]
        prod = J if prod is None else torch.bmm(prod, J)
        result.append(prod.pow(2).sum(dim=(1, 2)).sqrt().mean())
    return torch.stack(result)
'''},
 "why": "Correct: the step Jacobians come from torch.func (vmap of jacrev), chained by bmm; Frobenius norm written out."},
{"name": "ok_coverage_with_rnn_step_and_manual_softmax", "correct": True,
 "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    coverage = torch.zeros_like(h[..., 0])
    ones = torch.ones_like(s0[0])
    s, states, weights = s0, [], []
    for t in range(T):
        query = torch.einsum("bh,ah->ba", s, p["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(query[:, None] + keys + coverage[..., None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        e = torch.exp(e - e.amax(dim=-1, keepdim=True))
        alpha = e / e.sum(dim=-1, keepdim=True)
        context = torch.einsum("bs,bsk->bk", alpha, h)
        s = rnn_step(torch.cat([x[:, t], context], dim=-1), s, p, ones)
        coverage = coverage + alpha
        states.append(s)
        weights.append(alpha)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''},
 "why": "Correct: einsum throughout, softmax written out with the row maximum, the state update through rnn_step with rates of ones in the dtype of the inputs."},
]
