"""The certified tail of a sum of independent finite-atom variables; read ``pipeline.py`` first. No word of users or pairs."""
