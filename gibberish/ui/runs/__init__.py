"""Runs in the tray: the parameter form, the result windows, output onto the GUI thread."""
