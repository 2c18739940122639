#!/usr/bin/env python3
"""Counts test cases after `bazel test --build_event_json_file=EVENTS`: `test_summary.py EVENTS`.

Reads Bazel's build events, then each test target's gtest XML, and prints the failed and skipped
cases, the targets whose passing cases compiled code this CPU cannot run and so stopped before
running it (the gtest property `not_run`, compiler/ops/testing/op_check.h), followed by the last
line `N passed, N failed[, N skipped]`, counting test cases, not targets. A test target that did not build or whose run produced no XML counts as one failed case,
so a broken target can never pass silently. Exits 1 if anything failed.
"""

import json
import sys
import urllib.parse
import xml.etree.ElementTree as ElementTree


def read_events(path):
    """Returns ({label: configured as a test}, {label: [(status, xml path or None)]})."""
    tests, results = set(), {}
    with open(path, encoding="utf-8") as events:
        for line in events:
            event = json.loads(line)
            ident = event.get("id", {})
            if "targetConfigured" in ident:
                kind = event.get("configured", {}).get("targetKind", "")
                if kind.endswith("_test rule"):
                    tests.add(ident["targetConfigured"]["label"])
            elif "testResult" in ident:
                result = event.get("testResult", {})
                xml = None
                for output in result.get("testActionOutput", []):
                    if output.get("name") == "test.xml":
                        xml = urllib.parse.urlparse(output["uri"]).path
                label = ident["testResult"]["label"]
                results.setdefault(label, []).append((result.get("status", "NO_STATUS"), xml))
    return tests, results


def not_run_reason(case):
    """The `not_run` property of a gtest testcase element (an attribute or a <property>)."""
    if case.get("not_run"):
        return case.get("not_run")
    for prop in case.iter("property"):
        if prop.get("name") == "not_run":
            return prop.get("value", "")
    return None


def count_cases(xml_path):
    """Returns (passed, [failed case names], [(skipped case name, reason)], {not-run reason: count})
    of one gtest XML."""
    passed, failed, skipped, not_run = 0, [], [], {}
    for case in ElementTree.parse(xml_path).iter("testcase"):
        name = "%s.%s" % (case.get("classname", ""), case.get("name", ""))
        reason = not_run_reason(case)
        if reason is not None:
            not_run[reason] = not_run.get(reason, 0) + 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.get("result") == "skipped" or case.find("skipped") is not None:
            node = case.find("skipped")
            reason = node.get("message", "") if node is not None else ""
            skipped.append((name, reason.splitlines()[-1] if reason else ""))
        elif case.get("status", "run") == "run":
            passed += 1
    return passed, failed, skipped, not_run


def main(events_path):
    tests, results = read_events(events_path)
    passed, failed, skipped, not_run = 0, [], [], []
    for label in sorted(tests | set(results)):
        runs = results.get(label)
        if not runs:
            failed.append("%s (did not build or run)" % label)
            continue
        for status, xml in runs:
            if xml is None:
                failed.append("%s (%s, no test XML)" % (label, status))
                continue
            p, f, s, n = count_cases(xml)
            not_run += [(label, count, why) for why, count in sorted(n.items())]
            passed += p
            failed += ["%s %s" % (label, name) for name in f]
            skipped += [("%s %s" % (label, name), why) for name, why in s]
            if status not in ("PASSED", "FLAKY") and not f:
                failed.append("%s (%s)" % (label, status))
    for name, why in skipped:
        print("skipped: %s: %s" % (name, why))
    for label, count, why in not_run:
        print("not run: %s: %d cases %s" % (label, count, why))
    for name in failed:
        print("FAILED: %s" % name)
    line = "%d passed, %d failed" % (passed, len(failed))
    if skipped:
        line += ", %d skipped" % len(skipped)
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
