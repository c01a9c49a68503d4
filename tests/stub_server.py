"""A stub OpenAI-compatible server on 127.0.0.1 for backend tests (scripted failures, bounded)."""
from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


#: The generated tokens a completion request gets (legacy completions format; the server sends its text and tokens
#: past the stop sequence or the end of text, as OpenAI's does, and a null log-probability for the second); the
#: scripted action picks one ("ok" otherwise). "untokenized": text but an empty token list; "inside": the stop
#: sequence inside a token's text, not at its start.
GENERATIONS = {"ok": [" stub", " answer", "\n", "more"], "newline": ["\n", "x"], "eot": [" Paris", "<|endoftext|>", "junk"],
               "untokenized": [], "inside": [" A\n", "B", "C"]}


def _echo_logprobs(text: str) -> dict:
    """Tokens = words with their leading whitespace; logprob −0.5 per token; offsets into ``text``."""
    tokens = re.findall(r"\s*\S+|\s+$", text)
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    return {"tokens": tokens, "token_logprobs": [None] + [-0.5] * (len(tokens) - 1), "text_offset": offsets}


class StubState:
    def __init__(self):
        self.script: list[str] = []  # failures to play before answering normally
        self.requests: list[dict] = []


def _handler(state: StubState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status: int, body: bytes, headers: dict | None = None):
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, **payload})
            action = state.script.pop(0) if state.script else "ok"
            status, _, retry_after = action.partition(":")  # "429:<Retry-After value>", "503:<Retry-After value>"
            if retry_after and status in ("429", "503"):
                return self._send(int(status), b'{"error": "retry later"}', {"Retry-After": retry_after})
            if action == "500":
                return self._send(500, b'{"error": "boom"}')
            if action == "429":
                return self._send(429, b'{"error": "slow down"}', {"Retry-After": "0.01"})
            if action == "400":
                return self._send(400, b'{"error": "bad request"}')
            if action == "timeout":
                time.sleep(0.5)
                return self._send(500, b"{}")
            if action == "close":
                self.close_connection = True
                self.connection.shutdown(2)
                return None
            if action == "malformed":
                return self._send(200, b"{not json")
            if self.path.endswith("/chat/completions"):
                content = [{"token": "stub", "logprob": -0.1}] if action != "badchat" else ["stub"]
                body = {"choices": [{"message": {"content": "stub chat answer"}, "logprobs": {"content": content}}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 3}}
            elif payload.get("echo"):
                logprobs = _echo_logprobs(payload["prompt"])
                if action == "short":
                    logprobs["token_logprobs"] = logprobs["token_logprobs"][:-1]
                body = {"choices": [{"text": payload["prompt"] + " x", "logprobs": logprobs}]}
            else:
                generated = GENERATIONS.get(action, GENERATIONS["ok"])
                body = {"choices": [{"text": "".join(generated) or " Paris", "logprobs": {"tokens": generated,
                                                                              "token_logprobs": [-0.2, None, -0.4, -0.5][:len(generated)]}}],
                        "usage": {"prompt_tokens": 5, "completion_tokens": len(generated) or 1}}
                if action == "mismatched":
                    body["choices"][0]["logprobs"]["token_logprobs"].pop()
                if action == "nologprobs":
                    body["choices"][0]["logprobs"] = None
            return self._send(200, json.dumps(body).encode())

    return Handler


@contextmanager
def stub_server():
    """Yield (base_url, state); the server runs in a daemon thread and stops at exit."""
    state = StubState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
