"""polybench.cli."""
