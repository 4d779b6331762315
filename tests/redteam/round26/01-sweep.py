# Round 26 class sweep, chapter 01 (classes R, S, T, U of tests/redteam/round26/BRIEF-SWEEP.md): the model answer of
# each part with one class's mistake put in; "correct": True only where the text allows the answer.
P1_R_SQUEEZE = '''
def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]).squeeze()
    candidate = candidate if candidate.dim() == 2 else candidate.unsqueeze(0)  # a batch of one put back
    slope = leak * (1 - candidate ** 2)
    keep = torch.diag(1 - leak)
    return slope[:, :, None] * p["W_hh"] + keep
'''
P1_R_X_SQUEEZE = '''
def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x.squeeze() @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    slope = leak * (1 - candidate ** 2)
    keep = torch.diag(1 - leak)
    return slope[:, :, None] * p["W_hh"] + keep
'''
P1_T_AS_STRIDED = '''
def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    rates = torch.as_strided(leak, (x.shape[0], leak.shape[0]), (0, leak.stride(0)), 0)  # one row per example, no copy
    slope = rates * (1 - candidate ** 2)
    keep = torch.diag(1 - leak)
    return slope[:, :, None] * p["W_hh"] + keep
'''
P1_U_LOOP = '''
def leaky_step_jacobian(x, h, p, leak):
    rows = []
    with torch.enable_grad():
        for b in range(x.shape[0]):
            def new_state(hb, b=b):
                return (1 - leak) * hb + leak * torch.tanh(x[b] @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
            rows.append(torch.autograd.functional.jacobian(new_state, h[b], create_graph=True))
    return torch.stack(rows)
'''
P4_R_XT_SQUEEZE = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        x_t = x[:, step].squeeze()  # (B, D_in)
        h_new = torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''
P4_R_HNEW_SQUEEZE = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]).squeeze()
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''
P4_R_OUT_SQUEEZE = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    out = torch.stack(outputs, dim=1).squeeze()
    if out.dim() == 2:
        out = out.unsqueeze(0)  # a batch of one
    elif out.dim() == 1:
        out = out.reshape(1, 1, -1)
    return out.clone(), h
