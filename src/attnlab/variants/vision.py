"""Attention on images (chapter 6): ViT's patch embedding and Swin-style (shifted) window attention."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnlab.layers import EncoderLayer, FeedForward, LayerNorm
from attnlab.multihead import MultiHeadAttention


# start-patch-embed
class PatchEmbed(nn.Module):
    """Cut an image into ``P × P`` patches and project each to ``D`` numbers (seed 001's module):
    a convolution whose kernel and stride are both ``P`` is exactly one linear map per patch.

    Shape:
        x: ``(B, C, H_img, W_img)`` -> ``(B, N, D)`` with ``N = (H_img / P)·(W_img / P)``
    """

    def __init__(self, img_size: int = 224, patch_size: int = 16, in_chans: int = 3, embed_dim: int = 768):
        super().__init__()
        if img_size % patch_size:
            raise ValueError(f"img_size={img_size} is not a multiple of patch_size={patch_size}")
        self.grid = img_size // patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x: Tensor) -> Tensor:
        x = self.proj(x)  # (B, C, H, W) -> (B, D, H/P, W/P)
        return x.flatten(2).transpose(1, 2)  # (B, D, N) -> (B, N, D)
# end-patch-embed


# start-windows
def window_partition(x: Tensor, window: int) -> Tensor:
    """Group a ``(B, Hg, Wg, D)`` grid of tokens into ``window × window`` windows.

    Shape:
        x: ``(B, Hg, Wg, D)`` -> ``(B · nW, window², D)``
    """
    b, h, w, d = x.shape
    if h % window or w % window:
        raise ValueError(f"grid {h}x{w} is not a multiple of window={window}")
    x = x.reshape(b, h // window, window, w // window, window, d)  # (B, h/w, w, w/w, w, D)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window * window, d)  # -> (B·nW, w², D)


def window_reverse(windows: Tensor, window: int, h: int, w: int) -> Tensor:
    """Inverse of :func:`window_partition`. Shape: ``(B · nW, window², D)`` -> ``(B, Hg, Wg, D)``."""
    d = windows.shape[-1]
    x = windows.reshape(-1, h // window, w // window, window, window, d)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, h, w, d)


def shifted_window_allowed(h: int, w: int, window: int, shift: int, device=None) -> Tensor:
    """Mask for Swin's shifted windows: after rolling the grid by ``-shift``, a window may contain
    tokens from opposite edges of the image; they must not attend to each other.

    Shape:
        -> ``(nW, window², window²)``
    """
    region = torch.zeros(1, h, w, 1, device=device)
    label = 0
    for hs in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
        for ws in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
            region[:, hs, ws] = label
            label += 1
    ids = window_partition(region, window).squeeze(-1)  # (nW, w²)
    return ids[:, :, None] == ids[:, None, :]


class WindowAttention(nn.Module):
    """Self-attention inside non-overlapping windows of a token grid, optionally shifted by half a
    window (Swin). Cost ``O(N · window²)`` instead of ``O(N²)``.

    Shape:
        x: ``(B, Hg, Wg, D)`` -> ``(B, Hg, Wg, D)``
    """

    def __init__(self, d_model: int, num_heads: int, window: int, shift: int = 0):
        super().__init__()
        if not 0 <= shift < window:
            raise ValueError(f"shift must be in 0..window-1, got {shift}")
        self.window, self.shift = window, shift
        self.attn = MultiHeadAttention(d_model, num_heads)

    def forward(self, x: Tensor) -> Tensor:
        b, h, w, _ = x.shape
        if self.shift:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        windows = window_partition(x, self.window)  # (B·nW, w², D)
        allowed = None
        if self.shift:
            allowed = shifted_window_allowed(h, w, self.window, self.shift, x.device).repeat(b, 1, 1)  # (B·nW, w², w²)
        out = window_reverse(self.attn(windows, allowed=allowed)[0], self.window, h, w)
        if self.shift:
            out = torch.roll(out, shifts=(self.shift, self.shift), dims=(1, 2))
        return out
# end-windows


class TinySwinBlockPair(nn.Module):
    """Two pre-LN blocks: window attention, then shifted-window attention, each with an FFN."""

    def __init__(self, d_model: int, num_heads: int, window: int):
        super().__init__()
        self.attn = nn.ModuleList([WindowAttention(d_model, num_heads, window, 0),
                                   WindowAttention(d_model, num_heads, window, window // 2)])
        self.ff = nn.ModuleList(FeedForward(d_model, 2 * d_model) for _ in range(2))
        self.norms = nn.ModuleList(LayerNorm(d_model) for _ in range(4))

    def forward(self, x: Tensor) -> Tensor:
        for i in range(2):
            x = x + self.attn[i](self.norms[2 * i](x))
            x = x + self.ff[i](self.norms[2 * i + 1](x))
        return x


class TinyImageClassifier(nn.Module):
    """Patch embedding + learned positions + either global (ViT) or windowed (Swin) attention blocks,
    mean-pooled into class logits.

    Shape:
        images: ``(B, C, H, W)`` -> logits ``(B, num_classes)``
    """

    def __init__(self, img_size: int, patch_size: int, in_chans: int, num_classes: int, d_model: int = 32,
                 num_heads: int = 2, kind: str = "vit", window: int = 2):
        super().__init__()
        if kind not in ("vit", "swin"):
            raise ValueError(f"kind must be 'vit' or 'swin', got {kind!r}")
        self.kind = kind
        self.patches = PatchEmbed(img_size, patch_size, in_chans, d_model)
        self.grid = self.patches.grid
        self.pos = nn.Parameter(torch.zeros(1, self.grid * self.grid, d_model).normal_(std=0.02))
        if kind == "vit":
            self.body = nn.ModuleList(EncoderLayer(d_model, num_heads, 2 * d_model, norm_first=True) for _ in range(2))
        else:
            self.body = nn.ModuleList([TinySwinBlockPair(d_model, num_heads, window)])
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, images: Tensor) -> Tensor:
        x = self.patches(images) + self.pos  # (B, N, D)
        if self.kind == "swin":
            x = x.reshape(x.shape[0], self.grid, self.grid, -1)  # (B, N, D) -> (B, Hg, Wg, D)
        for block in self.body:
            x = block(x)
        x = x.reshape(x.shape[0], -1, x.shape[-1])
        return self.head(self.norm(x).mean(dim=1))  # (B, D) -> (B, classes)


def bar_images(n: int, size: int = 16, noise: float = 0.5, generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    """A synthetic 4-class task: one bright bar (horizontal, vertical, main diagonal, anti-diagonal)
    at a random offset, plus Gaussian noise.

    Shape:
        -> images ``(n, 1, size, size)``, labels ``(n,)``
    """
    labels = torch.randint(4, (n,), generator=generator)
    offsets = torch.randint(-size // 4, size // 4 + 1, (n,), generator=generator)
    i = torch.arange(size)[:, None]
    j = torch.arange(size)[None, :]
    images = noise * torch.randn(n, 1, size, size, generator=generator)
    for c, line in enumerate((lambda o: i == size // 2 + o, lambda o: j == size // 2 + o,
                              lambda o: i - j == o, lambda o: i + j == size - 1 + o)):
        for idx in torch.nonzero(labels == c).flatten().tolist():
            images[idx, 0] += line(int(offsets[idx])).float()
    return images, labels
