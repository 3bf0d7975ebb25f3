"""The OpenAI API and the APIs shaped like it (xAI, OpenRouter): ``reader`` reads a whole
Responses API response, chat completion or Assistants thread message; ``responses_stream``,
``chat_stream`` and ``assistants_stream`` merge each API's stream into that response."""
