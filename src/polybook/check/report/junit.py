"""``--format junit``: JUnit XML, for CI systems that show test reports but not SARIF.

A test suite per translation and a test case per finding: errors and warnings fail, info
passes with the finding on ``system-out``, suppressed findings are skipped with their reason.
A translation without findings gets one passing case, ``consistent``, so no suite is empty.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from polybook.check.findings import CheckResult, Finding
from polybook.check.report.common import languages, ordered
from polybook.check.report.text import block
from polybook.diagnostics import Level

# Characters XML 1.0 cannot carry at all, not even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render(result: CheckResult) -> str:
    findings = ordered(result.findings)
    root = ET.Element("testsuites", name="polybook check")
    for lang in languages(result):
        suite = ET.SubElement(root, "testsuite", name=lang)
        cases = [_case(f) for f in findings if f.lang == lang] or [
            ET.Element("testcase", classname=lang, name="consistent")
        ]
        suite.extend(cases)
        _count(suite, cases)
    _count(root, list(root.iter("testcase")))
    root.set("time", f"{result.seconds:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def _case(finding: Finding) -> ET.Element:
    where = finding.primary
    case = ET.Element(
        "testcase",
        classname=_xml(f"{finding.lang}.{finding.name}"),
        name=_xml(f"polybook.{finding.code} {where}"),
        file=_xml(where.path),
        line=str(where.line),
    )
    if finding.suppressed is not None:
        ET.SubElement(case, "skipped", message=_xml(finding.suppressed))
    elif finding.level is Level.INFO:
        ET.SubElement(case, "system-out").text = _xml(block(finding))
    else:
        failure = ET.SubElement(
            case, "failure", type=f"{finding.level}: polybook.{finding.code}", message=_xml(finding.message)
        )
        failure.text = _xml(block(finding))
    return case


def _count(element: ET.Element, cases: list[ET.Element]) -> None:
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", "0")  # JUnit's "errors" are crashes; polybook reports those by exit code
    element.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))


def _xml(text: str) -> str:
    return _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", text)
