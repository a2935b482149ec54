"""Running a compiled graph: the scheduler with its concurrency limits, what one execution shares
(context: RunContext), one run of a graph (execution), one node's call of its agent (node), nested
graphs (nesting) and the public Graph.

Imports every layer below it (base, graphdata, observe, authoring, check, checkpoint); never durable, testing, api or cli.
"""
