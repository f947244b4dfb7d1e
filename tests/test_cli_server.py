"""`posh score --judge openai:NAME` against real servers on 127.0.0.1 (issue 9, items 6, 7 and 9).

* a server that accepts connections and never answers: with the default --timeout/--retries the run fails within
  2 minutes (measured: about 35 s, the server check up front), with the URL named, a warning while retrying, no
  traceback and no output file;
* the real llama.cpp server of `posh.llama_server.LlamaCppServer` serving SmolLM2: `--judge openai:smollm2` scores a pair
  with nothing loaded here and no Hugging Face hub (HF_HUB_OFFLINE=1);
* the same server behind a relay that stops answering on the second pair: the run fails fast (`--concurrency 1
  --timeout 5 --retries 1`: llama-cpp-python answers one request at a time) and the completed pair is written, the
  others marked not scored.
"""
import http.server, json, os, socket, subprocess, sys, threading, time, urllib.error, urllib.request
from pathlib import Path

import pytest

from posh.llama_server import LlamaCppServer

POSH = Path(sys.executable).parent / 'posh'
PAIRS = [{'id': 'horse', 'generation': 'A white horse stands in a field.', 'reference': 'A brown horse in a green field.'},
         {'id': 'dog', 'generation': 'A small dog sleeps on a red sofa.', 'reference': 'A dog lies on a sofa.'},
         {'id': 'cat', 'generation': 'A cat sits on a wall.', 'reference': 'A black cat on a stone wall.'}]
ENV = {**os.environ, 'HF_HUB_OFFLINE': '1', 'TRANSFORMERS_OFFLINE': '1', 'OMP_NUM_THREADS': '1'}


class SilentServer:
    "A TCP server on 127.0.0.1 that accepts connections and never answers (a hung judge server)."
    def __init__(self):
        self.sock = socket.create_server(('127.0.0.1', 0)); self.port = self.sock.getsockname()[1]
        self.conns, self.stopped = [], False
    @property
    def base_url(self): return f"http://127.0.0.1:{self.port}/v1"
    def _accept(self):
        while not self.stopped:
            try: self.conns.append(self.sock.accept()[0])
            except OSError: return
    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start(); return self
    def __exit__(self, *exc):
        self.stopped = True; self.sock.close()
        for c in self.conns: c.close()


class HangingRelay:
    "An HTTP relay on 127.0.0.1 to a real server that never answers a request whose body contains `hang_on`."
    def __init__(self, upstream: str, hang_on: str):
        relay, self.released, self.hung = self, threading.Event(), 0
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def _forward(self, body=None):
                req = urllib.request.Request(upstream + self.path, data=body, method=self.command,
                                             headers={'Content-Type': 'application/json'})
                try:
                    with urllib.request.urlopen(req, timeout=300) as r: status, data = r.status, r.read()
                except urllib.error.HTTPError as e: status, data = e.code, e.read()
                self.send_response(status); self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data))); self.end_headers(); self.wfile.write(data)
            def do_GET(self): self._forward()
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                if hang_on.encode() in body:
                    relay.hung += 1; relay.released.wait(120); return
                self._forward(body)
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *a: None   # a client that gave up on a relayed request: not an error here
    @property
    def base_url(self): return f"http://127.0.0.1:{self.server.server_address[1]}/v1"
    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start(); return self
    def __exit__(self, *exc):
        self.released.set(); self.server.shutdown(); self.server.server_close()


def write_pairs(path, pairs):
    path.write_text(''.join(json.dumps(p) + '\n' for p in pairs))
    return path


def read_jsonl(path): return [json.loads(l) for l in path.read_text().splitlines()]


def test_silent_server_fails_within_two_minutes_with_defaults(tmp_path):
    inp = write_pairs(tmp_path / 'pairs.jsonl', PAIRS[:1])
    with SilentServer() as silent:
        t0 = time.time()
        r = subprocess.run([POSH, 'score', inp, '-o', tmp_path / 'out.jsonl', '--judge', 'openai:smollm2',
                            '--base-url', silent.base_url], capture_output=True, text=True, timeout=300, env=ENV)
        took = time.time() - t0
    print(f"\nsilent server: posh score failed after {took:.1f} s (defaults: --timeout 30 --retries 2)\n{r.stderr[-800:]}")
    assert r.returncode == 1, r.stderr
    assert took < 120
    assert f'{silent.base_url}/models did not answer' in r.stderr and 'retrying' in r.stderr
    assert 'Traceback' not in r.stderr
    assert not (tmp_path / 'out.jsonl').exists()      # the server was checked before anything was done


@pytest.fixture(scope='module')
def llama():
    with LlamaCppServer(n_ctx=2048, n_threads=1) as server: yield server


def test_openai_judge_on_llama_cpp_without_hub(tmp_path, llama):
    inp = write_pairs(tmp_path / 'pairs.jsonl', PAIRS[:1])
    r = subprocess.run([POSH, 'score', inp, '-o', tmp_path / 'out.jsonl', '--judge', 'openai:smollm2', '--base-url',
                        llama.base_url + '/v1', '--granular'], capture_output=True, text=True, timeout=600, env=ENV)
    assert r.returncode == 0, r.stderr[-3000:]
    row, = read_jsonl(tmp_path / 'out.jsonl')
    assert '|judge:openai:smollm2|' in row['signature'] and 0.2 <= row['f1'] <= 1
    assert any(e['asked'] for e in row['elements'])


def test_server_stops_answering_mid_run(tmp_path, llama):
    inp = write_pairs(tmp_path / 'pairs.jsonl', PAIRS)
    with HangingRelay(llama.base_url, hang_on='sleeps on a red sofa') as relay:
        t0 = time.time()
        r = subprocess.run([POSH, 'score', inp, '-o', tmp_path / 'out.jsonl', '--judge', 'openai:smollm2', '--base-url',
                            relay.base_url, '--batch-size', '1', '--concurrency', '1', '--timeout', '5', '--retries', '1',
                            '--on-error', 'skip'],
                           capture_output=True, text=True, timeout=600, env=ENV)
        took = time.time() - t0
    print(f"\nrelay hung {relay.hung} request(s); run ended after {took:.1f} s\n{r.stderr[-600:]}")
    assert r.returncode == 1, r.stderr[-3000:]
    assert 'did not answer' in r.stderr and 'completed pairs were written' in r.stderr and 'Traceback' not in r.stderr
    rows = read_jsonl(tmp_path / 'out.jsonl')
    assert [x['id'] for x in rows] == ['horse', 'dog', 'cat']
    assert rows[0]['f1'] is not None and 'error' not in rows[0]
    assert rows[1]['f1'] is None and rows[2]['f1'] is None
    assert rows[2]['error'] == 'not scored: the run stopped before this row'
