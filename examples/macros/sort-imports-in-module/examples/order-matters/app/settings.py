import os

MODE = os.environ.get("APP_MODE", "dev")
