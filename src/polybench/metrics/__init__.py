"""polybench.metrics."""
