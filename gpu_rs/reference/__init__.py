"""Code kept only for comparison and tests; the product never imports it.

Generic shuffle bounds, the exact one-bit profile, the seed's k-randomization rule.
"""
