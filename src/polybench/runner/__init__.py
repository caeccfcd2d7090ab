"""polybench.runner."""
