"""PoSh's lmms-eval tasks run by lmms-eval itself (issue 55; posh.lmms_eval, nbs/15_lmms_eval), on CPU, without the hub.

`make lmms-test` (part of `make test`) runs this file with the python of `.venv-lmms` (`make setup-lmms`: lmms-eval
0.7.3 beside posh); without lmms-eval (the main venv) it skips, saying why. Only the vision model's output is replayed
(lmms-eval's own `from_log` model, reading stored IIW-400 descriptions); lmms-eval loads the task from
`posh lmms-eval-tasks`, builds the documents (real PNG images, written here), logs the samples and calls PoSh's
metrics, which score for real with the embedded configuration.
"""
import ast, json, os, subprocess, sys
from pathlib import Path

import pytest

pytest.importorskip('lmms_eval', reason='lmms-eval is not installed: `make setup-lmms` builds .venv-lmms, and '
                    '`make lmms-test` runs these tests with it (or pip install "posh[lmms-eval]")')

from posh.lmms_eval import METRICS
from posh.metric import PoSh
from posh.scoring import corpus_score

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PAIRS = {r['id']: r for r in map(json.loads, open(ROOT / 'data' / 'iiw400' / 'p5b_vs_human_sxs.jsonl'))}
GOOD = ['aar_test_04640', 'aar_test_04617']   # the two shortest IIW-400 pairs
TASKS = ('posh_local', 'posh_docent', 'posh_detailcaps')


def tasks_dir() -> str:
    r = subprocess.run([BIN / 'posh', 'lmms-eval-tasks'], capture_output=True, text=True, check=True)
    return r.stdout.strip()


def env(**kw) -> dict:
    return {**os.environ, 'HF_HUB_OFFLINE': '1', 'HF_DATASETS_OFFLINE': '1', 'OMP_NUM_THREADS': '2',
            'TOKENIZERS_PARALLELISM': 'false', 'WANDB_MODE': 'disabled', **kw}


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """lmms-eval's CLI on posh_local: two IIW-400 pairs with generated PNG images, a document whose stored response is
    empty, and one without references; the responses replayed by `from_log`."""
    from PIL import Image
    base = tmp_path_factory.mktemp('lmms')
    docs = [{'id': i, 'image': f'{i}.png', 'reference': PAIRS[i]['reference']} for i in GOOD]
    docs += [{'id': 'empty-response', 'image': 'e.png', 'reference': PAIRS[GOOD[0]]['reference']},
             {'id': 'no-reference', 'image': 'n.png'}]
    for n, d in enumerate(docs): Image.new('RGB', (32, 24), (40 * n, 90, 200)).save(base / d['image'])
    (base / 'data.jsonl').write_text(''.join(json.dumps(d) + '\n' for d in docs))
    responses = [PAIRS[i]['generation'] for i in GOOD] + ['', PAIRS[GOOD[1]]['generation']]
    (base / 'replay').mkdir()
    (base / 'replay' / 'replay.json').write_text(json.dumps({
        'args': {'model': 'replay', 'model_args': '', 'limit': None}, 'model_configs': {'task': 'posh_local'},
        'time': '0101_0000', 'logs': [{'doc_id': n, 'resps': [[r]]} for n, r in enumerate(responses)]}))
    out, cache = base / 'out', base / 'cache'
    r = subprocess.run([sys.executable, '-m', 'lmms_eval', '--model', 'from_log', '--model_args', f"logs={base / 'replay'}",
                        '--tasks', 'posh_local', '--include_path', tasks_dir(), '--batch_size', '1',
                        '--log_samples', '--output_path', out], cwd=base, capture_output=True, text=True, timeout=900,
                       env=env(POSH_LOCAL_DATA=str(base / 'data.jsonl'), POSH_CACHE_DIR=str(cache)))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    results = json.loads(next(out.rglob('*_results.json')).read_text())
    return dict(base=base, out=out, cache=cache, stderr=r.stderr, results=results['results']['posh_local'],
                samples=next(out.rglob('*_samples_posh_local.jsonl')), granular=next(out.glob('*_posh_posh_local.jsonl')))


def test_f1_equals_posh(run):
    """lmms-eval's posh_f1 (and P, R) equal PoSh('embedded').evaluate on the same pairs. With the run's cache: the
    embedded judge is deterministic, and a text that lmms-eval changed would ask other questions (nbs/15 checks the
    same equality with no cache)."""
    direct = PoSh('embedded', cache_dir=run['cache']).evaluate([PAIRS[i]['generation'] for i in GOOD], [PAIRS[i]['reference'] for i in GOOD])
    c = corpus_score(direct)
    res = run['results']
    assert (res['posh_precision,none'], res['posh_recall,none'], res['posh_f1,none']) == (c.precision.mean, c.recall.mean, c.f1.mean)
    line = res['posh_corpus,none']
    assert line.startswith(f"PoSh F1 = {c.f1.mean:.3f} [{c.f1.low:.3f}, {c.f1.high:.3f}]") and '(rows 4, errors 2,' in line
    assert line.endswith(PoSh('embedded').signature)
    per_doc = {r['id']: r for r in map(json.loads, open(run['granular']))}
    assert [per_doc[i]['f1'] for i in GOOD] == [s.f1 for s in direct]
    assert all(per_doc[i]['elements'] for i in GOOD)
    # beside lmms-eval's results: its folder for a model named in --model_args (here none: --output_path itself)
    from posh.lmms_eval import TaskSettings, granular_path
    assert run['granular'].parent == run['samples'].parent
    assert granular_path('t', TaskSettings(), str(run['out']), 'pretrained=org/model-7b,dtype=auto').parent == run['out'] / 'org__model-7b'