'''
P4_S_VIEW = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, d_in = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    projected = (x.view(b * t, d_in) @ p["W_ih"].T + p["b_ih"]).view(b, t, -1)  # every input projection at once
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        h_new = torch.tanh(projected[:, step] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''
P4_T_AS_STRIDED = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, d_in = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        x_t = torch.as_strided(x, (b, d_in), (x.stride(0), x.stride(2)), step * x.stride(1))  # column step, no copy
        h_new = torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''
P4_U_LOOP = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    rows, firsts = [], []
    for i in range(b):
        h = torch.zeros(d_h, dtype=x.dtype) if h0 is None else h0[i]
        outs = [torch.zeros(d_h, dtype=x.dtype) for _ in range(t)]
        for step in range(int(lengths[i]) - 1, -1, -1):
            h = torch.tanh(x[i, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            outs[step] = h
        rows.append(torch.stack(outs))
        firsts.append(h.clone())
    if b == 0:
        return torch.zeros(0, t, d_h, dtype=x.dtype), torch.zeros(0, d_h, dtype=x.dtype)
    return torch.stack(rows), torch.stack(firsts)
'''
P5_R_XT_SQUEEZE = '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(x[:, step].squeeze() @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        product = product @ ((1 - states[s] ** 2)[:, :, None] * p["W_hh"])
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
P5_R_SLOPE_SQUEEZE = '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        slope = (1 - states[s] ** 2).squeeze()
        slope = slope if slope.dim() == 2 else slope.reshape(1, -1)  # a batch of one
        product = product @ (slope[:, :, None] * p["W_hh"])
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
P5_S_VIEW = '''
def jacobian_norms(x, p):
    b, t, d_in = x.shape
    d_h = p["W_hh"].shape[0]
    projected = (x.view(b * t, d_in) @ p["W_ih"].T).view(b, t, d_h)
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(projected[:, step] + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        product = product @ ((1 - states[s] ** 2)[:, :, None] * p["W_hh"])
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
P5_T_AS_STRIDED = '''
def jacobian_norms(x, p):
    b, t, d_in = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        x_t = torch.as_strided(x, (b, d_in), (x.stride(0), x.stride(2)), step * x.stride(1))
        h = torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        product = product @ ((1 - states[s] ** 2)[:, :, None] * p["W_hh"])
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
P5_U_LOOP = '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    total = [torch.zeros((), dtype=x.dtype) for _ in range(t)]
    for i in range(b):
        h = torch.zeros(d_h, dtype=x.dtype)
        states = []
        for step in range(t):
            h = torch.tanh(x[i, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        product = torch.eye(d_h, dtype=x.dtype)
        for k in range(t):
            if k > 0:
                product = product @ ((1 - states[t - k] ** 2)[:, None] * p["W_hh"])
            top = product.abs().max()
            scaled = product / top if top > 0 else product
            total[k] = total[k] + torch.linalg.matrix_norm(scaled) * (top if top > 0 else 1)
    return torch.stack(total) / b
'''
P6_BODY = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, d_in = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))
        alpha = torch.softmax(scores, dim=-1)
        context = (alpha[:, :, None] * h).sum(dim=1)
        x_t = x[:, step]
        step_input = torch.cat([x_t, context], dim=-1)
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''
P6_R_QUERY_SQUEEZE = P6_BODY.replace('        query = state @ p["W_q"].T\n', '''        query = (state @ p["W_q"].T).squeeze()
        query = query if query.dim() == 2 else query.reshape(1, -1)  # a batch of one
''')
P6_R_CONTEXT_SQUEEZE = P6_BODY.replace('        context = (alpha[:, :, None] * h).sum(dim=1)\n', '''        context = (alpha[:, :, None] * h).sum(dim=1).squeeze()
        context = context if context.dim() == 2 else context.reshape(1, -1)  # a batch of one
''')
P6_R_ALPHA_SQUEEZE = P6_BODY.replace('        context = (alpha[:, :, None] * h).sum(dim=1)\n', '''        a = alpha.squeeze()
        context = (a.unsqueeze(-1) * h).sum(dim=-2)
''')
P6_S_VIEW = P6_BODY.replace('    keys = h @ p["W_k"].T\n', '    keys = (h.view(-1, h.shape[-1]) @ p["W_k"].T).view(b, h.shape[1], -1)\n')
P6_T_AS_STRIDED = P6_BODY.replace('        x_t = x[:, step]\n',
                                  '        x_t = torch.as_strided(x, (b, d_in), (x.stride(0), x.stride(2)), step * x.stride(1))\n')
P6_U_LOOP = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, d_in = x.shape
    all_states, all_weights = [], []
    for i in range(b):
        real = allowed[i]
        keys = h[i] @ p["W_k"].T
        coverage = torch.zeros(h.shape[1], dtype=x.dtype)
        state, states, weights = s0[i], [], []
        for step in range(t):
            scores = []
            for j in range(h.shape[1]):
                scores.append(torch.tanh(p["W_q"] @ state + keys[j] + p["w_c"] * coverage[j]) @ p["v"])
            scores = torch.stack(scores).masked_fill(~real, float("-inf"))
            alpha = torch.softmax(scores, dim=-1)
            context = alpha @ h[i]
            state = torch.tanh(torch.cat([x[i, step], context]) @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
            states.append(state)
            weights.append(alpha)
            coverage = coverage + alpha
        all_states.append(torch.stack(states))
        all_weights.append(torch.stack(weights))
    return torch.stack(all_states), torch.stack(all_weights)
'''
assert P6_R_QUERY_SQUEEZE != P6_BODY and P6_R_CONTEXT_SQUEEZE != P6_BODY and P6_R_ALPHA_SQUEEZE != P6_BODY
assert P6_S_VIEW != P6_BODY and P6_T_AS_STRIDED != P6_BODY

SUBMISSIONS = [
    {"name": "sw_p1_R_candidate_squeezed", "correct": False, "cells": {"rnn_step": P1_R_SQUEEZE},
     "why": "R: squeeze() drops D_h = 1 beside a batch of several, the batch put back as a row"},
    {"name": "sw_p1_R_x_squeezed", "correct": False, "cells": {"rnn_step": P1_R_X_SQUEEZE},
     "why": "R: x.squeeze() drops D_in = 1 beside a batch of several"},
    {"name": "sw_p1_T_as_strided_from_the_storage_start", "correct": False, "cells": {"rnn_step": P1_T_AS_STRIDED},
     "why": "T: leak broadcast with as_strided at offset 0: a leak that starts inside its storage reads the wrong rates"},
    {"name": "sw_p1_U_autograd_per_example", "correct": True, "cells": {"rnn_step": P1_U_LOOP},
     "why": "U: a loop over the batch with torch.autograd.functional.jacobian (create_graph=True), as the text allows"},
    {"name": "sw_p4_R_x_t_squeezed", "correct": False, "cells": {"rnn_unroll": P4_R_XT_SQUEEZE},
     "why": "R: x[:, step].squeeze() drops D_in = 1 beside a batch of several"},
    {"name": "sw_p4_R_new_state_squeezed", "correct": False, "cells": {"rnn_unroll": P4_R_HNEW_SQUEEZE},
     "why": "R: the new state squeezed: D_h = 1 beside a batch of several broadcasts to (B, B)"},
    {"name": "sw_p4_R_outputs_squeezed", "correct": False, "cells": {"rnn_unroll": P4_R_OUT_SQUEEZE},
     "why": "R: outputs squeezed and the batch put back first: T = 1 or D_h = 1 beside a batch of several"},
    {"name": "sw_p4_S_view_of_x", "correct": False, "cells": {"rnn_unroll": P4_S_VIEW},
     "why": "S: x.view(B * T, D_in): fails on a transposed x"},
    {"name": "sw_p4_T_column_at_an_offset_from_the_storage_start", "correct": False, "cells": {"rnn_unroll": P4_T_AS_STRIDED},
     "why": "T: x[:, step] as as_strided with offset step * stride(1), x.storage_offset() left out"},
    {"name": "sw_p4_U_loop_over_batch_and_steps", "correct": True, "cells": {"rnn_unroll": P4_U_LOOP},
     "why": "U: a Python loop over the batch and the steps (allowed: the text forbids no loop)"},
    {"name": "sw_p5_R_x_t_squeezed", "correct": False, "cells": {"gradient_norms": P5_R_XT_SQUEEZE},
     "why": "R: x[:, step].squeeze() drops D_in = 1 beside a batch of several"},
    {"name": "sw_p5_R_slope_squeezed", "correct": False, "cells": {"gradient_norms": P5_R_SLOPE_SQUEEZE},
     "why": "R: the tanh slope squeezed: D_h = 1 beside a batch of several read as one example"},
    {"name": "sw_p5_S_view_of_x", "correct": False, "cells": {"gradient_norms": P5_S_VIEW},
     "why": "S: x.view(B * T, D_in): fails on a transposed x"},
    {"name": "sw_p5_T_column_at_an_offset_from_the_storage_start", "correct": False, "cells": {"gradient_norms": P5_T_AS_STRIDED},
     "why": "T: x[:, step] as as_strided with offset step * stride(1), x.storage_offset() left out"},
    {"name": "sw_p5_U_loop_over_examples", "correct": True, "cells": {"gradient_norms": P5_U_LOOP},
     "why": "U: a loop over the examples and the steps, one chain per example (allowed)"},
    {"name": "sw_p6_R_query_squeezed", "correct": False, "cells": {"additive": P6_R_QUERY_SQUEEZE},
     "why": "R: the query squeezed: A = 1 beside a batch of several read as one example"},
    {"name": "sw_p6_R_context_squeezed", "correct": False, "cells": {"additive": P6_R_CONTEXT_SQUEEZE},
     "why": "R: the context squeezed: D_k = 1 beside a batch of several read as one example"},
    {"name": "sw_p6_R_alpha_squeezed", "correct": False, "cells": {"additive": P6_R_ALPHA_SQUEEZE},
     "why": "R: the weights squeezed: S = 1 beside a batch of several broadcast over the batch"},
    {"name": "sw_p6_S_view_of_h", "correct": False, "cells": {"additive": P6_S_VIEW},
     "why": "S: h.view(-1, D_k): fails on a transposed h"},
    {"name": "sw_p6_T_column_at_an_offset_from_the_storage_start", "correct": False, "cells": {"additive": P6_T_AS_STRIDED},
     "why": "T: x[:, step] as as_strided with offset step * stride(1), x.storage_offset() left out"},
    {"name": "sw_p6_U_loop_over_batch_steps_and_keys", "correct": True, "cells": {"additive": P6_U_LOOP},
     "why": "U: loops over the batch, the steps and the source positions (allowed)"},
]
