"""Paraphrase benchmark: PoSh F1 (embedded configuration) of a faithful hand-written paraphrase of a real reference,
against the reference with its colours swapped, with one depicted object swapped, and said twice; the embedding
judge at a baseline revision and the current one, side by side in one run.

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/paraphrase.py                  # baseline: the cal3 judge (7e1471a)
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/paraphrase.py --baseline REV   # any git revision of the judge

Data: data/judge_probe/paraphrase/paraphrase.jsonl (12 IIW-400 references, 6 dev / 6 test; README there). Each
variant is scored as a generation against its reference (precision: its elements asked about the reference;
recall: the reference's elements asked about it), as PoSh and `PoShReward` score a completion.
"Paraphrase wins" counts the references where the paraphrase's F1 is above both swaps' F1: a judge that reads
meaning ranks a faithful rewording above a text that states a wrong colour or a wrong object in the reference's
own words. The repeated reference is reported, not ranked (PoSh, the paper's metric, has no repetition penalty;
`PoShReward`'s `repeat:` rule handles it).

"Error budget" (the current judge's run): how close to perfect a judge must read the paraphrase for it to win.
The colour swap changes k colour words, about k attribute elements per direction; a perfect judge scores those 1
and the rest 5, so the swap keeps F1 about 1 - 4k / (5 N) for a reference graph of N elements, and a paraphrase
beats it only if fewer than about k of its elements per direction are judged wrong (or 4k judged 4 instead of 5).
The table prints k, N, that bound, and how many elements of the paraphrase this judge scores below 3 (PoSh's
presence threshold is 2; 3 is the scale's middle).

The baseline judge is the judge's modules (posh/embedding_judge.py, and since the split posh/judge_features.py and
posh/calibration.py) and its calibration at revision --baseline, read with `git show` and loaded beside the current
one (so it must import from the current package: the judge's other dependencies, graphs and templates, are the
current ones).
"""
import argparse, importlib.util, json, re, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'data/judge_probe/paraphrase/paraphrase.jsonl'
VARIANTS = ('reference', 'paraphrase', 'colour_swapped', 'object_swapped', 'repeated')
BASELINE = '7e1471a'   # the cal3 embedding judge (before the judge read the text: issue 17); 5227bd0's (cal2) no longer imports with this package


JUDGE_MODULES = ('judge_features', 'calibration', 'embedding_judge')   # the judge's modules in import order (up to 0ca020d, embedding_judge alone)


def baseline_judge(rev: str):
    """An EmbeddingJudge built from the judge's modules and its calibration at git revision `rev`: posh/embedding_judge.py
    alone at revisions before the judge was split, else posh/judge_features.py, posh/calibration.py and
    posh/embedding_judge.py, each loaded as `posh._baseline_<name>` and importing the other two from the revision."""
    def show(path): return subprocess.run(['git', 'show', f'{rev}:{path}'], cwd=ROOT, check=True,
                                          capture_output=True, text=True).stdout
    def exists(path): return subprocess.run(['git', 'cat-file', '-e', f'{rev}:{path}'], cwd=ROOT, stderr=subprocess.DEVNULL).returncode == 0
    names = [n for n in JUDGE_MODULES if exists(f'posh/{n}.py')]
    mod = None
    for n in names:
        code = show(f'posh/{n}.py')
        for other in names: code = re.sub(rf'from \.{other} import', f'from ._baseline_{other} import', code)
        name = f'posh._baseline_{n}'
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
        mod.__package__ = 'posh'
        sys.modules[name] = mod
        exec(compile(code, f'{rev}:posh/{n}.py', 'exec'), mod.__dict__)
    cal = Path(tempfile.mkdtemp(prefix='posh-baseline-')) / 'calibration.json'
    cal.write_text(show('posh/resources/embedding_judge_calibration.json'))
    return mod.EmbeddingJudge(calibration=str(cal))


def score(judge, rows) -> dict:
    "F1 (and precision, recall) of every variant of every row: {(id, variant): PairScore}."
    from posh.metric import PoSh
    m = PoSh('embedded', judge=judge)
    pairs = [(r['id'], v, r[v], r['reference']) for r in rows for v in VARIANTS]
    out = m.evaluate([g for _, _, g, _ in pairs], [ref for *_, ref in pairs], granular=True)
    return {(i, v): s for (i, v, _, _), s in zip(pairs, out)}, m.signature


def swapped_words(a:str, b:str) -> int:
    "How many words of `a` differ from `b` position by position (the colour swap replaces words one for one)."
    wa, wb = re.findall(r"\w+", a), re.findall(r"\w+", b)
    if len(wa) != len(wb): raise ValueError(f"the texts have {len(wa)} and {len(wb)} words: not a word-for-word swap")
    return sum(x != y for x, y in zip(wa, wb))


