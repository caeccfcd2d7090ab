"""polybench.sandbox."""
