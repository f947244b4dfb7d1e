"""Fit and measure the depictable-noun classifier (nbs/00a_depictable), and the lexicon's agreement.

    python tools/depictable.py --fit          # refit on posh/resources/depictable_labels.tsv -> depictable_classifier.json, print CV
    python tools/depictable.py --compare      # CV of simpler maps on the same folds (suffix rules, character n-grams)
    python tools/depictable.py --agreement    # first labels vs data/depictable/labels_second.tsv: raw agreement, Cohen's kappa

--compare needs scikit-learn (installed with sentence-transformers) for the character n-gram map.
"""
import argparse, json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESOURCE = ROOT / 'posh' / 'resources' / 'depictable_classifier.json'
SECOND = ROOT / 'data' / 'depictable' / 'labels_second.tsv'
SUFFIXES = ('ness', 'ity', 'ism', 'ance', 'ence', 'ancy', 'ency')


def _cv_line(name, r): return (f"{name}: accuracy {r.accuracy:.3f} (all depictable: {r.majority:.3f}), depictable kept "
                               f"{r.recall_depictable:.3f}, not depictable dropped {r.recall_not:.3f}, {r.n} lemmas, 10 folds")


def fit(out):
    from posh.depictable import load_labels, load_minilm, embed_lemmas, cross_validate, fit_classifier, trainable
    labels = load_labels(); model = load_minilm(); E = embed_lemmas(model, trainable(labels))
    print(_cv_line('all-MiniLM-L6-v2 logistic map, P<0.4 dropped', cross_validate(labels, E)))
    print(_cv_line('  same, P<0.5 dropped', cross_validate(labels, E, threshold=0.5)))
    Path(out).write_text(json.dumps(fit_classifier(labels, model, E=E).to_dict()) + '\n', encoding='utf-8')
    print(f"wrote {out}")


def compare():
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from posh.depictable import load_labels, stratified_folds, trainable
    labels = load_labels(); X = trainable(labels); y = np.array([labels[l][0] for l in X], int)
    fold = stratified_folds(y)
    def show(name, pred):
        print(f"{name}: accuracy {(pred == y).mean():.3f}, depictable kept {(pred[y == 1] == 1).mean():.3f}, "
              f"not depictable dropped {(pred[y == 0] == 0).mean():.3f}")
    show('all depictable', np.ones(len(y), int))
    show(f'suffix rules {SUFFIXES}', np.array([0 if l.endswith(SUFFIXES) else 1 for l in X]))
    pred = np.zeros(len(y), int)
    for f in range(10):
        tr, te = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        v = CountVectorizer(analyzer='char_wb', ngram_range=(2, 5), binary=True)
        m = LogisticRegression(C=0.3, max_iter=3000).fit(v.fit_transform([X[i] for i in tr]), y[tr])
        pred[te] = (m.predict_proba(v.transform([X[i] for i in te]))[:, 1] >= 0.4).astype(int)
    show('character 2-5-gram logistic map, P<0.4 dropped', pred)


def agreement():
    from posh.depictable import load_labels, agreement as ag
    r = ag(load_labels(), load_labels(SECOND))
    print(json.dumps({k: v for k, v in r.items() if k != 'disagreements'}))
    for lem, a, b in r['disagreements']: print(f"  {lem}: first {a}, second {b}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--fit', action='store_true'); ap.add_argument('--compare', action='store_true')
    ap.add_argument('--agreement', action='store_true')
    ap.add_argument('--out', default=str(RESOURCE), help='where --fit writes the classifier (default: the package resource)')
    args = ap.parse_args(argv)
    if not (args.fit or args.compare or args.agreement): ap.error('give --fit, --compare or --agreement')
    if args.agreement: agreement()
    if args.compare: compare()
    if args.fit: fit(args.out)


if __name__ == '__main__':
    main()
