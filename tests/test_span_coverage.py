"""benchmarks/span_coverage.py: its `scoring+framing` spans are the words PoSh's embedded default attaches granular
scores to (checked against real `PoSh('embedded')` elements on two granular dev items), and its counts add up."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location('span_coverage', ROOT / 'benchmarks/span_coverage.py')
C = importlib.util.module_from_spec(spec); spec.loader.exec_module(C)


def test_spans_are_the_scoring_spans():
    from posh.data import load_granular_dev
    from posh.metric import PoSh
    from posh.meta_eval import parse_texts, token_labels, max_over_overlaps, overlaps
    items = load_granular_dev()[:2]
    m = PoSh('embedded')
    scores = m.evaluate([a.generation for a in items], [a.reference for a in items], granular=True)
    texts = sorted({t for a in items for t in (a.generation, a.reference)})
    docs = parse_texts(m.extractor.nlp, texts)
    labels = token_labels(items, docs)
    graphs = dict(zip(texts, m.extractor(texts)))
    for a, ps in zip(items, scores):
        for sub, direction, text in (('mistakes', 'precision', a.generation), ('omissions', 'recall', a.reference)):
            toks = labels[a.key][sub].tokens
            real = [(list(e.spans) + list(e.scope or []), 0.0) for e in ps.elements if e.direction == direction]
            reached = max_over_overlaps(toks, real, 1.0) == 0.0   # the tokens some element's spans or scope overlap
            framing = [e for e in ps.elements if e.direction == direction and e.kind == 'framing']
            mine = C.element_spans(C.scoring_elements(graphs[text], docs[text], direction, framing))
            assert reached.tolist() == [overlaps(t.start, t.end, mine) for t in toks], (a.key, sub)
    res = C.measure(items, labels, docs, graphs)
    for sub in ('mistakes', 'omissions'):
        n = sum(int(labels[a.key][sub].is_error.sum()) for a in items)
        for r in C.READINGS:
            x = res[r][sub]
            assert x['marked'] == n and 0 < x['marked_inside'] <= n and 0 < x['other_inside'] <= x['other']
        assert res['scoring+framing'][sub]['marked_inside'] >= res['scoring'][sub]['marked_inside']
