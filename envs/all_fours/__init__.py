"""All Fours (Trinidad): batched kernel, observation layout, renderer. Rules: ``RULES.md`` here."""

from .kernel import AllFoursKernel, AllFoursState

__all__ = ["AllFoursKernel", "AllFoursState"]
