"""The ``gpu-rs`` program: ``main.py`` first, then one module per subcommand."""
