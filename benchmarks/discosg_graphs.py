"""Scene graphs against the 300 DiscoSG expert graphs of detailed captions: FACTUAL's SPICE F1 and per-kind precision / recall.

    python benchmarks/discosg_graphs.py                                  # v2 and reference, dev and held-out parts
    python benchmarks/discosg_graphs.py --rules v2 --part dev --show 3   # the first 3 dev captions, element by element
    python benchmarks/discosg_graphs.py --rules v2 --part dev --no-spice --errors 15   # the commonest false / missed elements
    python benchmarks/discosg_graphs.py --rules v6 v5 v4 --json /tmp/discosg.json
    python benchmarks/discosg_graphs.py --rules v6 v6-coordination v6-verb_roots --no-spice   # each fix switched off
    python benchmarks/discosg_graphs.py --rules v6 --part dev --no-spice --sort-misses 10   # the experts' relations: matched, or why not
    cd OTHER_CHECKOUT && .venv/bin/python /path/to/benchmarks/discosg_graphs.py --rules v6   # OTHER_CHECKOUT's posh

Data: `human_anno_train_300.json` of DiscoSG (300 detailed captions, 181 words on average, with the graphs people
annotated as FACTUAL strings `( s , p , o ) , ...`). It has no licence: it is read from `../shared/data/discosg_train/`
and never copied into the repository; no figure per caption is committed. Where it is missing: the DiscoSG
repository (ShaoqLin/DiscoSG on GitHub), file `DiscoSG_datasets/human_anno_train_300.json`, commit b9f6bbb8c63d,
given with `--data PATH`.

Parts: a fixed fifth of the captions (60 of 300) is held out, chosen by a permutation of the indices with the seed
HELD_SEED below; no rule may be tuned on it. `dev` is the other 240. Both are reported unless `--part` says one
(`all`: the 300 together).

Graphs: each rule set (`--rules`, any name `posh.graphs.get_rules` knows) runs in `posh.graphs.GraphExtractor`
(en_core_web_sm, the rule-based coreference: the embedded configuration's extraction), and its graphs are written as
FACTUAL tuples by `posh.scene_graph.graph_triples` (nbs/01_scene_graph, *FACTUAL triples*): attributes and counts
`(e, is, a)`, part-of `(whole, have, part)`, relations `(s, predicate lemmas, o)`, and a bare `(e)` for an entity in
no triple (`--no-bare` leaves those out). The `posh` imported is the current directory's checkout when it has one
(so another worktree's rules are measured by running this file from that worktree), else this file's; where that
checkout has no `graph_triples` yet, this file's `posh/scene_graph.py` writes the tuples.

Figures (per part and rule set; each with a 95% bootstrap interval over captions, BOOT_ROUNDS draws, seed BOOT_SEED):
* SPICE F1: FACTUAL's evaluator (`factualscenegraph==0.7.3`, `make setup-discosg`), synonyms matched,
  `eval_spice([candidate], [gold])` per caption, the mean over captions. It takes about 0.4 s a caption, so each
  score is kept in `.cache/discosg_spice.json` under a hash of the two strings and the evaluator's version
  (`--no-cache`: all anew); a rerun scores only the graphs that changed.
* per kind, precision and recall of exact matches after lemmatizing, pooled over the part's captions (matched /
  predicted, matched / gold): entities (every name in a tuple, the object of an `is` tuple excepted), attributes
  `(e, a)` of the `is` tuples, part-whole `(whole, part)` of the `have` tuples, relations `(s, p, o)` of the others.
  Lemmatizing: each attribute and predicate is parsed alone by en_core_web_sm, each entity name after 'the ' (so it
  reads as a noun: `building` stays `building`), and written as its tokens' lemmas, lower-cased, joined by single
  spaces (`lights` -> `light`, `stands on` -> `stand on`, `man-made` -> `man - make`); both sides alike. Each
  caption's elements of a kind are a set (a repeated tuple counts once).
* the predicted and gold element counts per kind, and graphs per second of the extraction (parse, coreference, rules).
"""
import argparse, hashlib, importlib.util, json, logging, sys, time, warnings
from pathlib import Path

