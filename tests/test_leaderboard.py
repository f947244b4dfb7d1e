"""Run nbs/23_leaderboard.ipynb through papermill on its defaults (the synthetic fixtures) and check the leaderboard
it writes against values recomputed here from its per-pair scores (pairs.csv) and the fixture files.

The notebook uses the shared judge-answer cache (<repo>/.cache/posh): after `nbdev_test` (which `make test` runs
first) every pair is cached and this run makes no judge call. Outputs go to a temporary folder, so a stale file from
an earlier run can never pass for a fresh one.
"""
import json, shutil
from pathlib import Path

import numpy as np
import pandas as pd
import papermill as pm
import pytest

ROOT = Path(__file__).resolve().parents[1]
NB, FIXTURES = ROOT/'nbs'/'23_leaderboard.ipynb', ROOT/'data'/'fixtures'
SCORES = ('precision', 'recall', 'f1')


def run_leaderboard(tmp_path, **params):
    "Execute the notebook with cwd nbs/ and outputs under tmp_path; return (results folder, figures folder)."
    out, figs = tmp_path/'results', tmp_path/'figures'
    pm.execute_notebook(str(NB), str(tmp_path/'23_leaderboard.out.ipynb'), cwd=str(NB.parent), kernel_name='python3', language='python',
                        parameters=dict(out_dir=str(out), fig_dir=str(figs), **params), progress_bar=False)
    return out, figs


def read_jsonl(path): return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def percentile_bootstrap(values, n_boot, seed, level):
    "Percentile interval of the mean of each column, resampling rows jointly; written out again, resample by resample."
    n = values.shape[0]
    rs = np.random.RandomState(seed)   # the documented draw (posh.scoring.bootstrap_draws, shared with corpus_score):
    idx = [rs.choice(n, size=n, replace=True) for _ in range(n_boot)]   # one choice of n rows per resample
    means = np.array([[values[i, j].mean() for j in range(values.shape[1])] for i in idx])
    a = (1 - level) / 2
    return np.quantile(means, a, axis=0), np.quantile(means, 1 - a, axis=0)


def test_leaderboard_defaults(tmp_path):
    out, figs = run_leaderboard(tmp_path)
    board, pairs = pd.read_csv(out/'leaderboard.csv'), pd.read_csv(out/'pairs.csv')

    # every fixture generation was scored exactly once, against its image's reference
    gens = read_jsonl(FIXTURES/'docent_leaderboard_generations.fixture.jsonl')
    refs = read_jsonl(FIXTURES/'docent_leaderboard.fixture.jsonl')
    assert len({r['model'] for r in gens}) >= 4 and len(refs) >= 5
    assert sorted(zip(pairs.image_id, pairs.model)) == sorted((r['image_id'], r['model']) for r in gens)
    assert pairs[list(SCORES)].stack().between(0.2, 1).all()
    np.testing.assert_allclose(pairs.f1, 2 * pairs.precision * pairs.recall / (pairs.precision + pairs.recall), atol=1e-12)

    # the table: means of the per-pair scores, one row per model, sorted by f1, ranks 1..n
    means = pairs.groupby('model')[list(SCORES)].mean()
    counts = pairs.groupby('model').size()
    assert set(board.model) == set(means.index) and len(board) == len(means)
    for _, row in board.iterrows():
        for k in SCORES: assert abs(row[k] - means.loc[row.model, k]) < 1e-12, (row.model, k)
        assert row.n == counts[row.model]
        for k in SCORES: assert row[f'{k}_lo'] <= row[k] + 1e-12 and row[k] <= row[f'{k}_hi'] + 1e-12
    assert list(board.f1) == sorted(board.f1, reverse=True) and list(board['rank']) == list(range(1, len(board) + 1))

    # the intervals: a percentile bootstrap over images (default 1000 resamples, seed 42, 95%), recomputed here
    models = list(dict.fromkeys(pairs.model))
    for k in SCORES:
        mat = pairs.pivot(index='image_id', columns='model', values=k)[models].to_numpy()
        lo, hi = percentile_bootstrap(mat, 1000, 42, 0.95)
        b = board.set_index('model').loc[models]
        np.testing.assert_allclose(b[f'{k}_lo'], lo, atol=1e-12)
        np.testing.assert_allclose(b[f'{k}_hi'], hi, atol=1e-12)

    # labelled and signed
    sig = set(board.signature) | set(pairs.signature)
    assert len(sig) == 1 and next(iter(sig)).startswith('posh:')
    md = (out/'leaderboard.md').read_text()
    assert md.startswith('# SYNTHETIC FIXTURE, not a result') and next(iter(sig)) in md
    png = figs/'docent_leaderboard_fixture-embedded.png'
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and png.stat().st_size > 20_000


def test_leaderboard_incomplete_model(tmp_path):
    "A model without a generation for every reference image is refused, naming the model (before any scoring)."
    gens = read_jsonl(FIXTURES/'docent_leaderboard_generations.fixture.jsonl')
    drop = next(r for r in gens if r['model'] == 'fixture-lb-terse')
    path = tmp_path/'gens.jsonl'
    path.write_text(''.join(json.dumps(r) + '\n' for r in gens if r is not drop))
    with pytest.raises(pm.PapermillExecutionError, match="model 'fixture-lb-terse' has no generation for 1 of 5"):
        run_leaderboard(tmp_path, generations=str(path))


def test_leaderboard_fixtures_rebuild(tmp_path):
    "The builder regenerates the two leaderboard fixture files byte for byte."
    import shutil, subprocess, sys
    data = tmp_path/'data'
    shutil.copytree(ROOT/'data'/'iiw400', data/'iiw400')
    (data/'fixtures').mkdir()
    subprocess.run([sys.executable, str(ROOT/'tools'/'build_leaderboard_fixtures.py'), '--data', str(data)],
                   check=True, capture_output=True, timeout=60)
    for f in ('docent_leaderboard.fixture.jsonl', 'docent_leaderboard_generations.fixture.jsonl'):
        assert (data/'fixtures'/f).read_text() == (FIXTURES/f).read_text(), f


def test_variant_run_keeps_the_committed_results(tmp_path):
    """A papermill run with other parameters than the committed defaults (`-p n_boot 200`), with the default output
    folders, writes under its own run name; the committed run's folder is not touched (issue 16, item 2). The run
    happens in a second clone (settings.ini, posh/, nbs/, the fixtures it reads: a clone reads its own data/), so this
    checkout's results are never written."""
    clone = tmp_path/'clone'
    (clone/'posh').mkdir(parents=True); (clone/'nbs').mkdir()
    shutil.copytree(ROOT/'data'/'fixtures', clone/'data'/'fixtures')
    (clone/'settings.ini').write_text('[DEFAULT]\nlib_name = posh\n')
    (clone/'nbs'/NB.name).write_bytes(NB.read_bytes())
    pm.execute_notebook(str(clone/'nbs'/NB.name), str(tmp_path/'variant.out.ipynb'), cwd=str(clone/'nbs'), kernel_name='python3',
                        language='python', parameters=dict(n_boot=200, cache_dir=str(ROOT/'.cache'/'posh')), progress_bar=False)
    results = clone/'data'/'results'/'leaderboard'
    assert sorted(p.name for p in results.iterdir()) == ['fixture-embedded+n_boot=200']
    assert (results/'fixture-embedded+n_boot=200'/'leaderboard.csv').is_file()
    assert 'n_boot=200' in (results/'fixture-embedded+n_boot=200'/'leaderboard.md').read_text()
    assert [p.name for p in (clone/'figures').iterdir()] == ['docent_leaderboard_fixture-embedded+n_boot=200.png']
