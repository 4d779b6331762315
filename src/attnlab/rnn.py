"""Recurrent networks and the attention that came before the Transformer (chapter 1): an RNN
cell written out, an unrolled RNN over a padded batch, Bahdanau's additive attention, and
gradient-by-distance measurements."""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor, nn


# start-rnn-cell
class RNNCell(nn.Module):
    """Elman RNN step: ``h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh)`` (as ``nn.RNN``).

    Shape:
        x: ``(B, D_in)``, h: ``(B, D_h)`` -> ``(B, D_h)``
    """

    def __init__(self, input_size: int, hidden_size: int, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.hidden_size = hidden_size
        self.ih = nn.Linear(input_size, hidden_size, **factory)
        self.hh = nn.Linear(hidden_size, hidden_size, **factory)

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        return torch.tanh(self.ih(x) + self.hh(h))  # (B, D_in) @ (D_in, D_h) + (B, D_h) @ (D_h, D_h)
# end-rnn-cell

    @torch.no_grad()
    def load_torch_weights(self, rnn: nn.RNN) -> "RNNCell":
        """Copy the first layer of a ``tanh`` :class:`torch.nn.RNN`."""
        if rnn.nonlinearity != "tanh" or not rnn.bias:
            raise ValueError("only a tanh nn.RNN with biases has the same equations")
        self.ih.weight.copy_(rnn.weight_ih_l0)
        self.ih.bias.copy_(rnn.bias_ih_l0)
        self.hh.weight.copy_(rnn.weight_hh_l0)
        self.hh.bias.copy_(rnn.bias_hh_l0)
        return self


# start-unroll
def run_rnn(cell: nn.Module, x: Tensor, lengths: Tensor | None = None, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Unroll ``cell`` over time, one step after another; returns ``(outputs, last_hidden)``.

    ``cell(x_t, h)`` is one step (:class:`RNNCell`, ``nn.RNNCell`` or ``nn.GRUCell``). With
    ``lengths``, sequence ``b`` stops after ``lengths[b]`` steps: its outputs after that are zero
    and its hidden state is frozen, so ``last_hidden[b]`` is the state after its own last real
    token (what ``nn.utils.rnn.pack_padded_sequence`` gives).

    Shape:
        x: ``(B, T, D_in)``, lengths: ``(B,)`` -> outputs ``(B, T, D_h)``, last_hidden ``(B, D_h)``
    """
    b, t, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(b, cell.hidden_size)
    if lengths is not None:
        # int64: compared with a Python int, a uint8 or int8 tensor would wrap once T passes its range
        lengths = lengths.to(device=x.device, dtype=torch.long)
    outputs = []
    for step in range(t):  # the loop that cannot run in parallel: step t needs h from step t-1
        h_new = cell(x[:, step], h)  # (B, D_in), (B, D_h) -> (B, D_h)
        if lengths is not None:
            running = (step < lengths)[:, None]  # (B, 1): still inside its sequence?
            h_new = torch.where(running, h_new, h)
            outputs.append(h_new * running)
        else:
            outputs.append(h_new)
        h = h_new
    return torch.stack(outputs, dim=1), h  # T x (B, D_h) -> (B, T, D_h)
# end-unroll


# start-additive
class AdditiveAttention(nn.Module):
    """Bahdanau et al.'s attention: ``score(s, h_j) = vᵀ tanh(W_s s + W_h h_j)``.

    Returns the context vector (the weighted average of the encoder states) and the weights.

    Shape:
        query: ``(B, D_q)``, keys: ``(B, S, D_k)``, allowed: ``(B, S)`` -> context ``(B, D_k)``, weights ``(B, S)``
    """

    def __init__(self, query_size: int, key_size: int, hidden: int, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.w_q = nn.Linear(query_size, hidden, bias=False, **factory)
        self.w_k = nn.Linear(key_size, hidden, bias=False, **factory)
        self.v = nn.Linear(hidden, 1, bias=False, **factory)

    def forward(self, query: Tensor, keys: Tensor, allowed: Tensor | None = None) -> tuple[Tensor, Tensor]:
        scores = self.v(torch.tanh(self.w_q(query)[:, None, :] + self.w_k(keys))).squeeze(-1)  # (B, S)
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)  # over the source positions
        context = (weights[:, :, None] * keys).sum(dim=1)  # (B, S, 1) * (B, S, D_k) -> (B, D_k)
        return context, weights
# end-additive


def gradient_by_distance(model: Callable[[Tensor], Tensor], length: int, d_in: int, batch: int = 16,
                         generator: torch.Generator | None = None) -> Tensor:
    """Mean norm of ``d output[-1] / d input[t]`` for every input position ``t``.

    ``model`` maps ``(B, T, D_in)`` to ``(B, T, D_out)``; the loss is the sum of the last
    position's output. Returns a ``(T,)`` tensor whose entry ``t`` belongs to distance ``T-1-t``.
    """
    x = torch.randn(batch, length, d_in, generator=generator, requires_grad=True)
    model(x)[:, -1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0)  # (B, T, D_in) -> (T,)
