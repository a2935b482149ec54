"""The GraphData language: reading graph files (loader), references and templates (refs,
propfuncs) and compiling a graph into immutable node specs (spec).

Imports only graphrt.base.
"""
