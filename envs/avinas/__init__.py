"""Avinas (Lithuanian "Rams"): batched kernel, observation layout, renderer. Rules: ``RULES.md`` here."""

from .kernel import AvinasKernel, AvinasState

__all__ = ["AvinasKernel", "AvinasState"]
