"""LiteLLM: ``reader`` reads a ``ModelResponse``; ``merger`` merges a stream of its chunks."""
