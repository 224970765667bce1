"""Loaders: one module per source format, each returning an :class:`~knowsum.kb._store.OntologyData`."""
