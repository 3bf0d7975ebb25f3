"""Gemini ``generateContent`` (API and Vertex AI): ``reader`` reads a response, a
candidate or its metadata; ``merger`` merges a stream of chunks into one response."""
