"""Scene-graph extraction speed on the IIW-400 texts (embedded configuration).

Prints descriptions per second and the share of time spent in parsing, coreference and graph assembly.
Usage: .venv/bin/python benchmarks/graphs.py [--parser en_core_web_sm] [--coref rules] [--repeat 2]
"""
import argparse, json, time
from pathlib import Path
from posh.graphs import GraphExtractor

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--parser', default='en_core_web_sm')
    ap.add_argument('--coref', default='rules')
    ap.add_argument('--repeat', type=int, default=2, help='passes over the 200 texts (the first warms up)')
    ap.add_argument('--data', default=str(Path(__file__).resolve().parent.parent / 'data/iiw400/p5b_vs_human_sxs.jsonl'))
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.data)]
    texts = [r['reference'] for r in rows] + [r['generation'] for r in rows]
    t0 = time.perf_counter(); ex = GraphExtractor(a.parser, a.coref); load = time.perf_counter() - t0
    ex([texts[0]])  # warm-up
    best = None
    for _ in range(a.repeat):
        ex.timings = dict.fromkeys(ex.timings, 0.0)
        t0 = time.perf_counter(); graphs = ex(texts); wall = time.perf_counter() - t0
        if best is None or wall < best[0]: best = (wall, dict(ex.timings), graphs)
    wall, tim, graphs = best
    total = sum(tim.values())
    words = sum(len(t.split()) for t in texts)
    print(f"{ex.signature}: {len(texts)} IIW-400 descriptions ({words / len(texts):.0f} words on average), "
          f"load {load:.1f}s, best of {a.repeat}")
    print(f"| descriptions/s | parse | coref | assemble |")
    print(f"|---|---|---|---|")
    print(f"| {len(texts) / wall:.1f} | {tim['parse'] / total:.0%} | {tim['coref'] / total:.0%} | {tim['assemble'] / total:.0%} |")
    n_el = sum(len(g) for g in graphs)
    print(f"{n_el / len(graphs):.1f} elements per graph")

if __name__ == '__main__': main()
