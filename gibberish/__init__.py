"""gibberish: turn folders of SKILL.md files into tools a person (or a local model) can run."""

__version__ = "0.1.0"
