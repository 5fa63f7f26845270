"""What JAX does to a user's function: the one place each fact lives (lint, watch and inspect read it).

* ``transforms``: every transformation and wrapper jitscope knows, by qualified name, with what it
  makes of the function's arguments (a Python value, a concrete tracer, an abstract tracer), whether
  it compiles and caches per function object, and its static/donation options.
* ``families``: one module per wrapper family (``jax``, ``equinox``, ``flax``, ...), each a table of
  ``Transform`` records; ``known`` merges them.
* ``fixes``: the catalogue of fixes, phrased once per pitfall and per wrapper family, so lint, watch
  and inspect give the same advice for the same code.

Pure data and small functions: nothing here imports JAX (the lint path stays light) or any other
jitscope layer but the ground floor. Each row cites the JAX (or library) documentation it rests on
and is checked against the real library in ``tests/test_jaxmodel.py``.
"""
