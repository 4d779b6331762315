SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

add("ps-p7-offset-through-float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = torch.tensor(float(offset)) * freqs          # a 0-d tensor of the offset
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i] = c
    m[i + half, i + half] = c
    m[i + half, i] = s
    m[i, i + half] = -s
    return m
'''}, "Part 7: 'any Python int ... |k| < 2^63': torch.tensor(float(offset)) is float32, which rounds offsets past 2^24.")

add("ps-p7-math-fmod-reduction", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        w = base ** (-2.0 * i / d_model)
        a = math.fmod(offset * w, 2 * math.pi)
        m[i, i] = m[i + half, i + half] = math.cos(a)
        m[i + half, i] = math.sin(a)
        m[i, i + half] = -math.sin(a)
    return m
'''}, "Part 7: 'Offsets may be of any size ... clamp no angle': math.fmod by the float 2*pi shifts far-out angles (2*math.pi is not 2 pi).")
