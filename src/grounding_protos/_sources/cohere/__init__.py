"""Cohere v2 chat: ``reader`` reads a chat response; ``merger`` merges its stream into one."""
