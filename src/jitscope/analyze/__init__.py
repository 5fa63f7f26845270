"""Analyzers: pure functions over collected records (reasons, IR stats, bloat, break-even, scaling)."""
