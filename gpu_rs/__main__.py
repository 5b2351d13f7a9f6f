"""``python -m gpu_rs``: the same program as ``gpu-rs``."""

from gpu_rs.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
