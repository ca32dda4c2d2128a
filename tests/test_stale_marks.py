"""A stale block shows what changed: its mark holds the source's text now and then; a change of
white space, typography or markup alone is no change (the translation is kept as it is), and the
migration plan counts the words of the word diff, not of the whole paragraph."""

from __future__ import annotations

from polybook.check.migration import document_changes
from polybook.check.word_diff import Step, changed_words, same_words, word_runs
from polybook.dialect import parse_text
from polybook.dialect.marks import MarkKind, as_checked, holding, read_mark
from polybook.dialect.nodes import Block
from polybook.sync.port_document import port_document


def ported(base: str, source: str, target: str) -> str:
    docs = [parse_text(text, name, None) for text, name in ((base, "b.md"), (source, "s.md"), (target, "t.md"))]
    return port_document(docs[0], docs[1], source, docs[2], target).text


def test_white_space_typography_and_markup_are_not_a_change_of_words() -> None:
    assert same_words('A "quoted" word -- and\nmore...', "A \u201cquoted\u201d word \u2014 and more\u2026")
    assert same_words("Use *this*   one.", "Use _this_ one.")
    assert same_words("- one\n- two", "* one\n* two")
    assert same_words("a\u00a0b", "a b")
    assert not same_words("We count to ten.", "We count to a hundred.")
    assert not same_words("snake_case", "snakecase")  # an underscore inside a word is no emphasis


def test_the_word_diff_keeps_the_sources_words_and_counts_what_changed() -> None:
    runs = word_runs("We count \u201cto\u201d ten today.", 'We count "to" a hundred today.')
    assert [(run.step, run.text) for run in runs] == [
        (Step.SAME, 'We count "to"'),
        (Step.GONE, "ten"),
        (Step.ADDED, "a hundred"),
        (Step.SAME, "today."),
    ]
    assert changed_words("We count to ten.", "We count to a hundred.") == 2
    assert changed_words("One two three.", "One three.") == 1  # words dropped: one look
    assert changed_words("It is -- so.", "It is \u2014 so.") == 0


def test_a_stale_mark_holds_the_text_now_and_then_and_old_marks_still_read() -> None:
    def mark(source: str):
        return read_mark(Block(path="t.md", line=3, end_line=3 + source.count("\n"), kind="html", source=source))

    written = holding(MarkKind.STALE, "Now --> here.\npolybook:was\nline", "Then.")
    assert written == "<!-- polybook:stale\nNow -- > here.\npolybook:was\\\nline\npolybook:was\nThen.\n-->"
    found = mark(written)
    assert (found.text, found.was) == ("Now --> here.\npolybook:was\nline", "Then.")
    older = mark("<!-- polybook:stale\nNow.\n-->")  # a mark of an earlier port: the text now alone
    assert (older.kind, older.text, older.was) == (MarkKind.STALE, "Now.", None)


def test_the_checker_reads_a_stale_block_as_the_sources_text_now() -> None:
    text = "<!-- polybook:stale\nWe count to a hundred.\npolybook:was\nWe count to ten.\n-->\n十まで数えます。\n"
    doc = parse_text(text, "t.md", None)
    checked, counted = as_checked(doc, lambda t: parse_text(t, "t.md", None))
    assert [getattr(node, "source", "") for node in checked.nodes][-1] == "We count to a hundred."
    assert counted[MarkKind.STALE] == 1


def test_a_port_keeps_a_translation_whose_source_changed_only_in_form() -> None:
    base = 'We count to ten.\n\nIt is "easy" -- really.\n\nThe *loop*\nends here.\n'
    source = "We count to a hundred.\n\nIt is \u201ceasy\u201d \u2014 really.\n\nThe _loop_ ends here.\n"
    target = "十まで数えます。\n\n「簡単」です。\n\nループはここで終わります。\n"
    out = ported(base, source, target)
    assert out == (
        "<!-- polybook:stale\nWe count to a hundred.\npolybook:was\nWe count to ten.\n-->\n十まで数えます。\n\n"
        "「簡単」です。\n\nループはここで終わります。\n"
    )
    assert ported(source, source, out) == out  # a port after a port: the mark and its texts kept


def test_the_plan_counts_the_words_of_the_word_diff() -> None:
    base = parse_text('We count to ten.\n\nIt is "easy" -- really.\n\nOld.\n', "b.md", None)
    source = parse_text(
        "We count to a hundred.\n\nIt is \u201ceasy\u201d \u2014 really.\n\nOld.\n\nAll new here.\n", "s.md", None
    )
    changes = document_changes(base, source)
    assert (changes.paragraphs.unchanged, changes.paragraphs.changed, changes.paragraphs.added) == (2, 1, 1)
    assert changes.words == 2 + 3  # "a hundred" and the new paragraph's three


def test_contractions_case_and_hyphens_are_form_a_formula_or_a_role_is_not() -> None:
    assert same_words("Let us see.", "Let's see.")
    assert same_words("It does not fit in a fully-connected layer.", "It doesn't fit in a fully connected layer.")
    assert same_words("The transformer", "The Transformer")
    assert same_words("We [**train it**] (**now**).", "We train it now.")  # slide marks
    # the checker compares a translation's formulas and citations with the source's: they follow it
    assert not same_words("the $i^\\mathrm{th}$ row", "the $i^\\textrm{th}$ row")
    assert not same_words("see :cite:`a.b`", "see :citet:`a.b`")
    assert not same_words("Let us see.", "Let us look.")


def test_the_pdf_typesets_a_marked_block_once_plainly_under_the_pages_one_notice() -> None:
    from polybook.stage.myst import transpile

    text = (
        "# ループ\n\n<!-- polybook:stale\nWe count to a hundred.\npolybook:was\nWe count to ten.\n-->\n"
        "十まで数えます。\n\n"
        "<!-- polybook:untranslated -->\nA brand new paragraph.\n"
    )
    doc = parse_text(text, "t.md", None)
    pdf = transpile(doc, "ja", framework="mxnet").text  # a framework alone: the PDF's pages
    assert pdf.count("```{note}") == 1 and "（未翻訳 1 箇所、原文変更 1 箇所）" in pdf
    assert "polybook-mark" not in pdf and "We count to" not in pdf  # no mark, no source text
    assert pdf.count("十まで数えます。") == 1 and pdf.count("A brand new paragraph.") == 1
    site = transpile(doc, "ja").text
    assert site.count("```{note}") == 1 and site.count('<div class="polybook-mark ') == 2


def test_words_apart_as_the_pattern_cut_them() -> None:
    # same_words drops white space and hyphens by str.split, not by the pattern [\s-]+ it had: the
    # same characters, every one of them (a character only one of the two called white space would
    # make two texts the same words for one and not for the other)
    import re

    from polybook.check.word_diff import _joined, _normal

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert _joined(every) == re.sub(r"[\s-]+", "", _normal(every))
    assert same_words("fully-connected\u3000layer", "fully connected\u2028layer")
