"""Aluette (La Vache): batched kernel, observation layout, renderer. Rules: ``RULES.md`` here."""

from .kernel import AluetteKernel, AluetteState

__all__ = ["AluetteKernel", "AluetteState"]
