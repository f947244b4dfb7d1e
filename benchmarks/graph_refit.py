"""Rule sets judged where they count: the judge refitted on each one's graphs, its figures side by side (issue 54).

A graph change changes the embedded judge's features, so a candidate rule set is chosen on the refitted judge's
figures, not on graph figures alone (`graphs.py`, `discosg_graphs.py`, `span_coverage.py` measure those).

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/graph_refit.py --rules v6-spatial_preps-no_of_relations
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/graph_refit.py --rules v6-active_voice v5 --json out.json --keep /tmp/refits
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/graph_refit.py --rules v6-spatial_preps-no_of_relations --graphs

`--graphs` also prints each rule set's graph figures, measured in this checkout on dev data only (a few minutes): the
gold graphs' dev set (`graphs.py --quality`: element F1, relations precision / recall), the granular dev set's marked
words inside the scoring and framing spans (`span_coverage.py`), and the DiscoSG dev part (`discosg_graphs.py`: SPICE
F1, relations precision / recall; after `make setup-discosg`, and only where ../shared has the captions).

Each configuration (the shipped rule set first, then every `--rules` name that `posh.graphs.get_rules` knows) runs in a
scratch copy of this checkout (its tracked and untracked files, not the ignored ones: uncommitted changes are measured).
There the embedded configuration's rule set (`posh.graphs.EMBEDDED_GRAPHS`) is set to the candidate, and the refit
recipes of the CHANGELOG run in order, with this interpreter, each writing the copy's own resources:

  1. `tools/build_probe.py` (the probe questions, from the candidate's graphs)
  2. `benchmarks/judges.py --fit --version P` (the probe map; P: the shipped probe map's version)
  3. `tools/fit_judge.py --version C` (the maps fitted on the granular dev set; C: the shipped one's)
  4. `tools/fit_omission_words.py --version W` (the omission words' map)
  5. `tools/choose_mistake_rule.py` (the mistake rule, chosen out of fold; it also prints its granular test and
     short-caption figures, which nothing was fitted on)
  6. `benchmarks/held_out.py --no-baselines --json` (corrected generations, short captions)
  7. `benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --words --methods PoSh --json` (out of fold)

The shipped versions are reused so that the shipped rule set's refit can be held against the shipped maps: the line
under the table gives the largest difference between their weights (the fits are deterministic up to floating-point
noise, about 1e-6, which also moves the maps' tags). The table prints every figure that the CHANGELOG's refit tables
carry from these tools; a row is comparable with the first one only, as both were refitted the same way. About 5
minutes per configuration on two cores (4.5 on an AMD EPYC, more on slower shared cores). With `--keep DIR` a run
resumes: a configuration whose copy in DIR finished for the same state of the checkout (HEAD, uncommitted changes,
untracked files) is read back, not refitted again.
"""
import argparse, hashlib, importlib.util, json, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = Path('posh') / 'resources'
TOLERANCE = 1e-4   # largest weight difference of a refit that reproduces the shipped maps
RULES_LINE = re.compile(r"^(EMBEDDED_GRAPHS = dict\(.*?rules=)'([^']*)'", re.M)


def shipped_versions(root:Path=ROOT) -> dict:
    "The versions of the shipped maps (the refit reuses them) and the shipped rule set."
    load = lambda name: json.loads((root / RESOURCES / name).read_text())
    m = RULES_LINE.search((root / 'posh' / 'graphs.py').read_text())
    if not m: raise SystemExit("posh/graphs.py names no EMBEDDED_GRAPHS rules: has the embedded configuration moved?")
    return {'rules': m.group(2), 'probe': load('embedding_judge_calibration_probe.json')['version'],
            'calibration': load('embedding_judge_calibration.json')['version'],
            'words': load('omission_words_calibration.json')['version']}


def copy_checkout(dest:Path, root:Path=ROOT):
    "The checkout's tracked and untracked files (not the ignored ones) copied into `dest`."
    files = subprocess.run(['git', 'ls-files', '-z', '-co', '--exclude-standard'], cwd=root, check=True,
                           capture_output=True).stdout.decode().split('\0')
    for f in filter(None, files):
        src = root / f
        if not src.is_file(): continue   # a deleted file git still lists
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / f)


