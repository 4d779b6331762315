SUBMISSIONS = [
{"name": "copy: the page's RNNCell with the leaky mix (the old Part 1 answer)", "correct": False, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (1 - leak) * h + leak * new
'''}, "why": "copied from rnn.py RNNCell.forward (the page) with the leak mix: 2 changed lines; returns the state, not its Jacobian"},
{"name": "copy: the page's cell, the Elman Jacobian (no leak)", "correct": False, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (1 - new ** 2)[:, :, None] * p["W_hh"]
'''}, "why": "the page's cell and the Jacobian of an ordinary step, ignoring the rates"},
{"name": "correct: vmap(jacrev) of the leaky step", "correct": True, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(x_b, h_b):
        return (1 - leak) * h_b + leak * torch.tanh(x_b @ p["W_ih"].T + p["b_ih"] + h_b @ p["W_hh"].T + p["b_hh"])
    return torch.func.vmap(torch.func.jacrev(step, argnums=1))(x, h)
'''}, "why": "torch.func, per example; gradients flow through functorch"},
{"name": "correct: per-example autograd.functional.jacobian with create_graph", "correct": True, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    out = []
    for b in range(x.shape[0]):
        f = lambda hb: (1 - leak) * hb + leak * torch.tanh(x[b] @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
        out.append(torch.autograd.functional.jacobian(f, h[b], create_graph=True))
    return torch.stack(out)
'''}, "why": "loop over the batch, autograd, create_graph as the text says"},
{"name": "correct: loops over units, closed form", "correct": True, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    c = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    rows = []
    for i in range(D):
        row = leak[i] * (1 - c[:, i:i + 1] * c[:, i:i + 1]) * p["W_hh"][i]
        row = row + (1 - leak[i]) * (torch.arange(D) == i).to(x.dtype)
        rows.append(row)
    return torch.stack(rows, dim=1)
'''}, "why": "a row at a time"},
{"name": "wrong: transposed", "correct": False, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    c = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (leak * (1 - c ** 2))[:, None, :] * p["W_hh"].T + torch.diag(1 - leak)
'''}, "why": "convention mixed up"},
{"name": "wrong: tanh' at the new state", "correct": False, "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    c = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    n = (1 - leak) * h + leak * c
    return (leak * (1 - n ** 2))[:, :, None] * p["W_hh"] + torch.diag(1 - leak)
'''}, "why": "derivative at h' instead of the candidate"},
]
