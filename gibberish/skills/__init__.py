"""The SKILL.md domain: model, frontmatter, body, templates, rendering, validation, library.

Pure and Qt-free; nothing here starts a process.
"""
