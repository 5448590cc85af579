"""Amazon Bedrock ConverseStream API: command input (``payload``) and HTTP request (``wire``) encoders.

Submodules are imported on demand so that loading one API never pulls in the others.
"""
