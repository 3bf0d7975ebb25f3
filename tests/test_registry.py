"""message_class / message_types: lookup by full or short name, clear errors."""

from __future__ import annotations

import pytest

import grounding_protos
from grounding_protos import (
    AmbiguousTypeError,
    ArgumentTypeError,
    GroundingProtosError,
    UnknownTypeError,
    message_class,
    message_types,
)

pytestmark = pytest.mark.smoke


@pytest.mark.parametrize("name", message_types())
def test_full_name_and_every_unique_tail_resolve(name: str) -> None:
    cls = message_class(name)
    assert cls.DESCRIPTOR.full_name == name
    parts = name.split(".")
    for i in range(1, len(parts)):
        tail = ".".join(parts[i:])
        owners = [n for n in message_types() if n == tail or n.endswith("." + tail)]
        if owners == [name]:
            assert message_class(tail) is cls
        else:
            with pytest.raises(AmbiguousTypeError):
                message_class(tail)


@pytest.mark.parametrize(
    "name, full",
    [
        ("Answer", "google.cloud.discoveryengine.v1.Answer"),
        ("Answer.Citation", "google.cloud.discoveryengine.v1.Answer.Citation"),
        ("Segment", "google.cloud.dialogflow.v2beta1.Segment"),
        ("FactChunk", "google.cloud.discoveryengine.v1beta.FactChunk"),
        ("v2beta1.GroundingSupport", "google.cloud.dialogflow.v2beta1.GroundingSupport"),
        (".google.ai.generativelanguage.v1beta3.CitationSource",
         "google.ai.generativelanguage.v1beta3.CitationSource"),
        ("type.googleapis.com/google.cloud.discoveryengine.v1.SafetyRating",
         "google.cloud.discoveryengine.v1.SafetyRating"),
    ],
)  # fmt: skip
def test_short_names(name: str, full: str) -> None:
    assert message_class(name).DESCRIPTOR.full_name == full


def test_ambiguous_name_lists_candidates() -> None:
    with pytest.raises(AmbiguousTypeError) as info:
        message_class("GroundingSupport")
    expected = (
        "google.cloud.dialogflow.v2beta1.GroundingSupport",
        "google.cloud.discoveryengine.v1.Answer.GroundingSupport",
    )
    assert info.value.candidates == expected
    for candidate in expected:
        assert candidate in str(info.value)
    assert isinstance(info.value, LookupError) and isinstance(info.value, GroundingProtosError)


def test_citation_source_is_ambiguous_across_apis() -> None:
    with pytest.raises(AmbiguousTypeError, match=r"v1beta3\.CitationSource"):
        message_class("CitationSource")


@pytest.mark.parametrize("name", ["Answr", "answer", "google.cloud.discoveryengine.v1.Anwser"])
def test_unknown_name_suggests_close_ones(name: str) -> None:
    with pytest.raises(UnknownTypeError) as info:
        message_class(name)
    message = str(info.value)
    assert repr(name) in message
    assert "did you mean google.cloud.discoveryengine.v1.Answer" in message
    assert info.value.candidates == ()


@pytest.mark.parametrize("name", ["", "Nothing", "google.protobuf.Timestamp", "nswer"])
def test_unknown_names(name: str) -> None:
    with pytest.raises(UnknownTypeError, match="unknown message type"):
        message_class(name)


def test_non_string_name_is_a_type_error() -> None:
    with pytest.raises(ArgumentTypeError, match="must be a str, not int"):
        message_class(42)  # type: ignore[arg-type]
    assert issubclass(ArgumentTypeError, TypeError)


def test_lazy_package_attributes() -> None:
    assert grounding_protos.message_class is message_class
    assert set(grounding_protos.__all__) <= set(dir(grounding_protos))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        grounding_protos.nope  # noqa: B018
