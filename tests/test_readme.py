"""The README is the front door: short, findable by its headings, and every command and code block in it runs.

Each fenced `python` or `sh` block of README.md is run as written, from a scratch folder that holds the inputs the
README names (`pairs.jsonl` and `pairs.csv`, made from the bundled IIW-400 example, and the repository's `data/`), with this environment's `posh`
and python first on PATH. A block that cannot run here starts with the line `# not run in the tests: WHY` and is
reported as skipped with that reason; `text` blocks show output and are not run.
"""
import csv, json, os, re, subprocess, sys
from pathlib import Path

import pytest

from posh.cli import example_pairs

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / 'README.md').read_text(encoding='utf-8')
SKIP = '# not run in the tests:'


def blocks(text: str) -> list[tuple[str, str]]:
    "The fenced code blocks of a Markdown text, as (language, code)."
    return [(m.group(1), m.group(2)) for m in re.finditer(r'^```(\w*)\n(.*?)^```', text, re.M | re.S)]


RUN = [(lang, code) for lang, code in blocks(README) if lang in ('python', 'sh')]


def test_blocks_are_found():
    assert len(RUN) >= 6 and {'python', 'sh'} <= {lang for lang, _ in RUN}
    assert all(lang in ('python', 'sh', 'text', 'json') for lang, _ in blocks(README)), 'a fenced block with no language'


def test_short_and_findable():
    lines = README.splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; the limit is 300 (history goes to CHANGELOG.md)"
    heads = [l.lower() for l in lines if l.startswith('## ')]
    for want in ('install', 'use', 'results', 'reproduce'):
        assert any(want in h for h in heads), f"no '## ' heading names {want!r}: {heads}"


def test_links_resolve():
    "Every relative link and image of the README points at a file of the repository."
    for target in re.findall(r'\]\(([^)#\s]+)\)', README):
        if re.match(r'[a-z]+://', target): continue
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


@pytest.fixture(scope='module')
def scratch(tmp_path_factory):
    "A folder with the inputs the README's commands name, and an environment whose PATH starts with this venv."
    d = tmp_path_factory.mktemp('readme')
    (d / 'data').symlink_to(ROOT / 'data')   # the README's commands name the repository's data/ (run from its root)
    pairs = example_pairs()[:2]
    (d / 'pairs.jsonl').write_text(''.join(json.dumps(p) + '\n' for p in pairs))
    with open(d / 'pairs.csv', 'w', newline='') as f:
        w = csv.writer(f); w.writerow(['image_id', 'caption', 'references', 'model'])
        for p in pairs: w.writerow([p['id'], p['generation'], p['reference'], 'PaLI-5B'])
    env = {**os.environ, 'PATH': f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           'OMP_NUM_THREADS': os.environ.get('OMP_NUM_THREADS', '2')}
    return d, env


@pytest.mark.parametrize('lang,code', RUN, ids=[f"{i}-{lang}-{code.splitlines()[0][:40]}" for i, (lang, code) in enumerate(RUN)])
def test_block_runs(lang, code, scratch):
    if code.startswith(SKIP): pytest.skip(code.splitlines()[0][len(SKIP):].strip())
    d, env = scratch
    cmd = [sys.executable, '-c', code] if lang == 'python' else ['bash', '-euo', 'pipefail', '-c', code]
    r = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"README {lang} block failed (exit {r.returncode}):\n{code}\n--- stderr ---\n{r.stderr[-3000:]}"
