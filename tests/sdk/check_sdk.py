#!/usr/bin/env python3
"""Check the simulator against the official Anthropic and OpenAI Python SDKs.

Usage: check_sdk.py BASE_URL      (e.g. http://127.0.0.1:4000, from `deepterm sim`)
Needs: pip install anthropic openai. Exits non-zero on the first mismatch.
"""
import json
import sys
import urllib.request

import anthropic
import openai

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:4000"
KEY = "sk-sim"
SYSTEM = "You are a careful assistant working inside a terminal. " * 30
TOOL = {
    "name": "read_file",
    "description": "Read a UTF-8 file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def queue(*replies):
    req = urllib.request.Request(
        f"{BASE}/_sim/replies", data=json.dumps(list(replies)).encode(), method="POST",
        headers={"content-type": "application/json"})
    with urllib.request.urlopen(req) as r:
        assert r.status == 200


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok   {what}")


def anthropic_checks():
    client = anthropic.Anthropic(base_url=f"{BASE}/anthropic", api_key=KEY, max_retries=0)
    queue({"thinking": "Need the manifest. 思考", "text": "Reading — ünïcødé.",
           "tool_calls": [{"name": "read_file", "input": {"path": "Cargo.toml"}}]})
    with client.messages.stream(model="deepseek-flash", max_tokens=4096, system=SYSTEM,
                                tools=[TOOL], messages=[{"role": "user", "content": "read Cargo.toml"}]) as s:
        text = "".join(s.text_stream)
        msg = s.get_final_message()
    types = [b.type for b in msg.content]
    check(types == ["thinking", "text", "tool_use"], f"anthropic stream block types {types}")
    check(msg.content[0].thinking == "Need the manifest. 思考", "anthropic thinking text")
    check(bool(msg.content[0].signature), "anthropic thinking signature")
    check(text == "Reading — ünïcødé." == msg.content[1].text, "anthropic text deltas")
    check(msg.content[2].input == {"path": "Cargo.toml"}, "anthropic tool input from partial_json")
    check(msg.content[2].id.startswith("call_00_"), "anthropic tool id")
    check(msg.stop_reason == "tool_use", "anthropic stop_reason")
    check(msg.usage.output_tokens > 0 and msg.usage.cache_read_input_tokens == 0, "anthropic usage (first request)")

    # Second request replays the turn (SDK objects → params) and should hit the cache.
    history = [{"role": "user", "content": "read Cargo.toml"},
               {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in msg.content]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": msg.content[2].id,
                                             "content": "[package]\nname = \"deepterm\""}]}]
    msg2 = client.messages.create(model="deepseek-flash", max_tokens=4096, system=SYSTEM,
                                  tools=[TOOL], messages=history)
    check(msg2.usage.cache_read_input_tokens > 0, f"anthropic cache hit {msg2.usage.cache_read_input_tokens}")
    check(msg2.content[-1].type == "text", "anthropic non-streaming demo summary")

    queue({"stream_error": "overloaded mid-stream"})
    try:
        with client.messages.stream(model="deepseek-flash", max_tokens=100,
                                    messages=[{"role": "user", "content": "x"}]) as s:
            for _ in s:
                pass
        check(False, "anthropic in-stream error raises")
    except anthropic.APIError as e:
        check("overloaded mid-stream" in str(e), f"anthropic in-stream error raises ({type(e).__name__})")

    try:
        client.messages.create(model="gpt-4o", max_tokens=10, messages=[{"role": "user", "content": "x"}])
        check(False, "anthropic 400 raises")
    except anthropic.BadRequestError as e:
        check("Model Not Exist" in str(e), "anthropic 400 BadRequestError")


def openai_checks():
    client = openai.OpenAI(base_url=BASE, api_key=KEY, max_retries=0)
    queue({"thinking": "Plan.", "text": "Calling.",
           "tool_calls": [{"name": "read_file", "input": {"path": "a"}},
                          {"name": "read_file", "input": {"path": "b"}}]})
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read.",
                                               "parameters": TOOL["input_schema"]}}]
    stream = client.chat.completions.create(
        model="deepseek-flash", stream=True, stream_options={"include_usage": True}, tools=tools,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "read a and b"}],
        extra_body={"thinking": {"type": "enabled"}})
    reasoning, content, calls, finish, usage = "", "", {}, None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        if not chunk.choices:
            continue
        d = chunk.choices[0].delta
        extra = d.model_extra or {}
        reasoning += extra.get("reasoning_content") or ""
        content += d.content or ""
        for tc in d.tool_calls or []:
            c = calls.setdefault(tc.index, {"id": tc.id, "name": tc.function.name, "args": ""})
            c["args"] += tc.function.arguments or ""
        finish = chunk.choices[0].finish_reason or finish
    check(reasoning == "Plan.", "openai reasoning_content")
    check(content == "Calling.", "openai content")
    check([json.loads(calls[i]["args"]) for i in sorted(calls)] == [{"path": "a"}, {"path": "b"}], "openai tool_calls by index")
    check(finish == "tool_calls", "openai finish_reason")
    check(usage is not None and usage.prompt_tokens > 0, "openai usage on the last chunk")
    check(usage.model_extra.get("prompt_cache_miss_tokens") == usage.prompt_tokens - usage.model_extra.get("prompt_cache_hit_tokens"),
          "openai prompt_cache_hit/miss tokens")

    queue({"text": "plain"})
    r = client.chat.completions.create(model="deepseek-flash", messages=[{"role": "user", "content": "hi"}])
    check(r.choices[0].message.content == "plain" and r.choices[0].finish_reason == "stop", "openai non-streaming")

    queue({"stream_error": "boom"})
    try:
        for _ in client.chat.completions.create(model="deepseek-flash", stream=True,
                                                messages=[{"role": "user", "content": "x"}]):
            pass
        check(False, "openai in-stream error raises")
    except openai.APIError as e:
        check("boom" in str(e), f"openai in-stream error raises ({type(e).__name__})")

    try:
        openai.OpenAI(base_url=BASE, api_key="", max_retries=0).models.list()
        check(False, "openai 401")
    except openai.AuthenticationError:
        check(True, "openai 401 AuthenticationError")
    except openai.OpenAIError:
        check(True, "openai client refuses an empty key")


if __name__ == "__main__":
    anthropic_checks()
    openai_checks()
    print("all SDK checks passed")
