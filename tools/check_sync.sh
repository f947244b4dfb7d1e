#!/usr/bin/env bash
# Fails when nbdev_export, nbdev_clean or the README renderer would change a file:
# the package, the notebooks and README.md must be committed in sync.
set -euo pipefail
cd "$(dirname "$0")/.."
state() { git status --porcelain -- posh nbs README.md; git diff -- posh nbs README.md | sha1sum; }
before=$(state)
nbdev_export
nbdev_clean
python tools/render_readme.py
after=$(state)
if [ "$before" != "$after" ]; then
  echo "ERROR: nbdev_export / nbdev_clean / tools/render_readme.py changed files." >&2
  echo "Run 'make export readme' and 'nbdev_clean', review, and commit the result:" >&2
  git status --short -- posh nbs README.md >&2
  exit 1
fi
echo "package, notebooks and README are in sync"
