"""Installing from the tray: the install window and the sync offer that follows it."""
