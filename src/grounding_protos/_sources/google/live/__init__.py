"""The Gemini Live API: ``reader`` reads a server message; ``merger`` merges a turn's
messages into one."""