import numpy as np

SCRIPT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = '../shared/data/discosg_train/human_anno_train_300.json'   # relative to the repository root
HELD_SEED = 54        # the permutation that picks the held-out fifth (issue 54); never change it
BOOT_SEED, BOOT_ROUNDS = 0, 1000
SPICE_CACHE = '.cache/discosg_spice.json'   # in the checkout measured (ignored by git): scores keyed by hashes only
KINDS = ('entities', 'attributes', 'parts', 'relations')
KIND_NAMES = {'entities': 'entities', 'attributes': 'attributes', 'parts': 'part-whole', 'relations': 'relations'}
GET_DATA = ("the DiscoSG expert graphs are not at {path}: the file is human_anno_train_300.json of the DiscoSG repository "
            "(ShaoqLin/DiscoSG on GitHub, DiscoSG_datasets/human_anno_train_300.json, commit b9f6bbb8c63d); this project "
            "reads it from ../shared/data/discosg_train/ (no licence: never copy it into the repository); pass --data PATH")


def checkout_root() -> Path:
    "The checkout whose `posh` is measured: the current directory's when it has one, else this file's."
    cwd = Path.cwd()
    return cwd if (cwd / 'posh' / '__init__.py').is_file() else SCRIPT_ROOT


def triples_api():
    """`posh.scene_graph`'s FACTUAL functions (graph_triples, triples_string, parse_triples, predicate_lemmas): from the
    measured checkout, or from this file's when that checkout predates them (they read any SceneGraph alike)."""
    import posh.scene_graph as sg
    if hasattr(sg, 'graph_triples'): return sg
    spec = importlib.util.spec_from_file_location('_discosg_scene_graph', SCRIPT_ROOT / 'posh' / 'scene_graph.py')
    mod = sys.modules[spec.name] = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)   # dataclasses look it up
    return mod


def load_discosg(path) -> list[dict]:
    "The captions and gold graph strings; SystemExit saying how to get the file when it is missing or malformed."
    path = Path(path)
    if not path.is_file(): raise SystemExit(GET_DATA.format(path=path))
    rows = json.loads(path.read_text())
    if not isinstance(rows, list): raise SystemExit(f"{path}: expected a JSON list of {{caption, scene_graph}} objects")
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not isinstance(r.get('caption'), str) or not isinstance(r.get('scene_graph'), str):
            raise SystemExit(f"{path}: caption {i} is not an object with string 'caption' and 'scene_graph'")
    return rows


