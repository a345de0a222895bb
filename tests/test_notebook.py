"""The quickstart notebook runs top to bottom (with a small arena budget)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def test_quickstart_notebook_executes(monkeypatch):
    monkeypatch.setenv("CARDZOO_NB_DEALS", "100")
    nb = nbformat.read(ROOT / "notebooks" / "01_quickstart.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    outputs = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outs)
    assert "team A mean return over 200 random hands" in outputs
    assert "Bradley-Terry" in outputs  # the round robin's rating table was shown
    assert any("image/png" in o.get("data", {}) for o in outs)  # the plot was drawn
    assert not any(o.get("output_type") == "error" for o in outs)
