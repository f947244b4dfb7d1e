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


def test_results_go_to_the_clone_that_holds_the_notebook(tmp_path):
    other = tmp_path / 'other-clone'
    (other / 'posh').mkdir(parents=True); (other / 'nbs').mkdir()
    (other / 'settings.ini').write_text('[DEFAULT]\nlib_name = posh\n')
    assert Path(posh.__file__).resolve().is_relative_to(ROOT)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('out_dir = None', metadata={'tags': ['parameters']}),
        nbformat.v4.new_code_cell(
            "from posh.experiments import Run\n"
            "out = Run('20_docent_coarse', 'fixture', 'embedded', synthetic=True).out_dir(out_dir)\n"
            "(out / 'marker.txt').write_text('written here')\n"
            "print(out)")])
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'python3', 'language': 'python'}
    nbformat.write(nb, other / 'nbs' / 'paths.ipynb')
    pm.execute_notebook(str(other / 'nbs' / 'paths.ipynb'), str(tmp_path / 'ran.ipynb'), cwd=str(other / 'nbs'),
                        kernel_name='python3', progress_bar=False)
    marker = other / 'data' / 'results' / '20_docent_coarse' / 'fixture-embedded' / 'marker.txt'
    assert marker.read_text() == 'written here'
    assert not (ROOT / 'data' / 'results' / '20_docent_coarse' / 'fixture-embedded' / 'marker.txt').exists()
    explicit = tmp_path / 'explicit'   # an explicit parameter wins
    pm.execute_notebook(str(other / 'nbs' / 'paths.ipynb'), str(tmp_path / 'ran2.ipynb'), cwd=str(other / 'nbs'),
                        kernel_name='python3', progress_bar=False, parameters={'out_dir': str(explicit)})
    assert (explicit / 'marker.txt').is_file()


def test_a_clone_reads_its_own_data(tmp_path):
    "Run in another clone, a notebook reads its data from that clone's data/ (where it writes), not from the installed package's."
    other = tmp_path / 'other-clone'
    (other / 'posh').mkdir(parents=True); (other / 'nbs').mkdir(); (other / 'data' / 'fixtures').mkdir(parents=True)
    (other / 'settings.ini').write_text('[DEFAULT]\nlib_name = posh\n')
    from posh.data import FIXTURES
    (other / 'data' / 'fixtures' / FIXTURES['caparena']).write_text((ROOT / 'data' / 'fixtures' / FIXTURES['caparena']).read_text())
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('data_dir = None', metadata={'tags': ['parameters']}),
        nbformat.v4.new_code_cell(
            "from pathlib import Path\n"
            "from posh.experiments import data_root\n"
            "from posh.data import fixture_path\n"
            "Path('read.txt').write_text(str(fixture_path('caparena', data_root(data_dir))))")])
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'python3', 'language': 'python'}
    nbformat.write(nb, other / 'nbs' / 'reads.ipynb')
    pm.execute_notebook(str(other / 'nbs' / 'reads.ipynb'), str(tmp_path / 'ran.ipynb'), cwd=str(other / 'nbs'),
                        kernel_name='python3', progress_bar=False)
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
