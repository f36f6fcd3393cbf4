# Parses a Prometheus scrape with the Prometheus project's own Python parser (Debian's
# python3-prometheus-client) and prints its families as JSON, for the Java tests to check.
# Usage: python3 parse_metrics.py text|openmetrics < scrape
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as text_families

parse = openmetrics_families if sys.argv[1] == "openmetrics" else text_families
families = {}
for family in parse(sys.stdin.read()):
    if family.name in families:
        sys.exit("family %s appears twice" % family.name)
    families[family.name] = {
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
    }
json.dump(families, sys.stdout)
