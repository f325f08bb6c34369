# Purpose: prints the greeting.
# Depends on: [a_util, a_gone]
from util import shout


def greet():
    print(shout("hello, world"))  # noqa: E501 Issue: i_lint
