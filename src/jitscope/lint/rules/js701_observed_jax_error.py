"""JS701 observed-jax-error."""

from __future__ import annotations

from ..rule import Rule


class ObservedJaxError(Rule):
    """A run of this code died of an error JAX raised here (or raised while JAX traced it) that no static rule covers.

    ## What it does
    Reported only with `jitscope lint --evidence RUN`, from what the run observed, never from the source
    alone: the program died of an exception that passed through JAX's code or was raised while JAX
    traced the function (a `TypeError` about a traced or abstract value, a pytree structure mismatch, a
    `lax.switch` branch whose outputs differ, a sharding or lowering error, a library's own check that
    failed on a tracer). The finding is at the innermost frame of the error's chain inside the linted
    tree (a driver or test outside it that made the call does not hide the library's line), with
    JAX's message, whether that frame was being traced, and the calls that reached it as related
    locations. An error of a class a static rule covers (a tracer converted to `bool`, an unhashable
    static argument, ...) is reported under that rule's code instead.

    ## Why is this bad?
    The run proved that this line fails under JAX for the inputs the run gave it: `error`, certain
    for that way of reaching it. Which line is the defect is not always the line that raised: read
    the related calls (the value may be built by a caller).

    ## Example
    ```python
    def step(i, x):
        return jax.lax.switch(i, [lambda x: x, lambda x: x.astype(jnp.int32)], x)  # branches differ
    ```

    ## Use instead
    ```python
    def step(i, x):
        return jax.lax.switch(i, [lambda x: x, lambda x: x.astype(jnp.int32).astype(x.dtype)], x)
    ```

    ## Fix safety
    No fix is offered: the run says where JAX failed, not how the program should change.
    """

    code = "JS701"
    name = "observed-jax-error"
    message = "JAX raised {error} here: {detail}"
    severity = "error"
    confidence = "certain"
