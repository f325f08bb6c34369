# Purpose: prints the greeting.
# Depends on: [a_util]
from util import shout


def greet():
    print(shout("hello, world"))  # noqa: E501 Issue: i_lint
