"""What every layer needs and no layer owns.

Limits, argument checks, float constants, backends, errors, serialization.
"""
