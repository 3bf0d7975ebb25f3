"""Google's sources: Gemini (``generateContent``), its Live and Interactions APIs, and
Discovery Engine / Vertex AI Search (answers, Assist, grounded generation,
CheckGrounding, search summaries)."""
