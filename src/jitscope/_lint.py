"""``jitscope.lint(paths)``: the lint command, files in, a ``LintResult`` out."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from .errors import UsageError
from .lint import evidence as lint_evidence
from .lint import runner
from .lint import unknown_callers as lint_unknown
from .lint.config import LintConfig, find_config, load_config
from .lint.engine import lint_source as lint_source
from .lint.registry import check_selectors, get_rule, selected_codes
from .model import Environment
from .results.lint import LintResult


def lint(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] = ".", *,
         select: Iterable[str] | None = None, ignore: Iterable[str] | None = None, fix: bool = False,
         unsafe_fixes: bool = False, diff: bool = False, jobs: int | None = None,
         config: bool | str | os.PathLike[str] = True, keep_partial_on_interrupt: bool = False,
         evidence: str | os.PathLike[str] | bool | None = None, unknown_callers: bool | None = None):
    """Lint Python files for jit pitfalls and return a ``LintResult``.

    Args:
        paths: files and/or directories (directories are searched for ``*.py``).
        select: rule codes or prefixes to enable (``["JS1", "JS201"]``); default: the
            configuration's ``select``, else every rule.
        ignore: rule codes or prefixes to disable, added to the configuration's ``ignore``.
        fix: apply safe fixes to the files (and report what remains).
        unsafe_fixes: with ``fix`` or ``diff``, also apply fixes marked unsafe.
        diff: compute the fixes as a unified diff in ``result.diff`` without writing files.
        jobs: worker processes (default: all CPUs); clamped to the CPUs this process may use and
            to the number of files; files run in parallel for large trees.
        config: ``True`` to find ``[tool.jitscope]`` in the nearest pyproject.toml,
            ``False`` to ignore configuration, or a path to a pyproject.toml.
        keep_partial_on_interrupt: on Ctrl-C, stop and return what was linted so far
            (``result.interrupted``) instead of raising ``KeyboardInterrupt``. A file being
            fixed is written whole or not at all either way.
        evidence: trace evidence of a run (``model.TraceEvidence``: a trace-evidence file, a watch
            result carrying one, or a directory holding ``trace-evidence.json``); ``None`` reads
            ``.jitscope/trace-evidence.json`` when a run left one there, ``False`` reads none.
            Functions the run saw traced are linted as traced (docs/lint.md "Evidence from a run").
        unknown_callers: also lint the public functions of a package that no linted jit reaches as if a
            user jitted them (``info`` findings; docs/lint.md "Unknown callers"); ``None`` takes the
            configuration's ``unknown-callers`` (default off).

    Returns:
        LintResult with the findings (``model.Finding``), counts and fixes applied.

    Raises:
        UsageError: a path that does not exist, an unknown rule code, a bad configuration.

    Example:
        >>> import jitscope
        >>> result = jitscope.lint(["src/"], select=["JS1", "JS2"])
        >>> for f in result.findings:
        ...     print(f.location, f.code, f.message)
    """

    return run(paths, select=select, ignore=ignore, fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, jobs=jobs,
               config=config, keep_partial_on_interrupt=keep_partial_on_interrupt, evidence=evidence,
               unknown_callers=unknown_callers)


def run(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] = ".", *,
        select: Iterable[str] | None = None, ignore: Iterable[str] | None = None, fix: bool = False,
        unsafe_fixes: bool = False, diff: bool = False, jobs: int | None = None,
        config: bool | str | os.PathLike[str] = True, keep_partial_on_interrupt: bool = False,
        evidence: str | os.PathLike[str] | bool | None = None, env: bool = True,
        unknown_callers: bool | None = None):
    """``lint``; with ``env=False`` the result's ``env`` is left empty: ``jitscope lint`` printing text (nothing
    that shows the environment) does not pay for ``platform.platform()``, which runs ``uname -p`` in a
    subprocess (a tenth of what one small file's lint cost)."""
    started = time.perf_counter()
    path_list = [str(paths)] if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
    if not path_list:
        path_list = ["."]
    cli_select = check_selectors(select or [], "--select")
    cli_ignore = check_selectors(ignore or [], "--ignore")
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs must be at least 1 (got {jobs})")
    files = runner.collect_files(path_list)
    evidence_file = None if evidence is False else lint_evidence.find(None if evidence in (None, True) else str(evidence))
    tables = lint_evidence.index(lint_evidence.load(evidence_file), str(evidence_file), files) if evidence_file else None
    if config is True:
        found = find_config(path_list[0])
        cfg = load_config(found) if found else LintConfig()
    elif config is False:
        cfg = LintConfig()
    else:
        if not os.path.isfile(config):
            raise UsageError(f"{config}: no such config file")
        cfg = load_config(config)
    base_select = (cli_select or cfg.select or ["ALL"]) + cfg.extend_select
    base_ignore = cfg.ignore + cli_ignore
    cache: dict[tuple[str, ...], frozenset[str]] = {}
    items = []
    for f in files:
        if cfg.exclude and f not in path_list and cfg.excluded(f):
            continue
        extra = tuple(cfg.ignored_for(f)) if cfg.per_file_ignores else ()
        if extra not in cache:
            cache[extra] = frozenset(selected_codes(base_select, base_ignore + list(extra)))
        items.append((f, cache[extra]))
    safeties = ("safe", "unsafe") if unsafe_fixes else ("safe",)
    n_jobs = runner.clamp_jobs(jobs, len(items))
    result = LintResult(paths=path_list, select=base_select, ignore=base_ignore, config=cfg.path, jobs=n_jobs,
                        env=Environment.capture(with_jax=False) if env else Environment(),
                        evidence=str(evidence_file) if evidence_file else None)
    diffs = []
    by_file: dict[str, list] = {}
    # Read by the walk in this process and in the workers it forks (lint/reach.py); restored after the run.
    unknown_before = lint_unknown.ENABLED
    lint_unknown.ENABLED = cfg.unknown_callers if unknown_callers is None else bool(unknown_callers)
    try:
        for outcome in runner.run(items, jobs=n_jobs, fix=safeties if (fix or diff) else (), diff=diff,
                                  tables=tables):
            if outcome.replaces:  # linted again with calls from other files: every finding of the file, once
                kept = [f for f in by_file.get(outcome.path, ()) if f.code == "JS002"]  # e.g. fixes not written
                by_file[outcome.path] = kept + outcome.findings
                continue
            if fix and not diff:
                runner.write_outcome(outcome)  # a refused file keeps its findings plus one JS002 line why
            result.files_checked += 1
            result.lines_checked += outcome.lines
            by_file.setdefault(outcome.path, []).extend(outcome.findings)
            if outcome.fixes_applied:
                result.fixes_applied += outcome.fixes_applied
                result.files_fixed.append(outcome.path)
                if diff:
                    diffs.append(outcome.diff)
    except KeyboardInterrupt:
        if not keep_partial_on_interrupt:
            raise
        result.interrupted = True
    finally:
        lint_unknown.ENABLED = unknown_before
    result.diff = "".join(diffs)
    # File order whatever the workers' order; within a file, by position.
    order = {f: i for i, (f, _) in enumerate(items)}
    for path in sorted(by_file, key=lambda p: order.get(p, len(order))):
        result.findings.extend(sorted(by_file[path], key=lambda f: (
            f.location.line if f.location else 0, (f.location.column or 0) if f.location else 0, f.code)))
    for f in result.findings:
        if f.fix is not None and f.fix.replacement is not None:
            if f.fix.safety == "safe":
                result.fixable += 1
            elif f.fix.safety == "unsafe":
                result.unsafe_fixable += 1
    result.duration_s = time.perf_counter() - started
    return result


def files_to_lint(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The files ``lint(paths)`` would read (directories expanded), without reading them."""
    path_list = [str(paths)] if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
    try:
        return runner.collect_files(path_list or ["."])
    except UsageError:
        return []  # the lint run itself reports the bad path


def rule_catalog(code: str | None = None, markdown: bool = False) -> str:
    """``jitscope rules``: the catalog as a table, as Markdown (docs/rules.md), or one rule's documentation."""
    from .lint.docs import rule_text, rules_markdown, rules_table  # `jitscope rules` only, never a lint

    if markdown:
        return rules_markdown()
    if code:
        return rule_text(get_rule(code))
    return rules_table()
