"""*Export as a plugin…*: the person's skills as one plugin folder for coding agents."""
