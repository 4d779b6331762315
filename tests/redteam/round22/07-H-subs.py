SOL = '''
def rms_norm_half(x, eps=1e-6):
    root = {ROOT}
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()
    s = x / c
    mean_square = (s * s).mean(dim=-1, keepdim=True)
    r = torch.sqrt(mean_square + (root / c) ** 2)
    rms = c * r
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)
'''
SUBMISSIONS = [
    {"name": "p4_sqrt_eps_made_input_dtype", "correct": False,
     "cells": {"rms_norm_half": SOL.replace("{ROOT}", "torch.tensor(math.sqrt(eps), dtype=x.dtype)")},
     "why": "H: sqrt(eps) made a tensor of x's dtype before the work (float16 rounds sqrt(1e-12) to 1.013e-6)"},
    {"name": "p4_sqrt_eps_full_like", "correct": False,
     "cells": {"rms_norm_half": SOL.replace("{ROOT}", "math.sqrt(eps)").replace("(root / c) ** 2", "(torch.full_like(c, root) / c) ** 2")},
     "why": "H: sqrt(eps) written into a tensor of x's dtype (full_like) before dividing by c"},
    {"name": "model", "correct": True, "cells": {}, "why": "model answer"},
]
