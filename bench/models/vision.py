"""Three small vision transformers for bench/first_result.py, in plain PyTorch (no einops).

Their architectures follow lucidrains/vit-pytorch (MIT licence, (c) 2020 Phil Wang): `levit.py` (LeViT),
`cct.py` (Compact Convolutional Transformer) and `max_vit.py` (MaxViT), with the configurations of that
repository's README. The code here is written anew for this benchmark: vit-pytorch needs `einops`, which is
not installed in the project's environment (nor a torchshim dependency), so every
`rearrange`/`repeat`/`Reduce` is the equivalent `reshape`/`permute`/`mean`, and `einsum` is kept. The op
variety is the originals': strided and depthwise convolutions, BatchNorm, LayerNorm, GELU/SiLU/ReLU/Sigmoid,
attention with learned relative-position biases gathered through an index buffer (nn.Embedding), max pooling,
adaptive average pooling, squeeze-excitation, windowed (block and grid) attention, meshgrid/arange/stack index
construction.

`build(name, torch)` returns the model in eval mode, built with the given torch module (PyTorch or torchshim),
and `image_size(name)`.
"""
from math import ceil

NAMES = ("levit", "cct", "maxvit")


def image_size(name):
    return 224


def build(name, torch):
    """The model `name` (one of NAMES), in eval mode, written against the module `torch`."""
    return {"levit": _levit, "cct": _cct, "maxvit": _maxvit}[name](torch).eval()


# ---- LeViT: image 224, 1000 classes, dims (256, 384, 512), depth 4, heads (4, 6, 8), mlp_mult 2 ----

