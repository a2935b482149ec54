"""Foundation: the error tree, JavaScript value semantics and JSON Schema helpers.

Imports nothing else from graphrt; every other layer may import it.
"""
