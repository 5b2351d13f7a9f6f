"""What every layer needs and no layer owns: limits, argument checks, float constants, backends, errors, serialization."""
