"""polybench.grading."""
