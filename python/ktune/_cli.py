"""The `ktune` command of the installed package: the bundled tuner binary."""
import os
import sys

from ._tune import tuner


def main():
    binary = tuner()
    os.execv(binary, [binary] + sys.argv[1:])
