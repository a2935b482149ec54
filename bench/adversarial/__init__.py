"""The adversarial campaign: hostile input on every surface, each case ending in a result, a clean error, or a breach.

    .venv/bin/python -m bench.adversarial                 # every surface (about ten minutes on 2 busy cores)
    .venv/bin/python -m bench.adversarial agents mcp      # some surfaces
    .venv/bin/python -m bench.adversarial --every 10      # one case in ten, for a quick look
    .venv/bin/python -m bench.adversarial serve           # graphrt serve's HTTP API only (about two minutes)
    .venv/bin/python -m bench.adversarial mcp-http        # graphrt mcp --http only (under a minute)

Not a test: a script that tries the cases and prints, per surface, the cases tried
and how they ended (see `cases.Outcome`): results, clean errors, tracebacks, hangs
(no answer by the deadline), wrong results, leaks (a planted secret in what a user
or client reads), breaches (a file outside the base folder read or written, a
program run that was not allowed) and data lost (a saved run that resumes to other
results). Each case that is not clean is listed in bench/results/adversarial.json.

The surfaces: graph files through `graphrt run/validate/viz` (agents, fields, props, files,
inject, confinement, leaks, checkpoint, tools), `graphrt mcp` over stdio (mcp.py), and
a real `graphrt serve` process attacked over raw HTTP (serve.py, http.py: keys, Host and
Origin, traversal, bodies, Last-Event-ID, cancel and resume races, planted secrets), and a
real `graphrt mcp --http` the same way (mcp_http.py: the stdio calls in a session, keys,
Host and Origin, bodies, sessions).
"""