def test_bad_documents(run):
    "A document with an empty response or without references: one line each, naming it; the others keep their scores."
    errs = [l for l in run['stderr'].splitlines() if l.startswith('posh lmms-eval: error:')]
    assert errs == ["posh lmms-eval: error: posh_local: document 'empty-response': empty response",
                    "posh lmms-eval: error: posh_local: document 'no-reference': no reference (the task's documents must carry at least one)"]
    per_doc = {r['id']: r for r in map(json.loads, open(run['granular']))}
    assert per_doc['no-reference']['f1'] is None and per_doc['empty-response']['error'].endswith('empty response')


def test_no_stop_string(run):
    "The tasks stop at no string (lmms-eval's default '\\n\\n' would cut a multi-paragraph description)."
    from lmms_eval.api.task import TaskConfig
    from lmms_eval.utils import load_yaml_config
    for t in TASKS:
        cfg = TaskConfig(**load_yaml_config(str(Path(tasks_dir()) / f'{t}.yaml'), mode='full'))
        assert cfg.generation_kwargs['until'] == [], t
    logged = [json.loads(l) for l in open(run['samples'])]
    assert [s['filtered_resps'] for s in logged[:2]] == [PAIRS[i]['generation'] for i in GOOD]


def test_rescore_sample_log(run):
    """`posh score --lmms-eval-samples` on the log lmms-eval wrote gives the same numbers (the run's cache, as above); a
    malformed target is named."""
    out = run['base'] / 'rescored.jsonl'
    r = subprocess.run([BIN / 'posh', 'score', '--lmms-eval-samples', run['samples'], '-o', out, '--on-error', 'skip',
                        '--cache-dir', run['cache']], capture_output=True, text=True, env=env(), timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    again = {x['id']: x for x in map(json.loads, open(out))}
    first = {x['id']: x for x in map(json.loads, open(run['granular']))}
    assert [(again[i]['precision'], again[i]['recall'], again[i]['f1']) for i in GOOD] == \
           [(first[i]['precision'], first[i]['recall'], first[i]['f1']) for i in GOOD]
    assert corpus_score(list(again.values())).f1 == corpus_score(list(first.values())).f1
    assert "(document 'empty-response'): empty response" in r.stderr
    # a malformed target: one line naming the document; the other samples are scored
    lines = run['samples'].read_text().splitlines()
    s = json.loads(lines[1]); s['target'] = "['" + PAIRS[GOOD[1]]['reference'][:40]
    bad = run['base'] / 'bad_samples.jsonl'; bad.write_text('\n'.join([lines[0], json.dumps(s)] + lines[2:]) + '\n')
    r = subprocess.run([BIN / 'posh', 'score', '--lmms-eval-samples', bad, '-o', run['base'] / 'bad.jsonl', '--on-error', 'skip',
                        '--cache-dir', run['cache']], capture_output=True, text=True, env=env(), timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    named = [l for l in r.stderr.splitlines() if f"(document '{GOOD[1]}')" in l]
    assert len(named) == 1 and "'target' starts with '[' but is not a Python list of strings" in named[0]
    assert json.loads(open(run['base'] / 'bad.jsonl').readline())['f1'] == first[GOOD[0]]['f1']


def test_report_opens_granular(run):
    "The per-document file lmms-eval's run left opens in `posh report`."
    html = run['base'] / 'report.html'
    r = subprocess.run([BIN / 'posh', 'report', run['granular'], '-o', html, '-q'], capture_output=True, text=True, env=env())
    assert r.returncode == 0, r.stderr[-3000:]
    assert GOOD[0] in html.read_text()


def test_task_manager_indexes_offline():
    "lmms-eval's TaskManager indexes the three tasks offline and their YAML loads with PoSh's functions."
    from lmms_eval.tasks import TaskManager
    from lmms_eval.utils import load_yaml_config
    import posh.lmms_eval as m
    tm = TaskManager(include_path=tasks_dir(), include_defaults=False)   # lmms-eval's own tasks: the CLI run above
    assert set(TASKS) <= set(tm.all_tasks)
    for t in TASKS:
        cfg = load_yaml_config(str(Path(tasks_dir()) / f'{t}.yaml'), mode='full')
        assert cfg['task'] == t and [x['metric'] for x in cfg['metric_list']] == list(METRICS)
        assert cfg['process_results'] is getattr(m, t.removeprefix('posh_') + '_results')
    assert load_yaml_config(str(Path(tasks_dir()) / 'posh_detailcaps.yaml'), mode='full')['dataset_path'] == \
        load_yaml_config(str(Path(sys.modules['lmms_eval'].__file__).parent / 'tasks' / 'detailcaps' / 'detailcaps.yaml'),
                         mode='simple')['dataset_path']
