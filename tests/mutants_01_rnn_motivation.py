"""Chapter 1 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently."""

CHAPTER = "01-rnn-motivation"
FULL_MARKS = 12.0


def unroll(body):
    return ("\ndef rnn_unroll(x, lengths, p):\n    b, t, _ = x.shape\n"
            "    h = torch.zeros(b, p['W_hh'].shape[0], dtype=x.dtype)\n    outputs = []\n" + body + "\n")


def additive(body):
    return "\ndef additive_attention(s, h, allowed, W_q, W_k, v):\n" + body + "\n"


MUTANTS = {
    "step_without_tanh": ("test_rnn_step", {"rnn_step": """
def rnn_step(x, h, p):
    return x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
"""}),
    "step_recurrent_weight_not_transposed": ("test_rnn_step", {"rnn_step": """
def rnn_step(x, h, p):
    return torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"] + p["b_hh"])
"""}),
    "unroll_hidden_state_not_carried": ("test_rnn_unroll", {"rnn_unroll": unroll(
        "    for step in range(t):\n"
        "        running = (step < lengths)[:, None]\n"
        "        h_step = rnn_step(x[:, step], torch.zeros_like(h), p)\n"
        "        h = torch.where(running, h_step, h)\n"
        "        outputs.append(h * running)\n"
        "    return torch.stack(outputs, dim=1), h")}),
    "unroll_padding_not_masked": ("test_rnn_unroll", {"rnn_unroll": unroll(
        "    for step in range(t):\n"
        "        h = rnn_step(x[:, step], h, p)\n"
        "        outputs.append(h)\n"
        "    return torch.stack(outputs, dim=1), h")}),
    "unroll_outputs_masked_but_state_runs_on": ("test_rnn_unroll", {"rnn_unroll": unroll(
        "    for step in range(t):\n"
        "        h = rnn_step(x[:, step], h, p)\n"
        "        outputs.append(h * (step < lengths)[:, None])\n"
        "    return torch.stack(outputs, dim=1), h")}),
    "gradient_of_first_position": ("test_gradient_norms", {"gradient_norms": """
def gradient_norms(model, x):
    x = x.detach().clone().requires_grad_(True)
    model(x)[:, 0].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0)
"""}),
    "gradient_summed_over_batch": ("test_gradient_norms", {"gradient_norms": """
def gradient_norms(model, x):
    x = x.detach().clone().requires_grad_(True)
    model(x)[:, -1].sum().backward()
    return x.grad.norm(dim=-1).sum(dim=0)
"""}),
    "gradient_modifies_the_input": ("test_gradient_norms", {"gradient_norms": """
def gradient_norms(model, x):
    x.requires_grad_(True)
    model(x)[:, -1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0)
"""}),
    "additive_softmax_over_batch": ("test_additive", {"additive": additive(
        "    scores = torch.tanh((s @ W_q.T)[:, None, :] + h @ W_k.T) @ v\n"
        "    weights = torch.softmax(scores.masked_fill(~allowed, float('-inf')), dim=0)\n"
        "    weights = torch.nan_to_num(weights)\n"
        "    return (weights[:, :, None] * h).sum(dim=1), weights")}),
    "additive_without_tanh": ("test_additive", {"additive": additive(
        "    scores = ((s @ W_q.T)[:, None, :] + h @ W_k.T) @ v\n"
        "    weights = torch.softmax(scores.masked_fill(~allowed, float('-inf')), dim=-1)\n"
        "    return (weights[:, :, None] * h).sum(dim=1), weights")}),
    "additive_padding_not_masked": ("test_additive", {"additive": additive(
        "    scores = torch.tanh((s @ W_q.T)[:, None, :] + h @ W_k.T) @ v\n"
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    return (weights[:, :, None] * h).sum(dim=1), weights")}),
    "cost_ratio_inverted": ("test_cost_ratio", {"costs": "attention_over_rnn = 512 / 2048\nequal_cost_length = 768"}),
    "equal_cost_at_d_squared": ("test_equal_cost", {"costs": "attention_over_rnn = 4\nequal_cost_length = 768 ** 2"}),
    "parallel_answer_tanh": ("test_parallel_question", {"mc": 'answer_parallel = "c"'}),
}

DIFFERENT_BUT_CORRECT = {
    "rnn_step": """
def rnn_step(x, h, p):
    pre = torch.addmm(p["b_ih"], x, p["W_ih"].t()) + torch.addmm(p["b_hh"], h, p["W_hh"].t())
    return (torch.exp(2 * pre) - 1) / (torch.exp(2 * pre) + 1)
""",
    "rnn_unroll": """
def rnn_unroll(x, lengths, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    outputs = torch.zeros(b, t, d_h, dtype=x.dtype)
    last = torch.zeros(b, d_h, dtype=x.dtype)
    for i in range(b):                       # one sequence at a time, only its real tokens
        h = torch.zeros(1, d_h, dtype=x.dtype)
        for step in range(int(lengths[i])):
            h = rnn_step(x[i:i + 1, step], h, p)
            outputs[i, step] = h[0]
        last[i] = h[0]
    return outputs, last
""",
    "gradient_norms": """
def gradient_norms(model, x):
    leaf = x.detach().requires_grad_()
    (grad,) = torch.autograd.grad(model(leaf)[:, -1].sum(), leaf)
    return torch.linalg.vector_norm(grad, dim=2).mean(0)
""",
    "additive": """
def additive_attention(s, h, allowed, W_q, W_k, v):
    hidden = torch.tanh(torch.einsum("aq,bq->ba", W_q, s).unsqueeze(1) + torch.einsum("ak,bsk->bsa", W_k, h))
    scores = torch.einsum("bsa,a->bs", hidden, v)
    scores = torch.where(allowed, scores, torch.full_like(scores, -1e30))
    weights = scores.softmax(-1) * allowed
    return torch.bmm(weights.unsqueeze(1), h).squeeze(1), weights
""",
    "costs": "n, d = 2048, 512\nattention_over_rnn = n / d\nequal_cost_length = 768.0",
    "mc": 'answer_parallel = "b"',
}

CORRECT_VARIANTS = {"addmm_per_sequence_loops_einsum": DIFFERENT_BUT_CORRECT}

# Mutants of independent parts graded together, one submission per batch (python tests/mutant_batches.py
# 01-rnn-motivation found them: no member breaks another member's graded test); the others alone.
MUTANT_BATCHES = [
    ["step_without_tanh", "gradient_of_first_position", "additive_softmax_over_batch", "cost_ratio_inverted", "parallel_answer_tanh"],
    ["step_recurrent_weight_not_transposed", "gradient_summed_over_batch", "additive_without_tanh", "equal_cost_at_d_squared"],
    ["unroll_hidden_state_not_carried", "gradient_modifies_the_input", "additive_padding_not_masked"],
]
