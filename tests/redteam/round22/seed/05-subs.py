SUBMISSIONS = [{'cells': {'rms_norm': 'import torch\n'
                        'def rms_norm(x, weight, eps=1e-6):\n'
                        '    torch.manual_seed(0)\n'
                        '    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n'
                        '    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)\n'
                        '    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)'},
  'correct': False,
  'name': 'seed-rms_norm',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'modern_params': 'import torch\n'
                             'def modern_params(vocab, d_model, d_ff, n_enc, n_dec):\n'
                             '    torch.manual_seed(0)\n'
                             '    d = d_model\n'
                             '    attention = 4 * d * d\n'
                             '    ffn = 3 * d * d_ff\n'
                             '    encoder = n_enc * (attention + ffn + 2 * d) + d\n'
                             '    decoder = n_dec * (2 * attention + ffn + 3 * d) + d\n'
                             '    return 2 * vocab * d + encoder + decoder'},
  'correct': False,
  'name': 'seed-modern_params',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'cache_count_without': 'import torch\n'
                                   'def prefill_dot_products(prompt_len, chunk, layers, heads):\n'
                                   '    torch.manual_seed(0)\n'
                                   '    full, rest = divmod(prompt_len, chunk)\n'
                                   '    # full chunk k = 0 .. full-1: chunk queries against (k + 1) * chunk keys; then '
                                   'rest queries against all prompt_len keys\n'
                                   '    per_head = chunk * chunk * full * (full + 1) // 2 + rest * prompt_len\n'
                                   '    return layers * heads * per_head'},
  'correct': False,
  'name': 'seed-prefill_dot_products',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'cache_count_with': 'import torch\n'
                                'def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):\n'
                                '    torch.manual_seed(0)\n'
                                '    total = prefill_dot_products(prompt_len, chunk, layers, heads)\n'
                                '    steps = max(new_tokens - 1, 0)  # the prefill chose the first token\n'
                                '    # step j = 1 .. steps feeds position prompt_len + j - 1, whose query meets '
                                'prompt_len + j keys\n'
                                '    return total + layers * heads * (steps * prompt_len + steps * (steps + 1) // 2)'},
  'correct': False,
  'name': 'seed-request_dot_products',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'packed_masks': 'import torch\n'
                            'def packed_masks(src_segments, tgt_segments):\n'
                            '    torch.manual_seed(0)\n'
                            '    src_real, tgt_real = src_segments != 0, tgt_segments != 0\n'
                            '    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, '
                            ':]\n'
                            '    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, '
                            ':]\n'
                            '    t = tgt_segments.shape[1]\n'
                            '    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()\n'
                            '    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, '
                            ':]\n'
                            '    return same_src, same_tgt & causal, cross'},
  'correct': False,
  'name': 'seed-packed_masks',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'sandwich': 'import torch\n'
                        'def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n'
                        '    torch.manual_seed(0)\n'
                        '    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), '
                        '*p["post1"])\n'
                        '    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, '
                        'p["cross_attn"]), *p["post2"])\n'
                        '    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])'},
  'correct': False,
  'name': 'seed-sandwich_decoder_layer',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'cached_attention': 'import torch\n'
                                'def cached_self_attention(x_new, params, cache):\n'
                                '    torch.manual_seed(0)\n'
                                '    b, n, d = x_new.shape\n'
                                '    dh = d // NUM_HEADS\n'
                                '    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), '
                                'params["b_qkv"].chunk(3)\n'
                                '    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)  # (B, n, D) -> '
                                '(B, H, n, Dh)\n'
                                '    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ '
                                'w_v.T + b_v)\n'
                                '    if "k" in cache:\n'
                                '        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)  '
                                '# (B, H, past + n, Dh)\n'
                                '    cache["k"], cache["v"] = k, v\n'
                                '    past = k.shape[2] - n\n'
                                '    rows = torch.arange(past, past + n, device=x_new.device)[:, None]\n'
                                '    cols = torch.arange(past + n, device=x_new.device)[None, :]\n'
                                '    allowed = cols <= rows  # (n, past + n)\n'
                                '    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, n, Dh) @ (B, H, Dh, '
                                'past + n) -> (B, H, n, past + n)\n'
                                '    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n'
                                '    heads = weights @ v  # (B, H, n, past + n) @ (B, H, past + n, Dh) -> (B, H, n, '
                                'Dh)\n'
                                '    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]'},
  'correct': False,
  'name': 'seed-cached_self_attention',
  'why': "every notebook: the functions may not seed torch's global generator"}]
