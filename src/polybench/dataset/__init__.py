"""Instances, predictions, loaders and the built-in datasets."""
