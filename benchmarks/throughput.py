"""PoSh throughput with the embedded judge, with and without prefix reuse, side by side.

On N IIW-400 pairs (default 5), each mode in its own process (so peak memory is its own): questions per pair,
seconds per pair, questions per second, peak resident memory; then the ratio. No cache: every question is asked.
Usage: .venv/bin/python benchmarks/throughput.py [--pairs 5] [--threads 2] [--excerpt 0]
  --excerpt N  use the first N sentences of each description (0: whole descriptions)
"""
import argparse, json, os, re, resource, subprocess, sys, time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / 'data/iiw400/p5b_vs_human_sxs.jsonl'

def excerpt(text, n):
    return text if n <= 0 else ' '.join(re.split(r'(?<=[.!?])\s+', text.strip())[:n])

def worker(a):
    "Score the pairs in one mode and print one JSON line of measurements."
    import torch
    torch.set_num_threads(a.threads)
    from posh import PoSh
    rows = [json.loads(l) for l in open(DATA)][:a.pairs]
    gens = [excerpt(r['generation'], a.excerpt) for r in rows]
    refs = [excerpt(r['reference'], a.excerpt) for r in rows]
    metric = PoSh('embedded', judge_kwargs={'prefix_reuse': bool(a.prefix_reuse)}, batch_size=1)
    t0 = time.perf_counter(); metric.judge.judge; load = time.perf_counter() - t0
    metric.graphs(gens + refs)  # parse outside the timed part: this measures the judge
    t0 = time.perf_counter()
    scores = metric.evaluate(gens, refs)
    secs = time.perf_counter() - t0
    print(json.dumps({'prefix_reuse': bool(a.prefix_reuse), 'pairs': len(rows), 'questions': metric.judge.calls,
                      'seconds': secs, 'load_seconds': load, 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      'f1': [s.f1 for s in scores], 'signature': metric.signature}))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pairs', type=int, default=5)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--excerpt', type=int, default=0)
    ap.add_argument('--worker', action='store_true')
    ap.add_argument('--prefix-reuse', type=int, default=1)
    a = ap.parse_args()
    if a.worker: return worker(a)
    res = []
    for mode in (1, 0):
        cmd = [sys.executable, __file__, '--worker', '--prefix-reuse', str(mode), '--pairs', str(a.pairs),
               '--threads', str(a.threads), '--excerpt', str(a.excerpt)]
        out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'OMP_NUM_THREADS': str(a.threads)})
        if out.returncode: sys.exit(out.stderr[-3000:])
        res.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{res[0]['signature']}\n{a.pairs} IIW-400 pairs ({'whole descriptions' if a.excerpt <= 0 else f'first {a.excerpt} sentences'}), "
          f"{a.threads} thread(s), no cache; model load {res[0]['load_seconds']:.0f}s not counted\n")
    print("| mode | questions/pair | s/pair | questions/s | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    for r in res:
        name = 'prefix reuse' if r['prefix_reuse'] else 'per-question prefill'
        print(f"| {name} | {r['questions'] / r['pairs']:.0f} | {r['seconds'] / r['pairs']:.1f} | "
              f"{r['questions'] / r['seconds']:.2f} | {r['peak_rss_mb']:.0f} |")
    print(f"\nspeed-up of prefix reuse: {res[1]['seconds'] / res[0]['seconds']:.2f}x "
          f"(same questions: {res[0]['questions'] == res[1]['questions']}; "
          f"max |f1 difference| {max(abs(x - y) for x, y in zip(res[0]['f1'], res[1]['f1'])):.2e})")

if __name__ == '__main__': main()
