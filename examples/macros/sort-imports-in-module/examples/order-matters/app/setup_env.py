import os

os.environ.setdefault("APP_MODE", "prod")
