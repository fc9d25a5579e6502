"""Settings: the formatter is named by its dotted path."""

FORMATTER = "app.render.to_text"
