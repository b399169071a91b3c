"""Metrics every process exposes to Prometheus (issue 34, docs/operations.md "Metrics").

:mod:`.families` names every metric (and only there: a dashboard or an alert can rely on
these names); :mod:`.exposition` serves them on a port of the process's own, never on a
public face; :mod:`.grpc_calls` counts and times every gRPC call, :mod:`.samplers` reads
counts the services keep as plain integers (no prometheus call on a hot path) and state
held in Redis when Prometheus scrapes. This package imports nothing of the services, so
every layer may report through it without an import cycle.
"""
