"""Google ADK: ``reader`` reads the grounding a session's state holds; ``merger`` merges a
run's events into one response."""
