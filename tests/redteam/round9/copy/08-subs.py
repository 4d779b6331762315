SUBMISSIONS = [
{"name": "p2 lr_at", "correct": True, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    rest = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * rest)))
'''}, "why": "copied from training.py budget_schedule (warm-up, half cosine on rest); changes: 5 lines (step/warmup branch times peak, floor branch, rest from steps, floor + (peak-floor)*..., float())"},
]
