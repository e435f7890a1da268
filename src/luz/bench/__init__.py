"""Benchmarks behind ``luz bench``: figures measured as ratios against a reference in the same run."""
