"""The quickstart notebook runs top to bottom (with a small arena budget)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def test_quickstart_notebook_executes(monkeypatch):
    monkeypatch.setenv("CARDZOO_NB_DEALS", "100")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / "01_quickstart.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "stream"
    )
    assert "team A mean return over 200 random hands" in outputs
    assert "Bradley-Terry" in outputs or "rating" in outputs.lower()
    assert not any(o.get("output_type") == "error" for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert os.environ["CARDZOO_NB_DEALS"] == "100"
