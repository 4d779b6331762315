# Red team round 18, class sweep of chapter 02 (classes A-F of BRIEF-SWEEP.md): each variant is the model
# answer with the smallest change that makes the class's mistake.

SUBMISSIONS = [{'name': 'A_p1_q_requires_grad',
  'correct': False,
  'cells': {'raw_scores': 'def raw_scores(q, k):\n'
                          '    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of '
                          'norms\n'
                          '    if not q.requires_grad:\n'
                          '        q.requires_grad_()  # gradients must flow to q\n'
                          '    # in float64: float16 squares overflow past 65504, float32 and bfloat16 ones past '
                          '3.4e38 (entries near 1e19),\n'
                          '    # where the distances between nearby rows are still in range\n'
                          '    a, b = q.to(torch.float64), k.to(torch.float64)\n'
                          '    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)\n'
                          '    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)\n'
                          '    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, '
                          'S) -> (..., T, S)\n'
                          '    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error '
                          'must not make it positive\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'B_p1_key_norms_cached_by_id',
  'correct': False,
  'cells': {'raw_scores': 'NORMS = {}\n'
                          'def raw_scores(q, k):\n'
                          '    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of '
                          'norms\n'
                          '    # in float64: float16 squares overflow past 65504, float32 and bfloat16 ones past '
                          '3.4e38 (entries near 1e19),\n'
                          '    # where the distances between nearby rows are still in range\n'
                          '    a, b = q.to(torch.float64), k.to(torch.float64)\n'
                          '    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)\n'
                          '    key = (id(k), k.shape, k.dtype, torch.is_grad_enabled())\n'
                          '    if key not in NORMS:\n'
                          '        NORMS[key] = b.square().sum(dim=-1).unsqueeze(-2)\n'
                          '    k_norms = NORMS[key]               # (..., 1, S)\n'
                          '    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, '
                          'S) -> (..., T, S)\n'
                          '    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error '
                          'must not make it positive\n'},
  'why': 'intro: nothing kept from one call to the next (same k object changed in place)'},
 {'name': 'D_p1_float32_norms_overflow',
  'correct': False,
  'cells': {'raw_scores': 'def raw_scores(q, k):\n'
                          '    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of '
                          'norms\n'
                          '    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype  # '
                          'float16 squares overflow past 65504\n'
                          '    a, b = q.to(work), k.to(work)\n'
                          '    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)\n'
                          '    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)\n'
                          '    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, '
                          'S) -> (..., T, S)\n'
                          '    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error '
                          'must not make it positive\n'},
  'why': 'P1: values of any size; float32 squared norms overflow past 1e19 where distances do not (the model answer '
         'until this sweep)'},
 {'name': 'F_p1_backward_inside',
  'correct': False,
  'cells': {'raw_scores': 'def raw_scores(q, k):\n'
                          '    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of '
                          'norms\n'
                          '    # in float64: float16 squares overflow past 65504, float32 and bfloat16 ones past '
                          '3.4e38 (entries near 1e19),\n'
                          '    # where the distances between nearby rows are still in range\n'
                          '    a, b = q.to(torch.float64), k.to(torch.float64)\n'
                          '    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)\n'
                          '    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)\n'
                          '    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, '
                          'S) -> (..., T, S)\n'
                          '    out = (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)\n'
                          '    if out.requires_grad:  # a quick check that the gradient flows\n'
                          '        out.sum().backward(retain_graph=True)\n'
                          '    return out  # a rounding error must not make it positive\n'},
  'why': 'intro: must not change the tensors they are given (.grad)'},
 {'name': 'A_p2_grad_weights_requires_grad',
  'correct': False,
  'cells': {'softmax_backward': 'def softmax_backward(weights, grad_weights, temperature=1.0):\n'
                                '    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z '
                                '/ temperature,\n'
                                '    # and du/dz = 1 / temperature\n'
                                '    if not grad_weights.requires_grad:\n'
                                '        grad_weights.requires_grad_()\n'
                                '    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one '
                                'number per row\n'
                                '    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) '
                                '- (..., 1))\n'},
  'why': 'P2: leave weights and grad_weights as they are'},
 {'name': 'A_p2_weights_requires_grad',
  'correct': False,
  'cells': {'softmax_backward': 'def softmax_backward(weights, grad_weights, temperature=1.0):\n'
                                '    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z '
                                '/ temperature,\n'
                                '    # and du/dz = 1 / temperature\n'
                                '    if not weights.requires_grad:\n'
                                '        weights.requires_grad_()\n'
                                '    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one '
                                'number per row\n'
                                '    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) '
                                '- (..., 1))\n'},
  'why': 'P2: leave weights and grad_weights as they are'},
 {'name': 'B_p2_inner_cached_by_id',
  'correct': False,
  'cells': {'softmax_backward': 'INNER = {}\n'
                                'def softmax_backward(weights, grad_weights, temperature=1.0):\n'
                                '    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z '
                                '/ temperature,\n'
                                '    # and du/dz = 1 / temperature\n'
                                '    key = (id(weights), id(grad_weights), weights.shape, torch.is_grad_enabled())\n'
                                '    if key not in INNER:\n'
                                '        INNER[key] = (weights * grad_weights).sum(dim=-1, keepdim=True)\n'
                                '    inner = INNER[key]  # (..., 1): one number per row\n'
                                '    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) '
                                '- (..., 1))\n'},
  'why': 'intro: nothing kept from one call to the next'},
 {'name': 'F_p2_backward_inside',
  'correct': False,
  'cells': {'softmax_backward': 'def softmax_backward(weights, grad_weights, temperature=1.0):\n'
                                '    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z '
                                '/ temperature,\n'
                                '    # and du/dz = 1 / temperature\n'
                                '    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one '
                                'number per row\n'
                                '    out = weights * (grad_weights - inner) / temperature\n'
                                '    if out.requires_grad:  # a quick check that the gradient flows\n'
                                '        out.sum().backward(retain_graph=True)\n'
                                '    return out      # (..., S) * ((..., S) - (..., 1))\n'},
  'why': 'intro: must not change the tensors they are given (.grad)'},
 {'name': 'B_p4_start_cached_by_id',
  'correct': False,
  'cells': {'padding_mask': 'STARTS = {}\n'
                            'def padding_mask(lengths, s):\n'
                            '    key = (id(lengths), s)\n'
                            '    if key not in STARTS:\n'
                            '        STARTS[key] = s - lengths.long()[:, None]\n'
                            '    start = STARTS[key]                  # (B, 1): the slot of each first real token\n'
                            '    slots = torch.arange(s)[None, :]                     # (1, s)\n'
                            '    allowed = slots >= start                             # (1, s) >= (B, 1) -> (B, s)\n'
                            '    positions = (slots - start).clamp(min=0)             # negative at the padding -> 0\n'
                            '    return allowed, positions\n'},
  'why': 'intro: nothing kept from one call to the next (same lengths changed in place)'},
 {'name': 'E_p4_returns_list',
  'correct': False,
  'cells': {'padding_mask': 'def padding_mask(lengths, s):\n'
                            '    start = s - lengths.long()[:, None]                  # (B, 1): the slot of each first '
                            'real token\n'
                            '    slots = torch.arange(s)[None, :]                     # (1, s)\n'
                            '    allowed = slots >= start                             # (1, s) >= (B, 1) -> (B, s)\n'
                            '    positions = (slots - start).clamp(min=0)             # negative at the padding -> 0\n'
                            '    return [allowed, positions]\n'},
  'why': "P4: 'returns a pair (allowed, positions)'"},
 {'name': 'A_p5_q_requires_grad',
  'correct': False,
  'cells': {'masked_attention': 'def masked_attention(q, k, v, allowed):\n'
                                '    if not q.requires_grad:\n'
                                '        q.requires_grad_()\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return weights @ v, lse                                    # (..., T, S) @ (..., '
                                'S, Dv) -> (..., T, Dv)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'A_p5_v_requires_grad',
  'correct': False,
  'cells': {'masked_attention': 'def masked_attention(q, k, v, allowed):\n'
                                '    if not v.requires_grad:\n'
                                '        v.requires_grad_()\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return weights @ v, lse                                    # (..., T, S) @ (..., '
                                'S, Dv) -> (..., T, Dv)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'B_p5_hidden_cached_by_id_allowed',
  'correct': False,
  'cells': {'masked_attention': 'HIDDEN = {}\n'
                                'def masked_attention(q, k, v, allowed):\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    key = (id(allowed), allowed.shape)\n'
                                '    if key not in HIDDEN:\n'
                                '        HIDDEN[key] = ~allowed\n'
                                '    scores = scores.masked_fill(HIDDEN[key], float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return weights @ v, lse                                    # (..., T, S) @ (..., '
                                'S, Dv) -> (..., T, Dv)\n'},
  'why': 'intro: nothing kept from one call to the next (same allowed changed in place)'},
 {'name': 'B_p5_scores_cached_by_id_qk',
  'correct': False,
  'cells': {'masked_attention': 'SCORES = {}\n'
                                'def masked_attention(q, k, v, allowed):\n'
                                '    key = (id(q), id(k), torch.is_grad_enabled())\n'
                                '    if key not in SCORES:\n'
                                '        SCORES[key] = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n'
                                '    scores = SCORES[key]  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return weights @ v, lse                                    # (..., T, S) @ (..., '
                                'S, Dv) -> (..., T, Dv)\n'},
  'why': 'intro: nothing kept from one call to the next'},
 {'name': 'E_p5_returns_list',
  'correct': False,
  'cells': {'masked_attention': 'def masked_attention(q, k, v, allowed):\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return [weights @ v, lse]                                    # (..., T, S) @ '
                                '(..., S, Dv) -> (..., T, Dv)\n'},
  'why': "P5: 'returns the pair (output, lse)'"},
 {'name': 'F_p5_backward_inside',
  'correct': False,
  'cells': {'masked_attention': 'def masked_attention(q, k, v, allowed):\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    out = weights @ v\n'
                                '    if out.requires_grad:  # a quick check that the gradient flows\n'
                                '        out.sum().backward(retain_graph=True)\n'
                                '    return out, lse                                    # (..., T, S) @ (..., S, Dv) '
                                '-> (..., T, Dv)\n'},
  'why': 'intro: must not change the tensors they are given (.grad)'},
 {'name': 'D_p6_float32_draws',
  'correct': False,
  'cells': {'variance_experiment': 'def dot_product_variance(d_k, n, scale=1.0, generator=None):\n'
                                   '    q = torch.rand(n, d_k, generator=generator)\n'
                                   '    k = torch.randn(n, d_k, generator=generator)\n'
                                   '    dots = scale * (q * k).sum(dim=-1)  # (n, d_k) * (n, d_k) -> (n,)\n'
                                   '    return dots.var().item()\n'
                                   '\n'
                                   '# Var(q_i k_i) = E[q_i^2] E[k_i^2] - (E[q_i] E[k_i])^2 = 1/3 * 1 - (1/2 * 0)^2 = '
                                   '1/3, and d_k such terms add up\n'
                                   'predicted_variance_512 = 512 / 3\n'},
  'why': 'P6: scale of any size, floor nothing (float32 variance of scale*dots under/overflows at 1e-25/1e25)'},
 {'name': 'A_p7_x_requires_grad',
  'correct': False,
  'cells': {'fixed_self_attention': 'class FixedSelfAttention(SeedSelfAttention):\n'
                                    '    def forward(self, x, lengths=None, causal=False):\n'
                                    '        t = x.shape[1]\n'
                                    '        if not x.requires_grad:\n'
                                    '            x.requires_grad_()\n'
                                    '        q, k, v = self.query(x), self.key(x), self.value(x)\n'
                                    '        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, Dh) @ '
                                    '(B, Dh, T) -> (B, T, T)\n'
                                    '        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)\n'
                                    '        if causal:\n'
                                    '            allowed = allowed.tril()                                  # key j <= '
                                    'query i, the diagonal included\n'
                                    '        if lengths is None:\n'
                                    '            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1) @ v\n'
                                    '        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # '
                                    '(B, T)\n'
                                    '        allowed = allowed & real[:, None, :]                         # (T, T) & '
                                    '(B, 1, T): padding keys\n'
                                    '        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1)\n'
                                    '        weights = weights.masked_fill(~real[:, :, None], 0.0)        # padding '
                                    'queries: zero rows (also the NaN ones)\n'
                                    '        return weights @ v                                           # (B, T, T) '
                                    '@ (B, T, D) -> (B, T, D)\n'},
  'why': 'intro: must not change the tensors they are given'},
 {'name': 'B_p7_real_cached_by_id_lengths',
  'correct': False,
  'cells': {'fixed_self_attention': 'REAL = {}\n'
                                    'class FixedSelfAttention(SeedSelfAttention):\n'
                                    '    def forward(self, x, lengths=None, causal=False):\n'
                                    '        t = x.shape[1]\n'
                                    '        q, k, v = self.query(x), self.key(x), self.value(x)\n'
                                    '        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, Dh) @ '
                                    '(B, Dh, T) -> (B, T, T)\n'
                                    '        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)\n'
                                    '        if causal:\n'
                                    '            allowed = allowed.tril()                                  # key j <= '
                                    'query i, the diagonal included\n'
                                    '        if lengths is None:\n'
                                    '            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1) @ v\n'
                                    '        key = (id(lengths), t)\n'
                                    '        if key not in REAL:\n'
                                    '            REAL[key] = torch.arange(t, device=x.device)[None, :] < lengths[:, '
                                    'None]\n'
                                    '        real = REAL[key]\n'
                                    '        allowed = allowed & real[:, None, :]                         # (T, T) & '
                                    '(B, 1, T): padding keys\n'
                                    '        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1)\n'
                                    '        weights = weights.masked_fill(~real[:, :, None], 0.0)        # padding '
                                    'queries: zero rows (also the NaN ones)\n'
                                    '        return weights @ v                                           # (B, T, T) '
                                    '@ (B, T, D) -> (B, T, D)\n'},
  'why': 'intro: nothing kept from one call to the next (same lengths changed in place)'},
 {'name': 'F_p7_backward_inside',
  'correct': False,
  'cells': {'fixed_self_attention': 'class FixedSelfAttention(SeedSelfAttention):\n'
                                    '    def forward(self, x, lengths=None, causal=False):\n'
                                    '        t = x.shape[1]\n'
                                    '        q, k, v = self.query(x), self.key(x), self.value(x)\n'
                                    '        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, Dh) @ '
                                    '(B, Dh, T) -> (B, T, T)\n'
                                    '        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)\n'
                                    '        if causal:\n'
                                    '            allowed = allowed.tril()                                  # key j <= '
                                    'query i, the diagonal included\n'
                                    '        if lengths is None:\n'
                                    '            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1) @ v\n'
                                    '        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]  # '
                                    '(B, T)\n'
                                    '        allowed = allowed & real[:, None, :]                         # (T, T) & '
                                    '(B, 1, T): padding keys\n'
                                    '        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), '
                                    'dim=-1)\n'
                                    '        weights = weights.masked_fill(~real[:, :, None], 0.0)        # padding '
                                    'queries: zero rows (also the NaN ones)\n'
                                    '        out = weights @ v\n'
                                    '        if out.requires_grad:\n'
                                    '            out.sum().backward(retain_graph=True)\n'
                                    '        return out                                           # (B, T, T) @ (B, T, '
                                    'D) -> (B, T, D)\n'},
  'why': "intro: must not change the tensors they are given (.grad of x and of the layer's parameters)"}]
