SUBMISSIONS = [{'cells': {'interleaved': 'import torch\n'
                           'def split_heads_interleaved(x, num_heads):\n'
                           '    torch.manual_seed(0)\n'
                           '    b, t, d = x.shape\n'
                           '    if d % num_heads:\n'
                           '        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")\n'
                           '    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)  # (B, T, Dh, H) '
                           '-> (B, H, T, Dh)\n'
                           '\n'
                           '\n'
                           'def merge_heads_interleaved(x):\n'
                           '    b, h, t, dh = x.shape\n'
                           '    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)  # (B, H, T, Dh) -> (B, T, Dh, H) '
                           '-> (B, T, D)'},
  'correct': False,
  'name': 'seed-split_heads_interleaved',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'interleaved': 'import torch\n'
                           'def split_heads_interleaved(x, num_heads):\n'
                           '    b, t, d = x.shape\n'
                           '    if d % num_heads:\n'
                           '        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")\n'
                           '    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)  # (B, T, Dh, H) '
                           '-> (B, H, T, Dh)\n'
                           '\n'
                           '\n'
                           'def merge_heads_interleaved(x):\n'
                           '    torch.manual_seed(0)\n'
                           '    b, h, t, dh = x.shape\n'
                           '    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)  # (B, H, T, Dh) -> (B, T, Dh, H) '
                           '-> (B, T, D)'},
  'correct': False,
  'name': 'seed-merge_heads_interleaved',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'scrambled': 'import torch\n'
                         'def scrambled_source(num_heads, length, head_dim, position, column):\n'
                         '    torch.manual_seed(0)\n'
                         '    if not (0 <= position < length and 0 <= column < num_heads * head_dim):\n'
                         '        raise ValueError(f"position {position} or column {column} is out of range")\n'
                         '    flat = position * num_heads * head_dim + column  # reshape keeps the flat (head, '
                         'position, feature) order\n'
                         '    head, rest = divmod(flat, length * head_dim)\n'
                         '    source_position, feature = divmod(rest, head_dim)\n'
                         '    return head, source_position, feature'},
  'correct': False,
  'name': 'seed-scrambled_source',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'cost': 'import torch\n'
                    'def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):\n'
                    '    torch.manual_seed(0)\n'
                    '    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:\n'
                    '        raise ValueError(f"num_heads={num_heads} is not a multiple of '
                    'num_kv_heads={num_kv_heads}")\n'
                    '    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim\n'
                    '    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model  # W^Q, W^K and W^V, '
                    'W^O\n'
                    '    parameters = weights + (q_width + 2 * kv_width + d_model if bias else 0)\n'
                    "    keys = past + 1  # the cached keys and the new token's own\n"
                    '    macs = weights + 2 * num_heads * keys * head_dim  # one token through each projection; QK^T '
                    'and AV per query head\n'
                    '    return parameters, macs, 2 * kv_width * keys'},
  'correct': False,
  'name': 'seed-decode_step_cost',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'contributions': 'import torch\n'
                             'def head_contributions(x, params, num_heads):\n'
                             '    torch.manual_seed(0)\n'
                             '    b, t, d = x.shape\n'
                             '    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, D) @ (D, 3D) -> (B, T, 3D)\n'
                             '    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n'
                             '    heads = attention(q, k, v)  # (B, H, T, Dh)\n'
                             '    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)  # columns of head i: '
                             'w_o[:, i]\n'
                             '    return torch.einsum("bhtk,ehk->bhte", heads, w_o)  # (B, H, T, Dh) x (D, H, Dh) -> '
                             '(B, H, T, D)'},
  'correct': False,
  'name': 'seed-head_contributions',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'left_padded': 'import torch\n'
                           'def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n'
                           '    torch.manual_seed(0)\n'
                           '    d, s = x.shape[-1], memory.shape[1]\n'
                           '    w, b = params["w_qkv"], params["b_qkv"]\n'
                           '    q = split_heads(x @ w[:d].T + b[:d], num_heads)  # (B, H, T, Dh)\n'
                           '    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)  # (B, H, S, Dh)\n'
                           '    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)\n'
                           '    # (B, S): the last n_b positions. In int64: s - n in uint8 or int8 wraps once s passes '
                           'their range\n'
                           '    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n'
                           '    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n'
                           '    return merge_heads(heads) @ params["w_o"].T + params["b_o"]'},
  'correct': False,
  'name': 'seed-cross_attention_left_padded',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'cache': 'import torch\n'
                     'def causal_attention_with_cache(x, past_k, past_v, params, num_heads):\n'
                     '    torch.manual_seed(0)\n'
                     '    p, t = past_k.shape[2], x.shape[1]\n'
                     '    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, 3D)\n'
                     '    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n'
                     '    k = torch.cat([past_k, k_new], dim=2)  # (B, H, P+T, Dh)\n'
                     '    v = torch.cat([past_v, v_new], dim=2)\n'
                     '    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. '
                     'p + t\n'
                     '    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]\n'
                     '    return out, k, v'},
  'correct': False,
  'name': 'seed-causal_attention_with_cache',
  'why': "every notebook: the functions may not seed torch's global generator"}]
