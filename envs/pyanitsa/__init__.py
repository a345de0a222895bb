"""P'yanitsa ("Drunkard"): batched kernel, observation layout, renderer. Rules: ``RULES.md`` here."""

from .kernel import PyanitsaKernel, PyanitsaState

__all__ = ["PyanitsaKernel", "PyanitsaState"]
