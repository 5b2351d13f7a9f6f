"""Neighbouring collections turned into engine queries (scopes, backgrounds, clones, exact small pairs); read ``scopes.py`` first."""
