"""Scene-graph extraction: speed against the base commit's extractor, and quality on the hand-annotated dev set.

Speed: the 200 IIW-400 texts (100 references, 100 generations) through the extractor of the base commit (imported
from a `git archive` copy in a temporary folder) and through the current one, alternating, best of `--repeat`
passes each; prints descriptions per second, the share of parse / coreference / assembly, and the ratio.
Quality (`--quality`): element precision, recall and F1 (tools/score_graphs.py) per kind (entities, attributes,
part-whole links, relations) and in total, of the base commit's extractor and of the current rule sets (`--rules`,
default `reference` and `v2`) on data/gold_graphs/dev.jsonl, or on the held-out `--gold data/gold_graphs/test.jsonl`.
Difference (`--diff A B`, no speed measure): the gold elements (entities, attributes, relations) that one rule set's
graphs match and the other's do not, text by text, with their counts: where a change of rules wins or loses on the
gold graphs (dev only when choosing rules).

Usage: .venv/bin/python benchmarks/graphs.py [--quality] [--rules reference v2] [--gold data/gold_graphs/dev.jsonl] [--base cdca388] [--repeat 3] [--coref rules]
       .venv/bin/python benchmarks/graphs.py --diff v2 v6 [--gold data/gold_graphs/dev.jsonl]
"""
import argparse, importlib, importlib.util, io, json, subprocess, sys, tarfile, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_COMMIT = 'cdca388'   # main when issue 8 was opened: the "before" extractor

GRAPH_MODULES = ('coref', 'scene_graph', 'rules_v2', 'rules_parse', 'rules_entities', 'rules_coref', 'rules_attributes',
                 'rules_parts', 'rules_relations', 'rules_assembly', 'rules_reference', 'depictable', 'graphs')   # the extraction's modules (up to 0ca020d: coref and graphs; up to issue 54: rules_v2; since: depictable)

