"""python3 -m hetlu: the hetlu command installed beside the module by `pip install .`."""
import os
import sys


def main():
    command = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "hetlu")
    if not os.access(command, os.X_OK):
        sys.exit("hetlu: no command beside this module (pip install . installs one; a CMake build has build/bin/hetlu)")
    os.execv(command, [command] + sys.argv[1:])


if __name__ == "__main__":
    main()
