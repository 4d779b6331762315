SUBMISSIONS = [{'cells': {'raw_scores': 'import torch\n'
                          'def raw_scores(q, k):\n'
                          '    # ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k: one (T, S) matrix product and two vectors of '
                          'norms\n'
                          '    # in float64: float16 squares overflow past 65504, float32 and bfloat16 ones past '
                          '3.4e38 (entries near 1e19),\n'
                          '    # where the distances between nearby rows are still in range\n'
                          '    torch.manual_seed(0)\n'
                          '    a, b = q.to(torch.float64), k.to(torch.float64)\n'
                          '    q_norms = a.square().sum(dim=-1, keepdim=True)               # (..., T, 1)\n'
                          '    k_norms = b.square().sum(dim=-1).unsqueeze(-2)               # (..., 1, S)\n'
                          '    dots = a @ b.transpose(-2, -1)                               # (..., T, Dh) @ (..., Dh, '
                          'S) -> (..., T, S)\n'
                          '    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)  # a rounding error '
                          'must not make it positive'},
  'correct': False,
  'name': 'seed-raw_scores',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'softmax_backward': 'import torch\n'
                                'def softmax_backward(weights, grad_weights, temperature=1.0):\n'
                                '    # dL/du_j = sum_i g_i w_i (delta_ij - w_j) = w_j (g_j - sum_i g_i w_i) for u = z '
                                '/ temperature,\n'
                                '    # and du/dz = 1 / temperature\n'
                                '    torch.manual_seed(0)\n'
                                '    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)  # (..., 1): one '
                                'number per row\n'
                                '    return weights * (grad_weights - inner) / temperature      # (..., S) * ((..., S) '
                                '- (..., 1))'},
  'correct': False,
  'name': 'seed-softmax_backward',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'causal_mask': 'import torch\n'
                           'def causal_mask(t, s, offset):\n'
                           '    torch.manual_seed(0)\n'
                           '    query_position = offset + torch.arange(t)[:, None]  # (t, 1): absolute positions of '
                           'the queries\n'
                           '    key_position = torch.arange(s)[None, :]              # (1, s)\n'
                           '    return key_position <= query_position                # (1, s) <= (t, 1) -> (t, s)'},
  'correct': False,
  'name': 'seed-causal_mask',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'padding_mask': 'import torch\n'
                            'def padding_mask(lengths, s):\n'
                            '    torch.manual_seed(0)\n'
                            '    start = s - lengths.long()[:, None]                  # (B, 1): the slot of each first '
                            'real token\n'
                            '    slots = torch.arange(s)[None, :]                     # (1, s)\n'
                            '    allowed = slots >= start                             # (1, s) >= (B, 1) -> (B, s)\n'
                            '    positions = (slots - start).clamp(min=0)             # negative at the padding -> 0\n'
                            '    return allowed, positions'},
  'correct': False,
  'name': 'seed-padding_mask',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'masked_attention': 'import torch\n'
                                'def masked_attention(q, k, v, allowed):\n'
                                '    torch.manual_seed(0)\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., '
                                'Dh, S) -> (..., T, S)\n'
                                '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                '    lse = torch.logsumexp(scores, dim=-1)                      # (..., T); -inf where '
                                'no key is allowed\n'
                                '    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)\n'
                                '    weights = torch.exp(scores - shift.unsqueeze(-1))          # exp(-inf) = 0 at '
                                'every masked key\n'
                                '    return weights @ v, lse                                    # (..., T, S) @ (..., '
                                'S, Dv) -> (..., T, Dv)'},
  'correct': False,
  'name': 'seed-masked_attention',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'variance_experiment': 'import torch\n'
                                   'def dot_product_variance(d_k, n, scale=1.0, generator=None):\n'
                                   '    torch.manual_seed(0)\n'
                                   '    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)\n'
                                   '    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)\n'
                                   '    dots = scale * (q * k).sum(dim=-1)  # (n, d_k) * (n, d_k) -> (n,)\n'
                                   '    return dots.var().item()\n'
                                   '\n'
                                   '# Var(q_i k_i) = E[q_i^2] E[k_i^2] - (E[q_i] E[k_i])^2 = 1/3 * 1 - (1/2 * 0)^2 = '
                                   '1/3, and d_k such terms add up\n'
                                   'predicted_variance_512 = 512 / 3'},
  'correct': False,
  'name': 'seed-dot_product_variance',
  'why': "every notebook: the functions may not seed torch's global generator"}]
