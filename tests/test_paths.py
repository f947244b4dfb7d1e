"""A notebook run in one clone writes its results into that clone (issue 9, item 12).

A second clone (what makes one: settings.ini, posh/, nbs/) is made in a temporary folder; a real notebook in it is
run through papermill (kernel started in its nbs/, as `papermill --cwd` and Jupyter do) while `posh` is imported
from this checkout. Its default results folder, from `posh.experiments.Run.out_dir`, must be in the other clone.
"""
import json
from pathlib import Path

import nbformat
import papermill as pm
import posh

ROOT = Path(__file__).resolve().parents[1]


def other_clone(tmp_path, name:str, param:str, code:str) -> Path:
    "A second clone (settings.ini, posh/, nbs/) in `tmp_path` holding nbs/NAME.ipynb: a parameters cell (`PARAM = None`), then `code`."
    other = tmp_path / 'other-clone'
    (other / 'posh').mkdir(parents=True); (other / 'nbs').mkdir()
    (other / 'settings.ini').write_text('[DEFAULT]\nlib_name = posh\n')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f'{param} = None', metadata={'tags': ['parameters']}),
                                         nbformat.v4.new_code_cell(code)])
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'python3', 'language': 'python'}
    nbformat.write(nb, other / 'nbs' / f'{name}.ipynb')
    return other


def run_in(other:Path, name:str, out:Path, **parameters):
    "Run nbs/NAME.ipynb of the clone `other` by papermill, its kernel started in that clone's nbs/."
    pm.execute_notebook(str(other / 'nbs' / f'{name}.ipynb'), str(out), cwd=str(other / 'nbs'), kernel_name='python3',
                        progress_bar=False, parameters=parameters)


def test_results_go_to_the_clone_that_holds_the_notebook(tmp_path):
    assert Path(posh.__file__).resolve().is_relative_to(ROOT)
    other = other_clone(tmp_path, 'paths', 'out_dir',
                        "from posh.experiments import Run\n"
                        "out = Run('20_docent_coarse', 'fixture', 'embedded', synthetic=True).out_dir(out_dir)\n"
                        "(out / 'marker.txt').write_text('written here')\n"
                        "print(out)")
    run_in(other, 'paths', tmp_path / 'ran.ipynb')
    marker = other / 'data' / 'results' / '20_docent_coarse' / 'fixture-embedded' / 'marker.txt'
    assert marker.read_text() == 'written here'
    assert not (ROOT / 'data' / 'results' / '20_docent_coarse' / 'fixture-embedded' / 'marker.txt').exists()
    explicit = tmp_path / 'explicit'   # an explicit parameter wins
    run_in(other, 'paths', tmp_path / 'ran2.ipynb', out_dir=str(explicit))
    assert (explicit / 'marker.txt').is_file()


def test_a_clone_reads_its_own_data(tmp_path):
    "Run in another clone, a notebook reads its data from that clone's data/ (where it writes), not from the installed package's."
    from posh.data import FIXTURES
    other = other_clone(tmp_path, 'reads', 'data_dir',
                        "from pathlib import Path\n"
                        "from posh.experiments import data_root\n"
                        "from posh.data import fixture_path\n"
                        "Path('read.txt').write_text(str(fixture_path('caparena', data_root(data_dir))))")
    (other / 'data' / 'fixtures').mkdir(parents=True)
    (other / 'data' / 'fixtures' / FIXTURES['caparena']).write_text((ROOT / 'data' / 'fixtures' / FIXTURES['caparena']).read_text())
    run_in(other, 'reads', tmp_path / 'ran.ipynb')
    assert Path((other / 'nbs' / 'read.txt').read_text()) == other / 'data' / 'fixtures' / FIXTURES['caparena']


def test_an_experiment_runs_outside_a_clone(tmp_path):
    "nbs/22_caparena (the cheapest experiment) by papermill from a folder outside any clone, every folder given: it runs, and writes only there."
    from conftest import flags, without_flagged
    outside = tmp_path / 'outside'; outside.mkdir()
    nb, _ = without_flagged(json.loads((ROOT / 'nbs' / '22_caparena.ipynb').read_text()), flags())
    (outside / 'caparena.ipynb').write_text(json.dumps(nb))
    out, figs, cache = tmp_path / 'results', tmp_path / 'figures', ROOT / '.cache' / 'posh'
    before = sorted((ROOT / 'data' / 'results').rglob('*'))
    pm.execute_notebook(str(outside / 'caparena.ipynb'), str(tmp_path / 'ran.ipynb'), cwd=str(outside),
                        kernel_name='python3', progress_bar=False,
                        parameters={'out_dir': str(out), 'fig_dir': str(figs), 'cache_dir': str(cache), 'data_dir': str(ROOT / 'data')})
    assert (out / 'caparena.csv').is_file() and len(list(figs.glob('22_caparena_*.png'))) == 1
    assert sorted((ROOT / 'data' / 'results').rglob('*')) == before
