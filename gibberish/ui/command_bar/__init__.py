"""The command bar and asking in your own words."""
