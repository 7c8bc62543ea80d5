"""The desktop application. The only package that imports Qt."""
