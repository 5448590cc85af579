"""OpenAI Chat Completions (and every OpenAI-compatible host): payload (``payload``) and HTTP request (``wire``).

Submodules are imported on demand so that loading one API never pulls in the others.
"""
