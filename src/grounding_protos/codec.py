"""proto3 JSON for the package's messages: json_format's exact results, much faster.

``to_dict``/``to_json`` and ``from_dict``/``from_json`` give what
``google.protobuf.json_format``'s ``MessageToDict``/``MessageToJson`` and
``ParseDict``/``Parse`` give on the installed protobuf runtime, with the same
options, through a conversion plan made once per message type. Invalid input raises
:class:`~grounding_protos.JSONParseError` (a ``json_format.ParseError``) naming the
JSON path.

>>> from grounding_protos.codec import from_json, to_dict
>>> answer = from_json("Answer", '{"answerText": "Café", "citations": [{"endIndex": "5"}]}')
>>> to_dict(answer)
{'answerText': 'Café', 'citations': [{'endIndex': '5'}]}
"""

from grounding_protos._codec.codec import (
    Codec,
    from_dict,
    from_json,
    generated_source,
    to_dict,
    to_json,
)
from grounding_protos._proto.errors import JSONParseError

__all__ = [
    "Codec",
    "JSONParseError",
    "from_dict",
    "from_json",
    "generated_source",
    "to_dict",
    "to_json",
]
