"""Code kept only for comparison and tests (generic shuffle bounds, exact one-bit profile, the seed's k rule); the product never imports it."""
