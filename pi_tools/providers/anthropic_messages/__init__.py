"""Anthropic Messages API: request payload (``payload``) and HTTP request (``wire``) encoders.

Submodules are imported on demand so that loading one API never pulls in the others.
"""
