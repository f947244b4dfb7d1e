"""PoSh throughput per IIW-400 pair: the embedded default judge against the previous default (SmolLM2), side by side.

Each judge runs in its own process (so peak memory is its own) on the same whole IIW-400 pairs, with no cache: every
question is asked. Scene graphs are extracted before the timed part (both configurations extract the same graphs;
their time is printed apart), so the ratio compares the judges. Model loading and a one-pair warm-up are not timed.
Usage: .venv/bin/python benchmarks/throughput.py [--pairs 3] [--embedded-pairs 20] [--threads 2] [--repeats 3]
  --pairs N           pairs scored by every judge (SmolLM2 takes about half a minute per pair; 0: skip the IIW-400 table)
  --embedded-pairs M  pairs scored by the embedded default in a second, larger row (0: none)
  --judges A,B        judge specs compared (default: embedding:all-MiniLM-L6-v2,transformers:smollm2)
  --captions N        the short-caption case: N one-sentence captions with 5 references each, scored end to end by
                      the embedded default in a fresh process, model load, parsing and graphs included (default 2500;
                      0: skip). Captions and references are real sentences of the IIW-400 descriptions (4-30 words),
                      drawn with a fixed seed; the pool holds about 1,300 distinct sentences, so texts repeat across
                      pairs and PoSh's per-process graph and phrase caches see repeats (a set of 15,000 distinct texts
                      parses more: the unique-text count and the seconds spent on graphs are printed to extrapolate).
  --words K           the omission words (nbs/14a, `posh.omission_words`): K IIW-400 pairs scored granularly by the
                      embedded default, then their reference words calibrated, both timed in one process after a
                      warm-up pair, side by side (default 0: skip)
"""
import argparse, json, os, resource, subprocess, sys, time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / 'data/iiw400/p5b_vs_human_sxs.jsonl'


