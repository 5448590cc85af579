"""What every report shares to write text: aligned plain-text tables (`texttable`) and the packaged jinja2
templates (`templates`). Imports nothing else of the package."""
