SUBMISSIONS = [{'cells': {'window_pairs': 'import torch\n'
                            'def window_pairs(t, window):\n'
                            '    torch.manual_seed(0)\n'
                            '    full = min(t, window)  # queries 0 .. full-1 see every key so far: 1 + 2 + ... + '
                            'full\n'
                            '    return full * (full + 1) // 2 + (t - full) * window  # every later query sees exactly '
                            '`window` keys'},
  'correct': False,
  'name': 'seed-window_pairs',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'tokens_per_target_pass': 'import torch\n'
                                      'def tokens_per_target_pass(alpha, gamma):\n'
                                      '    # k draft tokens are kept with probability alpha**k (k acceptances in a '
                                      'row), for k = 1..gamma;\n'
                                      '    # E[accepted] = sum_k P(accepted >= k) = alpha + ... + alpha**gamma, plus '
                                      "the target's own token\n"
                                      '    torch.manual_seed(0)\n'
                                      '    return float(sum(alpha ** k for k in range(gamma + 1)))'},
  'correct': False,
  'name': 'seed-tokens_per_target_pass',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'whole_word_chosen': 'import torch\n'
                                 'def whole_word_chosen(starts, pick):\n'
                                 '    torch.manual_seed(0)\n'
                                 '    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n'
                                 "    # the start of each position's word: the last start at or before it (-1: before "
                                 'the first start)\n'
                                 '    word_start = torch.where(starts, positions, torch.full_like(positions, '
                                 '-1)).cummax(dim=-1).values\n'
                                 '    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))'},
  'correct': False,
  'name': 'seed-whole_word_chosen',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'min_p_sample': 'import torch\n'
                            'def min_p_sample(logits, min_p, generator):\n'
                            '    torch.manual_seed(0)\n'
                            '    probs = logits.softmax(dim=-1)\n'
                            '    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n'
                            '    kept = torch.where(keep, probs, torch.zeros_like(probs))\n'
                            '    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial '
                            'renormalises each row'},
  'correct': False,
  'name': 'seed-min_p_sample',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'span_corrupt': 'import torch\n'
                            'def restore_spans(inputs, targets, sentinels, pad):\n'
                            '    torch.manual_seed(0)\n'
                            '    is_sentinel = set(sentinels.tolist())\n'
                            '    rows = []\n'
                            '    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):\n'
                            '        hidden, current = {}, None\n'
                            '        for token in row_tg:                      # the target: sentinel, its tokens, '
                            'sentinel, ...\n'
                            '            if token == pad:\n'
                            '                break\n'
                            '            if token in is_sentinel:\n'
                            '                current = hidden.setdefault(token, [])\n'
                            '            else:\n'
                            '                current.append(token)\n'
                            '        restored = []                             # (token, was hidden)\n'
                            '        for token in row_in:\n'
                            '            if token == pad:\n'
                            '                break\n'
                            '            if token in is_sentinel:\n'
                            '                restored += [(t, True) for t in hidden[token]]\n'
                            '            else:\n'
                            '                restored.append((token, False))\n'
                            '        rows.append(restored)\n'
                            '    t = max((len(row) for row in rows), default=0)  # 0 for an empty batch\n'
                            '    tokens = torch.full((len(rows), t), pad, dtype=torch.long)\n'
                            '    noise = torch.zeros(len(rows), t, dtype=torch.bool)\n'
                            '    for b, row in enumerate(rows):\n'
                            '        if row:\n'
                            '            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])\n'
                            '            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])\n'
                            '    return tokens, noise'},
  'correct': False,
  'name': 'seed-restore_spans',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'expert_choice': 'import torch\n'
                             'def expert_choice(router_logits, capacity):\n'
                             '    torch.manual_seed(0)\n'
                             "    probs = router_logits.softmax(dim=-1)  # (N, E): each token's distribution over the "
                             'experts\n'
                             '    n = probs.shape[0]\n'
                             '    order = probs.sort(dim=0, descending=True, stable=True).indices  # (N, E) tokens by '
                             'preference, per expert\n'
                             '    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, '
                             'None].expand_as(order).clone())\n'
                             '    chosen = rank < capacity\n'
                             '    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))'},
  'correct': False,
  'name': 'seed-expert_choice',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'gqa_cached_attention': 'import torch\n'
                                    'def gqa_cached_attention(q, k, v):\n'
                                    '    torch.manual_seed(0)\n'
                                    '    dtype = q.dtype\n'
                                    '    if dtype in (torch.float16, torch.bfloat16):  # scores past 65504 overflow in '
                                    'float16 (red team 19)\n'
                                    '        q, k, v = q.float(), k.float(), v.float()\n'
                                    '    b, h, t, d = q.shape\n'
                                    '    g, s = k.shape[1], k.shape[2]\n'
                                    '    qg = q.reshape(b, g, h // g, t, d)  # the query heads of one group sit next '
                                    'to each other\n'
                                    '    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n'
                                    '    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries\n'
                                    '    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)\n'
                                    '    scores = scores.masked_fill(~allowed, float("-inf"))\n'
                                    '    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)\n'
                                    '    return out.reshape(b, h, t, d).to(dtype)'},
  'correct': False,
  'name': 'seed-gqa_cached_attention',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'decayed_linear_attention': 'import torch\n'
                                        'def decayed_linear_attention(q, k, v, decay):\n'
                                        '    torch.manual_seed(0)\n'
                                        '    dtype = q.dtype\n'
                                        '    # float16 and bfloat16 in float32: states and similarities kept in '
                                        'float16 pass 65504 (red team 19)\n'
                                        '    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else '
                                        'q.dtype\n'
                                        '    q, k, v = q.to(work), k.to(work), v.to(work)\n'
                                        '    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1\n'
                                        '    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)  '
                                        '# (..., Dh, Dv)\n'
                                        '    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)  # (..., Dh)\n'
                                        '    outs = []\n'
                                        '    for i in range(q.shape[-2]):\n'
                                        '        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]\n'
                                        '        norm = decay * norm + phi_k[..., i, :]\n'
                                        '        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)\n'
                                        '        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)\n'
                                        '        outs.append(top / bottom)\n'
                                        '    return torch.stack(outs, dim=-2).to(dtype)'},
  'correct': False,
  'name': 'seed-decayed_linear_attention',
  'why': "every notebook: the functions may not seed torch's global generator"}]
