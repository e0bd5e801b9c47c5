"""The comparator of inferbench's TTFT accuracy: vLLM's own benchmark request function, re-implemented.

A faithful re-implementation, in our own words, of how vLLM's serving benchmark times a streamed chat
request: `async_request_openai_chat_completions` in vllm/benchmarks/lib/endpoint_request_func.py
(formerly benchmarks/backend_request_func.py), driven as vllm/benchmarks/serve.py drives it. Facts taken
from those files (vllm-project/vllm, read 2026-11):

- one shared aiohttp.ClientSession: TCPConnector(limit=limit_per_host=max_concurrency, ttl_dns_cache=300,
  use_dns_cache=True, keepalive_timeout=60, enable_cleanup_closed=True, force_close=False), trust_env=True,
  ClientTimeout(total=6 h);
- closed loop: every request is a task up front, each waits on asyncio.Semaphore(max_concurrency);
  warmup requests first, gathered, then the measured ones;
- the payload: model, messages=[{role: user, content: [{type: text, text: prompt}]}],
  max_completion_tokens, stream=true, stream_options.include_usage=true; Content-Type application/json;
- timing: time.perf_counter() just before session.post(); the body is read with
  response.content.iter_any(); each read is stripped and fed to an incremental UTF-8 SSE splitter (split
  on blank lines, plus a trailing "data: ..." kept only once it parses as JSON or is [DONE]); comments
  (":") and [DONE] are skipped; every other event is stamped with time.perf_counter() before json.loads;
  the first event whose "choices" is non-empty gives ttft = stamp - start (a role-only chunk counts:
  vLLM's server sends its role with the first token), later ones give the ITL gaps.

What is ours: the command line, a unique marker in each prompt (to find the request in the server's
traces), and one aiohttp trace hook stamping when the request body is handed to the socket (the wire's
start, which vLLM does not record), printed as JSON lines with CLOCK_MONOTONIC milliseconds
(time.perf_counter is CLOCK_MONOTONIC on Linux, the clock of the server's traces).

Usage: python3 vllm-request-fn.py URL CONCURRENCY REQUESTS WARMUP MAX_TOKENS TAG
"""

import asyncio
import codecs
import json
import sys
import time

import aiohttp


class SseSplitter:
    """Turns stripped reads into complete SSE events, as vLLM's StreamedResponseHandler does."""

    def __init__(self):
        self.pending = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, piece):
        self.pending += self.decoder.decode(piece)
        events = []
        while "\n\n" in self.pending:
            event, self.pending = self.pending.split("\n\n", 1)
            event = event.strip()
            if event:
                events.append(event)
        # A read stripped of its trailing blank line leaves a whole event behind: keep it once it is whole.
        if self.pending.startswith("data: "):
            rest = self.pending[len("data: "):].strip()
            if rest == "[DONE]":
                events.append(self.pending.strip())
                self.pending = ""
            elif rest:
                try:
                    json.loads(rest)
                except json.JSONDecodeError:
                    return events
                events.append(self.pending.strip())
                self.pending = ""
        return events


async def timed_request(session, url, payload, stamps):
    """One streamed chat request timed as vLLM times it; fills `stamps` (seconds, perf_counter)."""
    start = time.perf_counter()
    stamps["start"] = start
    latest = start
    try:
        async with session.post(
            url=url,
            json=payload,
            headers={"Content-Type": "application/json"},
            trace_request_ctx=stamps,
        ) as response:
            if response.status != 200:
                stamps["error"] = response.reason or str(response.status)
                return
            splitter = SseSplitter()
            async for piece in response.content.iter_any():
                piece = piece.strip()
                if not piece:
                    continue
                for event in splitter.feed(piece):
                    if event.startswith(":"):
                        continue
                    data = event[len("data: "):] if event.startswith("data: ") else event
                    if data == "[DONE]":
                        continue
                    stamp = time.perf_counter()
                    chunk = json.loads(data)
                    if chunk.get("choices"):
                        if "first" not in stamps:
                            stamps["first"] = stamp
                        latest = stamp
                    elif chunk.get("usage"):
                        stamps["tokens"] = chunk["usage"].get("completion_tokens")
            if "first" not in stamps:
                stamps["error"] = "no chunk with choices"
            stamps["end"] = latest
    except Exception as error:  # vLLM's function records any failure as the request's error
        stamps["error"] = repr(error)


async def on_body_sent(session, context, params):
    """Our hook: the first body write of a request is its wire start."""
    stamps = context.trace_request_ctx
    if stamps is not None and "sent" not in stamps:
        stamps["sent"] = time.perf_counter()


def payload_for(marker, max_tokens):
    return {
        "model": "known-timing",
        "messages": [{"role": "user", "content": [{"type": "text", "text": marker}]}],
        "max_completion_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def closed_loop(session, url, concurrency, markers, max_tokens):
    """All requests as tasks up front, at most `concurrency` at once (vLLM's semaphore)."""
    gate = asyncio.Semaphore(concurrency)
    results = [{"marker": marker} for marker in markers]

    async def limited(stamps):
        async with gate:
            await timed_request(session, url, payload_for(stamps["marker"], max_tokens), stamps)

    await asyncio.gather(*(asyncio.create_task(limited(stamps)) for stamps in results))
    return results


async def main(base_url, concurrency, requests, warmup, max_tokens, tag):
    url = base_url.rstrip("/") + "/v1/chat/completions"
    tracing = aiohttp.TraceConfig()
    tracing.on_request_chunk_sent.append(on_body_sent)
    connector = aiohttp.TCPConnector(
        limit=concurrency,
        limit_per_host=concurrency,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
        ssl=False,
    )
    async with aiohttp.ClientSession(
        connector=connector,
        trust_env=True,
        timeout=aiohttp.ClientTimeout(total=6 * 60 * 60),
        trace_configs=[tracing],
    ) as session:
        await closed_loop(session, url, concurrency, [f"{tag} warmup {i}" for i in range(warmup)], max_tokens)
        results = await closed_loop(session, url, concurrency, [f"{tag} request {i}" for i in range(requests)], max_tokens)
    ms = 1000.0
    lines = []
    for stamps in results:
        line = {"marker": stamps["marker"], "ok": "error" not in stamps}
        for key in ("start", "sent", "first", "end"):
            if key in stamps:
                line[key + "Ms"] = stamps[key] * ms
        if "error" in stamps:
            line["error"] = stamps["error"][:200]
        lines.append(json.dumps(line))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.stderr.write(__doc__.split("Usage: ")[1])
        sys.exit(2)
    base, n, r, w, k, tag = sys.argv[1:]
    asyncio.run(main(base, int(n), int(r), int(w), int(k), tag))
