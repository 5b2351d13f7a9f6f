"""What users ask for: the tail, the privacy profile, the distribution of R, closed forms; read ``tail.py`` first."""
