"""A tiny calculator package used by the plugin's own tests."""
