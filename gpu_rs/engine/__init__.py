"""The certified tail of a sum of independent finite-atom variables.

Read ``pipeline.py`` first. No word of users, pairs or privacy.
"""
