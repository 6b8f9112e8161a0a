"""Registered reproductions: one module per paper or validation study, each defining
``EXPERIMENT`` (see aqmlab.reproduce)."""
