"""How much of what people marked can PoSh's granular scores reach: marked words inside an element span, per rule set.

    python benchmarks/span_coverage.py                       # v2 and reference, granular dev and test sets
    python benchmarks/span_coverage.py --rules v6 v5 --json /tmp/cov.json
    python benchmarks/span_coverage.py --rules v2 --scope modifiers phrases --breakdown   # two scopes; the words left outside by part of speech

A granular token score comes from the elements whose spans overlap the token (`posh.meta_eval.max_over_overlaps`: the
maximum of their scores; a token no element covers gets 5, "unchecked"). A word outside every span can therefore
never be flagged, whatever the judge says. For each granular set (data/granular_dev, data/granular_test: their README
and CONVENTIONS) this counts, among the protocol's tokens (`posh.meta_eval.labelled_tokens`: en_core_web_sm tokens
without punctuation; a token is marked when it shares a character with a marked span, `posh.meta_eval.token_labels`):

* mistakes: the share of marked generation words inside a span of the generation's elements, beside the share of the
  unmarked generation words;
* omissions: the share of marked reference words inside a span of the reference's elements, beside the unmarked ones.

Spans, three readings:

* `scoring`: the spans the embedded configuration's granular scores are attached to, built as
  `posh.templates.plan_questions` builds the elements (an entity: every mention's words; an attribute (and a
  quantity): its words; a relation: its predicate words, part-of links their own words when recorded), then as
  `PoSh.evaluate` finishes them: `spans:heads` (an entity's mention cut after its own leading attributes,
  `posh.metric.entity_head_spans`) and `scope:modifiers` (uncovered adjectives and adverbs given to the element that
  covers their head, `posh.metric.head_scopes`), or the scope `--scope` names (`posh.metric.apply_scope`: 'phrases'
  adds the function words of the covered phrases, `posh.metric.phrase_scopes`; 'heads' every word, the generation's
  only, as `PoSh.evaluate` applies it; 'none': no scope). Every element counts, asked or not (an unasked one scores 1:
  it still reaches its words). The graph alone: what a better graph changes.
* `scoring+framing`: the same with the embedded default's framing elements (`posh.framing.framing_elements`, the
  checks of `CONFIGS['embedded']['framing']`): every word the embedded default's granular scores can reach.
* `all`: the graph's element spans read widely: whole entity mentions, attribute and quantity spans, relation
  predicate spans; no scope (in case the scoring spans are narrower than the graph).

The `posh` imported is the current directory's checkout when it has one, else this file's.
"""
import argparse, json, sys, time
from pathlib import Path

SCRIPT_ROOT = Path(__file__).resolve().parents[1]
READINGS = ('scoring', 'scoring+framing', 'all')


def checkout_root() -> Path:
    "The checkout whose `posh` is measured: the current directory's when it has one, else this file's."
    cwd = Path.cwd()
    return cwd if (cwd / 'posh' / '__init__.py').is_file() else SCRIPT_ROOT


def graph_elements(g, direction:str) -> list:
    "The elements of graph `g` with their spans, as `plan_questions` makes them (their scores do not matter here)."
    from posh.templates import Element, graph_view
    v = graph_view(g)
    els = [Element('entity', direction, e.id, e.name, sorted((w for m in e.mentions for w in m.parts()), key=lambda m: m.start))
           for e in g.entities]
    els += [Element('attribute', direction, e.id, a.text, a.spans) for e in g.entities for a in v.attributes[e.id]]
    els += [Element('relation', direction, l.subject, l.predicate, list(l.spans), object=l.object) for l in v.links]
    return els


def set_scope(scope:str, doc, els:list, direction:str) -> list:
    "The elements with their `scope` as `PoSh(scope=scope).evaluate` sets it (a checkout without `apply_scope` knows `head_scopes` only)."
    from posh.metric import SCOPES, head_scopes
    if scope == 'none' or (scope == 'heads' and direction != 'precision'): return els   # 'heads': the generation's words only
    if scope not in SCOPES: raise SystemExit(f"--scope {scope!r}: this posh knows {['none', *SCOPES]}")
    try: from posh.metric import apply_scope
    except ImportError: return head_scopes(doc, els, SCOPES[scope])
    return apply_scope(scope, doc, els)


def scoring_elements(g, doc, direction:str, framing:list=(), scope:str='modifiers') -> list:
    """The elements of `g` as the embedded configuration scores tokens, in `PoSh.evaluate`'s order: `spans:heads`, then
    the `framing` elements added, then the `scope` over them all."""
    from posh.metric import entity_head_spans
    els = entity_head_spans(graph_elements(g, direction)) + list(framing)
    return set_scope(scope, doc, els, direction)


def all_spans(g) -> list[tuple[int, int]]:
    "Every element span of `g` read widely: whole mentions, attributes, quantities, relation predicates."
    out = [(s.start, s.end) for _, s in g.spans()]
    from posh.templates import graph_links
    out += [(s.start, s.end) for l in graph_links(g) for s in l.spans]
    return out


def element_spans(els) -> list[tuple[int, int]]:
    "The character ranges an element list covers: its spans and scope words."
    return [(s.start, s.end) for e in els for s in list(e.spans) + list(e.scope or [])]


def coverage(tokens, is_error, spans) -> dict:
    "Counts of marked and unmarked tokens, and of those inside one of `spans`."
    from posh.meta_eval import overlaps
    inside = [overlaps(t.start, t.end, spans) for t in tokens]
    return {'marked': int(sum(is_error)), 'marked_inside': int(sum(i for i, e in zip(inside, is_error) if e)),
            'other': int(sum(not e for e in is_error)), 'other_inside': int(sum(i for i, e in zip(inside, is_error) if not e))}


