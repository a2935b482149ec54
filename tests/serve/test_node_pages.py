"""GET /runs/{id}/nodes in pages (offset, limit, `next`), saying when nodes were left out: 20,000 nodes came
back as one answer of 5.8 MB, and nothing said that nodes past the ledger's 20,000 were not kept."""

from __future__ import annotations

from graphrt.serve import node_ledger

MAPPED = """\
version: 0.5
nodes:
  items:
    value: []
  each:
    agent: mapAgent
    inputs:
      rows: :items
    graph:
      nodes:
        double:
          agent: copyAgent
          inputs:
            value: :row
          isResult: true
    isResult: true
"""


def _run(client, rows: int) -> str:
    run = client.post("/graphs/mapped/runs?wait=true", json={"inputs": {"items": list(range(rows))}}).json()
    assert run["status"] == "finished", run
    return run["id"]


def test_a_runs_nodes_come_in_pages_that_link_the_next_until_every_node_is_listed(serve):
    served = serve({"mapped.yaml": MAPPED})
    with served.client() as client:
        run_id = _run(client, 2_500)
        first = client.get(f"/runs/{run_id}/nodes").json()  # 1,000 nodes by default
        assert (len(first["nodes"]), first["total"], first["offset"], first["left_out"]) == (1000, 2501, 0, None)
        assert first["next"] == f"/runs/{run_id}/nodes?offset=1000&limit=1000"
        pages, link = [first], first["next"]
        while link:
            pages.append(client.get(link).json())
            link = pages[-1]["next"]
        assert [len(page["nodes"]) for page in pages] == [1000, 1000, 501]
        keys = [key for page in pages for key in page["nodes"]]
        assert len(set(keys)) == 2501 and keys[0] == "each" and set(keys) >= {"each/0/double", "each/2499/double"}

        small = client.get(f"/runs/{run_id}/nodes", params={"offset": 2499, "limit": 5}).json()
        assert list(small["nodes"]) == keys[2499:] and small["next"] is None
        assert client.get(f"/runs/{run_id}/nodes", params={"offset": 9000}).json()["nodes"] == {}


def test_bad_paging_is_a_400_that_says_what_is_wanted(serve):
    served = serve({"mapped.yaml": MAPPED})
    with served.client() as client:
        run_id = _run(client, 1)
        for params, message in (({"limit": "0"}, "'limit' must be a number from 1 to 5000"),
                                ({"limit": "5001"}, "'limit' must be a number from 1 to 5000"),
                                ({"limit": "ten"}, "'limit' must be a number from 1 to 5000"),
                                ({"offset": "-1"}, "'offset' must be a whole number of nodes to skip")):
            answer = client.get(f"/runs/{run_id}/nodes", params=params)
            assert (answer.status_code, answer.json()) == (400, {"error": message})


def test_nodes_past_the_ledgers_bound_are_said_to_be_left_out(serve, monkeypatch):
    monkeypatch.setattr(node_ledger, "_MAX_NODES", 50)  # 20,000 in a real server
    served = serve({"mapped.yaml": MAPPED})
    with served.client() as client:
        run_id = _run(client, 60)
        page = client.get(f"/runs/{run_id}/nodes", params={"limit": 100}).json()
    assert len(page["nodes"]) == page["total"] == 50
    left_out = page["left_out"]
    assert left_out["max_nodes"] == 50 and left_out["events"] > 0
    assert left_out["message"] == (f"this run has more nodes than the 50 the server keeps for a run (nested graphs' "
                                   f"and map rows'): {left_out['events']:,} events of the others were not kept, and "
                                   "those nodes are not listed")
