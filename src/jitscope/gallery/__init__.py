"""The seeds' case studies, used by ``jitscope demo`` and ``benchmarks/seed_tables.py``."""
