# Red team round 18, class sweep of chapter 01 (classes A-F of BRIEF-SWEEP.md): each variant is the model
# answer with the smallest change that makes the class's mistake.

SUBMISSIONS = [{'name': 'A_p1_h_requires_grad',
  'correct': False,
  'cells': {'rnn_step': 'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    if not h.requires_grad:\n'
                        '        h.requires_grad_()  # ready for autograd\n'
                        '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, '
                        'D_h)\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> '
                        '(B, D_h, D_h)\n'},
  'why': "intro: 'Your functions must not change the tensors they are given' (h's requires_grad switched on)"},
 {'name': 'A_p1_leak_requires_grad',
  'correct': False,
  'cells': {'rnn_step': 'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    if not leak.requires_grad:\n'
                        '        leak.requires_grad_()\n'
                        '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, '
                        'D_h)\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> '
                        '(B, D_h, D_h)\n'},
  'why': "intro: must not change the tensors they are given (leak's flag)"},
 {'name': 'B_p1_keep_cached_by_id_leak',
  'correct': False,
  'cells': {'rnn_step': 'KEEP = {}\n'
                        'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, '
                        'D_h)\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    key = (id(leak), leak.dtype, leak.shape)\n'
                        '    if key not in KEEP:\n'
                        '        KEEP[key] = torch.diag(1 - leak)\n'
                        '    keep = KEEP[key]  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> '
                        '(B, D_h, D_h)\n'},
  'why': 'intro: nothing kept from one call to the next (same leak object changed in place)'},
 {'name': 'B_p1_candidate_cached_by_id_x_h',
  'correct': False,
  'cells': {'rnn_step': 'CAND = {}\n'
                        'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    key = (id(x), id(h), id(p["W_hh"]), torch.is_grad_enabled())\n'
                        '    if key not in CAND:\n'
                        '        CAND[key] = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])\n'
                        '    candidate = CAND[key]\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> '
                        '(B, D_h, D_h)\n'},
  'why': 'intro: nothing kept from one call to the next'},
 {'name': 'F_p1_backward_inside',
  'correct': False,
  'cells': {'rnn_step': 'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, '
                        'D_h)\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    J = slope[:, :, None] * p["W_hh"] + keep\n'
                        '    if J.requires_grad:  # a quick check that the gradient flows\n'
                        '        J.sum().backward(retain_graph=True)\n'
                        '    return J  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> (B, D_h, D_h)\n'},
  'why': "intro: must not change the tensors they are given (.grad written into the caller's leaves)"},
 {'name': 'A_p4_x_requires_grad',
  'correct': False,
  'cells': {'rnn_unroll': 'def rnn_unroll_reverse(x, lengths, p, h0=None):\n'
                          '    b, t, _ = x.shape\n'
                          '    if not x.requires_grad:\n'
                          '        x.requires_grad_()  # gradients must flow\n'
                          '    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0\n'
                          '    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor '
                          'wraps around\n'
                          '    outputs = [None] * t\n'
                          '    for step in reversed(range(t)):  # from the last column to the first\n'
                          '        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its '
                          'sequence?\n'
                          '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                          'p["b_hh"])\n'
                          '        h = torch.where(inside, h_new, h)  # at the padding the state waits for the '
                          "sequence's last token\n"
                          '        outputs[step] = h * inside\n'
                          '    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'A_p4_h0_requires_grad',
  'correct': False,
  'cells': {'rnn_unroll': 'def rnn_unroll_reverse(x, lengths, p, h0=None):\n'
                          '    b, t, _ = x.shape\n'
                          '    if h0 is not None and not h0.requires_grad:\n'
                          '        h0.requires_grad_()\n'
                          '    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0\n'
                          '    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor '
                          'wraps around\n'
                          '    outputs = [None] * t\n'
                          '    for step in reversed(range(t)):  # from the last column to the first\n'
                          '        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its '
                          'sequence?\n'
                          '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                          'p["b_hh"])\n'
                          '        h = torch.where(inside, h_new, h)  # at the padding the state waits for the '
                          "sequence's last token\n"
                          '        outputs[step] = h * inside\n'
                          '    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'E_p4_returns_list',
  'correct': False,
  'cells': {'rnn_unroll': 'def rnn_unroll_reverse(x, lengths, p, h0=None):\n'
                          '    b, t, _ = x.shape\n'
                          '    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0\n'
                          '    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor '
                          'wraps around\n'
                          '    outputs = [None] * t\n'
                          '    for step in reversed(range(t)):  # from the last column to the first\n'
                          '        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its '
                          'sequence?\n'
                          '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                          'p["b_hh"])\n'
                          '        h = torch.where(inside, h_new, h)  # at the padding the state waits for the '
                          "sequence's last token\n"
                          '        outputs[step] = h * inside\n'
                          '    return [torch.stack(outputs, dim=1), h]  # T x (B, D_h) -> (B, T, D_h)\n'},
  'why': "P4: 'Return (outputs, first)' (a tuple, not a list)"},
 {'name': 'F_p4_backward_inside',
  'correct': False,
  'cells': {'rnn_unroll': 'def rnn_unroll_reverse(x, lengths, p, h0=None):\n'
                          '    b, t, _ = x.shape\n'
                          '    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0\n'
                          '    lengths = lengths.long()  # int64: a Python int compared with a uint8 or int8 tensor '
                          'wraps around\n'
                          '    outputs = [None] * t\n'
                          '    for step in reversed(range(t)):  # from the last column to the first\n'
                          '        inside = (step < lengths)[:, None]  # (B, 1): is x[:, step] a real token of its '
                          'sequence?\n'
                          '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                          'p["b_hh"])\n'
                          '        h = torch.where(inside, h_new, h)  # at the padding the state waits for the '
                          "sequence's last token\n"
                          '        outputs[step] = h * inside\n'
                          '    out = torch.stack(outputs, dim=1)\n'
                          '    if out.requires_grad:  # a quick check that the gradient flows\n'
                          '        out.sum().backward(retain_graph=True)\n'
                          '    return out, h  # T x (B, D_h) -> (B, T, D_h)\n'},
  'why': "intro: must not change the tensors they are given (.grad of the caller's leaves)"},
 {'name': 'A_p5_x_requires_grad',
  'correct': False,
  'cells': {'gradient_norms': 'def jacobian_norms(x, p):\n'
                              '    b, t, _ = x.shape\n'
                              '    if not x.requires_grad:\n'
                              '        x.requires_grad_()\n'
                              '    d_h = p["W_hh"].shape[0]\n'
                              '    h = torch.zeros(b, d_h, dtype=x.dtype)\n'
                              '    states = []\n'
                              '    for step in range(t):\n'
                              '        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                              'p["b_hh"])\n'
                              '        states.append(h)\n'
                              '    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)  # d h_{T-1} / d '
                              'h_{T-1}\n'
                              '\n'
                              '    def frobenius(m):  # divided by its largest entry first: squares of entries near '
                              '1e-27 underflow to 0 in float32\n'
                              '        top = m.abs().amax(dim=(1, 2))\n'
                              '        top = torch.where(top > 0, top, torch.ones_like(top))\n'
                              '        return torch.linalg.matrix_norm(m / top[:, None, None]) * top\n'
                              '\n'
                              '    norms = [frobenius(product).mean()]\n'
                              '    for s in range(t - 1, 0, -1):\n'
                              '        step_jacobian = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]  # J_s = diag(1 - '
                              'h_s^2) W_hh: (B, D_h, D_h)\n'
                              '        product = product @ step_jacobian  # (B, D_h, D_h) @ (B, D_h, D_h)\n'
                              '        norms.append(frobenius(product).mean())  # per example, then the batch mean\n'
                              '    return torch.stack(norms)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'A_p5_whh_requires_grad',
  'correct': False,
  'cells': {'gradient_norms': 'def jacobian_norms(x, p):\n'
                              '    b, t, _ = x.shape\n'
                              "    if not p['W_hh'].requires_grad:\n"
                              "        p['W_hh'].requires_grad_()\n"
                              '    d_h = p["W_hh"].shape[0]\n'
                              '    h = torch.zeros(b, d_h, dtype=x.dtype)\n'
                              '    states = []\n'
                              '    for step in range(t):\n'
                              '        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + '
                              'p["b_hh"])\n'
                              '        states.append(h)\n'
                              '    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)  # d h_{T-1} / d '
                              'h_{T-1}\n'
                              '\n'
                              '    def frobenius(m):  # divided by its largest entry first: squares of entries near '
                              '1e-27 underflow to 0 in float32\n'
                              '        top = m.abs().amax(dim=(1, 2))\n'
                              '        top = torch.where(top > 0, top, torch.ones_like(top))\n'
                              '        return torch.linalg.matrix_norm(m / top[:, None, None]) * top\n'
                              '\n'
                              '    norms = [frobenius(product).mean()]\n'
                              '    for s in range(t - 1, 0, -1):\n'
                              '        step_jacobian = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]  # J_s = diag(1 - '
                              'h_s^2) W_hh: (B, D_h, D_h)\n'
                              '        product = product @ step_jacobian  # (B, D_h, D_h) @ (B, D_h, D_h)\n'
                              '        norms.append(frobenius(product).mean())  # per example, then the batch mean\n'
                              '    return torch.stack(norms)\n'},
  'why': "intro: must not change the tensors they are given (the dict p's entries)"},
 {'name': 'A_p6_h_requires_grad',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    if not h.requires_grad:\n'
                        '        h.requires_grad_()\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, '
                        'S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'A_p6_s0_requires_grad',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    if not s0.requires_grad:\n'
                        '        s0.requires_grad_()\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, '
                        'S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'C_p6_fill_minus_1e9',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, -1e9)                # (B, S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n'},
  'why': 'P6: weights (v) of any size: allowed scores below -1e9 lose to the padding'},
 {'name': 'C_p6_fill_float32_min',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, '
                        'torch.finfo(torch.float32).min)                # (B, S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n'},
  'why': "P6: weights of any size: float64 allowed scores below float32's min"},
 {'name': 'C_p6_add_minus_1e9',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]) + (~allowed).to(x.dtype) * -1e9                # (B, S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)\n'},
  'why': 'P6: a finite stand-in added loses (text says so)'},
 {'name': 'E_p6_returns_list',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, '
                        'S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    return [torch.stack(states, dim=1), torch.stack(weights, dim=1)]\n'},
  'why': "P6: 'Return (states, weights)' (a tuple)"},
 {'name': 'F_p6_backward_inside',
  'correct': False,
  'cells': {'additive': 'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    b, t, _ = x.shape\n'
                        '    keys = h @ p["W_k"].T                                    # (B, S, A): the same at every '
                        'step\n'
                        '    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)     # (B, S): attention received so '
                        'far\n'
                        '    state, states, weights = s0, [], []\n'
                        '    for step in range(t):\n'
                        '        query = state @ p["W_q"].T                           # (B, A): the previous state '
                        'asks\n'
                        '        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])  # '
                        '(B, S, A)\n'
                        '        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))                # (B, '
                        'S)\n'
                        '        alpha = torch.softmax(scores, dim=-1)                # over the source positions\n'
                        '        context = (alpha[:, :, None] * h).sum(dim=1)         # (B, S, 1) * (B, S, D_k) -> (B, '
                        'D_k)\n'
                        '        step_input = torch.cat([x[:, step], context], dim=-1)  # (B, D_in + D_k), x first\n'
                        '        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + '
                        'p["b_hh"])\n'
                        '        states.append(state)\n'
                        '        weights.append(alpha)\n'
                        '        coverage = coverage + alpha                          # only later steps see this '
                        "step's weights\n"
                        '    out = torch.stack(states, dim=1)\n'
                        '    if out.requires_grad:  # a quick check that the gradient flows\n'
                        '        out.sum().backward(retain_graph=True)\n'
                        '    return out, torch.stack(weights, dim=1)\n'},
  'why': 'intro: must not change the tensors they are given (.grad)'}]
