"""The preflight rule framework the API folders write their rules with: `rules` (Hit, PreflightRule, the `rule`
decorator and the registry), `view` (RequestView: what a rule sees of one request) and `scans` (per-item scans
that can run part by part).

It sits in providers, below `pi_tools.preflight`, so that an API folder holds its own rules without importing
anything above it; the preflight room asks the registry for the rules (every API's `rule_modules`, from the
table, then its own rules for every API) and runs them.
"""
