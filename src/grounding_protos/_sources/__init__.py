"""The sources of citations: one place per vendor API or framework, each holding how its
input is recognized, its reader (input -> raw records of :mod:`grounding_protos._core.raw`)
and, where it streams, its merger (events -> the source's own final response).

Grouped where it helps: ``google/`` (Gemini and its Live and Interactions APIs, Discovery
Engine), ``openai/`` (the OpenAI API and the APIs shaped like it), ``frameworks/``
(LangChain, LiteLLM, pydantic-ai, Google ADK); ``anthropic/``, ``cohere/``, ``bedrock/``,
``mistral/`` stand alone, and so do the sources that cite by markers in the text: ``perplexity``,
``azure_on_your_data``, ``xai`` and ``openrouter``. What the sources share is here, one
level down: ``common`` (the readers' structural helpers), ``markers`` (the marker rule,
where the code is, cutting markers), ``merging`` (the mergers' machinery) and ``parse``
(SSE and JSON-array recordings as numbered chunks). ``registry`` lists every
source once and picks the one that reads an input.

Imports the citation core and the generated layer, nothing above: a merger ends at the
merged final response, which the stream entry points (``_streams``) read.
"""