def add(a:dict, b:dict) -> dict: return {k: a.get(k, 0) + b.get(k, 0) for k in {**a, **b}}


def outside_by_pos(tokens, is_error, spans, doc) -> dict:
    "Counts of the tokens outside every span, by (marked or other, coarse part of speech)."
    from posh.meta_eval import overlaps
    out = {}
    for t, e in zip(tokens, is_error):
        if overlaps(t.start, t.end, spans): continue
        k = f"{'marked' if e else 'other'} {doc.char_span(t.start, t.end, alignment_mode='expand').root.pos_}"
        out[k] = out.get(k, 0) + 1
    return out


def measure(items, labels, docs, graphs, scope:str='modifiers') -> dict:
    "reading -> subtask -> counts, summed over the items; 'outside' -> subtask -> the words outside `scoring+framing` by part of speech."
    from posh.framing import framing_elements
    from posh.metric import CONFIGS
    out = {r: {'mistakes': {}, 'omissions': {}} for r in READINGS}
    out['outside'] = {'mistakes': {}, 'omissions': {}}
    for a in items:
        gen, ref = graphs[a.generation], graphs[a.reference]
        fr = framing_elements(a.generation, [a.reference], tuple(CONFIGS['embedded']['framing'].split('+')))
        side = {'mistakes': (gen, docs[a.generation], 'precision'), 'omissions': (ref, docs[a.reference], 'recall')}
        for sub, (g, doc, direction) in side.items():
            lab = labels[a.key][sub]
            spans = {'scoring': element_spans(scoring_elements(g, doc, direction, scope=scope)),
                     'scoring+framing': element_spans(scoring_elements(g, doc, direction, [e for e in fr if e.direction == direction], scope)),
                     'all': all_spans(g)}
            for r in READINGS: out[r][sub] = add(out[r][sub], coverage(lab.tokens, lab.is_error, spans[r]))
            out['outside'][sub] = add(out['outside'][sub], outside_by_pos(lab.tokens, lab.is_error, spans['scoring+framing'], doc))
    return out


def share(n, d): return n / d if d else float('nan')


def print_table(res:dict):
    print("| set | rules, scope | spans | marked mistake words inside | other generation words inside | "
          "marked omission words inside | other reference words inside |\n|---|---|---|---|---|---|---|")
    for s, by in res.items():
        for r, x in by.items():
            for reading in READINGS:
                m, o = x[reading]['mistakes'], x[reading]['omissions']
                cell = lambda c, k: f"{share(c[k + '_inside'], c[k]):.3f} ({c[k + '_inside']}/{c[k]})"
                print(f"| {s} | {r} | {reading} | {cell(m, 'marked')} | {cell(m, 'other')} | {cell(o, 'marked')} | {cell(o, 'other')} |")


def print_breakdown(res:dict):
    "The words outside every `scoring+framing` span, by part of speech: marked, and the others."
    for s, by in res.items():
        for r, x in by.items():
            for sub, c in x['outside'].items():
                pos = sorted({k.split()[1] for k in c}, key=lambda p: -c.get(f'marked {p}', 0))
                print(f"\n{s}, {r}, {sub}: words outside `scoring+framing`, marked / other\n| POS | marked | other |\n|---|---|---|")
                for p in pos: print(f"| {p} | {c.get(f'marked {p}', 0)} | {c.get(f'other {p}', 0)} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rules', nargs='+', default=['v2', 'reference'], help='rule sets (posh.graphs.get_rules names)')
    ap.add_argument('--sets', nargs='+', default=['dev', 'test'], choices=['dev', 'test'], help='granular sets')
    ap.add_argument('--scope', nargs='+', default=['modifiers'], help="scopes of the `scoring` readings: 'none' or posh.metric.SCOPES keys (default modifiers, the embedded default's)")
    ap.add_argument('--breakdown', action='store_true', help='also the words outside `scoring+framing` by part of speech')
    ap.add_argument('--json', default=None, metavar='OUT', help='write the counts and shares to this JSON file')
    a = ap.parse_args(argv)
    sys.path.insert(0, str(checkout_root()))
    import posh
    from posh.data import load_granular_dev, load_granular_test
    from posh.graphs import GraphExtractor, get_rules
    from posh.meta_eval import parse_texts, token_labels
    for r in a.rules: get_rules(r)
    t0 = time.perf_counter()
    sets = {s: (load_granular_dev if s == 'dev' else load_granular_test)() for s in a.sets}
    texts = sorted({t for items in sets.values() for x in items for t in (x.generation, x.reference)})
    print(f"posh from {Path(posh.__file__).parent}; " + ', '.join(f"{s}: {len(v)} items" for s, v in sets.items()))
    exs = {r: GraphExtractor(rules=r) for r in a.rules}
    docs = parse_texts(next(iter(exs.values())).nlp, texts)   # the protocol's parse: the text whole, as given
    graphs = {r: dict(zip(texts, ex(texts))) for r, ex in exs.items()}
    res = {s: {f"{r}, {sc}": measure(items, token_labels(items, docs), docs, graphs[r], sc) for r in a.rules for sc in a.scope}
           for s, items in sets.items()}
    print_table(res)
    if a.breakdown: print_breakdown(res)
    print(f"\n{time.perf_counter() - t0:.0f}s in all")
    if a.json:
        Path(a.json).write_text(json.dumps({'command': ' '.join(sys.argv), 'posh': str(Path(posh.__file__).parent), 'sets': res}, indent=1))
        print('wrote', a.json)


if __name__ == '__main__':
    sys.exit(main())
