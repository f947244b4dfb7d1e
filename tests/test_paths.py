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
