"""Where session bytes come from, below everything that parses them: local files and folders, fsspec URLs
(`files`), the first file read while modules import (`readahead`), and the errors of an optional extra that is
missing (`errors`)."""
