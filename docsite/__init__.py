"""The documentation site's generated pages and its tooling: what mkdocs.yml's hook writes from the code.

The reference pages that would drift if written by hand are made here at build time, from the code
itself: the CLI from the argparse parsers (`cli_reference`), the HTTP API from the OpenAPI document
(`http_reference`), every agent from its function info (`agent_reference`), the errors from the tree
drawn in graphrt/base/errors.py (`error_reference`), and the Python API's pages of mkdocstrings
directives from graphrt's public names (`python_reference`). `hooks` hands them to MkDocs; `code_blocks`
reads the Markdown's code blocks for the tests that run them (tests/test_docs_examples.py);
`screenshots` regenerates the viewer's pictures. Nothing here is imported by graphrt.
"""