def set_rules(copy:Path, rules:str):
    "Make `rules` the embedded configuration's rule set in the copy (its one EMBEDDED_GRAPHS line)."
    path = copy / 'posh' / 'graphs.py'
    text, n = RULES_LINE.subn(lambda m: f"{m.group(1)}{rules!r}", path.read_text())
    if n != 1: raise SystemExit(f"{path}: expected one EMBEDDED_GRAPHS line, found {n}")
    path.write_text(text)


def steps(v:dict) -> list[tuple[str, list[str]]]:
    "The refit recipes and the measures, as (name, arguments) in order."
    return [('probe', ['tools/build_probe.py']),
            ('probe map', ['benchmarks/judges.py', '--fit', '--version', v['probe']]),
            ('maps', ['tools/fit_judge.py', '--version', v['calibration']]),
            ('words', ['tools/fit_omission_words.py', '--version', v['words']]),
            ('mistake rule', ['tools/choose_mistake_rule.py']),
            ('held out', ['benchmarks/held_out.py', '--no-baselines', '--json', 'held_out.json']),
            ('granular dev', ['benchmarks/granular_dev.py', '--cv', '5', '--fit', 'tools/fit_judge.py:fit', '--words',
                              '--methods', 'PoSh', '--json', 'granular_dev.json'])]


def run_steps(copy:Path, v:dict, log) -> dict:
    "Run every step in the copy (its posh first on the path); seconds per step. A failing step ends the run, naming it."
    env = dict(os.environ, PYTHONPATH=str(copy) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    seconds = {}
    for name, args in steps(v):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True)
        log.write(f"$ {' '.join(args)}\n{r.stdout}{r.stderr}\n")
        if r.returncode:
            raise SystemExit(f"step {name!r} ({' '.join(args)}) failed with exit {r.returncode} in {copy}:\n"
                             f"{(r.stdout + r.stderr)[-3000:]}")
        seconds[name] = time.perf_counter() - t0
    return seconds


def probe_aucs(log_text:str) -> dict:
    "The probe map's dev-half AUC per kind, as `judges.py --fit` prints them."
    return {k: float(a) for k, a in re.findall(r"dev AUC (entity|attribute|relation): probe ([0-9.]+)", log_text)}


def figures(copy:Path, log_text:str) -> dict:
    "The refitted judge's figures, read from the files the steps wrote in the copy."
    rule = json.loads((copy / RESOURCES / 'mistake_rule.json').read_text())
    held = json.loads((copy / 'held_out.json').read_text())['rows'][0]
    dev = {}   # method -> task -> (token macro F1, token AUROC)
    for r in json.loads((copy / 'granular_dev.json').read_text()): dev.setdefault(r['method'], {})[r['task']] = (r['f1'], r['auroc'])
    judge = re.search(r'\|judge:([^|]+)\|', held['signature']).group(1)
    return {'judge': judge, 'probe_auc': probe_aucs(log_text), 'cut': rule['below'],
            'rule_f1': (rule['mistakes_f1'], rule['omissions_f1']),
            'rule_test': (rule['held_out']['granular_test']['mistakes'], rule['held_out']['granular_test']['omissions']),
            'rule_short': rule['held_out']['short_captions_mistakes'],
            'corrected': held['corrected_rate'], 'short_auroc': held['short_auroc'],
            'short_spearman': held['short_precision_spearman'],
            'dev': dev}


def checkout_state(root:Path=ROOT) -> str:
    "A hash of HEAD, the uncommitted changes and the untracked files: a kept copy is read back for the same state only."
    git = lambda *a: subprocess.run(['git', *a], cwd=root, check=True, capture_output=True).stdout
    h = hashlib.sha256(git('rev-parse', 'HEAD') + git('diff', 'HEAD', '--binary'))
    for f in filter(None, git('ls-files', '-z', '-o', '--exclude-standard').decode().split('\0')):
        if (root / f).is_file(): h.update(f.encode() + b'\0' + (root / f).read_bytes())
    return h.hexdigest()[:16]


def measure(rules:str, v:dict, scratch:Path, state:str) -> dict:
    "One configuration: copy, set its rules, refit, measure (or read back a finished copy of the same checkout state)."
    copy = scratch / re.sub(r'[^A-Za-z0-9_.-]', '_', rules)
    done = copy / 'figures.json'
    if done.is_file():
        out = json.loads(done.read_text())
        if out.get('state') == state: return out
        raise SystemExit(f"{copy} holds a refit of another state of the checkout: remove it or --keep another folder")
    if copy.exists(): shutil.rmtree(copy)   # a copy an interrupted run left unfinished: start it again
    copy.mkdir(parents=True)
    copy_checkout(copy)
    set_rules(copy, rules)
    with open(copy / 'refit.log', 'w') as log: seconds = run_steps(copy, v, log)
    out = figures(copy, (copy / 'refit.log').read_text())
    out.update(rules=rules, seconds=sum(seconds.values()), map_difference=map_difference(copy), state=state)
    done.write_text(json.dumps(out, indent=1) + '\n')
    return out


