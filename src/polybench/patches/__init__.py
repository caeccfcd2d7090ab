"""polybench.patches."""
