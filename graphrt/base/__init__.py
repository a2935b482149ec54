"""Foundation: the error tree, node and run states, credentials and their redaction, JavaScript value
semantics and JSON Schema helpers.

Imports nothing else from graphrt; every other layer may import it.
"""
