"""The output schema is documented where users look: `posh score --help` and the README (issue 9, item 14)."""
import re, subprocess, sys
from pathlib import Path

from posh.cli import OUTPUT_FIELDS, ELEMENT_FIELDS

ROOT = Path(__file__).resolve().parents[1]


def test_help_documents_every_output_field():
    r = subprocess.run([Path(sys.executable).parent / 'posh', 'score', '--help'], capture_output=True, text=True)
    assert r.returncode == 0
    for f in [*OUTPUT_FIELDS, *ELEMENT_FIELDS]: assert re.search(rf'^\s+{f}\s', r.stdout, re.M), f
    assert '1-5 scale' in r.stdout and '[0.2, 1]' in r.stdout and '--no-questions' in r.stdout


def test_readme_documents_every_output_field():
    readme = (ROOT / 'README.md').read_text()
    section = readme.split('### Output', 1)[1].split('\n## ', 1)[0]
    for f in [*OUTPUT_FIELDS, *ELEMENT_FIELDS]: assert f'`{f}`' in section, f
    for fact in ('1-5', '[0.2, 1]', 'null', 'character offsets', '--no-questions'): assert fact in section, fact
