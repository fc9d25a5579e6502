"""Domain models."""

from dataclasses import dataclass


@dataclass
class User:
    """A registered user."""

    name: str
    email: str = ""
    active: bool = True

    def label(self) -> str:
        return f"{self.name} <{self.email}>" if self.email else self.name


class Account:
    """Not a dataclass."""

    def __init__(self, owner: User) -> None:
        self.owner = owner
