"""Every name the public modules exported in 0.1 is still importable from the same module.

The lists are 0.1's ``__all__`` (commit dcf71e6, before the layers became folders),
written out so that a move can never drop one silently. New names may be added.
"""

from __future__ import annotations

import importlib

import pytest

EXPORTED_IN_0_1 = {
    "grounding_protos": [
        "AmbiguousTypeError", "ArgumentTypeError", "ArgumentValueError", "CitationError",
        "GroundingProtosError", "JSONParseError", "MissingDependencyError", "NotBuiltError",
        "OffsetError", "Problem", "StreamError", "TextEncodingError", "TypeLookupError",
        "UnknownTypeError", "UnsupportedInputError", "WireFormatError", "from_bytes",
        "message_class", "message_types", "validate",
    ],
    "grounding_protos.citations": [
        "Citation", "CitationKind", "Grounded", "InputShape", "ListStyle", "MarkerStyle",
        "Problem", "RenderStyle", "SHAPES", "SearchInfo", "Source", "SourceKind",
        "SpanPolicy", "StreamReader", "Update", "UrlStatus", "aread_stream", "aresolve_urls",
        "cited_characters", "extract", "number_sources", "read", "read_stream", "render",
        "resolve_urls", "search_notes", "source_list",
    ],
    "grounding_protos.codec": [
        "Codec", "JSONParseError", "from_dict", "from_json", "generated_source", "to_dict",
        "to_json",
    ],
    "grounding_protos.offsets": [
        "OffsetError", "PartMap", "Snap", "SpanSnap", "TextEncodingError", "TextIndex", "Unit",
        "byte_slice", "byte_to_char", "byte_to_utf16", "char_to_byte", "char_to_utf16",
        "utf16_to_byte", "utf16_to_char",
    ],
    "grounding_protos.convert": [
        "Converted", "OpenAIApi", "fact_chunk_to_source", "from_official",
        "grounding_fact_losses", "grounding_fact_to_source", "source_to_fact_chunk",
        "source_to_grounding_fact", "to_citation_metadata", "to_grounding_metadata",
        "to_langchain_blocks", "to_official", "to_openai_annotations",
    ],
    "grounding_protos.batch": [
        "Command", "ErrorMode", "LineOptions", "process_line", "process_lines",
    ],
    # build_parser and PROG were public names of 0.1's cli module, outside __all__.
    "grounding_protos.cli": ["main", "build_parser", "PROG"],
    "grounding_protos.well_known": [
        "ListValue", "NullValue", "Struct", "Timestamp", "Value", "struct", "timestamp",
    ],
    "grounding_protos.dialogflow_v2beta1": [
        "GroundingChunk", "GroundingMetadata", "GroundingSupport", "SearchEntryPoint", "Segment",
    ],
    "grounding_protos.discoveryengine_v1": ["Answer", "HarmCategory", "SafetyRating"],
    "grounding_protos.discoveryengine_v1beta": ["FactChunk", "GroundingFact"],
    "grounding_protos.generativelanguage_v1beta3": ["CitationMetadata", "CitationSource"],
}  # fmt: skip


@pytest.mark.parametrize("module", sorted(EXPORTED_IN_0_1))
def test_names_of_0_1_stay_importable(module: str) -> None:
    mod = importlib.import_module(module)
    missing = [name for name in EXPORTED_IN_0_1[module] if not hasattr(mod, name)]
    assert missing == []
    dropped = sorted(set(EXPORTED_IN_0_1[module]) - set(mod.__all__) - {"build_parser", "PROG"})
    assert dropped == [], f"{module}.__all__ lost {dropped}"


def test_the_cli_entry_point_is_the_same_function() -> None:
    from grounding_protos._cli.main import main as moved
    from grounding_protos.cli import main

    assert main is moved
