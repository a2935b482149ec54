"""`python -m bench.serve`: graphrt serve under load and under kill -9 (see __main__.py)."""
