"""The jinja2 templates, installed as the package ``pi_tools.templates`` (setup.py maps this folder to it).

The folder stays at the top of the repository; this file only makes it a package, so that editable installs
and wheels alike find the templates through the import system (pi_tools.output.templates) instead of the checkout.
"""
