SUBMISSIONS = [
{"name": "copy_page_overflow_cell", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    y = x.float()
    var = (y * y).mean(-1, keepdim=True)
    normalised = y / (var + eps).sqrt()
    return normalised.to(x.dtype)
'''}, "why": "precision.md overflow cell (y = x.to(dtype); var = (y*y).mean(); normalised = y / var.sqrt()), 4 lines changed: the old part's copy"},
{"name": "copy_page_cell_in_x_dtype", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    y = x
    var = (y * y).mean(-1, keepdim=True)
    normalised = y / (var + eps).sqrt()
    return normalised
'''}, "why": "the same cell without the cast (the rule kept): 3 lines changed"},
{"name": "copy_quantize_scale_plus_page_cell", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    scale = x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-12)
    y = x / scale
    var = (y * y).mean(-1, keepdim=True)
    normalised = y / (var + eps / (scale * scale)).sqrt()
    return normalised
'''}, "why": "quantize.py's per-channel scale line (inference.md int8 literalinclude, /127 dropped) + precision.md cell, eps divided by scale**2: 5 lines changed"},
{"name": "copy_round_trip_per_tensor_scale", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    info = torch.finfo(x.dtype)
    scale = info.max / x.abs().max().clamp_min(1e-30)
    y = x * scale
    var = (y * y).mean(-1, keepdim=True)
    return y / (var + eps * scale * scale).sqrt()
'''}, "why": "precision.md round_trip (per-tensor FP8 scaling into range) in x's dtype + the overflow cell: 5 lines changed"},
{"name": "model", "correct": True, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()
    s = x / c
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (root / c) ** 2)
'''}, "why": "model answer"},
{"name": "scaled_no_detach", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root)
    s = x / c
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (root / c) ** 2)
'''}, "why": "right values; the scale's (zero) gradient summed in 16 bits"},
]