def _levit(torch):
    nn = torch.nn

    class FeedForward(nn.Module):
        def __init__(self, dim, mult):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(dim, dim * mult, 1), nn.GELU(), nn.Dropout(0.0),
                                     nn.Conv2d(dim * mult, dim, 1), nn.Dropout(0.0))

        def forward(self, x):
            return self.net(x)

    class Attention(nn.Module):
        def __init__(self, dim, fmap, heads, dim_key=32, dim_value=64, dim_out=None, downsample=False):
            super().__init__()
            dim_out = dim_out or dim
            self.heads, self.scale = heads, dim_key ** -0.5
            stride = 2 if downsample else 1
            self.to_q = nn.Sequential(nn.Conv2d(dim, dim_key * heads, 1, stride=stride, bias=False),
                                      nn.BatchNorm2d(dim_key * heads))
            self.to_k = nn.Sequential(nn.Conv2d(dim, dim_key * heads, 1, bias=False),
                                      nn.BatchNorm2d(dim_key * heads))
            self.to_v = nn.Sequential(nn.Conv2d(dim, dim_value * heads, 1, bias=False),
                                      nn.BatchNorm2d(dim_value * heads))
            out_bn = nn.BatchNorm2d(dim_out)
            nn.init.zeros_(out_bn.weight)
            self.to_out = nn.Sequential(nn.GELU(), nn.Conv2d(dim_value * heads, dim_out, 1), out_bn,
                                        nn.Dropout(0.0))
            self.pos_bias = nn.Embedding(fmap * fmap, heads)
            q_range = torch.arange(0, fmap, step=stride)
            k_range = torch.arange(fmap)
            q_pos = torch.stack(torch.meshgrid(q_range, q_range, indexing="ij"), dim=-1).reshape(-1, 2)
            k_pos = torch.stack(torch.meshgrid(k_range, k_range, indexing="ij"), dim=-1).reshape(-1, 2)
            rel = (q_pos[:, None, ...] - k_pos[None, :, ...]).abs()
            x_rel, y_rel = rel.unbind(dim=-1)
            self.register_buffer("pos_indices", x_rel * fmap + y_rel)

        def forward(self, x):
            b, h = x.shape[0], self.heads
            q = self.to_q(x)
            y = q.shape[2]
            q, k, v = (t.reshape(b, h, t.shape[1] // h, -1).transpose(-1, -2)
                       for t in (q, self.to_k(x), self.to_v(x)))
            dots = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale
            dots = dots + self.pos_bias(self.pos_indices).permute(2, 0, 1).unsqueeze(0)
            attn = dots.softmax(dim=-1)
            out = torch.einsum("bhij,bhjd->bhid", attn, v)
            out = out.transpose(-1, -2).reshape(b, -1, y, out.shape[2] // y)
            return self.to_out(out)

    class Transformer(nn.Module):
        def __init__(self, dim, fmap, depth, heads, mlp_mult=2, dim_out=None, downsample=False):
            super().__init__()
            dim_out = dim_out or dim
            self.attn_residual = (not downsample) and dim == dim_out
            self.layers = nn.ModuleList([
                nn.ModuleList([Attention(dim, fmap, heads, dim_out=dim_out, downsample=downsample),
                               FeedForward(dim_out, mlp_mult)]) for _ in range(depth)])

        def forward(self, x):
            for attn, ff in self.layers:
                x = attn(x) + (x if self.attn_residual else 0)
                x = ff(x) + x
            return x

    class LeViT(nn.Module):
        def __init__(self, image_size=224, num_classes=1000, dims=(256, 384, 512), depth=4, heads=(4, 6, 8),
                     mlp_mult=2):
            super().__init__()
            self.conv_embedding = nn.Sequential(
                nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.Conv2d(32, 64, 3, stride=2, padding=1),
                nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.Conv2d(128, dims[0], 3, stride=2, padding=1))
            fmap = image_size // 16
            layers = []
            for i, (dim, h) in enumerate(zip(dims, heads)):
                layers.append(Transformer(dim, fmap, depth, h, mlp_mult))
                if i < len(dims) - 1:
                    layers.append(Transformer(dim, fmap, 1, h * 2, dim_out=dims[i + 1], downsample=True))
                    fmap = ceil(fmap / 2)
            self.backbone = nn.Sequential(*layers)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.mlp_head = nn.Linear(dims[-1], num_classes)

        def forward(self, img):
            x = self.backbone(self.conv_embedding(img))
            return self.mlp_head(self.pool(x).flatten(1))

    return LeViT()


# ---- CCT (cct_14 shape): image 224, embedding 384, 14 layers, 6 heads, mlp_ratio 3, 2 conv layers 7x7

def _cct(torch):
    nn, F = torch.nn, torch.nn.functional

    class Attention(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.heads, self.scale = heads, (dim // heads) ** -0.5
            self.qkv = nn.Linear(dim, dim * 3, bias=False)
            self.attn_drop = nn.Dropout(0.1)
            self.proj = nn.Linear(dim, dim)
            self.proj_drop = nn.Dropout(0.0)

        def forward(self, x):
            b, n, c = x.shape
            q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
            attn = torch.einsum("bhid,bhjd->bhij", q * self.scale, k).softmax(dim=-1)
            x = torch.einsum("bhij,bhjd->bhid", self.attn_drop(attn), v)
            return self.proj_drop(self.proj(x.transpose(1, 2).reshape(b, n, c)))

    class DropPath(nn.Module):
        def __init__(self, p):
            super().__init__()
            self.p = float(p)

        def forward(self, x):
            if self.p <= 0.0 or not self.training:
                return x
            keep = torch.zeros((x.shape[0],) + (1,) * (x.ndim - 1)).uniform_(0, 1) < 1 - self.p
            return x.div(1 - self.p) * keep.float()

    class EncoderLayer(nn.Module):
        def __init__(self, d, heads, ff, drop_path):
            super().__init__()
            self.pre_norm = nn.LayerNorm(d)
            self.self_attn = Attention(d, heads)
            self.linear1, self.dropout1 = nn.Linear(d, ff), nn.Dropout(0.0)
            self.norm1 = nn.LayerNorm(d)
            self.linear2, self.dropout2 = nn.Linear(ff, d), nn.Dropout(0.0)
            self.drop_path = DropPath(drop_path)

        def forward(self, src):
            src = src + self.drop_path(self.self_attn(self.pre_norm(src)))
            src = self.norm1(src)
            src2 = self.linear2(self.dropout1(F.gelu(self.linear1(src))))
            return src + self.drop_path(self.dropout2(src2))

    class CCT(nn.Module):
        def __init__(self, img=224, dim=384, layers=14, heads=6, mlp_ratio=3, num_classes=1000, n_conv=2):
            super().__init__()
            chans = [3] + [64] * (n_conv - 1) + [dim]
            self.tokenizer = nn.Sequential(*[
                nn.Sequential(nn.Conv2d(i, o, 7, stride=2, padding=3, bias=False), nn.ReLU(),
                              nn.MaxPool2d(3, stride=2, padding=1)) for i, o in zip(chans[:-1], chans[1:])])
            for m in self.tokenizer.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight)
            seq = self.tokenizer(torch.zeros(1, 3, img, img)).flatten(2).shape[2]
            self.positional_emb = nn.Parameter(torch.zeros(1, seq, dim))
            nn.init.trunc_normal_(self.positional_emb, std=0.2)
            self.dropout = nn.Dropout(0.0)
            dpr = [x.item() for x in torch.linspace(0, 0.1, layers)]
            self.blocks = nn.ModuleList([EncoderLayer(dim, heads, int(dim * mlp_ratio), p) for p in dpr])
            self.norm = nn.LayerNorm(dim)
            self.attention_pool = nn.Linear(dim, 1)
            self.fc = nn.Linear(dim, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    nn.init.trunc_normal_(m.weight, std=0.02)
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)

        def forward(self, x):
            x = self.tokenizer(x).flatten(2).transpose(1, 2)
            x = self.dropout(x + self.positional_emb)
            for blk in self.blocks:
                x = blk(x)
            x = self.norm(x)
            w = self.attention_pool(x).squeeze(-1).softmax(dim=1)
            return self.fc(torch.einsum("bn,bnd->bd", w, x))

    return CCT()


# ---- MaxViT: 1000 classes, stem 64, dim 96, dim_head 32, depth (2, 2, 5, 2), window 7, image 224 -----------

def _maxvit(torch):
    nn = torch.nn

    class PreNormResidual(nn.Module):
        def __init__(self, dim, fn):
            super().__init__()
            self.norm, self.fn = nn.LayerNorm(dim), fn

        def forward(self, x):
            return self.fn(self.norm(x)) + x

    def feed_forward(dim, mult=4):
        return nn.Sequential(nn.Linear(dim, dim * mult), nn.GELU(), nn.Dropout(0.1),
                             nn.Linear(dim * mult, dim), nn.Dropout(0.1))

    class SqueezeExcitation(nn.Module):
        def __init__(self, dim, shrink=0.25):
            super().__init__()
            hidden = int(dim * shrink)
            self.gate = nn.Sequential(nn.Linear(dim, hidden, bias=False), nn.SiLU(),
                                      nn.Linear(hidden, dim, bias=False), nn.Sigmoid())

        def forward(self, x):
            return x * self.gate(x.mean(dim=(2, 3)))[:, :, None, None]

    class Residual(nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, x):
            return self.fn(x) + x

    def mbconv(dim_in, dim_out, downsample, expansion=4):
        net = nn.Sequential(
            nn.Conv2d(dim_in, dim_out, 1), nn.BatchNorm2d(dim_out), nn.SiLU(),
            nn.Conv2d(dim_out, dim_out, 3, stride=2 if downsample else 1, padding=1, groups=dim_out),
            SqueezeExcitation(dim_out), nn.Conv2d(dim_out, dim_out, 1), nn.BatchNorm2d(dim_out))
        return Residual(net) if dim_in == dim_out and not downsample else net

    class Attention(nn.Module):
        def __init__(self, dim, dim_head=32, window=7):
            super().__init__()
            self.heads, self.scale = dim // dim_head, dim_head ** -0.5
            self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
            self.attend = nn.Sequential(nn.Softmax(dim=-1), nn.Dropout(0.1))
            self.to_out = nn.Sequential(nn.Linear(dim, dim, bias=False), nn.Dropout(0.1))
            self.rel_pos_bias = nn.Embedding((2 * window - 1) ** 2, self.heads)
            pos = torch.arange(window)
            grid = torch.stack(torch.meshgrid(pos, pos, indexing="ij")).permute(1, 2, 0).reshape(-1, 2)
            rel = grid[:, None] - grid[None, :] + (window - 1)
            idx = (rel * torch.tensor([2 * window - 1, 1])).sum(dim=-1)
            self.register_buffer("rel_pos_indices", idx, persistent=False)

        def forward(self, x):
            b, hx, wy, w1, w2, d = x.shape
            h = self.heads
            x = x.reshape(b * hx * wy, w1 * w2, d)
            q, k, v = (t.reshape(t.shape[0], t.shape[1], h, -1).transpose(1, 2)
                       for t in self.to_qkv(x).chunk(3, dim=-1))
            sim = torch.einsum("bhid,bhjd->bhij", q * self.scale, k)
            sim = sim + self.rel_pos_bias(self.rel_pos_indices).permute(2, 0, 1)
            out = torch.einsum("bhij,bhjd->bhid", self.attend(sim), v)
            out = out.transpose(1, 2).reshape(-1, w1, w2, d)
            return self.to_out(out).reshape(b, hx, wy, w1, w2, d)

    class Block(nn.Module):  # b d (x w1) (y w2) -> b x y w1 w2 d
        def __init__(self, w):
            super().__init__()
            self.w = w

        def forward(self, x):
            b, d, hh, ww = x.shape
            w = self.w
            return x.reshape(b, d, hh // w, w, ww // w, w).permute(0, 2, 4, 3, 5, 1)

    class Unblock(nn.Module):  # b x y w1 w2 d -> b d (x w1) (y w2)
        def forward(self, x):
            b, hx, wy, w1, w2, d = x.shape
            return x.permute(0, 5, 1, 3, 2, 4).reshape(b, d, hx * w1, wy * w2)

    class Grid(nn.Module):  # b d (w1 x) (w2 y) -> b x y w1 w2 d
        def __init__(self, w):
            super().__init__()
            self.w = w

        def forward(self, x):
            b, d, hh, ww = x.shape
            w = self.w
            return x.reshape(b, d, w, hh // w, w, ww // w).permute(0, 3, 5, 2, 4, 1)

    class Ungrid(nn.Module):  # b x y w1 w2 d -> b d (w1 x) (w2 y)
        def forward(self, x):
            b, hx, wy, w1, w2, d = x.shape
            return x.permute(0, 5, 3, 1, 4, 2).reshape(b, d, w1 * hx, w2 * wy)

    class MaxViT(nn.Module):
        def __init__(self, num_classes=1000, dim=96, depth=(2, 2, 5, 2), dim_head=32, stem=64, w=7):
            super().__init__()
            self.conv_stem = nn.Sequential(nn.Conv2d(3, stem, 3, stride=2, padding=1),
                                           nn.Conv2d(stem, stem, 3, padding=1))
            dims = (stem,) + tuple(2 ** i * dim for i in range(len(depth)))
            self.layers = nn.ModuleList()
            for (d_in, d), n in zip(zip(dims[:-1], dims[1:]), depth):
                for i in range(n):
                    self.layers.append(nn.Sequential(
                        mbconv(d_in if i == 0 else d, d, downsample=i == 0),
                        Block(w), PreNormResidual(d, Attention(d, dim_head, w)),
                        PreNormResidual(d, feed_forward(d)), Unblock(),
                        Grid(w), PreNormResidual(d, Attention(d, dim_head, w)),
                        PreNormResidual(d, feed_forward(d)), Ungrid()))
            self.norm = nn.LayerNorm(dims[-1])
            self.head = nn.Linear(dims[-1], num_classes)

        def forward(self, x):
            x = self.conv_stem(x)
            for stage in self.layers:
                x = stage(x)
            return self.head(self.norm(x.mean(dim=(2, 3))))

    return MaxViT()
