"""The built-in macros, one folder each (found by their ``contract.yaml``), and the engines their runtimes import.

A macro folder's name has hyphens and is loaded by path, not imported; a package here with an
importable name (``move_module_engine``) holds the code a built-in runtime needs beyond its file.
"""
