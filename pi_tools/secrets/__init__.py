"""Secret detection shared by audit, scrub and export: the detectors (`detectors`) and where they find secrets in
JSON values (`values`). Imports nothing of the package but `js`."""
