"""The local compile page: ``app`` (HTTP), ``service`` (the work), ``static`` (the page)."""
