"""CHANGELOG.md follows Keep a Changelog, newest first, and its top release is the package's version."""
import configparser, re
from datetime import date
from pathlib import Path

import posh

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / 'CHANGELOG.md').read_text(encoding='utf-8')
RELEASE = re.compile(r'^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$', re.M)


def releases() -> list[tuple[str, str]]:
    return RELEASE.findall(TEXT)


def test_top_release_is_the_package_version():
    cfg = configparser.ConfigParser(delimiters=['='])
    cfg.read(ROOT / 'settings.ini', encoding='utf-8')
    top = releases()[0][0]
    assert top == posh.__version__ == cfg['DEFAULT']['version'], (top, posh.__version__, cfg['DEFAULT']['version'])


def test_newest_first_with_dates():
    rel = releases()
    assert len(rel) >= 2
    versions = [tuple(map(int, v.split('.'))) for v, _ in rel]
    assert versions == sorted(versions, reverse=True), 'releases must be listed newest first'
    dates = [date.fromisoformat(d) for _, d in rel]
    assert dates == sorted(dates, reverse=True)


def test_keep_a_changelog_shape():
    assert TEXT.startswith('# Changelog\n') and 'keepachangelog.com' in TEXT
    assert TEXT.index('\n## ') == RELEASE.search(TEXT).start() - 1, 'the first entry is a release: the current version'
    for head in re.findall(r'^### (\w+)', TEXT, re.M):
        assert head in {'Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security', 'Measured'}, head
