"""Each committed figure draws the numbers of its committed tables (issue 48, item 8).

A figure saved by `posh.experiments.save_figure` carries the numbers it draws in its PNG metadata; here they are
compared with the same numbers read from the result tables committed beside it (`FIGURE_TABLES` names the tables and
columns). A figure left behind by a rerun of its notebook, or one saved without its numbers, fails, naming the
notebook to rerun.
"""
from pathlib import Path

import pandas as pd
import pytest
from posh.experiments import FIGURE_TABLES, figure_numbers, table_numbers

ROOT = Path(__file__).resolve().parents[1]
FIGURES = {   # figure -> (its FIGURE_TABLES entry, the folder of its tables, the notebook that draws both)
    '20_docent_coarse_fixture-embedded_spearman.png': (('20_docent_coarse', 'spearman'), 'data/results/20_docent_coarse/fixture-embedded', 'nbs/20_docent_coarse.ipynb'),
    '21_docent_granular_fixture-embedded_token_f1.png': (('21_docent_granular', 'token_f1'), 'data/results/21_docent_granular/fixture-embedded', 'nbs/21_docent_granular.ipynb'),
    '22_caparena_fixture-embedded_elo.png': (('22_caparena', 'elo'), 'data/results/22_caparena/fixture-embedded', 'nbs/22_caparena.ipynb'),
    '24_iiw400_iiw400-embedded_spearman.png': (('24_iiw400', 'spearman'), 'data/results/24_iiw400/iiw400-embedded', 'nbs/24_iiw400.ipynb'),
    'docent_leaderboard_fixture-embedded.png': (('leaderboard', 'leaderboard'), 'data/results/leaderboard/fixture-embedded', 'nbs/23_leaderboard.ipynb'),
}


def test_every_committed_figure_is_checked():
    assert sorted(p.name for p in (ROOT / 'figures').glob('*.png')) == sorted(FIGURES)


@pytest.mark.parametrize('name', sorted(FIGURES))
def test_figure_draws_its_tables(name):
    key, folder, notebook = FIGURES[name]
    drawn = figure_numbers(ROOT / 'figures' / name)
    assert drawn is not None, f"figures/{name} does not carry the numbers it draws (saved before save_figure): rerun {notebook}"
    spec = FIGURE_TABLES[key]
    tables = {t: pd.read_csv(ROOT / folder / f'{t}.csv') for t in spec}
    expected = table_numbers(tables, spec)
    assert sorted(drawn) == sorted(expected), (f"figures/{name} draws other rows than {folder}: only in the figure "
                                               f"{sorted(set(drawn) - set(expected))[:5]}, only in the tables {sorted(set(expected) - set(drawn))[:5]}; rerun {notebook}")
    off = {k: (drawn[k], expected[k]) for k in expected if abs(drawn[k] - expected[k]) > 1e-6}
    assert not off, f"figures/{name} disagrees with {folder} (figure, table): {dict(list(off.items())[:5])}; rerun {notebook}"
