"""Sending skills out: copy them into other agents' folders and configuration files, compile
them to Gemini CLI commands or stubs, and the local compile page (``web``)."""
