"""Anthropic's Messages API ``Message`` as declared shapes (``msgspec.Struct``), and the
fast reader of what they hold exactly.

The Structs follow the API's JSON (snake_case, ``null`` as absent; the SDK's
``model_dump()`` gives the same). The message and its citations refuse any field they
do not declare (a camelCase key, a field added since): the tolerant reader reads those.
A content block declares only what the reader looks at (``type``, ``text``,
``citations``): the other blocks (thinking, tool use, server tool results) are
skipped by both readers, whatever else they hold. They are decoded straight from JSON
text (:func:`decode`) or converted from a dict (:func:`convert`); a wrong JSON type
in a declared field fails the decode.

:func:`grounded` reads the common case (text blocks, cited whole, every text with a
UTF-8 form) into the very ``Grounded`` the tolerant reader (``reader.py``) and
``_core.resolve`` give, and says ``None`` for anything else; the caller then reads the
input the tolerant way, so every problem and error stays where it is. Less is built
per citation than there: the blocks' byte offsets are counted as the text is joined
(a cited block is its own span, so its text agrees with its offsets by construction),
each distinct source is built once and shared by the citations that cite it, and no
path is built but the citation's own.

>>> message = convert({"type": "message", "role": "assistant", "content": [
...     {"type": "text", "text": "Köln "},
...     {"type": "text", "text": "wächst.", "citations": [{
...         "type": "web_search_result_location", "url": "https://k.example",
...         "title": "K", "cited_text": "Köln wächst.", "encrypted_index": "e0"}]}]})
>>> c = grounded(message, 0).citations[0]
>>> c.start, c.end, c.char_start, c.text, c.sources[0].uri
(6, 14, 5, 'wächst.', 'https://k.example')
"""

from __future__ import annotations

from typing import Any

import msgspec

from grounding_protos._core.fast import Codec
from grounding_protos._core.model import (
    Citation,
    Grounded,
    SearchInfo,
    SharedText,
    Source,
    new_citation,
    new_grounded,
)
from grounding_protos._sources.anthropic.reader import source_of, source_values


class _Shape(msgspec.Struct, omit_defaults=True, gc=False):
    """A declared Anthropic JSON object: snake_case, every field optional; never in a
    reference cycle, so not tracked by the garbage collector (``gc=False``)."""


class Location(_Shape, forbid_unknown_fields=True):
    """A citation, of any location kind: the fields of all of them, no other."""

    type: str | None = None
    cited_text: str | None = None
    # web_search_result_location
    url: str | None = None
    title: str | None = None
    encrypted_index: Any = None
    # search_result_location
    source: str | None = None
    search_result_index: int | None = None
    start_block_index: int | None = None
    end_block_index: int | None = None
    # char_location, page_location, content_block_location
    document_index: int | None = None
    document_title: str | None = None
    file_id: str | None = None
    start_char_index: int | None = None
    end_char_index: int | None = None
    start_page_number: int | None = None
    end_page_number: int | None = None


class Block(_Shape):
    """A content block: what the reader reads of it (other fields are let through)."""

    type: str | None = None
    text: str | None = None
    citations: list[Location] | None = None


class Message(_Shape, forbid_unknown_fields=True):
    """A ``Message``: the fields of the API's and SDK's ``Message`` (``usage``, ``container``
    and the like are not read), no other."""

    type: str | None = None
    content: list[Block] | None = None
    stop_reason: str | None = None
    id: Any = None
    role: Any = None
    model: Any = None
    stop_sequence: Any = None
    stop_details: Any = None
    usage: Any = None
    container: Any = None
    context_management: Any = None
    diagnostics: Any = None


UNIT: None = None
"""What a ``unit=`` of ``read`` must be for the fast path (``_citations.fast``): none,
since the spans are whole blocks, for which any ``unit`` is an error."""

_codec = Codec(Message)
decode = _codec.decode
"""The declared message in JSON text, or ``None`` when the text is not one (invalid
JSON, another shape, a field it does not declare or of another type)."""
convert = _codec.convert
"""The declared message a JSON dict is, or ``None``."""
_WEB = "web_search_result_location"


def grounded(message: Message, candidate: int) -> Grounded | None:
    """What ``read`` gives for ``message`` (with the default options; a message has one
    answer, whatever ``candidate`` says), when the declared fields hold all of it;
    ``None`` otherwise."""
    if message.type != "message" or message.content is None:
        return None
    reason = message.stop_reason
    if type(reason) is not str and reason is not None:  # a str enum (a converted dict's)
        reason = getattr(reason, "value", reason)
        if not isinstance(reason, str):
            return None
    texts: list[str] = []
    join = texts.append
    answer = SharedText("")  # the joined text, once known: the citations slice it
    citations_out: list[Citation] = []
    built: dict[tuple[Any, ...], Source] = {}  # each source once, by what it is made of
    shared: dict[Source, Source] = {}  # equal sources made of other values: the first one
    at = byte = 0
    for i, block in enumerate(message.content):
        if block.type != "text":
            continue
        text = block.text
        if text is None:
            text = ""
        elif type(text) is not str:  # a str enum or subclass: as the reader reads it
            return None
        end = at + len(text)
        if text.isascii():
            last = byte + len(text)
        else:
            try:
                last = byte + len(text.encode())
            except UnicodeEncodeError:  # a lone surrogate: the reader reports it
                return None
        citations = block.citations
        if citations:  # the block is the span: its text agrees with it by construction
            sources = []
            for location in citations:
                if location.type == _WEB:  # the common case, as source_values makes it
                    values: tuple[Any, ...] = (
                        "web", location.url or None, location.title or None,
                        location.cited_text or None,
                    )  # fmt: skip
                else:
                    values = source_values(location)
                source = built.get(values)
                if source is None:
                    made = source_of(values)
                    source = built[values] = shared.setdefault(made, made)
                sources.append(source)
            citations_out.append(new_citation(
                byte, last, at, end, answer, tuple(sources), "citation", None, (), None,
                f"content[{i}]",
            ))  # fmt: skip
        join(text)
        at, byte = end, last
    answer.text = whole = "".join(texts)
    return new_grounded(
        whole, citations_out, list(shared), "anthropic_message", SearchInfo(), reason
    )
