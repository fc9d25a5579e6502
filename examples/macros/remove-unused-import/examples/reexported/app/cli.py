from app.report import os, render


def main() -> str:
    return render([{"cwd": os.getcwd()}])
