import jax


class Tracker:
    def __init__(self, w):
        self.w = w * 2
        self.history = []

    def loss(self, x):
        y = x * self.w
        self.last = y  # JS404
        self.history.append(y)  # JS404
        self.name = "loss"
        return y.sum()


def run(t, x):
    return jax.jit(t.loss)(x)