def counted(score, direction:str, below:float|None=None) -> int:
    "The counted elements of one direction of a granular PairScore (those scored below `below`, when given)."
    return sum(e.counted and e.direction == direction and (below is None or e.score < below) for e in score.elements)


def budget(rows, sc):
    "Per reference: colour words swapped k, reference elements N, a perfect judge's colour-swap F1 bound, and the elements of the paraphrase and of the colour swap this judge scores below 3."
    print("\nError budget: a perfect judge keeps the colour swap at about 1 - 4k / (5N); the paraphrase wins only with fewer "
          "than about k elements per direction judged wrong\n")
    print("| reference | split | colour words k | reference elements N | perfect judge: colours swapped F1 | paraphrase elements below 3 (precision / recall) | colours swapped: below 3 | object swap |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        k, n = swapped_words(r['reference'], r['colour_swapped']), counted(sc[r['id'], 'reference'], 'precision')
        p, c = sc[r['id'], 'paraphrase'], sc[r['id'], 'colour_swapped']
        print(f"| {r['id']} | {r['split']} | {k} | {n} | {1 - 4 * k / (5 * n):.3f} | {counted(p, 'precision', 3)} of "
              f"{counted(p, 'precision')} / {counted(p, 'recall', 3)} of {counted(p, 'recall')} | "
              f"{counted(c, 'precision', 3)} / {counted(c, 'recall', 3)} | {r.get('object_swap', '')} |")


def report(name, rows, sc):
    print(f"\n{name}\n")
    print("| reference | split | reference F1 | paraphrase F1 (P / R) | colours swapped F1 | object swapped F1 | repeated F1 | paraphrase wins |")
    print("|---|---|---|---|---|---|---|---|")
    wins = {}
    for r in rows:
        f = {v: sc[r['id'], v].f1 for v in VARIANTS}
        p = sc[r['id'], 'paraphrase']
        w = f['paraphrase'] > max(f['colour_swapped'], f['object_swapped'])
        wins.setdefault(r['split'], []).append(w)
        print(f"| {r['id']} | {r['split']} | {f['reference']:.3f} | {f['paraphrase']:.3f} ({p.precision:.2f} / {p.recall:.2f}) | "
              f"{f['colour_swapped']:.3f} | {f['object_swapped']:.3f} | {f['repeated']:.3f} | {'yes' if w else 'no'} |")
    for split in ('dev', 'test'):
        ids = [r['id'] for r in rows if r['split'] == split]
        mean = {v: np.mean([sc[i, v].f1 for i in ids]) for v in VARIANTS}
        print(f"| **mean {split}** | | {mean['reference']:.3f} | {mean['paraphrase']:.3f} | {mean['colour_swapped']:.3f} | "
              f"{mean['object_swapped']:.3f} | {mean['repeated']:.3f} | **{sum(wins[split])}/{len(wins[split])}** |")
    return wins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--data', default=str(DATA))
    ap.add_argument('--baseline', default=BASELINE, help="git revision of the baseline judge ('' : current judge only)")
    ap.add_argument('--threads', type=int, default=2, help='torch threads')
    args = ap.parse_args(argv)
    import torch
    torch.set_num_threads(args.threads)
    from posh.embedding_judge import EmbeddingJudge
    rows = [json.loads(l) for l in open(args.data)]
    judges = ([(f'baseline ({args.baseline})', baseline_judge(args.baseline))] if args.baseline else []) + \
             [('current', EmbeddingJudge())]
    summary = []
    for name, j in judges:
        t0 = time.perf_counter()
        sc, sig = score(j, rows)
        wins = report(f"{name}: {sig} ({time.perf_counter() - t0:.0f}s)", rows, sc)
        summary.append((name, j.signature, wins, sc))
    budget(rows, summary[-1][3])
    print("\nSide by side (mean F1 per half; paraphrase wins = paraphrase above both swaps)\n")
    print("| judge | half | paraphrase | colours swapped | object swapped | repeated | reference | paraphrase wins |")
    print("|---|---|---|---|---|---|---|---|")
    for name, sig, wins, sc in summary:
        for split in ('dev', 'test'):
            ids = [r['id'] for r in rows if r['split'] == split]
            m = {v: np.mean([sc[i, v].f1 for i in ids]) for v in VARIANTS}
            print(f"| {name} `{sig}` | {split} | {m['paraphrase']:.3f} | {m['colour_swapped']:.3f} | {m['object_swapped']:.3f} | "
                  f"{m['repeated']:.3f} | {m['reference']:.3f} | {sum(wins[split])}/{len(wins[split])} |")
    return 0


if __name__ == '__main__':
    sys.exit(main())
