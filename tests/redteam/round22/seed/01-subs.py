SUBMISSIONS = [{'cells': {'rnn_step': 'import torch\n'
                        'def leaky_step_jacobian(x, h, p, leak):\n'
                        '    torch.manual_seed(0)\n'
                        '    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])  # (B, '
                        'D_h)\n'
                        "    # d h'_i / d h_j = (1 - leak_i) [i == j] + leak_i (1 - candidate_i^2) W_hh[i, j]\n"
                        "    slope = leak * (1 - candidate ** 2)  # (B, D_h): one factor per row i, tanh' written with "
                        'tanh itself\n'
                        '    keep = torch.diag(1 - leak)  # (D_h, D_h): the part of the old state each unit keeps\n'
                        '    return slope[:, :, None] * p["W_hh"] + keep  # (B, D_h, 1) * (D_h, D_h) + (D_h, D_h) -> '
                        '(B, D_h, D_h)'},
  'correct': False,
  'name': 'seed-leaky_step_jacobian',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'rnn_unroll': 'import torch\n'
                          'def rnn_unroll_reverse(x, lengths, p, h0=None):\n'
                          '    torch.manual_seed(0)\n'
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
                          '    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)'},
  'correct': False,
  'name': 'seed-rnn_unroll_reverse',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'gradient_norms': 'import torch\n'
                              'def jacobian_norms(x, p):\n'
                              '    torch.manual_seed(0)\n'
                              '    b, t, _ = x.shape\n'
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
                              '    return torch.stack(norms)'},
  'correct': False,
  'name': 'seed-jacobian_norms',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'additive': 'import torch\n'
                        'def coverage_decoder(x, h, allowed, s0, p):\n'
                        '    torch.manual_seed(0)\n'
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
                        '    return torch.stack(states, dim=1), torch.stack(weights, dim=1)'},
  'correct': False,
  'name': 'seed-coverage_decoder',
  'why': "every notebook: the functions may not seed torch's global generator"}]
