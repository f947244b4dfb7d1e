"""What IIW-400's Comprehensiveness judgments follow: the two texts' lengths against PoSh's recall (analysis)

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/iiw_comprehensiveness.py
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/iiw_comprehensiveness.py --dimension Hallucination

IIW-400's side-by-side ratings compare a PaLI-5B description (our generation) with a person's (our reference) on a
five-point scale, from the generation's point of view. The issue's target asks PoSh's recall to follow
Comprehensiveness at Spearman 0.45; the length difference, words(generation) - words(reference), reaches 0.419. This
prints where that correlation comes from, with 95% bootstrap intervals over the pairs
(`posh.meta_eval.spearman_interval`, 2,000 resamples, seed 42):
- each text's length alone (words, and its distinct content lemmas as the embedding judge reads a text:
  `posh.judge_features.TargetText`, WordNet lemmas without stop words);
- PoSh's recall (and its precision), and the number of reference elements it counts (its denominator);
- a lexical recall: the share of the reference's content lemma types that the generation uses;
- partial Spearman given the reference's length (`posh.meta_eval.partial_spearman_interval`): the Pearson correlation
  of the rank residuals of the measure and of the rating, each regressed on the rank of words(reference). It says what
  a measure tells beyond the reference's length.
Rows for all 100 pairs, for the 70 outside the granular dev set (no map has seen them) and for the 30 dev pairs.

The embedded default is scored as shipped (nothing is fitted or changed here; nbs/24, stop 45).
"""
import argparse, sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def measures(pairs, scores, lex) -> dict[str, np.ndarray]:
    "name -> one value per pair (`lex`: the embedding judge's WordNet lemma index, for its own reading of a text)."
    from posh.judge_features import TargetText
    gw = np.array([len(p.generation.split()) for p in pairs], float)
    rw = np.array([len(p.reference.split()) for p in pairs], float)
    G = [TargetText.from_text(p.generation, lex) for p in pairs]   # the distinct content lemmas, as the judge reads them
    R = [TargetText.from_text(p.reference, lex) for p in pairs]
    return {
        'PoSh recall': np.array([s.recall for s in scores], float),
        'PoSh precision': np.array([s.precision for s in scores], float),
        'length difference: words(gen) - words(ref)': gw - rw,
        'words(gen)': gw,
        'words(ref)': rw,
        'content lemma types (gen)': np.array([len(g.words) for g in G], float),
        'content lemma types (ref)': np.array([len(r.words) for r in R], float),
        "reference elements PoSh counts (recall's denominator)":
            np.array([sum(e.direction == 'recall' and e.counted for e in s.elements) for s in scores], float),
        "lexical recall: share of the ref's content lemma types in gen": np.array([g.share_in(r.words) for g, r in zip(G, R)]),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--threads', type=int, default=2, help='torch threads')
    ap.add_argument('--dimension', default='Comprehensiveness', help="the side-by-side rating to correlate with (also 'Hallucination')")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import torch
    torch.set_num_threads(args.threads)
    from posh.data import load_iiw400, load_granular_dev
    from posh.metric import PoSh
    from posh.meta_eval import spearman_interval, partial_spearman_interval
    from posh.judge_features import load_lexicon
    pairs = load_iiw400()
    on_dev = {a.key.split('-')[0] for a in load_granular_dev()}
    m = PoSh('embedded')
    scores = m.evaluate([p.generation for p in pairs], [p.reference for p in pairs], granular=True)
    X = measures(pairs, scores, load_lexicon())
    C = np.array([p.sxs[args.dimension] for p in pairs], float)
    dev = np.array([p.id.split('-')[0] in on_dev for p in pairs])
    print(f"{m.signature}\n")
    subsets = (('all 100 pairs', np.ones(len(pairs), bool)), (f'the {int((~dev).sum())} outside the dev set', ~dev),
               (f'the {int(dev.sum())} dev pairs', dev))
    print('| measure | ' + ' | '.join(f'~ {args.dimension}, {n}' for n, _ in subsets) +
          ' | partial, given words(ref), all 100 |\n|---|' + '---|' * (len(subsets) + 1))
    rw = X['words(ref)']
    for name, x in X.items():
        cells = []
        for _, at in subsets:
            r = spearman_interval(x[at], C[at])
            cells.append(f"{r.rho:+.3f} [{r.low:+.2f}, {r.high:+.2f}]")
        p = None if name == 'words(ref)' else partial_spearman_interval(x, C, rw)
        part = '' if p is None else f"{p.rho:+.3f} [{p.low:+.2f}, {p.high:+.2f}]"
        print(f"| {name} | " + ' | '.join(cells) + f" | {part} |")


if __name__ == '__main__':
    main(sys.argv[1:])
