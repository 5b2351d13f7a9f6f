"""Neighbouring collections turned into engine queries.

Scopes, backgrounds, clones, exact small pairs; read ``scopes/`` first.
"""
