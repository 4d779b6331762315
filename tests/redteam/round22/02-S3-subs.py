# Round 22 second pass, chapter 02, class S3: a statistic with the right mean and spread, not the sample variance
SUBMISSIONS = []
TMPL = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    s = scale * (q * k).sum(-1)
    return STAT

predicted_variance_512 = 512 / 3
'''
def W(name, stat, why):
    SUBMISSIONS.append({"name": f"S3: {name}", "correct": False,
                        "cells": {"variance_experiment": TMPL.replace("STAT", stat)}, "why": why})

W("d_k times the sample variance of one coordinate's products",
  "d_k * (scale * q[:, 0] * k[:, 0]).var().item()",
  "independent terms add up, so one term measured and multiplied: exactly right at d_k = 1, heavy-tailed elsewhere")
W("pairwise estimator: mean of (x1 - x2)^2 / 2 over disjoint pairs",
  "((s[0:n - n % 2:2] - s[1:n - n % 2:2]) ** 2 / 2).mean().item()",
  "unbiased at every n and the sample variance itself at n = 2; n / 2 degrees of freedom elsewhere")
W("von Neumann: mean squared successive difference / 2",
  "((s[1:] - s[:-1]) ** 2).sum().item() / (2 * (n - 1))",
  "unbiased for independent dots, the sample variance itself at n = 2")
