import jax
import jax.numpy as jnp


class lazy_property:
    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)  # JS405
        return value


class dict_cached:
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, obj, objtype=None):
        val = obj.__dict__.get(self.fget.__name__)
        if val is None:
            val = self.fget(obj)
            obj.__dict__[self.fget.__name__] = val  # JS405
        return val


class concrete_only:
    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        if not isinstance(value, jax.core.Tracer):
            setattr(instance, self.wrapped.__name__, value)
        return value


class bound_method:
    def __init__(self, fn):
        self.fn = fn

    def __get__(self, instance, owner=None):
        setattr(instance, "_bound_" + self.fn.__name__, True)
        return self.fn.__get__(instance, owner)


class Scale:
    def __init__(self, s):
        self.s = jnp.asarray(s)

    @lazy_property
    def inv(self):
        return 1.0 / self.s

    @dict_cached
    def half(self):
        return self.s / 2

    @concrete_only
    def double(self):
        return self.s * 2

    def apply(self, x):
        return x * self.inv

    def apply_half(self, x):
        return x * self.half

    def apply_double(self, x):
        return x * self.double
