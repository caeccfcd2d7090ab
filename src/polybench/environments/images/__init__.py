"""Docker images in layers: language bases, repository environments, thin instance layers.

Import from the submodules (``manager``, ``settings``, ``inventory``...); this package
itself imports nothing, so that ``errors`` can be used without the Docker SDK.
"""
