"""Dataset construction: collect pull requests, split patches, validate, annotate, curate."""
