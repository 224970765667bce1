"""knowsum.kb layer."""
