"""Every Markdown table we write parses: its header and each row have the same number of cells (issue 9, item 11).

Covers the tables committed under data/results/ (written by `posh.experiments.write_table`; `make test` regenerates
the fixture runs in nbtest before this runs) and the tables of README.md, DIFFERENCES.md and CHANGELOG.md.
"""
from pathlib import Path

import pytest

from posh.experiments import read_markdown_tables

ROOT = Path(__file__).resolve().parents[1]
TABLES = sorted((ROOT / 'data' / 'results').rglob('*.md')) + [ROOT / 'README.md', ROOT / 'DIFFERENCES.md', ROOT / 'CHANGELOG.md']


@pytest.mark.parametrize('path', TABLES, ids=[str(p.relative_to(ROOT)) for p in TABLES])
def test_markdown_tables_parse(path):
    tables = read_markdown_tables(path.read_text(encoding='utf-8'))   # raises naming the line of a bad row
    if path.parent != ROOT: assert tables, f"{path} has no table"
    for header, rows in tables:
        assert all(len(r) == len(header) for r in rows)
