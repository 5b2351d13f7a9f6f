# syntax=docker/dockerfile:1
#
# gpu-rs images.
#
#   docker build -t gpu-rs .                      # runtime image (CUDA 12, CuPy), the default target
#   docker run --rm --gpus all gpu-rs             # runs `gpu-rs doctor`
#   docker run --rm --gpus all gpu-rs calibrate --n 1e7 --bits 40 --eps 2 --eta 1e-3
#
#   docker build --target cpu-test .              # CPU only: install '.[test,plot,accounting,dask]' and run the tests
#
# Stages: `base` (CUDA runtime + Python), `build` (a venv with '.[gpu,plot]'),
# `runtime` (base + that venv, no sources or build tools), and `cpu-test`
# (python:slim, the README's test command). The extras named here must exist in
# pyproject.toml's [project.optional-dependencies]; tests/test_dockerfile.py checks it.

ARG CUDA_IMAGE=nvidia/cuda:12.4.1-runtime-ubuntu22.04
ARG PYTHON_IMAGE=python:3.11-slim

# --- CPU test stage: no GPU needed ------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS cpu-test
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    MPLBACKEND=Agg
WORKDIR /src
COPY . .
RUN pip install -e ".[test,plot,accounting,dask]"
RUN python -m pytest -q -n auto

# --- CUDA base: the runtime libraries and a Python interpreter --------------------------------
FROM ${CUDA_IMAGE} AS base
ENV DEBIAN_FRONTEND=noninteractive \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-pip python3-venv \
    && rm -rf /var/lib/apt/lists/*

# --- build: install the package and its GPU and plot extras into a venv -----------------------
FROM base AS build
RUN python3 -m venv /opt/gpu-rs
ENV PATH=/opt/gpu-rs/bin:$PATH
WORKDIR /src
COPY . .
RUN pip install --upgrade pip \
    && pip install ".[gpu,plot]"

# --- runtime: the venv only ------------------------------------------------------------------
FROM base AS runtime
COPY --from=build /opt/gpu-rs /opt/gpu-rs
ENV PATH=/opt/gpu-rs/bin:$PATH \
    MPLBACKEND=Agg
RUN useradd --create-home --uid 1000 gpu-rs
USER gpu-rs
WORKDIR /home/gpu-rs
ENTRYPOINT ["gpu-rs"]
CMD ["doctor"]
