"""pydantic-ai: ``reader`` reads a ``ModelResponse`` (or its history JSON); ``merger`` the
messages of a run."""
