"""Shared pytest configuration."""

# tests/typing holds files for mypy to check (one of them must not type-check, and
# must not run): tests/test_typing.py runs mypy on them; pytest must not import them.
collect_ignore_glob = ["typing/*"]
