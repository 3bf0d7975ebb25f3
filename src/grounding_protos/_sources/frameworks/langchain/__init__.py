"""LangChain: ``reader`` reads an ``AIMessage`` (or its dump); ``merger`` adds up a stream of
``AIMessageChunk``s."""
