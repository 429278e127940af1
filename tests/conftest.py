import os
import sys

# tests/invariants.py is a helper module shared by several test files
sys.path.insert(0, os.path.dirname(__file__))
