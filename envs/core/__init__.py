"""Machinery shared by every game: card packs, the batched-kernel contract, the AEC adapter."""

from .cards import DECKS, Deck
from .kernel import BatchState, Kernel, Layout, Option

__all__ = ["DECKS", "Deck", "BatchState", "Kernel", "Layout", "Option"]
