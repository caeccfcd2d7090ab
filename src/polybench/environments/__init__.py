"""polybench.environments."""
