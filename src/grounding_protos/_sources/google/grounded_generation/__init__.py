"""Vertex AI grounded generation (``generateGroundedContent``): ``reader`` reads a response;
``merger`` merges its stream into one."""
