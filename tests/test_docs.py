"""The output schema is documented where users look: `posh score --help`, the CLI notebook and the README (issue 9, item 14)."""
import json, re, subprocess, sys
from pathlib import Path

from posh.cli import OUTPUT_FIELDS, ELEMENT_FIELDS

ROOT = Path(__file__).resolve().parents[1]


def test_help_documents_every_output_field():
    r = subprocess.run([Path(sys.executable).parent / 'posh', 'score', '--help'], capture_output=True, text=True)
    assert r.returncode == 0
    for f in [*OUTPUT_FIELDS, *ELEMENT_FIELDS]: assert re.search(rf'^\s+{f}\s', r.stdout, re.M), f
    assert '1-5 scale' in r.stdout and '[0.2, 1]' in r.stdout and '--no-questions' in r.stdout
    # several references of one pair: the list syntax of JSONL and of a CSV cell (issue 56, row 7)
    flat = ' '.join(r.stdout.split())
    assert '["first", "second"]' in flat and '"[""first"", ""second""]"' in flat and '|||' in flat, flat
    readme = (ROOT / 'README.md').read_text()
    assert '"[""first"", ""second""]"' in readme and 'memory' in readme and '0.78 GB' in readme


def test_cli_notebook_documents_every_output_field():
    "The full field reference lives in nbs/08_cli (the README's short table links it)."
    nb = json.loads((ROOT / 'nbs' / '08_cli.ipynb').read_text())
    md = '\n'.join(''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown')
    section = md.split('### The output fields', 1)[1]
    for f in [*OUTPUT_FIELDS, *ELEMENT_FIELDS]: assert f'`{f}`' in section, f
    for fact in ('1-5', '[0.2, 1]', 'null', 'character offsets', '--no-questions'): assert fact in section, fact


def test_readme_has_the_short_output_table_and_links_the_reference():
    readme = (ROOT / 'README.md').read_text()
    section = readme.split('### Output', 1)[1].split('\n## ', 1)[0]
    for f in ('id', 'precision', 'recall', 'f1', 'n_elements', 'signature', 'elements', 'omission_words'):
        assert f'`{f}`' in section, f
    assert 'nbs/08_cli.ipynb' in section and '[0.2, 1]' in section
