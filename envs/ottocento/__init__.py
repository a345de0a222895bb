"""Ottocento (Bolognese Tarocchino): batched kernel, combination scorer, observation layout, renderer.

Rules: ``RULES.md`` here.
"""
