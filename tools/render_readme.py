"""Render README.md from nbs/index.ipynb without Quarto (nbdev_readme needs it).

Cells marked `#| hide` are dropped, other `#|` directive lines are stripped,
and outputs are kept as nbconvert's markdown exporter writes them."""
import re, sys
from pathlib import Path
import nbformat
from nbconvert import MarkdownExporter

ROOT = Path(__file__).resolve().parent.parent

def render(nb_path=ROOT/'nbs'/'index.ipynb'):
    nb = nbformat.read(nb_path, as_version=4)
    cells = []
    for c in nb.cells:
        lines = c.source.splitlines()
        directives = [l for l in lines if re.match(r'^#\|\s*', l)]
        if any(re.match(r'^#\|\s*hide\b', l) for l in directives): continue
        if c.cell_type == 'code':
            c.source = '\n'.join(l for l in lines if not re.match(r'^#\|\s*', l)).strip('\n')
            # progress bars and warnings (stderr) are not part of the story
            c.outputs = [o for o in c.get('outputs', []) if not (o.get('output_type') == 'stream' and o.get('name') == 'stderr')]
            for o in c.outputs:  # plain text reads better in a README than pandas' styled HTML
                data = o.get('data', {})
                if 'text/plain' in data:
                    for k in [k for k in data if k != 'text/plain']: del data[k]
        cells.append(c)
    nb.cells = cells
    nb.metadata['language_info'] = {'name': 'python'}   # code cells render as ```python blocks (tests/test_readme.py runs them)
    body, _ = MarkdownExporter().from_notebook_node(nb)
    body = re.sub(r'\n{3,}', '\n\n', body).strip() + '\n'
    return '<!-- Generated from nbs/index.ipynb by tools/render_readme.py: edit the notebook, not this file. -->\n\n' + body

if __name__ == '__main__':
    out = ROOT/'README.md'
    text = render()
    if not out.exists() or out.read_text() != text: out.write_text(text)
