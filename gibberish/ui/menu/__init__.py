"""The tray's menu: its model, the cached first menu, the ``QMenu`` kept in step, the launcher."""
