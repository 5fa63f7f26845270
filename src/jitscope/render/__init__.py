"""Renderers: one per output format, each takes a result object and returns or prints text."""
