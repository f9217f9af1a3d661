"""A two-turn tool loop the way Python applications write it: the first answer's content objects are
passed back with model_dump(), which writes every unset optional field as null ("caller": null,
"refusal": null, ...), and a stateless Responses client replays its encrypted reasoning without an id.

usage: model_dump_replay.py GATEWAY_URL SCENARIO MODEL [MODEL ...]
Prints one JSON line per model: {"model", "text"} (the second answer's text).
"""
import json
import sys

import anthropic
import openai

TOOL_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def anthropic_loop(url: str, model: str) -> str:
    client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
    tools = [{"name": "get_weather", "description": "Weather of a city", "input_schema": TOOL_SCHEMA}]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.messages.create(model=model, max_tokens=256, tools=tools, messages=messages)
    messages.append({"role": "assistant", "content": [block.model_dump() for block in first.content]})
    results = [{"type": "tool_result", "tool_use_id": b.id, "content": "18C"} for b in first.content if b.type == "tool_use"]
    messages.append({"role": "user", "content": results})
    second = client.messages.create(model=model, max_tokens=256, tools=tools, messages=messages)
    return "".join(b.text for b in second.content if b.type == "text")


def chat_loop(url: str, model: str) -> str:
    client = openai.OpenAI(api_key="k", base_url=url + "/v1", max_retries=0)
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city", "parameters": TOOL_SCHEMA}}]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(model=model, tools=tools, messages=messages)
    message = first.choices[0].message
    messages.append(message.model_dump())
    for call in message.tool_calls or []:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": "18C"})
    second = client.chat.completions.create(model=model, tools=tools, messages=messages)
    return second.choices[0].message.content or ""


def responses_loop(url: str, model: str) -> str:
    client = openai.OpenAI(api_key="k", base_url=url + "/v1", max_retries=0)
    tools = [{"type": "function", "name": "get_weather", "description": "Weather of a city", "parameters": TOOL_SCHEMA, "strict": False}]
    items = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.responses.create(model=model, input=items, tools=tools, store=False, include=["reasoning.encrypted_content"])
    for item in first.output:
        dumped = item.model_dump()
        if item.type == "reasoning":
            dumped.pop("id")  # nothing is stored: the encrypted content is what carries the reasoning
        items.append(dumped)
        if item.type == "function_call":
            items.append({"type": "function_call_output", "call_id": item.call_id, "output": "18C"})
    second = client.responses.create(model=model, input=items, tools=tools, store=False, include=["reasoning.encrypted_content"])
    return second.output_text


LOOPS = {"anthropic": anthropic_loop, "openai": chat_loop, "responses": responses_loop}

if __name__ == "__main__":
    url, scenario, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    for model in models:
        try:
            print(json.dumps({"model": model, "text": LOOPS[scenario](url, model)}), flush=True)
        except Exception as error:  # reported, not raised: the caller asserts per model
            print(json.dumps({"model": model, "error": f"{type(error).__name__}: {error}"}), flush=True)
