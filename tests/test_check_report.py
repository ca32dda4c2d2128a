"""The reporters of `polybook check`: one small hand-made result, shown in every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from polybook.check.findings import CheckResult, Finding, Location
from polybook.check.report import FORMATS, render, step_summary, write_step_summary
from polybook.check.report.common import codes_named, with_codes
from polybook.check.report.sarif import RULE_TEXT
from polybook.diagnostics import Code, Level

PT = "chapters/pt/async-computation.md"
JA = "chapters/ja/async-computation.md"
EN = "chapters/en/async-computation.md"


def changed_cell() -> Finding:
    return Finding.make(
        Code.CODE_CHANGED,
        "mxnet cell 7 differs from the source",
        "pt",
        "async-computation",
        Location(PT, 182),
        source=Location(EN, 176),
        framework="mxnet",
        cell=7,
        diff=(("range(1000)", "range(10000)"), ("y.wait_to_read()", "npx.waitall()")),
        subject=("for i in range(1000)", "for i in range(10000)"),
    )


def missing_numbers() -> Finding:
    return Finding.make(Code.NUMBERS_MISSING, "numbers missing: 10000", "ja", "async-computation", Location(JA, 40))


def unknown_staleness() -> Finding:
    return Finding.make(
        Code.STALE_UNKNOWN, "no common history with the source", "pt", "async-computation", None, source=Location(EN, 1)
    )


def extra_cell() -> Finding:
    finding = Finding.make(Code.CODE_EXTRA, "extra mxnet cell", "pt", "async-computation", Location(PT, 90))
    return finding.suppress("baseline: kept on purpose")


@pytest.fixture
def result() -> CheckResult:
    findings = [changed_cell(), missing_numbers(), unknown_staleness(), extra_cell()]
    return CheckResult("en", ["en", "ja", "pt", "tr"], 2, findings, seconds=0.4234)


def empty() -> CheckResult:
    return CheckResult("en", ["en", "ja", "pt"], 3, [], seconds=0.1)


def errors(n: int, lang: str = "pt") -> list[Finding]:
    path = f"chapters/{lang}/async-computation.md"
    return [
        Finding.make(Code.CODE_MISSING, f"cell {i} is missing", lang, "async", Location(path, i + 1)) for i in range(n)
    ]


# text


def test_text_opens_with_a_table_then_lists_each_language_by_document(result: CheckResult) -> None:
    assert render(result, "text") == (
        "Findings by language and code\n"
        "                                    ja  pt  tr\n"
        "errors                               -   1   -\n"
        "  code.changed                       -   1   -\n"
        "warnings                             1   -   -\n"
        "  numbers.missing                    1   -   -\n"
        "info                                 -   1   -\n"
        "  stale.unknown                      -   1   -\n"
        "documents with an error or warning   1   1   -\n"
        "\n"
        "ja: 1 warning in 1 document\n"
        "\n"
        "chapters/ja/async-computation.md (1 warning)\n"
        "chapters/ja/async-computation.md:40: warning: numbers missing: 10000 [polybook.numbers.missing]\n"
        "\n"
        "pt: 1 error in 1 document\n"
        "\n"
        "chapters/pt/async-computation.md (1 error)\n"
        "chapters/pt/async-computation.md:182: error: mxnet cell 7 differs from the source [polybook.code.changed]\n"
        "  source: chapters/en/async-computation.md:176\n"
        "  - range(1000)   <- translation\n"
        "  + range(10000)  <- source\n"
        "  - y.wait_to_read()\n"
        "  + npx.waitall()\n"
        "\n"
        "pt: 1 info in 1 document\n"
        "\n"
        "chapters/en/async-computation.md (1 info)\n"
        "chapters/en/async-computation.md:1: info: no common history with the source [polybook.stale.unknown]\n"
        "\n"
        "1 error, 1 warning, 1 info in 3 translations of 2 chapters (1 suppressed) — 0.42 s"
    )


def at(code: Code, lang: str, path: str, line: int, level: Level | None = None) -> Finding:
    finding = Finding.make(code, f"{code} here", lang, "c", Location(path, line))
    return finding if level is None else replace(finding, level=level)


def test_text_lists_documents_with_errors_first_and_errors_first_in_each() -> None:
    a, b, c = "chapters/pt/a.md", "chapters/pt/b.md", "chapters/pt/c.md"
    findings = [
        at(Code.REF_TARGET, "pt", a, 5),  # a warning only: after b, which has an error
        at(Code.TERMS_MISSING, "pt", c, 1),  # info: after every error and warning of the language
        at(Code.REF_TARGET, "pt", b, 2),
        at(Code.MATH_CHANGED, "pt", b, 9),
        at(Code.REF_TARGET, "en", "chapters/en/b.md", 3),
        Finding.make(Code.STRUCTURE_CHAPTER, "not translated", "pt", "d", None, source=Location("chapters/en/d.md", 1)),
    ]
    findings[-1] = replace(findings[-1], level=Level.WARNING)
    lines = render(CheckResult("en", ["pt"], 4, findings), "text").splitlines()
    heads = [line for line in lines if line.startswith(("pt", "en", "chapters/")) and not line.endswith("]")]
    assert heads == [
        "pt: 1 error, 3 warnings in 3 documents",
        "chapters/pt/b.md (1 error, 1 warning)",
        "chapters/pt/a.md (1 warning)",
        "chapters/en/d.md (1 warning)",  # a chapter not translated: told at the source's file, after pt's own
        "en (the source's own): 1 warning in 1 document",
        "chapters/en/b.md (1 warning)",
        "pt: 1 info in 1 document",
        "chapters/pt/c.md (1 info)",
    ]
    listed = [line.split(": ")[0] for line in lines if line.endswith("]")]
    assert listed[:2] == [f"{b}:9", f"{b}:2"]  # the error before the warning above it
    assert lines[0] == "Findings by language and code (en: the source's own)"
    assert lines[2].split() == ["errors", "1", "-"] and lines[-1].startswith("1 error, 4 warnings, 1 info")


def test_text_top_lists_the_first_findings_of_each_language_and_says_how_many_more() -> None:
    findings = [*errors(5, "pt"), *errors(2, "ja"), at(Code.REF_TARGET, "pt", "chapters/pt/b.md", 1)]
    out = render(CheckResult("en", ["ja", "pt"], 1, findings), "text", top=3)
    assert out.count(": error: cell") == 5  # 2 of ja's, 3 of pt's
    assert "pt: 5 errors, 1 warning in 2 documents; the first 3 listed" in out  # what it has, not what is shown
    assert "ja: 2 errors in 1 document\n" in out
    assert (
        out.splitlines()[-2]
        == "3 more findings are past --top 3 a language: a larger --top, --code or --lang lists them"
    )
    assert out.splitlines()[-1].startswith("7 errors, 1 warning, 0 info")  # the totals count every finding


def test_codes_are_named_whole_or_by_prefix() -> None:
    assert codes_named(["ref.label"]) == {Code.REF_LABEL} == codes_named(["polybook.ref.label"])
    assert codes_named(["ref."]) == codes_named(["ref"]) == {code for code in Code if code.startswith("ref.")}
    assert codes_named(["math.changed", "code.missing"]) == {Code.MATH_CHANGED, Code.CODE_MISSING}
    with pytest.raises(ValueError, match=r"no code is 're' or starts with it; prefixes are .*ref\."):
        codes_named(["re"])
    chosen = with_codes(CheckResult("en", ["pt"], 1, [changed_cell(), extra_cell()]), codes_named(["code.extra"]))
    assert [f.code for f in chosen.findings] == [Code.CODE_EXTRA] and chosen.chapters == 1


def test_text_caps_the_diff_and_colours_on_request() -> None:
    finding = Finding.make(Code.MATH_CHANGED, "formula differs", "pt", "c", Location(PT, 3), diff=(("a", "b"),) * 8)
    out = render(CheckResult("en", ["pt"], 1, [finding]), "text", color=True)
    assert out.count("\x1b[31m  - a") == 6 and out.count("\x1b[32m  + b") == 6
    assert "  … 2 more\n" in out
    assert f"{PT}:3: \x1b[1m\x1b[31merror\x1b[0m: formula differs [polybook.math.changed]" in out
    assert out.endswith("1 error, 0 warnings, 0 info in 1 translation of 1 chapter — 0.00 s")
    assert "\x1b[" not in render(CheckResult("en", ["pt"], 1, [finding]), "text")


def test_text_without_findings_says_so() -> None:
    assert render(empty(), "text") == "No findings: 2 translations of 3 chapters are consistent with en — 0.10 s"
    only_suppressed = CheckResult("en", ["en", "pt"], 1, [extra_cell()], seconds=1)
    assert render(only_suppressed, "text") == (
        "No findings: 1 translation of 1 chapter is consistent with en (1 suppressed) — 1.00 s"
    )


# json


def test_json_has_every_finding_in_order_with_suppression_reasons(result: CheckResult) -> None:
    doc = json.loads(render(result, "json"))
    assert doc["version"] == 1 and doc["tool"] == "polybook" and doc["source_language"] == "en"
    assert doc["languages"] == ["en", "ja", "pt", "tr"] and doc["chapters"] == 2 and doc["seconds"] == 0.423
    assert doc["summary"] == {"error": 1, "warning": 1, "info": 1, "suppressed": 1}
    where = [(f["code"], (f["location"] or f["source"])["line"]) for f in doc["findings"]]
    assert where == [
        ("polybook.stale.unknown", 1),
        ("polybook.numbers.missing", 40),
        ("polybook.code.extra", 90),
        ("polybook.code.changed", 182),
    ]
    assert doc["findings"][2]["suppressed"] == "baseline: kept on purpose"
    assert doc["findings"][3] == changed_cell().to_dict()


# sarif


def assert_valid_sarif(doc: dict[str, Any]) -> None:
    """The parts of the SARIF 2.1.0 schema that consumers such as GitHub rely on."""
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "polybook"
        rule_ids = [rule["id"] for rule in driver["rules"]]
        assert len(rule_ids) == len(set(rule_ids))
        for rule in driver["rules"]:
            assert rule["shortDescription"]["text"]
            assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
        has_suppressions = {"suppressions" in r for r in run["results"]}
        assert len(has_suppressions) <= 1  # all results or none (SARIF §3.27.23)
        for r in run["results"]:
            assert r["message"]["text"] and r["level"] in {"none", "note", "warning", "error"}
            assert rule_ids[r["ruleIndex"]] == r["ruleId"]
            for loc in r["locations"] + r.get("relatedLocations", []):
                artifact = loc["physicalLocation"]["artifactLocation"]
                assert "\\" not in artifact["uri"] and not artifact["uri"].startswith("/")
                assert loc["physicalLocation"]["region"]["startLine"] >= 1


def test_sarif_points_at_translation_and_source(result: CheckResult) -> None:
    doc = json.loads(render(result, "sarif"))
    assert_valid_sarif(doc)
    (run,) = doc["runs"]
    rules = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in run["tool"]["driver"]["rules"]}
    assert rules == {
        "polybook.code.changed": "error",
        "polybook.code.extra": "error",
        "polybook.numbers.missing": "warning",
        "polybook.stale.unknown": "note",
    }
    by_rule = {r["ruleId"]: r for r in run["results"]}
    changed = by_rule["polybook.code.changed"]
    assert changed["level"] == "error"
    assert changed["message"]["text"] == (
        "mxnet cell 7 differs from the source: `range(1000)` → `range(10000)`, `y.wait_to_read()` → `npx.waitall()`"
    )
    assert changed["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": PT, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 182},
    }
    (related,) = changed["relatedLocations"]
    assert related["id"] == 1 and related["message"]["text"] == "source"
    assert related["physicalLocation"]["artifactLocation"]["uri"] == EN
    assert related["physicalLocation"]["region"]["startLine"] == 176
    assert changed["partialFingerprints"] == {"polybook/v1": changed_cell().fingerprint}
    assert changed["properties"] == {"lang": "pt", "chapter": "async-computation", "framework": "mxnet", "cell": 7}
    assert changed["suppressions"] == []
    assert "relatedLocations" not in by_rule["polybook.numbers.missing"]
    # Without a translation location the source is the location, not also a related one.
    stale = by_rule["polybook.stale.unknown"]
    assert stale["level"] == "note" and "relatedLocations" not in stale
    assert stale["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == EN
    assert by_rule["polybook.code.extra"]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "baseline: kept on purpose"}
    ]


def test_sarif_uris_are_relative_references() -> None:
    finding = Finding.make(Code.REF_LINK, "link differs", "zh", "c", Location("chapters\\zh\\异步 计算.md", 5))
    doc = json.loads(render(CheckResult("en", ["zh"], 1, [finding]), "sarif"))
    assert_valid_sarif(doc)
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "chapters/zh/%E5%BC%82%E6%AD%A5%20%E8%AE%A1%E7%AE%97.md"


def test_sarif_describes_every_code() -> None:
    assert set(RULE_TEXT) == set(Code)


# github


def test_github_annotations_escape_data_and_properties() -> None:
    finding = Finding.make(
        Code.NUMBERS_MISSING,
        "numbers 3, 4: 50% missing\nsee line 2",
        "ja",
        "c",
        Location("chapters/ja/a,b:c.md", 7),
        source=Location(EN, 9),
        diff=(("3", "30"),),
    )
    lines = render(CheckResult("en", ["ja"], 1, [finding]), "github").splitlines()
    assert lines[0] == (
        "::warning file=chapters/ja/a%2Cb%3Ac.md,line=7,title=polybook.numbers.missing::"
        "numbers 3, 4: 50%25 missing%0Asee line 2 (source: chapters/en/async-computation.md:9) `3` → `30`"
    )
    assert lines[1:] == ["0 errors, 1 warning, 0 info in 1 translation of 1 chapter — 0.00 s"]


def test_github_levels_and_suppressed(result: CheckResult) -> None:
    lines = render(result, "github").splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:-1]] == ["::error", "::warning", "::notice"]
    assert lines[0].startswith(f"::error file={PT},line=182,title=polybook.code.changed::mxnet cell 7")
    assert "extra mxnet cell" not in "\n".join(lines)


def test_github_shows_ten_per_level_then_says_how_many_more() -> None:
    lines = render(CheckResult("en", ["pt"], 1, errors(25)), "github").splitlines()
    assert len(lines) == 12  # 10 errors, the notice, the summary line
    assert [line.split(" ", 1)[0] for line in lines[:10]] == ["::error"] * 10
    assert [f"line={i}," in lines[i - 1] for i in range(1, 11)] == [True] * 10  # the first ones by path and line
    assert lines[10].startswith("::notice title=polybook::15 more findings are not annotated")
    assert lines[11].startswith("25 errors, 0 warnings, 0 info")


def test_github_keeps_a_notice_slot_for_the_rest() -> None:
    infos = [
        Finding.make(Code.STALE_UNKNOWN, f"stale {i}", "pt", "async", Location(PT, 100 + i), level=Level.INFO)
        for i in range(10)
    ]
    notices = [
        line
        for line in render(CheckResult("en", ["pt"], 1, errors(11) + infos), "github").splitlines()
        if line.startswith("::notice")
    ]
    assert len(notices) == 10
    assert notices[-1].startswith("::notice title=polybook::2 more findings are not annotated")


# junit


def test_junit_has_a_suite_per_translation(result: CheckResult) -> None:
    root = ET.fromstring(render(result, "junit"))
    assert root.tag == "testsuites" and root.get("name") == "polybook check"
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("time")) == ("5", "2", "1", "0.423")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["ja", "pt", "tr"]  # the translations, not the source
    counts = {
        name: (s.get("tests"), s.get("failures"), s.get("errors"), s.get("skipped")) for name, s in suites.items()
    }
    assert counts == {"ja": ("1", "1", "0", "0"), "pt": ("3", "1", "0", "1"), "tr": ("1", "0", "0", "0")}
    info, skipped, changed = suites["pt"].findall("testcase")
    assert info.find("failure") is None and "no common history" in info.find("system-out").text
    assert skipped.find("skipped").get("message") == "baseline: kept on purpose"
    assert changed.get("classname") == "pt.async-computation"
    assert changed.get("name") == f"polybook.code.changed {PT}:182"
    failure = changed.find("failure")
    assert failure.get("type") == "error: polybook.code.changed"
    assert failure.get("message") == "mxnet cell 7 differs from the source"
    assert failure.text.splitlines()[1:4] == [
        f"  source: {EN}:176",
        "  - range(1000)   <- translation",
        "  + range(10000)  <- source",
    ]
    assert suites["ja"].find("testcase/failure").get("type") == "warning: polybook.numbers.missing"
    assert suites["tr"].find("testcase").attrib == {"classname": "tr", "name": "consistent"}


def test_junit_without_findings_passes_every_translation() -> None:
    root = ET.fromstring(render(empty(), "junit"))
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in root] == [("ja", "1", "0"), ("pt", "1", "0")]
    assert [case.get("name") for case in root.iter("testcase")] == ["consistent", "consistent"]


def test_junit_survives_characters_xml_cannot_carry() -> None:
    finding = Finding.make(Code.CODE_CHANGED, "bell \x07 <&>", "pt", "c", Location(PT, 1), diff=(("\x1b[0m", "x"),))
    failure = ET.fromstring(render(CheckResult("en", ["pt"], 1, [finding]), "junit")).find(".//failure")
    assert failure.get("message") == "bell \ufffd <&>"


# step summary and dispatch


def test_step_summary_counts_per_language_and_caps_the_list(result: CheckResult) -> None:
    result.findings += errors(3, "tr")
    text = step_summary(result, limit=2)
    assert "| Translation | Errors | Warnings | Info | Suppressed |" in text
    assert "| ja | 0 | 1 | 0 | 0 |" in text and "| pt | 1 | 0 | 1 | 1 |" in text and "| tr | 3 | 0 | 0 | 0 |" in text
    assert (
        f"- **error** `{PT}:182` mxnet cell 7 differs from the source `polybook.code.changed` (source `{EN}:176`): "
        "`range(1000)` → `range(10000)`, `y.wait_to_read()` → `npx.waitall()`"
    ) in text
    assert "_1 more finding in tr not listed here" in text
    assert "extra mxnet cell" not in text


def test_write_step_summary_appends_only_on_github(result: CheckResult, tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    target.write_text("earlier step\n", encoding="utf-8")
    assert write_step_summary(result, {}) is None
    assert write_step_summary(result, {"GITHUB_STEP_SUMMARY": str(target)}) == target
    assert target.read_text(encoding="utf-8").startswith("earlier step\n## polybook check\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_the_empty_result(fmt: str) -> None:
    assert render(empty(), fmt)


def test_unknown_format_is_refused(result: CheckResult) -> None:
    with pytest.raises(ValueError, match="unknown report format 'xml'"):
        render(result, "xml")


def test_json_reports_put_one_finding_a_line_and_read_as_json_writes_them() -> None:
    from polybook.check.report.common import json_listing

    items = [{"a": 1, "b": ["x", "é"]}, {"a": 2}]
    document = {"head": {"k": "v"}, "runs": [{"results": []}]}
    text = json_listing(document, document["runs"][0]["results"], items)
    assert json.loads(text) == {"head": {"k": "v"}, "runs": [{"results": items}]}
    lines = text.splitlines()
    assert lines[7:9] == [8 * " " + '{"a": 1, "b": ["x", "é"]},', 8 * " " + '{"a": 2}']  # a line each
    assert document["runs"][0]["results"] == []  # the document is left as it was
    empty = json_listing(document, document["runs"][0]["results"], [])
    assert empty == json.dumps(document, ensure_ascii=False, indent=2)
