"""SmolLM2 as the judge on CPU through vLLM's CPU build, the llama.cpp server and transformers: prompts/second and
seconds per IIW-400 pair, side by side in one run, engine start-up apart (issue 46).

    .venv-vllm/bin/python benchmarks/vllm_cpu.py [--pairs 3] [--questions 40] [--threads 2] [--eager]

Real IIW-400 pairs (data/iiw400), the questions of benchmarks/judge_prefix.py (spaCy noun chunks and their adjectives
worded as PoSh's questions, half precision with both descriptions as the prefix, half recall with the generation):
this measures the engines, not PoSh's scene graphs. Every engine reads the first answer token's top 20 at temperature
0 (the same work everywhere) on the same SmolLM2-135M-Instruct in float32: vLLM loads the Hugging Face folder of
`make setup-vllm` (.venv-vllm/models/smollm2-135m-instruct), llama.cpp and transformers the GGUF it was converted
from. Each engine runs in its own process, one after the other: vLLM (prefix caching off; on with vLLM's CPU block
of 128 tokens; on with 32, VLLMJudge's CPU default) with this venv's python, llama.cpp (posh.llama_server, the
`openai` judge in chat mode) and transformers (prefix reuse on) with the main venv's (`--main-python`, which has
llama-cpp-python). Start-up is the constructor plus one warm-up question on a pair not timed.
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))
MODEL = ROOT / '.venv-vllm' / 'models' / 'smollm2-135m-instruct'
MODES = {'vllm-nocache': dict(enable_prefix_caching=False),   # vLLM, prefix caching off
         'vllm-block128': dict(block_size=128),              # prefix caching on, vLLM's CPU default block
         'vllm-block32': dict(block_size=32),                # prefix caching on, VLLMJudge's CPU default block
         'llama.cpp': None, 'transformers': None}


def workload(n_pairs: int, n_questions: int):
    "(warm-up request, [(pair id, requests)]) on real IIW-400 pairs."
    from judge_prefix import questions
    from posh.graphs import load_parser
    nlp = load_parser('en_core_web_sm')
    rows = [json.loads(l) for l in open(ROOT / 'data' / 'iiw400' / 'p5b_vs_human_sxs.jsonl')]
    warm = questions(nlp, rows[-1], 2)[0]
    return warm, [(r['id'], questions(nlp, r, n_questions)) for r in rows[:n_pairs]]


def make(mode: str, eager: bool):
    "The judge of one mode, and what has to be closed afterwards."
    if mode.startswith('vllm'):
        from posh.vllm_judge import VLLMJudge
        kw = dict(MODES[mode], enforce_eager=True) if eager else MODES[mode]
        return VLLMJudge(str(MODEL), dtype='float32', **kw), None
    if mode == 'llama.cpp':
        from posh.llama_server import LlamaCppServer
        from posh.openai_judge import OpenAIJudge
        server = LlamaCppServer(n_ctx=4096, n_threads=int(os.environ.get('OMP_NUM_THREADS', '2'))).start()
        return OpenAIJudge('smollm2', base_url=server.base_url, max_concurrency=1, timeout=600), server
    from posh.transformers_judge import TransformersJudge
    return TransformersJudge(), None


def one(mode: str, n_pairs: int, n_questions: int, eager: bool) -> dict:
    "Time one engine in this process."
    warm, pairs = workload(n_pairs, n_questions)
    t0 = time.perf_counter()
    judge, server = make(mode, eager)
    judge.score([warm])
    start = time.perf_counter() - t0
    per_pair, n = [], 0
    try:
        for pid, reqs in pairs:
            t = time.perf_counter(); s = judge.score(reqs); per_pair.append(time.perf_counter() - t); n += len(reqs)
            assert len(s) == len(reqs) and all(1 <= x <= 5 for x in s)
    finally:
        if server is not None: server.stop()
    return dict(mode=mode, start_s=start, prompts=n, seconds=sum(per_pair), per_pair=per_pair)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=3)
    ap.add_argument('--questions', type=int, default=40, help='questions per pair')
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--eager', action='store_true', help='vLLM without torch.compile (starts faster, scores slower)')
    ap.add_argument('--modes', default=','.join(MODES), help='comma-separated, of: ' + ', '.join(MODES))
    ap.add_argument('--main-python', default=str(ROOT / '.venv' / 'bin' / 'python'),
                    help='python with llama-cpp-python and posh (the main venv), for the llama.cpp and transformers modes')
    ap.add_argument('--one', default=None, help=argparse.SUPPRESS)   # internal: time one mode, print JSON
    a = ap.parse_args(argv)
    if a.one:
        print('RESULT ' + json.dumps(one(a.one, a.pairs, a.questions, a.eager)), flush=True); return
    if not (MODEL / 'config.json').is_file(): sys.exit(f"no model folder at {MODEL}: run `make setup-vllm` first")
    env = {**os.environ, 'OMP_NUM_THREADS': str(a.threads), 'MKL_NUM_THREADS': str(a.threads),
           'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', '')}
    results = []
    for mode in a.modes.split(','):
        py = sys.executable if mode.startswith('vllm') else a.main_python
        cmd = [py, __file__, '--one', mode, '--pairs', str(a.pairs), '--questions', str(a.questions)] + (['--eager'] if a.eager else [])
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        line = [l for l in r.stdout.splitlines() if l.startswith('RESULT ')]
        if r.returncode or not line: sys.exit(f"{mode} failed ({r.returncode}):\n{r.stderr[-3000:]}")
        results.append(json.loads(line[0][7:]))
        print(f"{mode}: done", file=sys.stderr, flush=True)
    base = results[-1]['prompts'] / results[-1]['seconds']
    print(f"\n{a.pairs} IIW-400 pairs x {a.questions} questions, SmolLM2-135M-Instruct float32, {a.threads} threads"
          f"{', vLLM eager' if a.eager else ', vLLM with torch.compile'}; ratio: prompts/s over {results[-1]['mode']}'s\n")
    print(f"| engine | start-up s | prompts/s | s per pair | ratio |\n|---|---|---|---|---|")
    for x in results:
        pps = x['prompts'] / x['seconds']
        print(f"| {x['mode']} | {x['start_s']:.1f} | {pps:.1f} | {x['seconds'] / len(x['per_pair']):.2f} | {pps / base:.2f}x |")


if __name__ == '__main__':
    main()
