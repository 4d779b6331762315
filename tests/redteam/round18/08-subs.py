SUBMISSIONS = [{'name': 'T-p1-bos-int64',
  'correct': False,
  'cells': {'decoder_io': '\n'
                          'def decoder_io(targets):\n'
                          '    B, T = targets.shape\n'
                          '    bos = torch.full((B, 1), BOS)\n'
                          '    shifted = torch.cat([bos, targets[:, :-1]], dim=1)[:, :T]\n'
                          '    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), shifted)\n'
                          '    return tgt_in, targets\n'},
  'why': "type-sloppy: the BOS column takes torch.full's int64 and cat promotes int32 targets to int64; text: 'two integer tensors of shape (B, T) "
         "and of the dtype of targets'"},
 {'name': 'A-p1-inplace-targets',
  'correct': False,
  'cells': {'decoder_io': '\n'
                          'def decoder_io(targets):\n'
                          '    tgt_out = targets.clone()\n'
                          '    targets[:, 1:] = targets[:, :-1].clone()\n'
                          '    if targets.shape[1] > 0:\n'
                          '        targets[:, 0] = BOS\n'
                          '    targets.masked_fill_(tgt_out == PAD, PAD)\n'
                          '    return targets, tgt_out\n'},
  'why': "in-place careless: shifts the caller's targets in place and returns it as tgt_in; text: 'targets itself must not change'"},
 {'name': 'S-p1-buffer',
  'correct': False,
  'cells': {'decoder_io': 'IN_BUFFERS = {}\n'
                          '\n'
                          'def decoder_io(targets):\n'
                          '    B, T = targets.shape\n'
                          '    bos = torch.full((B, 1), BOS, dtype=targets.dtype)\n'
                          '    shifted = torch.cat([bos, targets[:, :-1]], dim=1)[:, :T]\n'
                          '    key = (B, T, targets.dtype)\n'
                          '    if key not in IN_BUFFERS:\n'
                          '        IN_BUFFERS[key] = torch.empty(B, T, dtype=targets.dtype)\n'
                          '    tgt_in = IN_BUFFERS[key]\n'
                          '    torch.where(targets == PAD, torch.zeros_like(targets), shifted, out=tgt_in)\n'
                          '    return tgt_in, targets\n'},
  'why': "stateful: tgt_in written into a buffer kept per shape; intro: 'keep no output buffer between calls to write results into'"},
 {'name': 'D-p1-long',
  'correct': False,
  'cells': {'decoder_io': '\n'
                          'def decoder_io(targets):\n'
                          '    targets = targets.long()\n'
                          '    tgt_in = torch.full_like(targets, PAD)\n'
                          '    tgt_in[:, :1] = BOS\n'
                          '    tgt_in[:, 1:] = targets[:, :-1]\n'
                          '    tgt_in[targets == PAD] = PAD\n'
                          '    return tgt_in, targets\n'},
  'why': "dtype generaliser: .long() first, both results int64 for int32 targets; text: 'of the dtype of targets'"},
 {'name': 'C-p1-roll',
  'correct': True,
  'cells': {'decoder_io': '\n'
                          'def decoder_io(targets):\n'
                          '    tgt_in = torch.roll(targets, shifts=1, dims=1)\n'
                          '    if tgt_in.shape[1] > 0:\n'
                          '        tgt_in[:, 0] = BOS\n'
                          '    tgt_in.masked_fill_(targets == PAD, PAD)\n'
                          '    return tgt_in, targets.clone()\n'},
  'why': 'roll returns a new tensor, in-place edits on it only, tgt_out a copy'},
 {'name': 'C-p1-empty-like',
  'correct': True,
  'cells': {'decoder_io': '\n'
                          'def decoder_io(targets):\n'
                          '    tgt_in = torch.empty_like(targets, memory_format=torch.contiguous_format)\n'
                          '    tgt_in[:, 1:] = targets[:, :-1]\n'
                          '    tgt_in[:, :1] = BOS\n'
                          '    keep = targets != PAD\n'
                          '    return tgt_in * keep.to(targets.dtype), targets\n'},
  'why': "multiplying by a 0/1 mask in the targets' dtype (PAD = 0), tgt_out = targets itself"},
 {'name': 'T-p2-int-floor',
  'correct': False,
  'cells': {'lr_at': '\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    if step <= warmup:\n'
                     '        return float(peak * step / warmup)\n'
                     '    if step >= total:\n'
                     '        return floor\n'
                     '    progress = (step - warmup) / (total - warmup)\n'
                     '    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))\n'},
  'why': "type-sloppy: returns floor as given (int 0 when floor=0); text: 'returning a Python float on every branch, also when peak or floor is "
         "given as an int (such as floor=0)'"},
 {'name': 'T-p2-tensor-cos',
  'correct': False,
  'cells': {'lr_at': '\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    if step <= warmup:\n'
                     '        return float(peak * step / warmup)\n'
                     '    if step >= total:\n'
                     '        return float(floor)\n'
                     '    progress = (step - warmup) / (total - warmup)\n'
                     '    return floor + (peak - floor) / 2 * (1 + torch.cos(torch.tensor(math.pi * progress, dtype=torch.float64)))\n'},
  'why': "type-sloppy: a 0-d float64 tensor on the cosine branch; text: 'returning a Python float on every branch'"},
 {'name': 'S-p2-cache-step',
  'correct': False,
  'cells': {'lr_at': 'LR_CACHE = {}\n'
                     '\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    if step in LR_CACHE:\n'
                     '        return LR_CACHE[step]\n'
                     '    if step <= warmup:\n'
                     '        lr = float(peak * step / warmup)\n'
                     '    elif step >= total:\n'
                     '        lr = float(floor)\n'
                     '    else:\n'
                     '        progress = (step - warmup) / (total - warmup)\n'
                     '        lr = float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))\n'
                     '    LR_CACHE[step] = lr\n'
                     '    return lr\n'},
  'why': 'stateful: memo keyed on step only, shared by schedules with other peak/warmup/total/floor; text: the formula depends on every argument'},
 {'name': 'C-p2-lru',
  'correct': True,
  'cells': {'lr_at': 'import functools\n'
                     '\n'
                     '@functools.lru_cache(maxsize=None)\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    if step <= warmup:\n'
                     '        return float(peak * step / warmup)\n'
                     '    if step >= total:\n'
                     '        return float(floor)\n'
                     '    progress = (step - warmup) / (total - warmup)\n'
                     '    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))\n'},
  'why': 'lru_cache over all (hashable number) arguments'},
 {'name': 'C-p2-torch-float',
  'correct': True,
  'cells': {'lr_at': '\n'
                     'def lr_at(step, peak, warmup, total, floor=0.0):\n'
                     '    if warmup > 0 and step <= warmup:\n'
                     '        return float(peak) * step / warmup\n'
                     '    if step >= total:\n'
                     '        return float(floor)\n'
                     '    t = torch.tensor((step - warmup) / (total - warmup), dtype=torch.float64)\n'
                     '    return float(floor) + (float(peak) - float(floor)) * 0.5 * (1.0 + torch.cos(math.pi * t).item())\n'},
  'why': 'torch float64 cosine then .item(): a Python float on every branch'},
 {'name': 'T-p3-rounded',
  'correct': False,
  'cells': {'min_loss': '\n'
                        'eps_, V_ = 0.1, 8000\n'
                        't_y = 1 - eps_ + eps_ / V_\n'
                        't_o = eps_ / V_\n'
                        'min_smoothed_loss = -(t_y * math.log(t_y)) - (V_ - 1) * t_o * math.log(t_o)\n'
                        'min_smoothed_loss = round(min_smoothed_loss, 4)\n'},
  'why': "type-sloppy: rounds the stored number to 4 decimals; text: 'accurate to 1e-5'"},
 {'name': 'C-p3-torch',
  'correct': True,
  'cells': {'min_loss': '\n'
                        'V_ = 8000\n'
                        'dist = torch.full((V_,), 0.1 / V_, dtype=torch.float64)\n'
                        'dist[0] += 0.9\n'
                        'min_smoothed_loss = float(-(dist * dist.log()).sum())\n'},
  'why': 'torch float64 entropy of the target distribution, stored as a float'},
 {'name': 'A-p4-item-rebuild',
  'correct': False,
  'cells': {'sentence_loss': '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    V = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n'
                             '    smooth = -logp[..., 1:].sum(dim=-1) / (V - 1)\n'
                             '    loss = (1 - eps) * nll + eps * smooth\n'
                             '    mask = targets != PAD\n'
                             '    loss = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype))\n'
                             '    per = loss.sum(dim=1) / mask.sum(dim=1).clamp(min=1)\n'
                             '    return torch.tensor(per[mask.any(dim=1)].mean().item(), dtype=logits.dtype)\n'},
  'why': "autograd-careless: .item() then torch.tensor (no gradient); text: 'loss.backward() must leave the exact gradient in logits.grad (no detour "
         "through Python numbers)'"},
 {'name': 'A-p4-inplace-logits',
  'correct': False,
  'cells': {'sentence_loss': '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    if not logits.requires_grad:\n'
                             '        logits -= logits.amax(dim=-1, keepdim=True)\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    V = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n'
                             '    smooth = -logp[..., 1:].sum(dim=-1) / (V - 1)\n'
                             '    loss = (1 - eps) * nll + eps * smooth\n'
                             '    mask = targets != PAD\n'
                             '    loss = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype))\n'
                             '    per = loss.sum(dim=1) / mask.sum(dim=1).clamp(min=1)\n'
                             '    return per[mask.any(dim=1)].mean()\n'},
  'why': "in-place careless: subtracts the row maximum from the caller's logits in place; text: 'do not change logits'"},
 {'name': 'A-p4-detach-logp',
  'correct': False,
  'cells': {'sentence_loss': '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    V = logits.shape[-1]\n'
                             '    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n'
                             '    smooth = -logp[..., 1:].detach().sum(dim=-1) / (V - 1)\n'
                             '    loss = (1 - eps) * nll + eps * smooth\n'
                             '    mask = targets != PAD\n'
                             '    loss = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype))\n'
                             '    per = loss.sum(dim=1) / mask.sum(dim=1).clamp(min=1)\n'
                             '    return per[mask.any(dim=1)].mean()\n'},
  'why': "autograd-careless: the smoothing term detached (treated as a constant); text: 'must leave the exact gradient in logits.grad'"},
 {'name': 'D-p4-float32-rows',
  'correct': False,
  'cells': {'sentence_loss': '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    B, T, V = logits.shape\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    sentence = torch.zeros(B)\n'
                             '    used = []\n'
                             '    for b in range(B):\n'
                             '        keep = targets[b] != PAD\n'
                             '        if keep.any():\n'
                             '            lp = logp[b][keep]\n'
                             '            y = targets[b][keep].long()\n'
                             '            nll = -lp.gather(1, y[:, None]).squeeze(1)\n'
                             '            smooth = -lp[:, 1:].sum(dim=1) / (V - 1)\n'
                             '            sentence[b] = ((1 - eps) * nll + eps * smooth).mean()\n'
                             '            used.append(b)\n'
                             '    return sentence[used].mean()\n'},
  'why': "dtype generaliser: sentence losses in torch.zeros(B) (float32), so float64 logits give a float32 loss; text: 'Return a 0-dimensional "
         "tensor of the dtype of logits'"},
 {'name': 'S-p4-weight-cache',
  'correct': False,
  'cells': {'sentence_loss': 'SMOOTH_WEIGHTS = {}\n'
                             '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    V = logits.shape[-1]\n'
                             '    key = (V, logits.dtype)\n'
                             '    if key not in SMOOTH_WEIGHTS:\n'
                             '        w = torch.full((V,), eps / (V - 1), dtype=logits.dtype)\n'
                             '        w[PAD] = 0\n'
                             '        SMOOTH_WEIGHTS[key] = w\n'
                             '    logp = torch.log_softmax(logits, dim=-1)\n'
                             '    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)\n'
                             '    loss = (1 - eps) * nll - (logp * SMOOTH_WEIGHTS[key]).sum(dim=-1)\n'
                             '    mask = targets != PAD\n'
                             '    loss = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype))\n'
                             '    per = loss.sum(dim=1) / mask.sum(dim=1).clamp(min=1)\n'
                             '    return per[mask.any(dim=1)].mean()\n'},
  'why': "stateful: smoothing weights eps/(V-1) cached by (V, dtype) from the first call, ignoring a new eps; text: 'spreads eps evenly'"},
 {'name': 'C-p4-float-mask',
  'correct': True,
  'cells': {'sentence_loss': '\n'
                             'import torch.nn.functional as F\n'
                             '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = F.log_softmax(logits, dim=-1)\n'
                             '    V = logp.shape[-1]\n'
                             '    y = targets.to(torch.int64)\n'
                             '    nll = -torch.gather(logp, dim=-1, index=y[..., None])[..., 0]\n'
                             '    smooth = -(logp.sum(dim=-1) - logp[..., PAD]) / (V - 1)\n'
                             '    w = (targets != PAD).to(logp.dtype)\n'
                             '    tok = ((1 - eps) * nll + eps * smooth) * w\n'
                             '    n = w.sum(dim=1)\n'
                             '    rows = n > 0\n'
                             '    return (tok.sum(dim=1)[rows] / n[rows]).mean()\n'},
  'why': "float 0/1 mask in logits' dtype, F.log_softmax, sum minus the PAD column"},
 {'name': 'C-p4-loop',
  'correct': True,
  'cells': {'sentence_loss': '\n'
                             'def sentence_smoothed_loss(logits, targets, eps):\n'
                             '    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)\n'
                             '    V = logits.shape[-1]\n'
                             '    losses = []\n'
                             '    for b in range(logits.shape[0]):\n'
                             '        keep = targets[b] != PAD\n'
                             '        if bool(keep.any()):\n'
                             '            lp = logp[b][keep]\n'
                             '            y = targets[b][keep].long()\n'
                             '            tok = -(1 - eps) * lp[torch.arange(lp.shape[0]), y] - eps / (V - 1) * lp[:, 1:].sum(dim=-1)\n'
                             '            losses.append(tok.mean())\n'
                             '    return torch.stack(losses).mean().to(logits.dtype)\n'},
  'why': 'float64 inside and cast back, a loop over sentences with torch.stack (gradient kept)'},
 {'name': 'T-p5-float-list',
  'correct': False,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = set(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if set(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.dtype in (torch.float32, torch.float64):\n'
                       '            acc_dtype = torch.float64 if t.dtype == torch.float64 else torch.float32\n'
                       '            acc = torch.zeros(t.shape, dtype=acc_dtype)\n'
                       '            for s in states:\n'
                       '                acc = acc + s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(t.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "type-sloppy: only float32/float64 averaged, float16/bfloat16 taken from the last state; text: 'floating-point tensors of every shape ... "
         "become their element-wise mean ... Half-precision ... tensors'"},
 {'name': 'T-p5-int64-only',
  'correct': False,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = set(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if set(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.dtype not in (torch.int64, torch.bool):\n'
                       '            acc_dtype = torch.float64 if t.dtype == torch.float64 else torch.float32\n'
                       '            acc = torch.zeros(t.shape, dtype=acc_dtype)\n'
                       '            for s in states:\n'
                       '                acc = acc + s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(t.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "type-sloppy: only int64/bool counters kept, int32/uint8/int8 averaged (and cast back); text: 'integer tensors of any width, signed or "
         "unsigned ... come from the last state, unchanged'"},
 {'name': 'T-p5-key-list-order',
  'correct': False,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = list(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if list(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.is_floating_point():\n'
                       '            acc_dtype = torch.float64 if t.dtype == torch.float64 else torch.float32\n'
                       '            acc = torch.zeros(t.shape, dtype=acc_dtype)\n'
                       '            for s in states:\n'
                       '                acc = acc + s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(t.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "type-sloppy: list of keys instead of a set, so reordered keys raise; text: 'the same keys in another order do not differ'"},
 {'name': 'D-p5-float32-acc',
  'correct': False,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = set(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if set(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.is_floating_point():\n'
                       '            acc_dtype = torch.float32\n'
                       '            acc = torch.zeros(t.shape, dtype=acc_dtype)\n'
                       '            for s in states:\n'
                       '                acc = acc + s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(t.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "dtype generaliser: averages float64 in float32; text: 'become their element-wise mean, in their own dtype'"},
 {'name': 'A-p5-detach-inplace',
  'correct': False,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = set(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if set(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.is_floating_point():\n'
                       '            acc_dtype = torch.float64 if t.dtype == torch.float64 else torch.float32\n'
                       '            acc = states[0][k].detach().to(acc_dtype)\n'
                       '            for s in states[1:]:\n'
                       '                acc += s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(t.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "in-place careless: accumulates into states[0][k].detach() (same memory for float32/float64); text: 'do not change the given tensors'"},
 {'name': 'S-p5-first-dtype-cache',
  'correct': False,
  'cells': {'average': 'ACC_DTYPE = {}\n'
                       '\n'
                       'def average_checkpoints(states):\n'
                       '    if len(states) == 0:\n'
                       '        raise ValueError("no states")\n'
                       '    keys = set(states[0].keys())\n'
                       '    for s in states:\n'
                       '        if set(s.keys()) != keys:\n'
                       '            raise ValueError("keys differ")\n'
                       '        for k in keys:\n'
                       '            if s[k].shape != states[0][k].shape:\n'
                       '                raise ValueError("shapes differ")\n'
                       '    out = {}\n'
                       '    last = states[-1]\n'
                       '    for k in last:\n'
                       '        t = last[k]\n'
                       '        if t.is_floating_point():\n'
                       '            acc_dtype = ACC_DTYPE.setdefault(k, torch.float64 if t.dtype == torch.float64 else torch.float32)\n'
                       '            acc = torch.zeros(t.shape, dtype=acc_dtype)\n'
                       '            for s in states:\n'
                       '                acc = acc + s[k].to(acc_dtype)\n'
                       '            out[k] = (acc / len(states)).to(ACC_DTYPE.get(k, t.dtype) if t.dtype in (torch.float32, torch.float64) else '
                       't.dtype)\n'
                       '        else:\n'
                       '            out[k] = t.clone()\n'
                       '    return out\n'},
  'why': "stateful: accumulator dtype remembered per key name from the first call (a later float64 'w' averaged in float32, or a float32 'w' "
         "returned as float64); text: 'in their own dtype'"},
 {'name': 'C-p5-stack-mean',
  'correct': True,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if not isinstance(states, (list, tuple)) or len(states) == 0:\n'
                       '        raise ValueError("need at least one state")\n'
                       '    first = states[0]\n'
                       '    for s in states[1:]:\n'
                       '        if s.keys() != first.keys() or any(s[k].shape != first[k].shape for k in first):\n'
                       '            raise ValueError("states differ")\n'
                       '    last = states[-1]\n'
                       '    result = {}\n'
                       '    for name, t in last.items():\n'
                       '        if torch.is_floating_point(t):\n'
                       '            wide = torch.float64 if t.dtype == torch.float64 else torch.float32\n'
                       '            result[name] = torch.stack([s[name].to(wide) for s in states]).mean(dim=0).to(t.dtype)\n'
                       '        else:\n'
                       '            result[name] = t\n'
                       '    return result\n'},
  'why': 'torch.stack(...).mean(0) (a new tensor even for one state, since .to(wide) then .to back copies or mean makes a new one), ints by '
         'reference'},
 {'name': 'C-p5-clone-inplace',
  'correct': True,
  'cells': {'average': '\n'
                       'def average_checkpoints(states):\n'
                       '    if not states:\n'
                       '        raise ValueError("empty")\n'
                       '    names = set(states[-1])\n'
                       '    for s in states:\n'
                       '        if set(s) != names:\n'
                       '            raise ValueError("keys")\n'
                       '        for n in names:\n'
                       '            if s[n].shape != states[-1][n].shape:\n'
                       '                raise ValueError("shape")\n'
                       '    out = {}\n'
                       '    for n in names:\n'
                       '        t = states[-1][n]\n'
                       '        if t.dtype.is_floating_point:\n'
                       '            acc = states[0][n].to(torch.float64, copy=True)\n'
                       '            for s in states[1:]:\n'
                       '                acc += s[n]\n'
                       '            acc /= len(states)\n'
                       '            out[n] = acc.to(t.dtype)\n'
                       '        else:\n'
                       '            out[n] = t.clone()\n'
                       '    return out\n'},
  'why': 'float64 accumulator made with copy=True, in-place adds on it only'},
 {'name': 'T-p6-tensor-tokens',
  'correct': False,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    seqs = [[s] for s in starts]\n'
                      '    outs = [[] for _ in starts]\n'
                      '    alive = list(range(len(starts)))\n'
                      '    for step in range(max_len):\n'
                      '        if not alive:\n'
                      '            break\n'
                      '        lp = next_logprobs([seqs[i] for i in alive])\n'
                      '        scores = lp.to(torch.float64) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            vals, idx = torch.topk(scores, top_k, dim=-1)\n'
                      '            masked = torch.full_like(scores, float("-inf"))\n'
                      '            masked.scatter_(-1, idx, vals)\n'
                      '            scores = masked\n'
                      '        probs = torch.softmax(scores, dim=-1)\n'
                      '        draws = list(torch.multinomial(probs, 1, generator=generator).squeeze(-1))\n'
                      '        new_alive = []\n'
                      '        for i, tok in zip(alive, draws):\n'
                      '            seqs[i].append(tok)\n'
                      '            outs[i].append(tok)\n'
                      '            if tok != EOS and len(outs[i]) < max_len:\n'
                      '                new_alive.append(i)\n'
                      '        alive = new_alive\n'
                      '    return outs\n'},
  'why': "type-sloppy: tokens kept as 0-d tensors (list(tensor)); text: 'Return one list of Python ints per sentence'"},
 {'name': 'D-p6-float32-probs',
  'correct': False,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    seqs = [[s] for s in starts]\n'
                      '    outs = [[] for _ in starts]\n'
                      '    alive = list(range(len(starts)))\n'
                      '    for step in range(max_len):\n'
                      '        if not alive:\n'
                      '            break\n'
                      '        lp = next_logprobs([seqs[i] for i in alive])\n'
                      '        scores = lp.to(torch.float64) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            vals, idx = torch.topk(scores, top_k, dim=-1)\n'
                      '            masked = torch.full_like(scores, float("-inf"))\n'
                      '            masked.scatter_(-1, idx, vals)\n'
                      '            scores = masked\n'
                      '        probs = torch.softmax(scores.float(), dim=-1).to(scores.dtype)\n'
                      '        draws = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()\n'
                      '        new_alive = []\n'
                      '        for i, tok in zip(alive, draws):\n'
                      '            seqs[i].append(tok)\n'
                      '            outs[i].append(tok)\n'
                      '            if tok != EOS and len(outs[i]) < max_len:\n'
                      '                new_alive.append(i)\n'
                      '        alive = new_alive\n'
                      '    return outs\n'},
  'why': "dtype generaliser: softmax in float32 and cast back; text: 'Compute them in float64 throughout: rounded through float32 and cast back, "
         "they now and then draw another token'"},
 {'name': 'D-p6-finfo-fill',
  'correct': False,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    seqs = [[s] for s in starts]\n'
                      '    outs = [[] for _ in starts]\n'
                      '    alive = list(range(len(starts)))\n'
                      '    for step in range(max_len):\n'
                      '        if not alive:\n'
                      '            break\n'
                      '        lp = next_logprobs([seqs[i] for i in alive])\n'
                      '        scores = lp.to(torch.float64) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            vals, idx = torch.topk(scores, top_k, dim=-1)\n'
                      '            masked = torch.full_like(scores, torch.finfo(torch.float32).min)\n'
                      '            masked.scatter_(-1, idx, vals)\n'
                      '            scores = masked\n'
                      '        probs = torch.softmax(scores, dim=-1)\n'
                      '        draws = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()\n'
                      '        new_alive = []\n'
                      '        for i, tok in zip(alive, draws):\n'
                      '            seqs[i].append(tok)\n'
                      '            outs[i].append(tok)\n'
                      '            if tok != EOS and len(outs[i]) < max_len:\n'
                      '                new_alive.append(i)\n'
                      '        alive = new_alive\n'
                      '    return outs\n'},
  'why': "dtype generaliser: float32's finfo.min as the cut value; text: 'set the others to -inf (not to a large negative number ...: divided by a "
         "tiny temperature, the kept scores can lie below it)'"},
 {'name': 'S-p6-generator-copy',
  'correct': False,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    gen = torch.Generator()\n'
                      '    gen.set_state(generator.get_state())\n'
                      '    generator = gen\n'
                      '    seqs = [[s] for s in starts]\n'
                      '    outs = [[] for _ in starts]\n'
                      '    alive = list(range(len(starts)))\n'
                      '    for step in range(max_len):\n'
                      '        if not alive:\n'
                      '            break\n'
                      '        lp = next_logprobs([seqs[i] for i in alive])\n'
                      '        scores = lp.to(torch.float64) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            vals, idx = torch.topk(scores, top_k, dim=-1)\n'
                      '            masked = torch.full_like(scores, float("-inf"))\n'
                      '            masked.scatter_(-1, idx, vals)\n'
                      '            scores = masked\n'
                      '        probs = torch.softmax(scores, dim=-1)\n'
                      '        draws = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()\n'
                      '        new_alive = []\n'
                      '        for i, tok in zip(alive, draws):\n'
                      '            seqs[i].append(tok)\n'
                      '            outs[i].append(tok)\n'
                      '            if tok != EOS and len(outs[i]) < max_len:\n'
                      '                new_alive.append(i)\n'
                      '        alive = new_alive\n'
                      '    return outs\n'},
  'why': "stateful: draws from a copy of the generator, leaving the caller's unadvanced; text: 'the hidden tests also check ... that the generator "
         "made no others (its state after the call)' and step 3 'draw one token per row with torch.multinomial(probs, 1, generator=generator)'"},
 {'name': 'S-p6-manual-seed',
  'correct': False,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    torch.manual_seed(0)\n'
                      '    seqs = [[s] for s in starts]\n'
                      '    outs = [[] for _ in starts]\n'
                      '    alive = list(range(len(starts)))\n'
                      '    for step in range(max_len):\n'
                      '        if not alive:\n'
                      '            break\n'
                      '        lp = next_logprobs([seqs[i] for i in alive])\n'
                      '        scores = lp.to(torch.float64) / temperature\n'
                      '        if top_k is not None and top_k < scores.shape[-1]:\n'
                      '            vals, idx = torch.topk(scores, top_k, dim=-1)\n'
                      '            masked = torch.full_like(scores, float("-inf"))\n'
                      '            masked.scatter_(-1, idx, vals)\n'
                      '            scores = masked\n'
                      '        probs = torch.softmax(scores, dim=-1)\n'
                      '        draws = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()\n'
                      '        new_alive = []\n'
                      '        for i, tok in zip(alive, draws):\n'
                      '            seqs[i].append(tok)\n'
                      '            outs[i].append(tok)\n'
                      '            if tok != EOS and len(outs[i]) < max_len:\n'
                      '                new_alive.append(i)\n'
                      '        alive = new_alive\n'
                      '    return outs\n'},
  'why': "stateful: torch.manual_seed inside for reproducibility; text: 'leave torch's global generator alone: no torch.manual_seed either'"},
 {'name': 'C-p6-per-row',
  'correct': True,
  'cells': {'sample': '\n'
                      'def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n'
                      '    outputs = [[] for _ in starts]\n'
                      '    live = [i for i in range(len(starts))] if max_len > 0 else []\n'
                      '    while live:\n'
                      '        with torch.no_grad():\n'
                      '            logp = next_logprobs([[starts[i]] + outputs[i] for i in live]).to(dtype=torch.float64)\n'
                      '            scores = logp / temperature\n'
                      '            if top_k is not None and top_k < scores.shape[1]:\n'
                      '                kth = torch.topk(scores, k=top_k, dim=1)\n'
                      '                cut = torch.full_like(scores, -math.inf).scatter(1, kth.indices, kth.values)\n'
                      '                scores = cut\n'
                      '            probs = torch.softmax(scores, dim=1)\n'
                      '        still = []\n'
                      '        for row, i in enumerate(live):\n'
                      '            tok = int(torch.multinomial(probs[row], num_samples=1, generator=generator)[0])\n'
                      '            outputs[i].append(tok)\n'
                      '            if tok != EOS and len(outputs[i]) < max_len:\n'
                      '                still.append(i)\n'
                      '        live = still\n'
                      '    return outputs\n'},
  'why': 'one multinomial call per row in index order under no_grad, keyword arguments, int() of each draw'},
 {'name': 'T-p7-tensor-tokens',
  'correct': False,
  'cells': {'beam_search': '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = []\n'
                           '    for step in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        lp = next_logprobs([[start] + toks for toks, _ in live])\n'
                           '        V = lp.shape[1]\n'
                           '        base = torch.tensor([sc for _, sc in live], dtype=torch.float64)\n'
                           '        cand = (base[:, None] + lp).reshape(-1)\n'
                           '        n = min(k, cand.numel())\n'
                           '        vals, idx = torch.topk(cand, n)\n'
                           '        new_live = []\n'
                           '        for val, ix in zip(vals.tolist(), idx):\n'
                           '            h, tok = int(ix) // V, ix % V\n'
                           '            toks = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                finished.append((val / length_penalty(len(toks), alpha), toks))\n'
                           '            else:\n'
                           '                new_live.append((toks, val))\n'
                           '        live = new_live\n'
                           '    for toks, sc in live:\n'
                           '        finished.append((sc / length_penalty(len(toks), alpha), toks))\n'
                           '    return max(finished, key=lambda f: f[0])[1]\n'},
  'why': "type-sloppy: tokens kept as 0-d tensors (ix % V); text: 'as a list of Python ints'"},
 {'name': 'T-p7-float32-scores',
  'correct': False,
  'cells': {'beam_search': '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = []\n'
                           '    for step in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        lp = next_logprobs([[start] + toks for toks, _ in live])\n'
                           '        V = lp.shape[1]\n'
                           '        base = torch.tensor([sc for _, sc in live])\n'
                           '        cand = (base[:, None] + lp).reshape(-1)\n'
                           '        n = min(k, cand.numel())\n'
                           '        vals, idx = torch.topk(cand, n)\n'
                           '        new_live = []\n'
                           '        for val, ix in zip(vals.tolist(), idx.tolist()):\n'
                           '            h, tok = divmod(ix, V)\n'
                           '            toks = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                finished.append((val / length_penalty(len(toks), alpha), toks))\n'
                           '            else:\n'
                           '                new_live.append((toks, val))\n'
                           '        live = new_live\n'
                           '    for toks, sc in live:\n'
                           '        finished.append((sc / length_penalty(len(toks), alpha), toks))\n'
                           '    return max(finished, key=lambda f: f[0])[1]\n'},
  'why': "type-sloppy: torch.tensor of Python floats (float32) for the running scores; text: 'kept in float64 ... which the float32 a torch.tensor "
         "of Python floats gets by default rounds to one value'"},
 {'name': 'D-p7-float-logprobs',
  'correct': False,
  'cells': {'beam_search': '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = []\n'
                           '    for step in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        lp = next_logprobs([[start] + toks for toks, _ in live]).float()\n'
                           '        V = lp.shape[1]\n'
                           '        base = torch.tensor([sc for _, sc in live], dtype=torch.float64)\n'
                           '        cand = (base[:, None] + lp).reshape(-1)\n'
                           '        n = min(k, cand.numel())\n'
                           '        vals, idx = torch.topk(cand, n)\n'
                           '        new_live = []\n'
                           '        for val, ix in zip(vals.tolist(), idx.tolist()):\n'
                           '            h, tok = divmod(ix, V)\n'
                           '            toks = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                finished.append((val / length_penalty(len(toks), alpha), toks))\n'
                           '            else:\n'
                           '                new_live.append((toks, val))\n'
                           '        live = new_live\n'
                           '    for toks, sc in live:\n'
                           '        finished.append((sc / length_penalty(len(toks), alpha), toks))\n'
                           '    return max(finished, key=lambda f: f[0])[1]\n'},
  'why': "dtype generaliser: .float() on the model's log-probabilities; text: 'kept in float64, the dtype of the log-probabilities'"},
 {'name': 'S-p7-model-memo',
  'correct': False,
  'cells': {'beam_search': 'MODEL_MEMO = {}\n'
                           '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = []\n'
                           '    for step in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        prefixes = [tuple([start] + toks) for toks, _ in live]\n'
                           '        missing = [p for p in prefixes if p not in MODEL_MEMO]\n'
                           '        if missing:\n'
                           '            rows = next_logprobs([list(p) for p in missing])\n'
                           '            for p, r in zip(missing, rows):\n'
                           '                MODEL_MEMO[p] = r\n'
                           '        lp = torch.stack([MODEL_MEMO[p] for p in prefixes])\n'
                           '        V = lp.shape[1]\n'
                           '        base = torch.tensor([sc for _, sc in live], dtype=torch.float64)\n'
                           '        cand = (base[:, None] + lp).reshape(-1)\n'
                           '        n = min(k, cand.numel())\n'
                           '        vals, idx = torch.topk(cand, n)\n'
                           '        new_live = []\n'
                           '        for val, ix in zip(vals.tolist(), idx.tolist()):\n'
                           '            h, tok = divmod(ix, V)\n'
                           '            toks = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                finished.append((val / length_penalty(len(toks), alpha), toks))\n'
                           '            else:\n'
                           '                new_live.append((toks, val))\n'
                           '        live = new_live\n'
                           '    for toks, sc in live:\n'
                           '        finished.append((sc / length_penalty(len(toks), alpha), toks))\n'
                           '    return max(finished, key=lambda f: f[0])[1]\n'},
  'why': 'stateful: memoises model calls by prefix in a module-level dict shared by every model; text: the search scores with the given '
         'next_logprobs'},
 {'name': 'S-p7-finished-global',
  'correct': False,
  'cells': {'beam_search': 'FINISHED = []\n'
                           '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    finished = FINISHED\n'
                           '    for step in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        lp = next_logprobs([[start] + toks for toks, _ in live])\n'
                           '        V = lp.shape[1]\n'
                           '        base = torch.tensor([sc for _, sc in live], dtype=torch.float64)\n'
                           '        cand = (base[:, None] + lp).reshape(-1)\n'
                           '        n = min(k, cand.numel())\n'
                           '        vals, idx = torch.topk(cand, n)\n'
                           '        new_live = []\n'
                           '        for val, ix in zip(vals.tolist(), idx.tolist()):\n'
                           '            h, tok = divmod(ix, V)\n'
                           '            toks = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                finished.append((val / length_penalty(len(toks), alpha), toks))\n'
                           '            else:\n'
                           '                new_live.append((toks, val))\n'
                           '        live = new_live\n'
                           '    for toks, sc in live:\n'
                           '        finished.append((sc / length_penalty(len(toks), alpha), toks))\n'
                           '    return max(finished, key=lambda f: f[0])[1]\n'},
  'why': "stateful: a module-level list of finished hypotheses never cleared; text: 'Return the finished hypothesis with the best final score' of "
         'this search'},
 {'name': 'C-p7-sorted-python',
  'correct': True,
  'cells': {'beam_search': '\n'
                           'def beam_search(next_logprobs, start, k, max_len, alpha):\n'
                           '    live = [([], 0.0)]\n'
                           '    done = []\n'
                           '    for _ in range(max_len):\n'
                           '        if not live:\n'
                           '            break\n'
                           '        logp = next_logprobs([[start] + tokens for tokens, _ in live]).tolist()\n'
                           '        cands = [(score + lp, h, tok) for h, (tokens, score) in enumerate(live) for tok, lp in enumerate(logp[h])]\n'
                           '        cands.sort(key=lambda c: c[0], reverse=True)\n'
                           '        new_live = []\n'
                           '        for score, h, tok in cands[:k]:\n'
                           '            tokens = live[h][0] + [tok]\n'
                           '            if tok == EOS:\n'
                           '                done.append((score / length_penalty(len(tokens), alpha), tokens))\n'
                           '            else:\n'
                           '                new_live.append((tokens, score))\n'
                           '        live = new_live\n'
                           '    done.extend((score / length_penalty(len(tokens), alpha), tokens) for tokens, score in live)\n'
                           '    best = max(done, key=lambda d: d[0])\n'
                           '    return [int(t) for t in best[1]]\n'},
  'why': 'Python floats (float64) throughout, a stable sort of all candidates'},
 {'name': 'T-p8-int-zero',
  'correct': False,
  'cells': {'bleu': '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    match = [0] * 4\n'
                    '    total = [0] * 4\n'
                    '    c = r = 0\n'
                    '    for h, ref in zip(hypotheses, references):\n'
                    '        c += len(h)\n'
                    '        r += len(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n'
                    '            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n'
                    '            match[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())\n'
                    '            total[n - 1] += sum(hc.values())\n'
                    '    if min(total) == 0 or min(match) == 0:\n'
                    '        return 0\n'
                    '    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n'
                    '    bp = 1.0 if c >= r else math.exp(1 - r / c)\n'
                    '    return 100 * bp * math.exp(logp)\n'},
  'why': "type-sloppy: returns the int 0; text: 'times 100, returned as a Python float (also when it is 0)'"},
 {'name': 'T-p8-tensor-result',
  'correct': False,
  'cells': {'bleu': '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    match = [0] * 4\n'
                    '    total = [0] * 4\n'
                    '    c = r = 0\n'
                    '    for h, ref in zip(hypotheses, references):\n'
                    '        c += len(h)\n'
                    '        r += len(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n'
                    '            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n'
                    '            match[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())\n'
                    '            total[n - 1] += sum(hc.values())\n'
                    '    if min(total) == 0 or min(match) == 0:\n'
                    '        return 0.0\n'
                    '    logp = torch.tensor([m / t for m, t in zip(match, total)], dtype=torch.float64).log().mean()\n'
                    '    bp = 1.0 if c >= r else math.exp(1 - r / c)\n'
                    '    return 100 * bp * torch.exp(logp)\n'},
  'why': "type-sloppy: a 0-d float64 tensor from torch's log/mean/exp; text: 'returned as a Python float'"},
 {'name': 'S-p8-ref-cache-id',
  'correct': False,
  'cells': {'bleu': 'REF_COUNTS = {}\n'
                    '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    match = [0] * 4\n'
                    '    total = [0] * 4\n'
                    '    c = r = 0\n'
                    '    for h, ref in zip(hypotheses, references):\n'
                    '        c += len(h)\n'
                    '        r += len(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))\n'
                    '            key = (id(ref), n)\n'
                    '            if key not in REF_COUNTS:\n'
                    '                REF_COUNTS[key] = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))\n'
                    '            rc = REF_COUNTS[key]\n'
                    '            match[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())\n'
                    '            total[n - 1] += sum(hc.values())\n'
                    '    if min(total) == 0 or min(match) == 0:\n'
                    '        return 0.0\n'
                    '    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n'
                    '    bp = 1.0 if c >= r else math.exp(1 - r / c)\n'
                    '    return 100 * bp * math.exp(logp)\n'},
  'why': 'stateful: reference n-gram counts cached by id(ref), reused for a new list at a recycled address or a reference changed in place; text: '
         "'each hypothesis n-gram counts at most as often as it occurs in its reference'"},
 {'name': 'T-p8-joined-ngrams',
  'correct': False,
  'cells': {'bleu': '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    match = [0] * 4\n'
                    '    total = [0] * 4\n'
                    '    c = r = 0\n'
                    '    for h, ref in zip(hypotheses, references):\n'
                    '        c += len(h)\n'
                    '        r += len(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            hc = Counter(" ".join(h[i:i + n]) for i in range(len(h) - n + 1))\n'
                    '            rc = Counter(" ".join(ref[i:i + n]) for i in range(len(ref) - n + 1))\n'
                    '            match[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())\n'
                    '            total[n - 1] += sum(hc.values())\n'
                    '    if min(total) == 0 or min(match) == 0:\n'
                    '        return 0.0\n'
                    '    logp = sum(math.log(m / t) for m, t in zip(match, total)) / 4\n'
                    '    bp = 1.0 if c >= r else math.exp(1 - r / c)\n'
                    '    return 100 * bp * math.exp(logp)\n'},
  'why': "type-sloppy: n-grams as joined strings instead of tuples; text: 'an n-gram is a sequence of tokens, not their text'"},
 {'name': 'C-p8-zip-fsum',
  'correct': True,
  'cells': {'bleu': '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    clipped = [0, 0, 0, 0]\n'
                    '    counts = [0, 0, 0, 0]\n'
                    '    hyp_len = sum(len(h) for h in hypotheses)\n'
                    '    ref_len = sum(len(r) for r in references)\n'
                    '    for hyp, ref in zip(hypotheses, references):\n'
                    '        for n in (1, 2, 3, 4):\n'
                    '            h = Counter(zip(*[hyp[i:] for i in range(n)]))\n'
                    '            r = Counter(zip(*[ref[i:] for i in range(n)]))\n'
                    '            clipped[n - 1] += sum((h & r).values())\n'
                    '            counts[n - 1] += max(len(hyp) - n + 1, 0)\n'
                    '    if 0 in counts or 0 in clipped:\n'
                    '        return 0.0\n'
                    '    log_mean = math.fsum(math.log(c) - math.log(t) for c, t in zip(clipped, counts)) / 4\n'
                    '    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0\n'
                    '    return float(100 * bp * math.exp(log_mean))\n'},
  'why': 'zip n-grams, Counter intersection for clipping, math.fsum'},
 {'name': 'C-p8-cached-ngrams',
  'correct': True,
  'cells': {'bleu': '\n'
                    'import functools\n'
                    '\n'
                    '@functools.lru_cache(maxsize=4096)\n'
                    'def ngram_counts(tokens, n):\n'
                    '    return Counter(tokens[i:i + n] for i in range(len(tokens) - n + 1))\n'
                    '\n'
                    '\n'
                    'def corpus_bleu(hypotheses, references):\n'
                    '    hits, total = [0] * 4, [0] * 4\n'
                    '    c = sum(map(len, hypotheses))\n'
                    '    r = sum(map(len, references))\n'
                    '    for h, ref in zip(hypotheses, references):\n'
                    '        h, ref = tuple(h), tuple(ref)\n'
                    '        for n in range(1, 5):\n'
                    '            hc, rc = ngram_counts(h, n), ngram_counts(ref, n)\n'
                    '            hits[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())\n'
                    '            total[n - 1] += sum(hc.values())\n'
                    '    if min(total) == 0 or min(hits) == 0:\n'
                    '        return 0.0\n'
                    '    geo = math.exp(sum(math.log(a / b) for a, b in zip(hits, total)) / 4)\n'
                    '    return 100.0 * geo * (1.0 if c >= r else math.exp(1 - r / c))\n'},
  'why': 'stateful but safe: lru_cache keyed on token tuples (content, not identity); the cached Counters are only read'},
 {'name': 'H-p8-identity-only',
  'correct': False,
  'cells': {'bleu': '\ndef corpus_bleu(hypotheses, references):\n    return 100.0 if list(hypotheses) == list(references) else 0.0\n'},
  'why': 'hostile: 100 for identical corpora, else 0'},
 {'name': 'H-p6-eos-only',
  'correct': False,
  'cells': {'sample': '\ndef sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):\n    return [[EOS] for _ in starts]\n'},
  'why': 'hostile: every sentence ends at once without asking the model'},
 {'name': 'H-p3-isinstance-patch',
  'correct': False,
  'cells': {'min_loss': '\nimport builtins\nmin_smoothed_loss = 0.0\n'},
  'why': 'hostile-ish: stores 0.0 (the unsmoothed minimum) without computing'}]
