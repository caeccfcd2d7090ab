"""polybench.report."""
