import os

with open(os.path.expanduser("~/.aws/credentials")) as handle:
    print(handle.read())
