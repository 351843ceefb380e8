"""Execute notebooks so that running one twice writes the same bytes: `make notebooks` uses this.

    python -m tools.execute_notebook notebooks/04_multi_head_attention.ipynb [--output copy.ipynb]

What used to change from one run to the next, and what keeps it out of the file:
- stdout split into different chunks (flushes race the kernel's messages): consecutive stream
  outputs are merged (nbconvert's CoalesceStreamsPreprocessor);
- progress-bar widgets (tqdm via anatomy.tasks.training.train): the widget state, which holds the elapsed
  time, is dropped, and each widget's random model id becomes one derived from its place;
- cell timings: not recorded;
- BertViz view ids: anatomy.display.viz derives them from the view's content;
- last digits that depend on the machine's core count: the kernel runs on one thread, as under
  `make test` (see conftest.py);
- last digits that depend on the CPU (another machine, or `make test-portable`'s settings): a cell
  whose new outputs are the same as the committed ones under tools/outputs.py's comparison (nbval's
  sanitizers applied; figures the same to the eye) keeps the committed ones. A `# NBVAL_IGNORE_OUTPUT`
  cell (text sampled from a model trained on this CPU) keeps its committed outputs when every
  compared cell of its notebook did: then nothing but the CPU changed. "Committed" means git's HEAD
  (the file itself outside git): `make notebooks/NN.executed` syncs the edited .py into the .ipynb
  before it runs, which keeps each edited cell's old outputs, so only HEAD knows what they belonged to.
  `--refresh` (make notebooks REFRESH=1) writes every new output.
The kernel talks over socket files (tools/kernels.py), so `make notebooks -j` can start many at once.
Timings printed by a cell still change the file: print them in `make bench`, not in a notebook.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from tools.kernels import ipc_kernel_manager
from tools.outputs import IGNORE_OUTPUT, same_cell_outputs

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"  # inherited by the kernel


def fix_widget_ids(notebook: nbformat.NotebookNode, name: str) -> None:
    """Give each widget output a model id derived from the notebook name and its place in it."""
    for cell_index, cell in enumerate(notebook.cells):
        for output_index, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                view["model_id"] = hashlib.sha1(f"{name}:{cell_index}:{output_index}".encode()).hexdigest()[:32]


def committed_outputs(path: Path) -> dict[str, list[list]]:
    """Each code cell's source in the committed notebook (git's HEAD, or the file outside git) -> the
    outputs of the cells with that source, in order."""
    try:
        shown = subprocess.run(["git", "show", f"HEAD:./{path.name}"], cwd=path.parent, capture_output=True, text=True)
    except OSError:  # no git on this machine
        shown = None
    in_git = shown is not None and shown.returncode == 0
    committed = nbformat.reads(shown.stdout, as_version=4) if in_git else nbformat.read(path, as_version=4)
    outputs: dict[str, list[list]] = {}
    for cell in committed.cells:
        if cell.cell_type == "code":
            outputs.setdefault(cell.source, []).append(cell.get("outputs", []))
    return outputs


def keep_committed(notebook: nbformat.NotebookNode, committed: dict[str, list[list]]) -> None:
    """Put back the committed outputs of cells whose new outputs are the same (module docstring); a cell
    whose source is not the committed one's keeps its new outputs."""
    left = {source: list(outputs) for source, outputs in committed.items()}
    cells = [(cell, left[cell.source].pop(0)) for cell in notebook.cells
             if cell.cell_type == "code" and left.get(cell.source)]
    compared = [(cell, outputs) for cell, outputs in cells if IGNORE_OUTPUT not in cell.source]
    same = [(cell, outputs) for cell, outputs in compared if same_cell_outputs(outputs, cell.outputs)]
    for cell, outputs in same:
        cell.outputs = outputs
    every_code_cell_kept = len(same) == sum(IGNORE_OUTPUT not in c.source for c in notebook.cells if c.cell_type == "code")
    if every_code_cell_kept:
        for cell, outputs in cells:
            if IGNORE_OUTPUT in cell.source and outputs:
                cell.outputs = outputs


def execute(path: Path, output: Path | None = None, timeout: int = 900, refresh: bool = False) -> nbformat.NotebookNode:
    """Run every cell of `path` with its folder as working directory; write to `output` (default: in place).
    Unless `refresh`, outputs the same as the committed ones keep their committed bytes."""
    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    committed = committed_outputs(path)
    kernel = ipc_kernel_manager(AsyncKernelManager, kernel_name=notebook.metadata.kernelspec.name)
    NotebookClient(notebook, km=kernel, timeout=timeout, record_timing=False,
                   resources={"metadata": {"path": str(path.parent.resolve())}}).execute(cleanup_kc=True)
    notebook, _ = CoalesceStreamsPreprocessor().preprocess(notebook, {})
    notebook.metadata.pop("widgets", None)  # the widget state: elapsed times
    fix_widget_ids(notebook, path.name)
    if not refresh:
        keep_committed(notebook, committed)
    nbformat.write(notebook, output or path)
    return notebook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--output", type=Path, help="where to write the executed notebook (default: in place)")
    parser.add_argument("--refresh", action="store_true", help="write every new output, even the same ones")
    args = parser.parse_args()
    execute(args.notebook, args.output, refresh=args.refresh)


if __name__ == "__main__":
    main()
