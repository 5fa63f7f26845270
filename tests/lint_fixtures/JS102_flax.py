"""Flax compact methods: only the first input is data; `train`/`deterministic` are configuration."""
import flax.linen as nn


class Block(nn.Module):
    rate: float = 0.1

    @nn.compact
    def __call__(self, x, train, deterministic=None):
        x = nn.Dense(8)(x)
        x = nn.Dropout(self.rate, deterministic=not train)(x)
        use_bias = train and deterministic is None
        big = x.mean() > 0 and train  # JS102
        return x, use_bias, big
