"""Anthropic Messages: ``reader`` reads a message with cited text blocks; ``merger``
merges a Messages stream into one message."""
