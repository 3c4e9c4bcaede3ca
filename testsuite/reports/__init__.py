"""Renderers: each takes result data plus options and draws it (terminal, files)."""
