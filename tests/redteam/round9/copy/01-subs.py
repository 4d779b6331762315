SUBMISSIONS = [
{"name": "p1 rnn_step", "correct": True, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (1 - leak) * h + leak * new
'''}, "why": "copied from rnn.py RNNCell.forward (formula on the page); changes: 2 lines (params instead of nn.Linear, leaky mix)"},
{"name": "p2 costs (page formulas)", "correct": True, "cells": {"costs": '''
n, d = 4096, 512
attention_over_lstm = (n ** 2 * d) / (n * d ** 2)
equal_cost_length = 768
'''}, "why": "copied from index.md cost cell (n*d**2 vs n**2*d, crossing at n = d); changes: 3 lines; the page's formulas leave out projections/gates, so the copy is expected to be wrong"},
{"name": "p3 mc (page reading)", "correct": True, "cells": {"mc": '''
answer_parallel = "d"
'''}, "why": "page says the n steps run in order; nothing on the page about associative scans"},
{"name": "p4 rnn_unroll", "correct": True, "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(b, p["W_hh"].shape[0])
    lengths = lengths.to(device=x.device, dtype=torch.long)
    outputs = []
    for step in reversed(range(t)):
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        running = (step < lengths)[:, None]
        h_new = torch.where(running, h_new, h)
        outputs.append(h_new * running)
        h = h_new
    return torch.stack(outputs[::-1], dim=1), h
'''}, "why": "copied from rnn.py run_rnn (lengths branch); changes: 4 lines (hidden size from W_hh, reversed(range), cell inlined with params, outputs[::-1])"},
{"name": "p6 additive (7 changed lines, over budget)", "correct": True, "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    s, cov = s0, torch.zeros(h.shape[:2], dtype=x.dtype)
    states, all_weights = [], []
    for t in range(x.shape[1]):
        scores = torch.tanh((s @ p["W_q"].T)[:, None, :] + h @ p["W_k"].T + cov[..., None] * p["w_c"]) @ p["v"]
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = (weights[:, :, None] * h).sum(dim=1)
        s = torch.tanh(torch.cat([x[:, t], context], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + weights
        states.append(s); all_weights.append(weights)
    return torch.stack(states, dim=1), torch.stack(all_weights, dim=1)
'''}, "why": "copied from rnn.py AdditiveAttention.forward + RNNCell formula; changes: 7 lines (init, loop, coverage term in the score, params inlined, concat step, coverage update, stacking) - over the 5-line budget"},
]
