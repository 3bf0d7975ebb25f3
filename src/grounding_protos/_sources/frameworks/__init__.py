"""The frameworks people build with, each read as the framework holds a vendor's answer:
LangChain messages, LiteLLM responses, pydantic-ai messages, Google ADK events."""
