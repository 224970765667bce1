"""knowsum.report layer."""
