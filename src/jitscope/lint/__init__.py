"""Static detection of jit pitfalls: the lint stage (``jitscope.lint`` is the command, in ``_lint.py``).

Pure ``ast``: linting never imports JAX, so it is fast and safe to run on any code.
The engine (``engine.py``) parses each file once and visits it once; rules live one per
module in ``rules/`` (base class in ``rule.py``, context in ``context.py``) and are listed by
``registry.py``; ``config.py`` reads ``[tool.jitscope]``; ``fixes.py`` computes fixes and
``write.py`` writes them back; ``runner.py`` runs files in parallel.
"""

from __future__ import annotations

from .engine import lint_source as lint_source

__all__ = ["lint_source"]