def import_base(commit:str, folder:Path):
    """The `GraphExtractor` of `commit`, from its extraction modules (posh/coref.py and posh/graphs.py, and since issue 47
    posh/scene_graph.py, posh/rules_v2.py and posh/rules_reference.py), as the package `posh_base`."""
    try:
        listed = subprocess.run(['git', '-C', str(ROOT), 'ls-tree', '--name-only', commit, 'posh/'],
                                capture_output=True, check=True, text=True).stdout.split()
        paths = [f'posh/{m}.py' for m in GRAPH_MODULES if f'posh/{m}.py' in listed]
        data = subprocess.run(['git', '-C', str(ROOT), 'archive', commit, *paths], capture_output=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        raise SystemExit(f"cannot read commit {commit} with git archive ({e}); run from a full clone "
                         f"(git fetch --unshallow) or pass --base with a commit you have")
    pkg = folder / 'posh_base'; pkg.mkdir()
    (pkg / '__init__.py').write_text('')
    names = [Path(p).stem for p in paths]
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            if not m.isfile(): continue
            src = tar.extractfile(m).read().decode()
            for n in names:
                src = src.replace(f'from posh.{n} import', f'from posh_base.{n} import').replace(f'from .{n} import', f'from posh_base.{n} import')
            (pkg / Path(m.name).name).write_text(src)
    sys.path.insert(0, str(folder))
    return importlib.import_module('posh_base.graphs').GraphExtractor

def load_scorer():
    spec = importlib.util.spec_from_file_location('score_graphs', ROOT / 'tools/score_graphs.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def speed(extractors:dict, texts:list, repeat:int):
    for ex in extractors.values(): ex(texts[:2])   # warm-up
    best = {}
    for r in range(repeat):
        names = list(extractors) if r % 2 == 0 else list(extractors)[::-1]   # alternate the order
        for name in names:
            ex = extractors[name]
            ex.timings = dict.fromkeys(ex.timings, 0.0)
            t0 = time.perf_counter(); ex(texts); wall = time.perf_counter() - t0
            if name not in best or wall < best[name][0]: best[name] = (wall, dict(ex.timings))
    return best

def gold_and_texts(S, gold_path:Path) -> tuple[list, dict]:
    "The gold rows of `gold_path` and their IIW-400 reference texts (id -> text)."
    gold = S.load_jsonl(gold_path)
    return gold, S.load_texts(ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl', [d['id'] for d in gold])

def quality(extractors:dict, S, gold_path:Path) -> dict:
    "The scorer's counts and figures of each extractor on the gold graphs of `gold_path` (IIW-400 references)."
    gold, texts = gold_and_texts(S, gold_path)
    out = {}
    for name, ex in extractors.items():
        graphs = ex([texts[d['id']] for d in gold])
        preds = {d['id']: dict(g.to_dict(), id=d['id']) for d, g in zip(gold, graphs)}
        out[name] = S.score(gold, preds)[1]
    return out

DIFF_KINDS = ('entities', 'attributes', 'relations')

def matched_gold(S, gold_row:dict, pred:dict) -> dict:
    """The gold elements of one text that the prediction (posh graph schema) matches, per kind (`DIFF_KINDS`), by the
    scorer's rules (plural names, attribute and predicate stems, a predicate matching when one's words hold the
    other's); a relation is listed when some predicted relation is compatible with it, so a prediction that matches
    two gold relations lists both where the scorer's one-to-one count takes one."""
    g, p = S.gold_graph(gold_row), S.pred_graph(pred)
    gmap, pmap = S.singular_map(set(g['ents']), set(p['ents'])), S.singular_map(set(p['ents']), set(g['ents']))
    ents = set(pmap[n] for n in p['ents'])
    attrs = set((pmap[n], S.norm_attr(a)) for n, a in p['attrs'])
    rels = [(pmap[s], S.pred_words(r), pmap[o]) for s, r, o in p['rels']]
    out = {k: [] for k in DIFF_KINDS}
    for n in dict.fromkeys(g['ents']):
        if gmap[n] in ents: out['entities'].append(n)
    for n, a in dict.fromkeys(g['attrs']):
        if (gmap[n], S.norm_attr(a)) in attrs: out['attributes'].append(f'{n}: {a}')
    for s, r, o in dict.fromkeys(g['rels']):
        w = S.pred_words(r)
        if any(x[0] == gmap[s] and x[2] == gmap[o] and S.predicates_match(w, x[1]) for x in rels):
            out['relations'].append(f'{s} - {r} - {o}')
    return out

def diff(extractors:dict, S, gold_path:Path) -> dict:
    """For two extractors (name -> GraphExtractor) on the gold graphs of `gold_path`: per text and kind, the gold
    elements that only the first matches ('lost' by the second) and only the second matches ('won')."""
    gold, texts = gold_and_texts(S, gold_path)
    (_, ea), (_, eb) = extractors.items()
    ga, gb = (ex([texts[d['id']] for d in gold]) for ex in (ea, eb))
    out = {}
    for d, a, b in zip(gold, ga, gb):
        ma, mb = (matched_gold(S, d, dict(x.to_dict(), id=d['id'])) for x in (a, b))
        out[d['id']] = {k: {'lost': [e for e in ma[k] if e not in mb[k]], 'won': [e for e in mb[k] if e not in ma[k]]}
                        for k in DIFF_KINDS}
    return out

def print_diff(res:dict, a:str, b:str, gold_path:Path):
    "Each text's lost and won gold elements, then the totals per kind."
    print(f"Gold elements of {gold_path.name} that {a} matches and {b} does not (lost), and the reverse (won)")
    for tid, kinds in res.items():
        lines = [f"  {k} {w}: " + '; '.join(v[w]) for k, v in kinds.items() for w in ('lost', 'won') if v[w]]
        if lines: print(tid); print('\n'.join(lines))
    print(f"\n| kind | lost by {b} | won by {b} |\n|---|---|---|")
    for k in DIFF_KINDS:
        print(f"| {k} | {sum(len(v[k]['lost']) for v in res.values())} | {sum(len(v[k]['won']) for v in res.values())} |")

QUALITY_KINDS = (('entity', 'entities'), ('attribute', 'attributes'), ('part_of', 'part-whole'), ('relation', 'relations'))

def print_quality(res:dict, gold_path:Path):
    "Per kind and total: precision / recall / F1 and the counts (gold, predicted, matched) of each extractor."
    n = sum(1 for line in open(gold_path) if line.strip())   # texts
    g = next(iter(res.values()))['combined'][0][0]            # gold elements
    print(f"\nElement scores on {gold_path.relative_to(ROOT) if gold_path.is_relative_to(ROOT) else gold_path} ({n} IIW-400 "
          f"references, {g} gold elements; part-whole: the `part_of` links, apart from the element total as before)")
    print("| extractor | " + ' | '.join(f"{n} P / R / F1" for _, n in QUALITY_KINDS) + " | element F1 | F1 with parts |")
    print("|---|" + "---|" * (len(QUALITY_KINDS) + 2))
    for name, r in res.items():
        cells = [' / '.join(f"{x:.3f}" for x in r[k][1]) for k, _ in QUALITY_KINDS]
        print(f"| {name} | " + ' | '.join(cells) + f" | {r['combined'][1][2]:.3f} | {r['combined+part_of'][1][2]:.3f} |")
    print("\n| extractor | " + ' | '.join(f"{n} gold / pred / match" for _, n in QUALITY_KINDS) + " |")
    print("|---|" + "---|" * len(QUALITY_KINDS))
    for name, r in res.items():
        print(f"| {name} | " + ' | '.join(' / '.join(str(x) for x in r[k][0]) for k, _ in QUALITY_KINDS) + " |")

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--base', default=BASE_COMMIT, help='commit whose extractor is the baseline')
    ap.add_argument('--parser', default='en_core_web_sm')
    ap.add_argument('--coref', default='rules')
    ap.add_argument('--repeat', type=int, default=3, help='timed passes over the 200 texts per extractor')
    ap.add_argument('--quality', action='store_true', help='also score the base commit and --rules on the dev set')
    ap.add_argument('--rules', nargs='+', default=['reference', 'v2'], help='rule sets scored by --quality (posh.graphs.get_rules names)')
    ap.add_argument('--gold', default=str(ROOT / 'data/gold_graphs/dev.jsonl'), help='gold graphs scored by --quality (dev.jsonl; test.jsonl: held out)')
    ap.add_argument('--data', default=str(ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl'))
    ap.add_argument('--diff', nargs=2, metavar=('A', 'B'), help='only list the gold elements rule set A matches and B does not, and the reverse')
    a = ap.parse_args(argv)
    cwd = Path.cwd()   # the posh measured: the current directory's checkout when it has one (another worktree's rules), else this file's
    sys.path.insert(0, str(cwd if (cwd / 'posh' / '__init__.py').is_file() else ROOT))
    from posh.graphs import GraphExtractor, get_rules
    if a.diff:
        if a.diff[0] == a.diff[1]: ap.error(f"--diff needs two different rule sets, not {a.diff[0]!r} twice")
        try: [get_rules(r) for r in a.diff]   # an unknown name fails before any work
        except ValueError as e: ap.error(str(e))
        gold = Path(a.gold).resolve()
        print_diff(diff({r: GraphExtractor(a.parser, a.coref, rules=r) for r in a.diff}, load_scorer(), gold), *a.diff, gold)
        return
    rows = [json.loads(l) for l in open(a.data)]
    texts = [r['reference'] for r in rows] + [r['generation'] for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        Base = import_base(a.base, Path(tmp))
        exs = {f'base {a.base}': Base(a.parser, a.coref), 'v2': GraphExtractor(a.parser, a.coref, rules='v2')}
        best = speed(exs, texts, a.repeat)
        words = sum(len(t.split()) for t in texts)
        print(f"{len(texts)} IIW-400 descriptions ({words / len(texts):.0f} words on average), parser {a.parser}, "
              f"coref {a.coref}, best of {a.repeat} alternating passes")
        print("| extractor | descriptions/s | parse | coref | assemble |")
        print("|---|---|---|---|---|")
        for name, (wall, tim) in best.items():
            tot = sum(tim.values())
            print(f"| {name} | {len(texts) / wall:.1f} | {tim['parse'] / tot:.0%} | {tim['coref'] / tot:.0%} | "
                  f"{tim['assemble'] / tot:.0%} |")
        ratio = best[f'base {a.base}'][0] / best['v2'][0]
        print(f"speed of v2 relative to base {a.base}: {ratio:.2f} (target >= 0.80)")
        if a.quality:
            for r in a.rules:
                if r not in exs: exs[r] = GraphExtractor(a.parser, a.coref, rules=r)
            gold = Path(a.gold).resolve()
            res = quality({k: exs[k] for k in (f'base {a.base}', *a.rules)}, load_scorer(), gold)
            print_quality(res, gold)

if __name__ == '__main__': main()
