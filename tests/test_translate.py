"""``polybook translate``: drafts of what a port left untranslated, behind draft marks; protected
pieces, checked drafts, refusals at their lines; the memory, the kept answers, the glossary; the
engines' wire protocols spoken by small servers of our own on 127.0.0.1."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.cli import main
from polybook.config.glossary import GlossaryError, from_terminology, parse_glossary
from polybook.dialect.protect import TokensLost, mask, restore
from polybook.translate.engines import Batch, EngineError, Segment, Transient, answers_by_id, with_retries
from test_port import book

MT = Path(__file__).parent / "fixtures" / "translate" / "mt.py"


def ported(root: Path) -> Path:
    """test_port's book, ported (ja has a new document, an untranslated and a stale block)."""
    conf = book(root)
    cli(conf, "port", "ja", "--write")
    return conf


def cli(conf: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--conf", str(conf), *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def engine(mode: str, log: Path | None = None) -> list[str]:
    program = f"{sys.executable} {MT} {mode}" + (f" {log}" if log else "")
    return ["--engine", "command", "--command", program]


def ja(root: Path, name: str) -> str:
    return (root / "chapters" / "ja" / f"{name}.md").read_text(encoding="utf-8")


# -- drafting --------------------------------------------------------------------


def test_untranslated_blocks_are_drafted_behind_marks_and_nothing_else_changes(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    before = ja(tmp_path, "loops")
    out = cli(conf, "translate", "ja", *engine("echo"))
    after = ja(tmp_path, "loops")
    draft = "<!-- polybook:draft engine=command model=- date="
    assert before.replace("<!-- polybook:untranslated -->\nA brand new paragraph.", "") == after.replace(
        after[after.index(draft) : after.index("[ja] A brand new paragraph.") + len("[ja] A brand new paragraph.")], ""
    )
    fresh = ja(tmp_path, "fresh")  # a new document: a mark per block, the document's mark gone
    assert "polybook:untranslated" not in fresh
    assert fresh.count(draft) == 2 and "# [ja] Fresh" in fresh and "[ja] All new." in fresh
    assert "polybook:stale" in after  # stale blocks only with --stale
    assert "3 blocks drafted" in out and "0 refused" in out


def test_drafts_are_counted_in_the_check_and_said_on_the_page(tmp_path: Path) -> None:
    from polybook.dialect import parse_text
    from polybook.stage.myst import transpile

    conf = ported(tmp_path)
    cli(conf, "translate", "ja", *engine("echo"))
    from polybook.book import load_book
    from polybook.check import check_book
    from polybook.config import load_config

    result = check_book(load_book(load_config(conf)))
    assert not [f for f in result.active if str(f.level) != "info"]  # the drafts are consistent with the source
    notes = [f.message for f in result.active if str(f.code) == "stale.marked"]
    assert any("1 draft" in note and "1 stale" in note for note in notes), notes
    assert "2 draft blocks of `polybook translate`: review them and remove their marks" in notes, notes
    from polybook.site.status import collect, page_html

    loaded = load_book(load_config(conf))
    assert "1 draft, 1 stale blocks" in page_html(collect(loaded), "ja", loaded)  # and on the status page
    page = transpile(parse_text(ja(tmp_path, "fresh"), "fresh.md", None), "ja").text
    assert page.count("```{note}") == 1 and "未確認の機械翻訳 2 箇所" in page  # one notice a page, counted
    assert page.index("# [ja] Fresh") < page.index("未確認の機械翻訳")
    assert page.count('<div class="polybook-mark polybook-mark-draft">') == 2  # a small mark at each draft


def test_stale_blocks_are_drafted_with_their_old_translation_as_context(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    log = tmp_path / "requests.jsonl"
    cli(conf, "translate", "ja", "--stale", *engine("echo", log))
    loops = ja(tmp_path, "loops")
    assert "polybook:stale" not in loops and "[ja] We count to a hundred." in loops
    sent = [s for line in log.read_text(encoding="utf-8").splitlines() for s in json.loads(line)["segments"]]
    (stale,) = [s for s in sent if s["text"] == "We count to a hundred."]
    assert "十まで数えます。" in stale["context"]  # the old translation, and what the source changed
    assert "the source changed since: 'ten.' -> 'a hundred.'" in stale["context"]
    assert all("context" not in s for s in sent if s is not stale)  # the shape without it, as before


def test_paths_limit_the_documents(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    cli(conf, "translate", "ja", str(tmp_path / "chapters/ja/fresh.md"), *engine("echo"))
    assert "polybook:draft" in ja(tmp_path, "fresh") and "polybook:draft" not in ja(tmp_path, "loops")


# -- refusals ---------------------------------------------------------------------


def test_a_draft_that_loses_a_token_is_refused_at_its_line_and_left_untranslated(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    out = cli(conf, "translate", "ja", *engine("drop"))
    assert "fresh.md:3: refused: the engine lost '# '" in out
    fresh = ja(tmp_path, "fresh")
    assert "<!-- polybook:untranslated -->\n# Fresh" in fresh  # the refused heading, marked as before
    assert "[ja] All new." in fresh  # the block without tokens is drafted


def test_refusals_are_said_as_written_whatever_their_line_and_text(tmp_path: Path) -> None:
    """No console markup or emoji codes: line 100 stays ``:100:``, a lost ``a[b]`` stays itself."""
    conf = book(tmp_path)
    paragraphs = [f"Step {n} uses `x`." for n in range(60)] + ["We index `a[b]` here."]
    (tmp_path / "chapters/en/fresh.md").write_text(
        "# Fresh\n\nTwo\nlines.\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8"
    )
    cli(conf, "port", "ja", "--write")
    out = cli(conf, "translate", "ja", *engine("drop"))
    said = [line for line in out.splitlines() if "refused:" in line]
    assert len(said) == 62 and all(re.match(r"\S+fresh\.md:\d+: refused: ", line) for line in said)
    assert any(line.endswith("fresh.md:100: refused: the engine lost '`x`'") for line in said)
    assert said[-1].endswith("refused: the engine lost '`a[b]`'")


def test_a_draft_the_checker_finds_at_odds_with_its_source_is_refused(tmp_path: Path) -> None:
    conf = book(tmp_path)
    en = tmp_path / "chapters/en/fresh.md"
    en.write_text("# Fresh\n\nWe take 1024 steps.\n", encoding="utf-8")
    cli(conf, "port", "ja", "--write")
    out = cli(conf, "translate", "ja", *engine("number"))
    assert "fresh.md:5: refused: the check finds: the source's text says 1024 where this says 1724" in out
    assert "<!-- polybook:untranslated -->\nWe take 1024 steps." in ja(tmp_path, "fresh")


def test_protected_pieces_come_back_exactly() -> None:
    text = "See :numref:`fig_x`, $x_i$ and `np.sum` at [d2l](https://d2l.ai) <b>b</b> (**s**)\n- a\n- b"
    masked = mask(text)
    assert all(piece not in masked.text for piece in ("fig_x", "x_i", "np.sum", "https", "<b>", "(**"))
    assert restore(masked.text, masked) == text
    with pytest.raises(TokensLost, match=r"lost '`np\.sum`'"):
        restore(masked.text.replace("⟦2⟧", ""), masked)
    with pytest.raises(TokensLost, match="repeated"):
        restore(masked.text + "⟦0⟧", masked)
    with pytest.raises(TokensLost, match="invented"):
        restore(masked.text + "⟦99⟧", masked)


# -- never pay twice -------------------------------------------------------------


def test_a_second_run_sends_nothing_and_the_memory_reuses_the_books_translations(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    # the source says a sentence the book has translated already, in a new document
    (tmp_path / "chapters/en/again.md").write_text("# Again\n\nThe loop ends.\n", encoding="utf-8")
    (tmp_path / "chapters/ja/again.md").write_text(
        "<!-- polybook:untranslated document -->\n\n# Again\n\nThe loop ends.\n", encoding="utf-8"
    )
    folder = tmp_path / "chapters/ja"
    as_ported = {path: path.read_text(encoding="utf-8") for path in folder.glob("*.md")}
    log = tmp_path / "requests.jsonl"
    first = cli(conf, "translate", "ja", *engine("echo", log))
    assert "ループが終わります。" in ja(tmp_path, "again")
    assert "<!-- polybook:draft engine=memory" in ja(tmp_path, "again")
    assert "1 from the book's own translations" in first
    sent = len(log.read_text(encoding="utf-8").splitlines())
    for path, text in as_ported.items():  # the drafts undone
        path.write_text(text, encoding="utf-8")
    second = cli(conf, "translate", "ja", *engine("echo", log))
    assert len(log.read_text(encoding="utf-8").splitlines()) == sent  # nothing sent
    assert "0 sent" in second


def test_a_dry_run_counts_what_would_be_sent_and_sends_nothing(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    log = tmp_path / "requests.jsonl"
    before = ja(tmp_path, "fresh")
    out = cli(conf, "translate", "ja", "--dry-run", *engine("echo", log))
    assert not log.exists() and ja(tmp_path, "fresh") == before
    lines = out.splitlines()
    assert lines[0].split() == ["blocks", "words", "characters", "from", "the", "book", "kept", "answers", "document"]
    assert lines[1].split()[:3] == ["2", "3", "13"] and lines[1].endswith("fresh")  # "Fresh", "All new."
    assert lines[-1].endswith("total")


# -- accepting ---------------------------------------------------------------------


def test_a_translator_accepts_a_draft_by_its_line_or_every_draft_of_a_file(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    cli(conf, "translate", "ja", *engine("echo"))
    fresh = tmp_path / "chapters/ja/fresh.md"
    line = ja(tmp_path, "fresh").split("\n").index("[ja] All new.") + 1
    cli(conf, "translate", "--accept", f"{fresh}:{line}")
    assert ja(tmp_path, "fresh").count("polybook:draft") == 1
    assert "[ja] All new." in ja(tmp_path, "fresh")
    cli(conf, "translate", "--accept", str(fresh))
    assert "polybook:draft" not in ja(tmp_path, "fresh")
    out = cli(conf, "translate", "--accept", f"{fresh}:1", code=2)
    assert "fresh.md:1: no draft there" in out


# -- the glossary ------------------------------------------------------------------


def test_the_glossary_goes_to_the_engine(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    (tmp_path / "chapters/ja/glossary").write_text(
        "# terms\nloop = ループ | 繰り返し\nsoftmax = =   # kept\n", encoding="utf-8"
    )
    log = tmp_path / "requests.jsonl"
    cli(conf, "translate", "ja", *engine("echo", log))
    request = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert request["glossary"] == {"loop": "ループ", "softmax": "softmax"}
    assert set(request) == {"source_lang", "target_lang", "glossary", "segments"}
    assert (request["source_lang"], request["target_lang"]) == ("en", "ja")


def test_a_glossary_line_that_does_not_parse_is_said_at_its_line(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    (tmp_path / "chapters/ja/glossary").write_text("loop = ループ\nattention: 注意\n", encoding="utf-8")
    before = ja(tmp_path, "fresh")
    out = cli(conf, "translate", "ja", *engine("echo"), code=2)
    assert "chapters/ja/glossary:2: 'attention: 注意' is not `term = rendering`" in out
    assert ja(tmp_path, "fresh") == before
    with pytest.raises(GlossaryError, match="g:2: 'loop' is given already at line 1"):
        parse_glossary("loop = a\nloop = b\n", "g")


def test_terminology_files_of_d2l_zh_and_d2l_tr_become_glossaries() -> None:
    zh = parse_glossary(from_terminology("## 英汉术语对照\n\n鞍点，saddle point\n\n词元，token\n"), "zh")
    assert zh.mapping() == {"saddle point": "鞍点", "token": "词元"}
    tr = parse_glossary(from_terminology("## Terimler\n:label:`terminology`\n\nanalogy; benzeşim, benzetme\n"), "tr")
    assert tr.mapping() == {"analogy": "benzeşim"} and tr.terms[0].variants == ("benzetme",)


# -- bad settings and bad answers --------------------------------------------------


def test_an_unknown_engine_in_conf_py_is_said_at_its_line(tmp_path: Path) -> None:
    conf = ported(tmp_path)
    out = cli(conf, "translate", "ja", "--engine", "babelfish", code=2)
    assert "unknown engine 'babelfish' (known: command, openai, deepl, aws)" in out
    text = conf.read_text(encoding="utf-8").replace('"editions"', '"translate": {"engine": "deepel"},\n    "editions"')
    conf.write_text(text, encoding="utf-8")
    out = cli(conf, "translate", "ja", code=2)
    assert "conf.py:5: error: polybook.translate.engine: unknown engine 'deepel'; did you mean 'deepl'?" in out
    conf.write_text(text.replace('"deepel"', '"deepl", "key_env": "sk-123abc"'), encoding="utf-8")
    out = cli(conf, "translate", "ja", code=2)
    assert "polybook.translate.key_env: 'sk-123abc' is not an environment variable's name" in out


def test_a_missing_key_variable_is_said_with_where_it_is_named(tmp_path: Path, monkeypatch) -> None:
    conf = ported(tmp_path)
    text = conf.read_text(encoding="utf-8").replace(
        '"editions"', '"translate": {"engine": "openai", "key_env": "POLYBOOK_TEST_KEY"},\n    "editions"'
    )
    conf.write_text(text, encoding="utf-8")
    monkeypatch.delenv("POLYBOOK_TEST_KEY", raising=False)
    out = cli(conf, "translate", "ja", code=2)
    assert "environment variable POLYBOOK_TEST_KEY is empty (polybook.translate.key_env in" in out
    assert "conf.py:5 names it)" in out
    assert "polybook:draft" not in ja(tmp_path, "fresh")


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("garbage", "answered what is not JSON: <html>Bad gateway</html>"),
        ("ids", "answered ids it was not sent: 'not-sent'"),
        ("few", "answered 1 of 2 segments"),
        ("fail", "exited with 3: mt: quota exhausted"),
    ],
)
def test_an_engine_answering_garbage_writes_nothing(tmp_path: Path, mode: str, said: str) -> None:
    conf = ported(tmp_path)
    before = ja(tmp_path, "fresh")
    out = cli(conf, "translate", "ja", str(tmp_path / "chapters/ja/fresh.md"), *engine(mode), code=2)
    assert said in out and "fresh.md:3:" in out
    assert ja(tmp_path, "fresh") == before


def test_transient_errors_are_retried_with_back_off() -> None:
    calls, waits = [], []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise Transient("429")
        return "ok"

    assert with_retries(flaky, delay=0.5, sleep=waits.append) == "ok"
    assert waits == [0.5, 1.0]
    with pytest.raises(EngineError, match="gave up after 2 attempts"):
        with_retries(lambda: (_ for _ in ()).throw(Transient("503")), attempts=2, sleep=waits.append)


def test_answers_by_id_keeps_the_batchs_order() -> None:
    batch = Batch("en", "ja", {}, (Segment("1", "a"), Segment("2", "b")))
    answer = {"segments": [{"id": "2", "text": "B"}, {"id": "1", "text": "A"}]}
    assert answers_by_id("x", batch, answer) == ["A", "B"]


# -- the engines' wire protocols -----------------------------------------------------

Handler = Callable[[str, dict[str, Any], BaseHTTPRequestHandler], tuple[int, Any]]


@contextmanager
def server(handle: Handler) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """An HTTP server on 127.0.0.1 answering every POST with ``handle(path, json body, request)``."""
    seen: list[dict[str, Any]] = []

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
            seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            status, answer = handle(self.path, body, self)
            data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def _openai_answer(body: dict[str, Any]) -> dict[str, Any]:
    request = json.loads(body["messages"][1]["content"])
    segments = [{"id": s["id"], "text": "[ja] " + s["text"]} for s in request["segments"]]
    content = "```json\n" + json.dumps({"segments": segments}, ensure_ascii=False) + "\n```"
    return {
        "id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }  # fmt: skip


def test_the_openai_engine_speaks_chat_completions_and_retries_a_rate_limit(tmp_path: Path, monkeypatch) -> None:
    from polybook.translate.engines import OpenAIEngine

    calls = []

    def handle(path: str, body: dict[str, Any], request: Any) -> tuple[int, Any]:
        calls.append(path)
        if len(calls) == 1:
            return 429, {"error": {"message": "slow down", "type": "rate_limit"}}
        return 200, _openai_answer(body)

    glossary = {"loop": "ループ"}
    batch = Batch("en", "ja", glossary, (Segment("5", "We ⟦0⟧ loop."),), ("前の段落。",))
    with server(handle) as (url, seen):
        made = OpenAIEngine("test-model", "k", url + "/v1")
        assert with_retries(lambda: made.translate(batch), delay=0, sleep=lambda s: None) == ["[ja] We ⟦0⟧ loop."]
    assert calls == ["/v1/chat/completions"] * 2
    assert seen[-1]["auth"] == "Bearer k" and seen[-1]["body"]["model"] == "test-model"
    system, user = (m["content"] for m in seen[-1]["body"]["messages"])
    assert "loop -> ループ" in system and "⟦0⟧" in system  # the glossary and the tokens' rule
    assert "前の段落。" in user  # the neighbouring translated paragraph, as context


def test_the_openai_engine_through_the_command_line(tmp_path: Path, monkeypatch) -> None:
    with server(lambda path, body, request: (200, _openai_answer(body))) as (url, _):
        conf = ported(tmp_path)
        text = conf.read_text(encoding="utf-8").replace(
            '"editions"',
            f'"translate": {{"engine": "openai", "model": "m", "endpoint": "{url}/v1", "key_env": "PB_KEY"}},\n'
            '    "editions"',
        )
        conf.write_text(text, encoding="utf-8")
        monkeypatch.setenv("PB_KEY", "secret")
        out = cli(conf, "translate", "ja")
    assert "3 blocks drafted" in out
    assert "<!-- polybook:draft engine=openai model=m date=" in ja(tmp_path, "fresh")


def test_an_openai_endpoint_answering_garbage_is_an_error(tmp_path: Path) -> None:
    from polybook.translate.engines import OpenAIEngine

    def handle(path: str, body: dict[str, Any], request: Any) -> tuple[int, Any]:
        answer = _openai_answer(body)
        answer["choices"][0]["message"]["content"] = "Sure! Here is your translation."
        return 200, answer

    with server(handle) as (url, _), pytest.raises(EngineError, match="openai answered what is not JSON: Sure!"):
        OpenAIEngine("m", "k", url + "/v1").translate(Batch("en", "ja", {}, (Segment("1", "a"),)))


def test_the_deepl_engine_speaks_deepls_api_with_its_glossaries() -> None:
    from polybook.translate.engines import DeepLEngine

    def handle(path: str, body: dict[str, Any], request: Any) -> tuple[int, Any]:
        if path == "/v2/glossaries":
            return 200, {
                "glossary_id": "g-1", "name": body["name"], "ready": True, "source_lang": "en", "target_lang": "ja",
                "creation_time": "2026-11-28T00:00:00.000Z", "entry_count": 1,
            }  # fmt: skip
        return 200, {"translations": [{"detected_source_language": "EN", "text": "[ja] " + t} for t in body["text"]]}

    batch = Batch("en", "ja", {"loop": "ループ"}, (Segment("1", "A ⟦0⟧ loop."), Segment("2", "B.")))
    with server(handle) as (url, seen):
        made = DeepLEngine("default", "key:fx", url)
        assert made.translate(batch) == ["[ja] A ⟦0⟧ loop.", "[ja] B."]
        made.translate(batch)  # the glossary is made once
    glossaries = [s for s in seen if s["path"] == "/v2/glossaries"]
    assert len(glossaries) == 1 and glossaries[0]["body"]["entries"] == "loop\tループ"
    translate = next(s for s in seen if s["path"] == "/v2/translate")
    assert translate["body"]["glossary_id"] == "g-1" and translate["body"]["target_lang"] == "JA"
    assert translate["auth"] == "DeepL-Auth-Key key:fx"


def test_the_deepl_engine_gives_a_stale_block_its_context() -> None:
    from polybook.translate.engines import DeepLEngine

    def handle(path: str, body: dict[str, Any], request: Any) -> tuple[int, Any]:
        return 200, {"translations": [{"detected_source_language": "EN", "text": "[ja] " + t} for t in body["text"]]}

    stale = Segment("2", "B.", "earlier translation (of an older source text): 前のB。")
    batch = Batch("en", "ja", {}, (Segment("1", "A."), stale, Segment("3", "C.")))
    with server(handle) as (url, seen):
        assert DeepLEngine("default", "k", url).translate(batch) == ["[ja] A.", "[ja] B.", "[ja] C."]
    assert [(s["body"]["text"], s["body"].get("context")) for s in seen] == [
        (["A.", "C."], None),
        (["B."], stale.context),
    ]


def test_a_deepl_server_error_is_transient_and_a_refusal_is_not() -> None:
    from polybook.translate.engines import DeepLEngine

    statuses = iter([503, 403])
    with server(lambda path, body, request: (next(statuses), {"message": "no"})) as (url, _):
        made = DeepLEngine("default", "k", url)
        batch = Batch("en", "ja", {}, (Segment("1", "a"),))
        with pytest.raises(Transient):
            made.translate(batch)
        with pytest.raises(EngineError, match="refused"):
            made.translate(batch)


def test_the_aws_engine_imports_a_terminology_and_translates() -> None:
    pytest.importorskip("boto3")
    from polybook.translate.engines import AwsEngine

    def handle(path: str, body: dict[str, Any], request: Any) -> tuple[int, Any]:
        target = request.headers.get("X-Amz-Target", "")
        if target.endswith("ImportTerminology"):
            return 200, {"TerminologyProperties": {"Name": body["Name"]}}
        return 200, {"TranslatedText": "[ja] " + body["Text"], "SourceLanguageCode": "en", "TargetLanguageCode": "ja"}

    with server(handle) as (url, seen), pytest.MonkeyPatch.context() as patch:
        for name, value in {
            "AWS_ACCESS_KEY_ID": "a",
            "AWS_SECRET_ACCESS_KEY": "b",
            "AWS_DEFAULT_REGION": "us-east-1",
        }.items():
            patch.setenv(name, value)
        made = AwsEngine("default", url)
        assert made.translate(Batch("en", "ja", {"loop": "ループ"}, (Segment("1", "a ⟦0⟧"),))) == ["[ja] a ⟦0⟧"]
    assert seen[-1]["body"]["TerminologyNames"] == [seen[0]["body"]["Name"]]


def test_the_import_writes_the_glossary_from_terminology_md(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from conftest import FIXTURES

    for lang in ("en", "ja"):
        shutil.copytree(FIXTURES / "d2lbook" / lang, tmp_path / "projects" / lang)
    (tmp_path / "projects/ja/TERMINOLOGY.md").write_text("## 用語\n\nsaddle point; 鞍点, サドル点\n", encoding="utf-8")
    (tmp_path / "book").mkdir()
    monkeypatch.chdir(tmp_path / "book")
    for lang in ("en", "ja"):
        result = CliRunner().invoke(main, ["import", "d2lbook", str(tmp_path / "projects" / lang), "--lang", lang])
        assert result.exit_code == 0, result.output
    glossary = parse_glossary((tmp_path / "book/chapters/ja/glossary").read_text(encoding="utf-8"), "glossary")
    assert glossary.mapping() == {"saddle point": "鞍点"} and glossary.terms[0].variants == ("サドル点",)
    assert not (tmp_path / "book/chapters/en/glossary").exists()


def test_a_stale_block_goes_with_its_old_translation_and_the_sources_word_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with server(lambda path, body, request: (200, _openai_answer(body))) as (url, seen):
        conf = ported(tmp_path)
        text = conf.read_text(encoding="utf-8").replace(
            '"editions"', f'"translate": {{"engine": "openai", "endpoint": "{url}/v1"}},\n    "editions"'
        )
        conf.write_text(text, encoding="utf-8")
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        cli(conf, "translate", "ja", str(tmp_path / "chapters/ja/loops.md"), "--stale")
    user = json.loads(seen[0]["body"]["messages"][1]["content"])
    (context,) = user["earlier_translations"].values()
    assert "十まで数えます。" in context  # the old translation
    assert "the source changed since: 'ten.' -> 'a hundred.'" in context
    assert "[ja] We count to a hundred." in ja(tmp_path, "loops")


def test_terms_missing_names_a_glossary_term_the_translation_renders_otherwise(tmp_path: Path) -> None:
    from polybook.book import load_book
    from polybook.check import check_book
    from polybook.config import load_config

    conf = ported(tmp_path)
    (tmp_path / "chapters/ja/glossary").write_text("loop = 繰り返し | ループ処理\n", encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    found = [f for f in result.active if str(f.code) == "terms.missing"]
    # "The loop ends." -> "ループが終わります。": neither 繰り返し nor ループ処理
    lines = (tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("ループが終わります"))
    assert [(f.location.line, f.message) for f in found if f.location is not None] == [
        (
            line,
            "the source says 'loop' here; the glossary renders it '繰り返し' or 'ループ処理', which this does not use",
        )
    ]
    assert str(found[0].level) == "info"
    assert "terms.missing" in cli(conf, "check", "--notes")
    (tmp_path / "chapters/ja/glossary").write_text("loop = ループ\n", encoding="utf-8")
    assert not [f for f in check_book(load_book(load_config(conf))).active if str(f.code) == "terms.missing"]
    assert "terms.missing" not in cli(conf, "check", "--notes")  # the glossary is in the kept findings' keys


def test_a_text_tab_is_drafted_whole_its_begin_and_end_protected() -> None:
    masked = mask(":begin_tab:`pytorch`\nWe use `torch`.\n:end_tab:")
    assert masked.text == "⟦0⟧We use ⟦1⟧.⟦2⟧"  # the line breaks with them: no text lands on their lines


def test_ctrl_c_keeps_the_documents_written_and_a_second_run_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from polybook.translate.engines import CommandEngine

    conf = ported(tmp_path)
    real, calls = CommandEngine.translate, []

    def interrupted(self: CommandEngine, batch: Batch) -> list[str]:
        calls.append(batch)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, batch)

    monkeypatch.setattr(CommandEngine, "translate", interrupted)
    result = CliRunner().invoke(main, ["--conf", str(conf), "translate", "ja", *engine("echo")])
    assert result.exit_code == 130, result.output
    assert "interrupted: the documents above are written; run again to continue" in result.output
    assert "polybook:draft" in ja(tmp_path, "fresh") and "polybook:draft" not in ja(tmp_path, "loops")
    monkeypatch.setattr(CommandEngine, "translate", real)
    log = tmp_path / "requests.jsonl"
    cli(conf, "translate", "ja", *engine("echo", log))
    assert "polybook:draft" in ja(tmp_path, "loops")
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1  # only what the first run had not done


def test_a_figure_whose_caption_runs_over_two_lines_keeps_its_opening() -> None:
    masked = mask("![A long caption\nover two lines $x$.](../img/a.svg)\n:label:`fig_a`")
    assert masked.pieces[0] == "![" and masked.text.startswith("⟦0⟧A long caption")
