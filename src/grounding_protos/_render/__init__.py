"""Rendering placed citations: inline markers and source lists (``markers``), the HTML
view of an answer's Markdown (``markdown_html``), and the self-contained page
(``page``).

Imports the citation core's model and :mod:`grounding_protos._offsets`; markdown-it-py
lazily, where the HTML view needs it.
"""
