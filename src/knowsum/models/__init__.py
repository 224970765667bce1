"""knowsum.models layer."""
