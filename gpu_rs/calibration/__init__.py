"""The search for the flip probability q; read ``calibrate.py`` first."""
