"""polybench: evaluate coding agents on SWE-PolyBench."""

__version__ = "0.1.0"