def split_parts(n:int, seed:int=HELD_SEED) -> dict[str, list[int]]:
    "The held-out fifth (n // 5 indices of a seeded permutation) and the rest ('dev'), each sorted; 'all' is every index."
    held = sorted(int(i) for i in np.random.RandomState(seed).permutation(n)[:n // 5])
    hs = set(held)
    return {'dev': [i for i in range(n) if i not in hs], 'held': held, 'all': list(range(n))}


# ---------------------------------------------------------------- per-kind elements and their matching
def kind_elements(tuples, name=lambda w: w, word=lambda w: w) -> dict[str, set]:
    "A graph's tuples (1 or 3 words) as a set of elements per kind (`KINDS`), entity names normalized by `name`, attributes and predicates by `word`."
    out = {k: set() for k in KINDS}
    for t in tuples:
        if len(t) == 1: out['entities'].add(name(t[0])); continue
        s, p, o = t
        if p == 'is': out['attributes'].add((name(s), word(o))); out['entities'].add(name(s))
        elif p == 'have': out['parts'].add((name(s), name(o))); out['entities'].update((name(s), name(o)))
        else: out['relations'].add((name(s), word(p), name(o))); out['entities'].update((name(s), name(o)))
    return out


def match_counts(pred:dict, gold:dict) -> np.ndarray:
    "Per kind (`KINDS`): [predicted, gold, matched] of two `kind_elements`."
    return np.array([[len(pred[k]), len(gold[k]), len(pred[k] & gold[k])] for k in KINDS], int)


def phrase_lemmas(nlp, words, names:bool=False) -> dict[str, str]:
    """Each distinct phrase parsed alone (a name after 'the ', so that it reads as a noun phrase: 'building' stays
    'building'): its tokens' lemmas, lower-cased, joined by single spaces."""
    uniq = sorted(set(words))
    off = [p for p in ('parser', 'ner') if p in nlp.pipe_names]
    docs = nlp.pipe((f"the {w}" if names else w for w in uniq), disable=off, batch_size=256)
    return {w: ' '.join(t.lemma_.lower() for t in list(d)[int(names):] if not t.is_space) or w.lower()
            for w, d in zip(uniq, docs)}


def normalizers(nlp, graphs) -> tuple:
    "The `name` and `word` functions of `kind_elements` for every word of `graphs` (lists of tuples)."
    names, words = set(), set()
    for tuples in graphs:
        for t in tuples:
            names.add(t[0])
            if len(t) == 3: (words if t[1] == 'is' else names).add(t[2]); words.add(t[1])
    n, w = phrase_lemmas(nlp, names, names=True), phrase_lemmas(nlp, words)
    return (lambda x: n.get(x, x)), (lambda x: w.get(x, x))


# ---------------------------------------------------------------- the figures
def ratio(num, den): return num / den if den else float('nan')


def bootstrap(counts:np.ndarray, spice:np.ndarray|None, rounds:int=BOOT_ROUNDS, seed:int=BOOT_SEED) -> dict:
    """Pooled precision and recall per kind and mean SPICE F1, each (value, low, high) of a 95% interval over captions.
    `counts`: (captions, kinds, 3) of [predicted, gold, matched]; `spice`: per caption, or None."""
    n = len(counts)
    draws = np.random.RandomState(seed).randint(0, n, (rounds, n))
    tot, boot = counts.sum(0), counts[draws].sum(1)   # (kinds, 3), (rounds, kinds, 3)
    def band(v, xs): return (float(v), float(np.nanpercentile(xs, 2.5)), float(np.nanpercentile(xs, 97.5)))
    out = {}
    with np.errstate(invalid='ignore', divide='ignore'), warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)   # a kind with no element in a draw: NaN, left out
        for j, k in enumerate(KINDS):
            out[k] = {'precision': band(ratio(tot[j, 2], tot[j, 0]), boot[:, j, 2] / boot[:, j, 0]),
                      'recall': band(ratio(tot[j, 2], tot[j, 1]), boot[:, j, 2] / boot[:, j, 1]),
                      'predicted': int(tot[j, 0]), 'gold': int(tot[j, 1]), 'matched': int(tot[j, 2])}
    if spice is not None: out['spice_f1'] = band(spice.mean(), spice[draws].mean(1))
    return out


def load_spice():
    "FACTUAL's `eval_spice`, or SystemExit saying how to install it."
    try:
        root = logging.getLogger(); level, handlers = root.level, list(root.handlers)
        from factual_scene_graph.evaluation.spice_evaluation import eval_spice
        root.setLevel(level); root.handlers[:] = handlers   # its import configures the root logger; undone
        return eval_spice
    except ImportError as e:
        raise SystemExit(f"FACTUAL's evaluator is not installed ({e}): run `make setup-discosg` "
                         "(pip install --no-deps factualscenegraph==0.7.3, with nltk and tabulate), or pass --no-spice")


def spice_scores(eval_spice, cands:list[str], golds:list[str], cache:Path|None=None) -> np.ndarray:
    """FACTUAL's SPICE F1 of each candidate string against its gold string (about 0.4 s a caption). With `cache`, a JSON
    file of scores keyed by a hash of (evaluator version, candidate, gold): an unchanged graph is not scored again."""
    from importlib.metadata import version
    v = version('factualscenegraph')
    keys = [hashlib.sha256(f"{v}\0{c}\0{g}".encode()).hexdigest()[:32] for c, g in zip(cands, golds)]
    known = json.loads(cache.read_text()) if cache and cache.is_file() else {}
    out = [known[k] if k in known else eval_spice([c], [g]) for k, c, g in zip(keys, cands, golds)]
    if cache and set(keys) - set(known):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix('.tmp'); tmp.write_text(json.dumps({**known, **dict(zip(keys, out))})); tmp.replace(cache)
    return np.array(out, float)


def fmt(b): return f"{b[0]:.3f} [{b[1]:.3f}, {b[2]:.3f}]"


def print_part(part:str, n:int, res:dict):
    "The tables of one part: SPICE and speed per rule set, then per kind."
    print(f"\n### {part}: {n} captions\n")
    print("| rules | SPICE F1 [95% CI] | graphs/s |\n|---|---|---|")
    for r, x in res.items():
        print(f"| {r} | {fmt(x['spice_f1']) if 'spice_f1' in x else '-'} | {x['graphs_per_second']:.1f} |")
    print("\n| rules | kind | precision [95% CI] | recall [95% CI] | predicted | gold |\n|---|---|---|---|---|---|")
    for r, x in res.items():
        for k in KINDS:
            y = x[k]
            print(f"| {r} | {KIND_NAMES[k]} | {fmt(y['precision'])} | {fmt(y['recall'])} | {y['predicted']:,} | {y['gold']:,} |")


def show(i:int, caption:str, rules:str, pred:dict, gold:dict):
    "One caption's predicted and gold elements per kind: matched, predicted only, gold only."
    print(f"\n--- caption {i} ({rules}): {caption[:300]}{' ...' if len(caption) > 300 else ''}")
    for k in KINDS:
        f = lambda xs: '; '.join(sorted(' | '.join(x) if isinstance(x, tuple) else x for x in xs)) or '-'
        print(f"  {KIND_NAMES[k]}\n    both:      {f(pred[k] & gold[k])}\n    predicted: {f(pred[k] - gold[k])}"
              f"\n    gold:      {f(gold[k] - pred[k])}")


def frequent_errors(p_el:dict, g_el:dict, idx:list, k:int) -> dict:
    "Per kind, the `k` most frequent predicted-only and gold-only elements over the captions `idx`, with their counts."
    from collections import Counter
    out = {}
    for kind in KINDS:
        fp, fn = Counter(), Counter()
        for i in idx: fp.update(p_el[i][kind] - g_el[i][kind]); fn.update(g_el[i][kind] - p_el[i][kind])
        out[kind] = {'predicted only': fp.most_common(k), 'gold only': fn.most_common(k)}
    return out


def print_errors(rules:str, part:str, errs:dict):
    print(f"\n--- most frequent errors of {rules} on {part} (element: captions)")
    for kind, by in errs.items():
        for what, xs in by.items():
            print(f"  {KIND_NAMES[kind]}, {what}: " + '; '.join(f"{' | '.join(x) if isinstance(x, tuple) else x}: {n}" for x, n in xs))


MISS_KINDS = ('matched', 'same pair, other predicate', 'both entities, no relation', 'an entity missing')

def sentence_lemmas(nlp, captions:dict) -> dict:
    "Per caption (index -> text): the set of lower-cased lemmas of each of its sentences."
    docs = nlp.pipe(captions.values(), disable=[p for p in ('ner',) if p in nlp.pipe_names], batch_size=64)
    return {i: [{t.lemma_.lower() for t in sent} for sent in d.sents] for i, d in zip(captions, docs)}


def named_together(sents:list, s:str, o:str) -> bool:
    "Does one sentence (a set of lemmas, `sentence_lemmas`) hold the last words of both entity names?"
    a, b = s.split()[-1], o.split()[-1]
    return any(a in L and b in L for L in sents)


def sort_relations(p_el:dict, g_el:dict, idx:list, k:int, sents:dict|None=None) -> dict:
    """Each gold relation of the captions `idx`, sorted by what the prediction has of it (`MISS_KINDS`): the relation; the
    same two entities related with another predicate (either way round); both entities but no relation between them;
    or not both entities. Per sort: the count and the `k` commonest gold predicates (for the other-predicate sort,
    gold predicate -> the predicted ones; for a missing entity, the entity). How `v4`'s fixes were chosen (dev only).
    With `sents` (`sentence_lemmas`), the no-relation sort also counts the relations whose two entities no sentence of
    the caption names together (`named_together`): relations the experts inferred across sentences or from the scene."""
    from collections import Counter
    counts, top = Counter(), {m: Counter() for m in MISS_KINDS}
    apart = 0
    for i in idx:
        p, g = p_el[i], g_el[i]
        pairs = {}
        for s, pr, o in p['relations']:
            pairs.setdefault((s, o), set()).add(pr); pairs.setdefault((o, s), set()).add('(reversed) ' + pr)
        for s, pr, o in g['relations']:
            if (s, pr, o) in p['relations']: m, key = MISS_KINDS[0], pr
            elif (s, o) in pairs: m, key = MISS_KINDS[1], f"{pr} -> {' / '.join(sorted(pairs[(s, o)]))}"
            elif s in p['entities'] and o in p['entities']:
                m, key = MISS_KINDS[2], pr
                apart += sents is not None and not named_together(sents[i], s, o)
            else: m, key = MISS_KINDS[3], s if s not in p['entities'] else o
            counts[m] += 1; top[m][key] += 1
    out = {m: {'gold relations': counts[m], 'commonest': top[m].most_common(k)} for m in MISS_KINDS}
    if sents is not None: out[MISS_KINDS[2]]['named in no common sentence'] = apart
    return out


def print_sorted(rules:str, part:str, res:dict):
    n = sum(v['gold relations'] for v in res.values())
    print(f"\n--- the experts' relations on {part} ({n}), sorted by what {rules} has of them")
    for m, v in res.items():
        apart = f"{v['named in no common sentence']} named in no common sentence; " if 'named in no common sentence' in v else ''
        print(f"  {m}: {v['gold relations']} ({v['gold relations'] / max(n, 1):.3f}); {apart}" +
              '; '.join(f'{x}: {c}' for x, c in v['commonest']))


# ---------------------------------------------------------------- main
def extract(rules:str, captions:list[str], parser:str, coref:str, bare:bool):
    "The graphs of a rule set as FACTUAL tuples, and the extraction's graphs per second."
    from posh.graphs import GraphExtractor
    sg = triples_api()
    ex = GraphExtractor(parser, coref, rules=rules)
    t0 = time.perf_counter(); graphs = ex(captions); secs = time.perf_counter() - t0
    lem = sg.predicate_lemmas(ex.nlp)
    return [sg.graph_triples(g, lem, bare) for g in graphs], len(captions) / secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=None, help=f'the DiscoSG JSON (default {DEFAULT_DATA}, from the repository root)')
    ap.add_argument('--rules', nargs='+', default=['v2', 'reference'], help='rule sets (posh.graphs.get_rules names)')
    ap.add_argument('--part', default='both', choices=['both', 'dev', 'held', 'all'], help='captions reported (both: dev and held)')
    ap.add_argument('--parser', default='en_core_web_sm')
    ap.add_argument('--coref', default='rules')
    ap.add_argument('--limit', type=int, default=0, metavar='N', help='the first N captions of each part only (a quick check)')
    ap.add_argument('--no-bare', action='store_true', help='leave out the bare (entity) tuples of entities in no triple')
    ap.add_argument('--no-spice', action='store_true', help="skip FACTUAL's SPICE (per-kind figures only)")
    ap.add_argument('--no-cache', action='store_true', help=f'score every caption anew (default: reuse {SPICE_CACHE})')
    ap.add_argument('--show', type=int, default=0, metavar='N', help="print the first N captions' elements per kind")
    ap.add_argument('--errors', type=int, default=0, metavar='K', help='print the K most frequent false and missed elements per kind')
    ap.add_argument('--sort-misses', type=int, default=0, metavar='K', help="sort the experts' relations by what each rule set has of "
                    "them (matched, other predicate, no relation, an entity missing), with the K commonest of each, and how many of "
                    "the unrelated pairs no sentence names together")
    ap.add_argument('--json', default=None, metavar='OUT', help='write all figures to this JSON file')
    a = ap.parse_args(argv)
    root = checkout_root()
    sys.path.insert(0, str(root))
    import posh
    from posh.graphs import get_rules
    from posh.scene_graph import load_parser
    parse_triples, triples_string = triples_api().parse_triples, triples_api().triples_string
    for r in a.rules: get_rules(r)   # an unknown name fails before any work
    data = Path(a.data) if a.data else (root / DEFAULT_DATA).resolve()
    rows = load_discosg(data)
    gold = [parse_triples(r['scene_graph'], f"{data.name}: caption {i}") for i, r in enumerate(rows)]
    parts = {k: v[:a.limit] if a.limit else v for k, v in split_parts(len(rows)).items()}
    show_parts = ['dev', 'held'] if a.part == 'both' else [a.part]
    todo = sorted({i for p in show_parts for i in parts[p]})
    captions = [rows[i]['caption'] for i in todo]
    eval_spice = None if a.no_spice else load_spice()
    print(f"posh from {Path(posh.__file__).parent}; data {data} ({len(rows)} captions; held-out seed {HELD_SEED})")
    nlp = load_parser('en_core_web_sm')
    t0 = time.perf_counter()
    preds, speed, spice = {}, {}, {}
    for r in a.rules:
        tuples, speed[r] = extract(r, captions, a.parser, a.coref, not a.no_bare)
        preds[r] = dict(zip(todo, tuples))
        if eval_spice:
            t1 = time.perf_counter()
            sc = spice_scores(eval_spice, [triples_string(preds[r][i]) for i in todo], [rows[i]['scene_graph'] for i in todo],
                              None if a.no_cache else root / SPICE_CACHE)
            spice[r] = dict(zip(todo, sc))
            print(f"{r}: {speed[r]:.1f} graphs/s; SPICE of {len(todo)} captions in {time.perf_counter() - t1:.0f}s")
    name, word = normalizers(nlp, [gold[i] for i in todo] + [preds[r][i] for r in preds for i in todo])
    g_el = {i: kind_elements(gold[i], name, word) for i in todo}
    p_el = {r: {i: kind_elements(preds[r][i], name, word) for i in todo} for r in a.rules}
    out = {'data': str(data), 'held_seed': HELD_SEED, 'bootstrap': {'rounds': BOOT_ROUNDS, 'seed': BOOT_SEED},
           'bare_entities': not a.no_bare, 'command': ' '.join(sys.argv), 'posh': str(Path(posh.__file__).parent), 'parts': {}}
    for part in show_parts:
        idx = parts[part]
        res = {}
        for r in a.rules:
            counts = np.stack([match_counts(p_el[r][i], g_el[i]) for i in idx])
            sc = np.array([spice[r][i] for i in idx]) if eval_spice else None
            res[r] = {**bootstrap(counts, sc), 'graphs_per_second': speed[r]}
        out['parts'][part] = {'captions': len(idx), 'rules': res}
        print_part(part, len(idx), res)
    for part in show_parts if a.errors else []:
        for r in a.rules: print_errors(r, part, frequent_errors(p_el[r], g_el, parts[part], a.errors))
    sents = sentence_lemmas(nlp, {i: rows[i]['caption'] for i in todo}) if a.sort_misses else None
    for part in show_parts if a.sort_misses else []:
        for r in a.rules:
            res = sort_relations(p_el[r], g_el, parts[part], a.sort_misses, sents)
            print_sorted(r, part, res)
            out['parts'][part]['rules'][r]['relations_sorted'] = res
    for i in todo[:a.show]:
        for r in a.rules: show(i, rows[i]['caption'], r, p_el[r][i], g_el[i])
    print(f"\n{time.perf_counter() - t0:.0f}s in all")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
        print('wrote', a.json)


if __name__ == '__main__':
    sys.exit(main())
