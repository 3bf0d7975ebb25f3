"""Network access: grounding redirect URLs resolved to the pages they point at. The
package's only network code; opt-in, imported lazily by ``_citations.links`` and the
CLI, and by nothing else.

Imports the citation core's model; httpx lazily.
"""
