"""Approving in the tray: the approval dialog, the approvals list, MCP requests."""
