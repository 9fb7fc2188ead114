"""Builds examples/compare-kernels.ipynb from examples/compare-kernels.py (the script is the
source: `# %%` starts a code cell, `# %% [markdown]` a markdown cell of `# ` lines).

    python3 examples/make-notebook.py          # rewrite the notebook
    python3 examples/make-notebook.py --check  # fail if the notebook is not the script's
"""

import json
import pathlib
import sys

here = pathlib.Path(__file__).parent
script = (here / "compare-kernels.py").read_text()
cells = []
for chunk in script.split("# %%")[1:]:
    head, _, body = chunk.partition("\n")
    body = body.strip("\n")
    if head.strip() == "[markdown]":
        text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.splitlines())
        cells.append({"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)})
    else:
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                      "source": body.splitlines(keepends=True)})
notebook = {
    "cells": cells,
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
for i, cell in enumerate(notebook["cells"]):
    cell["id"] = f"cell-{i}"
text = json.dumps(notebook, indent=1) + "\n"
target = here / "compare-kernels.ipynb"
if "--check" in sys.argv:
    if not target.exists() or target.read_text() != text:
        sys.exit("examples/compare-kernels.ipynb is not examples/compare-kernels.py: run examples/make-notebook.py")
else:
    target.write_text(text)
