"""Collectors: record what happens (timings, compile events, script runs). No rendering here."""