def worker(a):
    "Score the pairs with one judge `a.repeats` times (a fresh PoSh and judge each time); print one JSON line."
    import torch
    torch.set_num_threads(a.threads)
    from posh import PoSh
    rows = [json.loads(l) for l in open(DATA)]
    warm, rows = rows[-1], rows[:a.pairs]   # the warm-up pair is not among the timed ones
    gens, refs = [r['generation'] for r in rows], [r['reference'] for r in rows]
    runs = []
    for _ in range(a.repeats):
        metric = PoSh('embedded', judge=a.judge)   # the configuration's batch size (embedded: 128 pairs per chunk)
        t0 = time.perf_counter(); metric.judge.judge; load = time.perf_counter() - t0
        t0 = time.perf_counter(); metric.graphs(gens + refs); parse = time.perf_counter() - t0
        metric.evaluate([warm['generation']], [warm['reference']])
        calls0 = metric.judge.calls
        t0 = time.perf_counter()
        scores = metric.evaluate(gens, refs)
        runs.append(time.perf_counter() - t0)
    print(json.dumps({'judge': a.judge, 'pairs': len(rows), 'questions': metric.judge.calls - calls0, 'runs': runs,
                      'seconds': sorted(runs)[len(runs) // 2], 'parse_seconds': parse, 'load_seconds': load,
                      'f1': [s.f1 for s in scores], 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      'signature': metric.signature}))


def caption_pairs(n:int, seed:int=0):
    "n (caption, 5 references) pairs of IIW-400 sentences, drawn with a fixed seed."
    import random, re
    sents = []
    for l in open(DATA):
        r = json.loads(l)
        for t in (r['generation'], r['reference']):
            sents += [s.strip() for s in re.split(r'(?<=[.!?])\s+', t) if 4 <= len(s.split()) <= 30]
    sents = list(dict.fromkeys(sents))
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        k = rng.sample(range(len(sents)), 6)
        pairs.append((sents[k[0]], [sents[i] for i in k[1:]]))
    return pairs


def caption_worker(a):
    "The short-caption case, end to end (imports and model load included): one JSON line."
    t0 = time.perf_counter()
    import torch
    torch.set_num_threads(a.threads)
    from posh import PoSh
    pairs = caption_pairs(a.captions)
    metric = PoSh('embedded')
    scores = metric.evaluate([c for c, _ in pairs], [r for _, r in pairs])
    total = time.perf_counter() - t0
    texts = {c for c, _ in pairs} | {x for _, r in pairs for x in r}
    print(json.dumps({'pairs': len(pairs), 'unique_texts': len(texts), 'seconds': total,
                      'questions': metric.stats.get('judge_calls'), 'f1': sum(s.f1 for s in scores) / len(scores),
                      'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'signature': metric.signature}))


def words_worker(a):
    "PoSh's granular scoring and the omission words of the same pairs, timed side by side: one JSON line."
    import torch
    torch.set_num_threads(a.threads)
    from posh import PoSh
    from posh.omission_words import omission_words
    rows = [json.loads(l) for l in open(DATA)]
    warm, rows = rows[-1], rows[:a.words]
    metric = PoSh('embedded')
    w, = metric.evaluate([warm['generation']], [warm['reference']], granular=True)
    omission_words(metric, warm['generation'], warm['reference'], w)   # PoSh's own parser (metric.extractor.nlp)
    t0 = time.perf_counter()
    scores = metric.evaluate([r['generation'] for r in rows], [r['reference'] for r in rows], granular=True)
    posh_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    words = [omission_words(metric, r['generation'], r['reference'], s) for r, s in zip(rows, scores)]
    words_s = time.perf_counter() - t0
    print(json.dumps({'pairs': len(rows), 'posh_seconds': posh_s, 'words_seconds': words_s,
                      'words': sum(map(len, words)), 'signature': metric.signature}))


def words(a):
    "The omission words' cost beside PoSh's own, in a fresh process."
    w = fresh_process('words', ['--words-worker', '--words', str(a.words)], a.threads)
    print(f"\nOmission words (nbs/14a), {w['pairs']} IIW-400 pairs, {a.threads} thread(s), one process, after a warm-up pair: "
          f"PoSh granular (graphs and judge) {w['posh_seconds'] / w['pairs']:.3f} s/pair, then the calibrated words of the "
          f"same references ({w['words']} words; both texts parsed again) {w['words_seconds'] / w['pairs']:.3f} s/pair: "
          f"ratio {w['words_seconds'] / w['posh_seconds']:.2f}\n  {w['signature']}")


def fresh_process(label:str, args:list, threads:int) -> dict:
    "Run this script with `args` in a new process on `threads` threads; the JSON line it prints last."
    cmd = [sys.executable, __file__, *args, '--threads', str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'OMP_NUM_THREADS': str(threads)})
    if out.returncode: sys.exit(f"{label}: {out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(judge, pairs, threads, repeats):
    return fresh_process(judge, ['--worker', '--judge', judge, '--pairs', str(pairs), '--repeats', str(repeats)], threads)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pairs', type=int, default=3)
    ap.add_argument('--embedded-pairs', type=int, default=20)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--judges', default='embedding:all-MiniLM-L6-v2,transformers:smollm2')
    ap.add_argument('--repeats', type=int, default=3, help='timed runs of the fast judges (median reported); SmolLM2: 1')
    ap.add_argument('--captions', type=int, default=2500)
    ap.add_argument('--words', type=int, default=0)
    ap.add_argument('--words-worker', action='store_true')
    ap.add_argument('--caption-worker', action='store_true')
    ap.add_argument('--worker', action='store_true')
    ap.add_argument('--judge', default=None)
    a = ap.parse_args()
    if a.worker: return worker(a)
    if a.caption_worker: return caption_worker(a)
    if a.words_worker: return words_worker(a)
    specs = [s.strip() for s in a.judges.split(',') if s.strip()]
    if a.pairs: iiw_pairs(a, specs)
    if a.captions: captions(a)
    if a.words: words(a)


def iiw_pairs(a, specs):
    "The IIW-400 table: every judge on the same pairs, each in its own process."
    reps = lambda j: 1 if j.startswith('transformers') else a.repeats   # an LLM run takes minutes: timed once
    res = [run(j, a.pairs, a.threads, reps(j)) for j in specs]
    if a.embedded_pairs > a.pairs: res.append(run(specs[0], a.embedded_pairs, a.threads, reps(specs[0])))
    print(f"IIW-400 pairs (whole descriptions), {a.threads} thread(s), no cache; graphs extracted before timing; "
          f"model load and one warm-up pair not counted; s/pair is the median of the timed runs (fast judges: "
          f"{a.repeats} runs, each with a fresh judge and caches; LLM judges: 1 run)\n")
    print("| judge | pairs | questions/pair | s/pair (judge) | runs (s/pair) | s/pair (graphs) | questions/s | peak RSS (MB) | mean F1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in res:
        runs = ', '.join(f"{x / r['pairs']:.2f}" for x in r['runs'])
        print(f"| `{r['signature'].split('|judge:')[1].split('|')[0]}` | {r['pairs']} | {r['questions'] / r['pairs']:.0f} | "
              f"{r['seconds'] / r['pairs']:.2f} | {runs} | {r['parse_seconds'] / r['pairs']:.2f} | "
              f"{r['questions'] / r['seconds']:.1f} | {r['peak_rss_mb']:.0f} | {sum(r['f1']) / len(r['f1']):.3f} |")
    if len(specs) > 1:   # one judge alone has no speed-up to print
        base, new = res[1], res[0]
        print(f"\nspeed-up of `{specs[0]}` over `{specs[1]}` per pair, same {a.pairs} pairs: "
              f"{(base['seconds'] / base['pairs']) / (new['seconds'] / new['pairs']):.0f}x")
    for r in res: print(f"  {r['signature']}")


def captions(a):
    "The short-caption case in a fresh process."
    c = fresh_process('captions', ['--caption-worker', '--captions', str(a.captions)], a.threads)
    print(f"\nShort captions, end to end in a fresh process (imports, model load, parsing, graphs, judge), {a.threads} "
          f"thread(s): {c['pairs']} one-sentence captions x 5 references ({c['unique_texts']} distinct texts), "
          f"{c['questions']} questions: **{c['seconds']:.0f} s** ({c['seconds'] / c['pairs'] * 1000:.0f} ms/pair; "
          f"target 90 s for 2,500), peak RSS {c['peak_rss_mb']:.0f} MB, mean F1 {c['f1']:.3f}\n  {c['signature']}")

if __name__ == '__main__': main()
