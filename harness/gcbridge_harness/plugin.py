"""pytest plugin placeholder."""
