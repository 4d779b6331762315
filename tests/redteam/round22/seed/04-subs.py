SUBMISSIONS = [{'cells': {'table_halves': 'import torch\n'
                            'def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, '
                            'dtype=torch.float32):\n'
                            '    torch.manual_seed(0)\n'
                            '    if d_model % 2 or d_model < 4:\n'
                            '        raise ValueError(f"d_model must be even and at least 4, got {d_model}")\n'
                            "    # b'^(-(D-2)/D) = b^(-(D-2)/D) / scale  <=>  b' = b * scale^(D/(D-2)); omega_0 = 1 "
                            'for any base\n'
                            '    stretched = base * scale ** (d_model / (d_model - 2))\n'
                            '    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model  # (D/2,)\n'
                            '    angle = positions.to(torch.float64).unsqueeze(-1) * stretched ** -exponents  # (..., '
                            '1) * (D/2,)\n'
                            '    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)  # (..., D)'},
  'correct': False,
  'name': 'seed-sinusoidal_table_halves',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'alibi_block': 'import torch\n'
                           'def alibi_block(num_heads, t, offset):\n'
                           '    torch.manual_seed(0)\n'
                           '    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / '
                           'num_heads)  # (H,)\n'
                           '    query_pos = torch.arange(offset, offset + t)[:, None]  # (T, 1)\n'
                           '    key_pos = torch.arange(offset + t)[None, :]  # (1, S)\n'
                           '    distance = (query_pos - key_pos).abs()  # (T, S)\n'
                           '    bias = (-slopes[:, None, None] * distance).to(torch.float32)  # (H, T, S)\n'
                           '    return bias, key_pos <= query_pos'},
  'correct': False,
  'name': 'seed-alibi_block',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'position': 'import torch\n'
                        'def position_from_encoding(row):\n'
                        '    torch.manual_seed(0)\n'
                        '    d = row.shape[-1]\n'
                        '    slowest = 10000.0 ** (-(d - 2) / d)  # one turn of the last pair takes more than 19 000 '
                        'positions\n'
                        '    sin, cos = float(row[-2]), float(row[-1])\n'
                        '    angle = math.atan2(sin, cos) % (2 * math.pi)  # in [0, 2 pi)\n'
                        '    return round(angle / slowest)'},
  'correct': False,
  'name': 'seed-position_from_encoding',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'rotate_half': 'import torch\n'
                           'def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):\n'
                           '    torch.manual_seed(0)\n'
                           '    t, dh = x.shape[-2:]\n'
                           '    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:\n'
                           '        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got '
                           '{rotary_dim}")\n'
                           '    half = rotary_dim // 2\n'
                           "    first_real = t - lengths.long()  # (B,): the row of each sequence's position 0 (int64: "
                           't - n wraps in uint8)\n'
                           '    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)  # (B, T); padding '
                           '-> 0\n'
                           '    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)  # '
                           '(R/2,)\n'
                           '    angle = pos.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, 1) * (R/2,) -> '
                           '(B, 1, T, R/2)\n'
                           '    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n'
                           '    cos, sin = angle.cos().to(work), angle.sin().to(work)\n'
                           '    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)  # (B, H, T, R/2) '
                           'each\n'
                           '    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n'
                           '    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)  # the other features pass '
                           'through'},
  'correct': False,
  'name': 'seed-rope_partial_left_padded',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'shift': 'import torch\n'
                     'def shift_matrix_halves(offset, d_model, base=10000.0):\n'
                     '    torch.manual_seed(0)\n'
                     '    half = d_model // 2\n'
                     '    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (D/2,)\n'
                     '    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n'
                     '    m = torch.zeros(d_model, d_model, dtype=torch.float64)\n'
                     '    i = torch.arange(half)\n'
                     '    # (sin a, cos a) -> (sin a c + cos a s, cos a c - sin a s) = (sin(a + b), cos(a + b))\n'
                     '    m[i, i], m[i + half, i] = c, s\n'
                     '    m[i, i + half], m[i + half, i + half] = -s, c\n'
                     '    return m'},
  'correct': False,
  'name': 'seed-shift_matrix_halves',
  'why': "every notebook: the functions may not seed torch's global generator"},
 {'cells': {'equivariance': 'import torch\n'
                            'def check_equivariance(layer, x, trials, generator, tol=1e-5):\n'
                            '    torch.manual_seed(0)\n'
                            '    t = x.shape[1]\n'
                            '    with torch.no_grad():\n'
                            '        reference = layer(x)\n'
                            '        gaps = []\n'
                            '        for _ in range(trials):\n'
                            '            perm = torch.randperm(t, generator=generator)\n'
                            '            # in float64: a float16 difference rounds, and overflows past 65504\n'
                            '            gaps.append((layer(x[:, perm]).double() - reference[:, '
                            'perm].double()).abs().max().item())  # largest entry\n'
                            '    worst = max(gaps)\n'
                            '    return worst <= tol, float(worst)'},
  'correct': False,
  'name': 'seed-check_equivariance',
  'why': "every notebook: the functions may not seed torch's global generator"}]
