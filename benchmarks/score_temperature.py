"""Would sharper or softer judge scores help? A temperature on the embedding judge's calibrated probabilities (analysis)

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/score_temperature.py
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/score_temperature.py --temperatures 1 2 --directions both

The embedding judge scores a question 1 + 4 P, with P its calibrated probability that the element holds
(`posh.embedding_judge.Calibration`). An LLM judge answers with an integer, so it reads a reworded but supported
element as a 5, where this judge gives it about 4.2 against about 4.7 for a word-for-word match. The paraphrase
benchmark's losses come from that (README, "paraphrase"). Multiplying the logit by T > 1 pushes confident answers
towards 1 and 5, and T < 1 pulls them towards the middle.

For each T and each scope (`both` directions or `precision` alone), this prints:
- IIW-400 (100 pairs): Spearman of recall vs Comprehensiveness (also given the reference's length: partial Spearman,
  `posh.meta_eval.partial_spearman`, nbs/24) and of precision vs Hallucination;
- the paraphrase benchmark's wins (the paraphrase's F1 above both swaps', of 12);
- the granular dev set, in-sample with the shipped maps: PoSh's mistakes, `contradicted` and omissions, token macro F1
  and AUROC.

T = 1 is the shipped judge. A monotone map of the scores leaves much of a token ranking alone, but not all of it:
which entities fall below PoSh's presence threshold (2) changes which questions are asked at all, and the fixed
scores (a contradiction's 1, the framing checks') do not move. Nothing here is shipped (nbs/14, stop 44). No judge
answer cache is used, so every setting is judged afresh (one PoSh for all: its graphs and phrase vectors do not
depend on T).
"""
import argparse, json, math, sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PARAPHRASES = ROOT / 'data/judge_probe/paraphrase/paraphrase.jsonl'
SWAPS = ('paraphrase', 'colour_swapped', 'object_swapped')


def tempered(probability, T:float, direction:str|None):
    "Calibration.probability with its logit multiplied by T (only for questions of `direction`, None: all)."
    def prob(self, kind, x, d=None):
        p = probability(self, kind, x, d)
        if direction is not None and d != direction: return p
        p = min(max(p, 1e-12), 1 - 1e-12)
        z = max(min(T * math.log(p / (1 - p)), 60), -60)
        return 1 / (1 + math.exp(-z))
    return prob


def measure(m, pairs, rows, dev, T:float, direction:str|None) -> dict:
    "The figures of one setting, with PoSh `m` (no judge-answer cache: its graphs and phrase vectors do not depend on T)."
    from scipy.stats import spearmanr
    from posh.experiments import granular_scores, granular_table
    from posh.meta_eval import partial_spearman
    s = m.evaluate([p.generation for p in pairs], [p.reference for p in pairs])
    out = dict(T=T, scope=direction or 'both',
               recall=spearmanr([x.recall for x in s], [p.sxs['Comprehensiveness'] for p in pairs])[0],
               precision=spearmanr([x.precision for x in s], [p.sxs['Hallucination'] for p in pairs])[0])
    out['given_ref'] = partial_spearman([x.recall for x in s], [p.sxs['Comprehensiveness'] for p in pairs],
                                        [len(p.reference.split()) for p in pairs])
    f = np.array([o.f1 for o in m.evaluate([r[v] for r in rows for v in SWAPS],
                                           [r['reference'] for r in rows for _ in SWAPS])]).reshape(len(rows), len(SWAPS))
    won = f[:, 0] > f[:, 1:].max(1)
    out['wins'] = f"{int(won.sum())}/{len(rows)}"
    out['lost'] = ' '.join(r['id'].removeprefix('aar_test_') for r, w in zip(rows, won) if not w)
    g = granular_table(granular_scores(m, dev, methods=['PoSh']), ['contradicted'])
    for _, r in g.iterrows(): out[r.task] = f"{r.f1:.3f} / {r.auroc:.3f}"
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--temperatures', type=float, nargs='+', default=[0.5, 0.75, 1, 1.5, 2, 3])
    ap.add_argument('--directions', nargs='+', default=['both', 'precision'], choices=['both', 'precision', 'recall'])
    ap.add_argument('--threads', type=int, default=2, help='torch threads')
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import torch
    torch.set_num_threads(args.threads)
    import posh.embedding_judge as ej
    from posh.data import load_iiw400, load_granular_dev
    from posh.metric import PoSh
    shipped = ej.Calibration.probability
    m = PoSh('embedded', cache_dir=None)   # one parser and phrase model for every setting
    pairs, dev = load_iiw400(), load_granular_dev()
    rows = [json.loads(l) for l in open(PARAPHRASES)]
    cols = ['T', 'scope', 'recall', 'given_ref', 'precision', 'wins', 'lost', 'mistakes', 'contradicted', 'omissions']
    print("| T | scope | IIW-400 recall ~ Comprehensiveness | the same given words(ref) | precision ~ Hallucination | paraphrase wins | lost | "
          "dev mistakes F1 / AUROC | dev contradicted | dev omissions |\n|" + '---|' * len(cols))
    done = set()
    for d in args.directions:
        for T in args.temperatures:
            scope = None if d == 'both' else d
            if T == 1 and 1 in done: continue   # T = 1 is the shipped judge whatever the scope
            if T == 1: done.add(1)
            ej.Calibration.probability = tempered(shipped, T, scope)
            try: r = measure(m, pairs, rows, dev, T, scope)
            finally: ej.Calibration.probability = shipped
            if T == 1: r['scope'] = 'shipped'
            print('| ' + ' | '.join(f"{r[c]:.3f}" if isinstance(r[c], float) and c in ('recall', 'given_ref', 'precision')
                                    else str(r[c]) for c in cols) + ' |', flush=True)


if __name__ == '__main__':
    main()