MAPS = ('embedding_judge_calibration.json', 'embedding_judge_calibration_probe.json', 'omission_words_calibration.json')

def largest_difference(a, b) -> float:
    "The largest absolute difference between the numbers of two JSON values of one shape (text ignored; inf: shapes differ)."
    if isinstance(a, bool) or isinstance(b, bool): return 0.0 if a == b else float('inf')
    if isinstance(a, (int, float)) and isinstance(b, (int, float)): return abs(a - b)
    if isinstance(a, str) and isinstance(b, str): return 0.0
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys(): return float('inf')
        return max((largest_difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): return float('inf')
        return max((largest_difference(x, y) for x, y in zip(a, b)), default=0.0)
    return 0.0 if a == b else float('inf')


def map_difference(copy:Path, root:Path=ROOT) -> float:
    "The largest weight difference between the copy's refitted maps and the checkout's (the judge's, the probe's, the words')."
    load = lambda base, name: json.loads((base / RESOURCES / name).read_text())
    return max(largest_difference(load(copy, n), load(root, n)) for n in MAPS)


def f3(x): return f"{x:.3f}"


def dev_cell(d:dict, method:str, task:str) -> str:
    "'F1 / AUROC' of one method and task of the granular dev rows."
    f = d['dev'].get(method, {}).get(task)
    return '-' if f is None else f"{f3(f[0])} / {f3(f[1])}"


def table(results:list[dict], shipped:dict) -> str:
    "The figures side by side, the shipped rule set's refit first."
    head = ('| rules | judge | probe AUC e / a / r | mistake cut | out of fold F1, mistakes / omissions | granular test | '
            'short captions (rule) | corrected rate | short AUROC | short precision Spearman | dev mistakes F1 / AUROC | '
            'dev omissions | dev PoSh+words omissions |')
    lines = [head, '|' + '---|' * (head.count('|') - 1)]
    for d in results:
        p = d['probe_auc']
        lines.append(f"| `{d['rules']}` | `{d['judge']}` | {' / '.join(f3(p.get(k, float('nan'))) for k in ('entity', 'attribute', 'relation'))} "
                     f"| {d['cut']:.2f} | {f3(d['rule_f1'][0])} / {f3(d['rule_f1'][1])} | {f3(d['rule_test'][0])} / {f3(d['rule_test'][1])} "
                     f"| {f3(d['rule_short'])} | {f3(d['corrected'])} | {f3(d['short_auroc'])} | {f3(d['short_spearman'])} "
                     f"| {dev_cell(d, 'PoSh', 'mistakes')} | {dev_cell(d, 'PoSh', 'omissions')} | {dev_cell(d, 'PoSh+words', 'omissions')} |")
    d = results[0]['map_difference']
    lines.append('')
    lines.append(f"The shipped rule set's refit (`{results[0]['rules']}`, `{results[0]['judge']}`; shipped `{shipped['judge']}`) "
                 f"{'reproduces' if d <= TOLERANCE else 'does NOT reproduce'} the shipped maps: largest weight difference {d:.1e}.")
    return '\n'.join(lines)


def load_benchmark(name:str):
    "A sibling benchmark script, as a module."
    spec = importlib.util.spec_from_file_location(name, ROOT / 'benchmarks' / f'{name}.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


def run_json(args:list[str]) -> dict:
    "Run a benchmark of this checkout with `--json`; its JSON."
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'out.json'
        r = subprocess.run([sys.executable, *args, '--json', str(out)], cwd=ROOT, capture_output=True, text=True)
        if r.returncode: raise SystemExit(f"{' '.join(args)} failed with exit {r.returncode}:\n{(r.stdout + r.stderr)[-3000:]}")
        return json.loads(out.read_text())


def discosg_ready() -> str:
    "'' when the DiscoSG benchmark can run here, else why not."
    data = (ROOT / load_benchmark('discosg_graphs').DEFAULT_DATA).resolve()
    if not data.is_file(): return f"no DiscoSG captions at {data}"
    missing = [m for m in ('factual_scene_graph', 'nltk', 'tabulate') if importlib.util.find_spec(m) is None]
    return f"FACTUAL's evaluator is not installed ({', '.join(missing)} missing: make setup-discosg)" if missing else ''


def graph_figures(rules:list[str]) -> dict:
    "Per rule set: gold dev (element F1, relations P, R), spans (mistakes, omissions inside) and DiscoSG dev (SPICE, relations P, R)."
    from posh.graphs import GraphExtractor, EMBEDDED_GRAPHS
    Gb, parser, coref = load_benchmark('graphs'), EMBEDDED_GRAPHS['parser'], EMBEDDED_GRAPHS['coref']
    res = Gb.quality({r: GraphExtractor(parser, coref, rules=r) for r in rules}, Gb.load_scorer(),
                     ROOT / 'data' / 'gold_graphs' / 'dev.jsonl')
    out = {r: {'gold': (res[r]['combined'][1][2], *res[r]['relation'][1][:2])} for r in rules}
    cov = run_json(['benchmarks/span_coverage.py', '--sets', 'dev', '--rules', *rules])['sets']['dev']
    for r in rules:
        c = cov[f'{r}, modifiers']['scoring+framing']
        out[r]['spans'] = tuple(c[k]['marked_inside'] / c[k]['marked'] for k in ('mistakes', 'omissions'))
    why = discosg_ready()
    if why: print(f"DiscoSG left out: {why}", file=sys.stderr)
    else:
        dis = run_json(['benchmarks/discosg_graphs.py', '--part', 'dev', '--rules', *rules])['parts']['dev']['rules']
        for r in rules:
            d = dis[r]
            out[r]['discosg'] = (d['spice_f1'][0], d['relations']['precision'][0], d['relations']['recall'][0])
    return out


def graph_table(g:dict) -> str:
    "The graph figures side by side."
    cell = lambda v: '-' if v is None else ' / '.join(f3(x) for x in v)
    lines = ['| rules | gold dev: element F1 / relations P / R | marked words inside spans, granular dev (mistakes / omissions) '
             '| DiscoSG dev: SPICE F1 / relations P / R |', '|---|---|---|---|']
    for r, d in g.items():
        lines.append(f"| `{r}` | {cell(d.get('gold'))} | {cell(d.get('spans'))} | {cell(d.get('discosg'))} |")
    return '\n'.join(lines)


def shipped_judge() -> str:
    "The shipped judge's tag (the embedded configuration's judge signature; no model is loaded)."
    from posh.metric import PoSh
    return PoSh('embedded').judge.signature


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rules', nargs='+', required=True, help='candidate rule sets (posh.graphs.get_rules names)')
    ap.add_argument('--keep', default=None, help='keep the scratch copies (resources, logs) under this folder')
    ap.add_argument('--json', default=None, help='also write the figures to this JSON file')
    ap.add_argument('--graphs', action='store_true', help='also the graph figures on dev data (gold, spans, DiscoSG)')
    a = ap.parse_args(argv)
    from posh.graphs import get_rules
    for r in a.rules: get_rules(r)   # an unknown name fails here, before any refit
    v = shipped_versions()
    scratch = Path(a.keep or tempfile.mkdtemp(prefix='graph_refit.'))
    scratch.mkdir(parents=True, exist_ok=True)
    t0, results, state = time.perf_counter(), [], checkout_state()
    try:
        for rules in [v['rules']] + [r for r in a.rules if r != v['rules']]:
            print(f"{rules}: refitting in {scratch} ...", file=sys.stderr, flush=True)
            results.append(measure(rules, v, scratch, state))
            print(f"{rules}: {results[-1]['seconds']:.0f}s", file=sys.stderr, flush=True)
    finally:
        if not a.keep: shutil.rmtree(scratch, ignore_errors=True)
    print(f"Judge figures after a refit on each rule set's graphs (`python benchmarks/graph_refit.py {' '.join(argv or sys.argv[1:])}`; "
          f"{time.perf_counter() - t0:.0f}s in all)\n")
    print(table(results, {'judge': shipped_judge()}))
    if a.graphs:
        g = graph_figures([d['rules'] for d in results])
        print('\nGraph figures on dev data (gold dev graphs, granular dev spans, DiscoSG dev captions)\n')
        print(graph_table(g))
        for d in results: d['graphs'] = g[d['rules']]
    if a.json: Path(a.json).write_text(json.dumps(results, indent=1) + '\n')


if __name__ == '__main__': main()
