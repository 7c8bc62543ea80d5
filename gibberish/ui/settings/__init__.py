"""The settings dialog and its tabs."""
