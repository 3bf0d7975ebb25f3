"""Amazon Bedrock: ``retrieve_and_generate`` (a RetrieveAndGenerate response) and
``retrieve_and_generate_stream`` (its stream), ``converse`` (a Converse response with
``citationsContent``, Nova's content-less blocks included) and ``converse_stream`` (a
ConverseStream), ``invoke_agent`` (an Agents InvokeAgent ``chunk``) and
``invoke_agent_stream`` (its stream of chunks); ``checks`` (the agents runtime events'
typed fields) and ``eventstream`` (any of these streams as raw
``application/vnd.amazon.eventstream`` bytes, decoded into boto3's event dicts)."""
