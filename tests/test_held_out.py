"""Issue 49's two hand-labelled measures: their data are what their sources build, and the shipped judge's figures on
them are the committed ones (`data/results/held_out/held_out.json`, written by `benchmarks/held_out.py`).

* corrected generations (`data/granular_corrected/`): the share of the 50 granular pairs whose hand-corrected
  generation gets the strictly higher precision;
* short captions (`data/short_captions/`): token AUROC of the mistake scores on 100 one-sentence captions, which must
  beat the "word in the reference" lookup, and coarse precision against the share of marked tokens.
"""
import json, os, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / 'data' / 'results' / 'held_out' / 'held_out.json'
sys.path.insert(0, str(ROOT / 'tools'))


def _jsonl(p): return [json.loads(l) for l in Path(p).read_text(encoding='utf-8').splitlines()]


def test_corrected_generations_are_their_edits():
    from build_granular_corrected import build, FOLDER
    rows = build()
    assert rows == _jsonl(FOLDER / 'granular_corrected.jsonl'), "run python tools/build_granular_corrected.py"
    assert len(rows) == 50 and all(r['corrected'] != r['generation'] for r in rows)


def test_short_captions_are_their_annotations():
    from build_short_captions import captions, parse, to_rows, FOLDER
    rows = sorted(to_rows(parse(FOLDER / 'annotations.txt'), captions(), 'I', 'annotations.txt'), key=lambda r: (r['row'], r['sentence']))
    assert rows == _jsonl(FOLDER / 'short_captions.jsonl'), "run python tools/build_short_captions.py"
    assert len(rows) == 100


def test_shipped_judge_held_out_figures(tmp_path):
    out = tmp_path / 'held_out.json'
    env = dict(os.environ, OMP_NUM_THREADS='1')
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'held_out.py'), '--no-embed-baselines', '--json', str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1800, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    got, want = json.loads(out.read_text()), json.loads(RESULT.read_text())
    g, w = got['rows'][0], want['rows'][0]
    hint = "the shipped judge's held-out figures changed: rerun python benchmarks/held_out.py --no-embed-baselines --json data/results/held_out/held_out.json and report them"
    assert g['signature'] == w['signature'], hint
    # 1e-6: the judge's sentence vectors differ between CPUs in their last bits (an AMD EPYC gives a Pearson 3e-8 away
    # from the machine that wrote the file); a refit or a code change moves these figures by far more
    for k in ('corrected_rate', 'corrected_rate_dev', 'corrected_rate_test', 'short_auroc', 'short_precision_spearman', 'short_precision_pearson'):
        assert g[k] == pytest.approx(w[k], abs=1e-6), (hint, k, g[k], w[k])
    for k, v in want['baselines'].items(): assert got['baselines'][k] == pytest.approx(v, abs=1e-9), (hint, k)
    # issue 49's bar on detailed descriptions: precision prefers the hand-corrected generation on 95% of the 50 pairs
    assert g['corrected_rate'] >= 0.95, g['corrected_rate']
    # issue 49's bar on short texts: the judge's mistake scores beat the word-in-the-reference lookup
    assert g['short_auroc'] > got['baselines']['short_auroc lookup']
