"""GraphAI's browserlessAgent (@graphai/browserless_agent 2.0.3): a page rendered by browserless, as HTML or text.

POST `{base}/content?token=T` `{url}` gives the rendered page's HTML; with
`text_content` (an input or a param), POST `{base}/scrape?token=T`
`{url, elements: [{selector: "body"}]}` gives the body's text. `{text}` either way.
The base is `https://production-{region}.browserless.io` (`params.region`: sfo, lon,
ams), or `params.baseURL` / the config's `baseURL` (a browserless you run yourself);
the token is `params.apiKey`, the config's `apiKey` or BROWSERLESS_API_TOKEN.

Where graphrt differs: `params.debug` describes the request without the token in
its URL (GraphAI's result holds it; its own sample shows the URL without it).
"""

from __future__ import annotations

import json
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from .._http import request_url, response_json, response_text
from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url, credential, error_text, service_params
from ._calls import call
from .standins import SAMPLE_DOCUMENTS, SAMPLE_KEY, BrowserlessStandIn

__all__ = ["AGENTS", "browserless_agent"]


def _scraped_text(data: Any) -> Any:
    """`jsonResponse.data[0].results[0].text`, failing as JavaScript does when a step is missing."""
    try:
        return data["data"][0]["results"][0]["text"]
    except (KeyError, IndexError, TypeError):
        raise TypeError("browserless's /scrape answer has no data[0].results[0].text "
                        f"(it answered {json.dumps(data)[:200]})") from None


async def browserless_agent(ctx: AgentContext) -> Any:
    """Renders `inputs.url` with browserless: `{text}`, the page's HTML, or with `text_content` its body's text.

    Raises:
        AgentError: no URL, no token (BROWSERLESS_API_TOKEN); "Browserless HTTP error: N, <body>" for a non-2xx
            answer (with `params.supressError`: `{onError: {message, status, error}}`; any other failure then is
            `{onError: {message, error}}`).
    """
    url = ctx.inputs.get("url", UNDEFINED)
    if not is_truthy(url):
        raise AgentError("browserlessAgent: url is required! set inputs: { url: 'https://example.com' }",
                         field="inputs.url")
    text_content = ctx.inputs.get("text_content", UNDEFINED)
    if is_null(text_content):
        text_content = ctx.params.get("text_content", False)
    text_content = is_truthy(text_content)
    supress = is_truthy(ctx.params.get("supressError"))
    token = credential(ctx, "BROWSERLESS_API_TOKEN")
    if token is None:
        raise AgentError("Browserless API token is required. Please set the BROWSERLESS_API_TOKEN environment variable.")
    region = js_string(ctx.params.get("region")) if is_truthy(ctx.params.get("region")) else "sfo"
    endpoint = f"{base_url(ctx, f'https://production-{region}.browserless.io')}/{'scrape' if text_content else 'content'}"
    body: dict[str, Any] = {"url": url, "elements": [{"selector": "body"}]} if text_content else {"url": url}
    headers = {"Content-Type": "application/json"}
    if is_truthy(ctx.params.get("debug")):
        return {"url": endpoint, "method": "POST", "headers": headers, "body": body}
    try:
        response = await call(ctx, "browserlessAgent", "POST", request_url(endpoint, {"token": token}), headers,
                              json.dumps(body, ensure_ascii=False))
        if not response.ok:
            error = response_text(response)
            if supress:
                return {"onError": {"message": f"Browserless HTTP error: {response.status}", "status": response.status,
                                    "error": error}}
            raise AgentError(f"Browserless HTTP error: {response.status}, {error}")
        if text_content:
            return {"text": _scraped_text(response_json(response))}
        return {"text": response_text(response)}
    except (AgentError, TypeError, ValueError) as error:
        if supress:
            return {"onError": {"message": str(error), "error": error_text(error)}}
        raise


_PAGE = SAMPLE_DOCUMENTS[2]

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="browserlessAgent",
        outside=True,
        func=browserless_agent,
        mock=stand_in_mock(browserless_agent, BrowserlessStandIn, SAMPLE_KEY),
        description="An agent that uses Browserless.io to fetch web page content with JavaScript execution support "
                    "for retrieving data from SPAs and dynamic content",
        inputs={"type": "object", "properties": {
            "url": {"type": "string", "description": "URL of the web page to scrape or manipulate"},
            "text_content": {"type": "boolean", "description": "If true, returns only the text content of the body "
                                                               "element of the page, otherwise returns the full HTML"},
        }, "required": ["url"]},
        params={"type": "object", "properties": {
            **service_params("Browserless API key (else the config's apiKey, else BROWSERLESS_API_TOKEN)",
                             "https://production-{region}.browserless.io"),
            "debug": {"type": "boolean", "description": "return the request instead of sending it (without the token)"},
            "text_content": {"type": "boolean", "description": "as the input, when the input is not given"},
            "region": {"type": "string", "enum": ["sfo", "lon", "ams"],
                       "description": "Regional endpoint to use. sfo: San Francisco (default), lon: London, ams: Amsterdam"},
        }},
        output={"type": "object", "properties": {"text": {"type": "string"}}},
        config=SERVICE_CONFIG,
        samples=(
            Sample(inputs={"url": _PAGE.url}, params={}, result={"text": _PAGE.html()},
                   description="The rendered page's HTML (a stand-in of browserless, on 127.0.0.1)."),
            Sample(inputs={"url": _PAGE.url, "text_content": True}, params={},
                   result={"text": f"{_PAGE.title}\n{_PAGE.text}"}, description="The text of the page's body."),
            Sample(inputs={"url": "https://www.example.com"}, params={"debug": True}, result={
                "url": "https://production-sfo.browserless.io/content", "method": "POST",
                "headers": {"Content-Type": "application/json"}, "body": {"url": "https://www.example.com"}},
                description="debug: the request, not sent."),
        ),
        category=("net",),
        author="kawamataryo",
        repository="https://github.com/receptron/graphai-agents",
        source="https://github.com/receptron/graphai-agents/tree/main/net/browserless_agent/src/browserless_agent.ts",
        package="@graphai/browserless_agent",
        license="MIT",
        environment_variables=("BROWSERLESS_API_TOKEN",),
    ),
]
