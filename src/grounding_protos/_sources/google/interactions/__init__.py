"""The Gemini Interactions API: ``reader`` reads an interaction; ``merger`` merges its
stream of events into one."""
