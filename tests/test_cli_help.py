"""The command line's help (issue 33, point 13): each command's own examples (the
top level all of them), options only where they work, and descriptions that name what
the commands read."""

from __future__ import annotations

from typing import Any

import pytest

from grounding_protos.cli import main


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def test_max_input_only_where_input_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--max-input" not in help_of(capsys, "types")
    for command in ("decode", "encode", "convert", "render", "validate", "inspect"):
        assert "--max-input" in help_of(capsys, command), command
    assert main(["types", "--max-input", "1K"]) == 2
    capsys.readouterr()


def test_the_top_level_names_more_than_google(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(help_of(capsys).split())
    for name in ("Gemini", "OpenAI", "Anthropic", "Cohere", "Bedrock", "Perplexity",
                 "LangChain", "LiteLLM", "pydantic-ai", "ADK", "streams"):  # fmt: skip
        assert name in text, name


def test_render_help_names_what_render_reads(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(help_of(capsys, "render").split())
    for name in ("Perplexity", "LangChain", "LiteLLM", "pydantic-ai", "Google ADK",
                 "recorded stream", "SSE", "Live session", "--turn", "--markers",
                 "--no-highlight", "--lang", "--fragment"):  # fmt: skip
        assert name in text, name


@pytest.mark.parametrize(
    ("command", "python"),
    [("render", "citations.render"), ("validate", "validate_stream"), ("types", "message_types")],
)
def test_each_command_says_its_python(
    capsys: pytest.CaptureFixture[str], command: str, python: Any
) -> None:
    assert python in help_of(capsys, command)
