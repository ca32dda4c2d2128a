"""``terms.*``: how a glossary term is found in the source and its rendering in a translation,
and a term a language renders otherwise as a rule said once (the cases come from reading the
d2l-zh and d2l-tr findings, bench/samples/terms_*.md)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from polybook.check.term_forms import _MARKS, _OPTIONAL, _cjk_variant, normalized, rendered, spaced, written
from polybook.check.term_source import _IDIOMS, finder, named, source_prose
from polybook.config.glossary import Glossary, Term, from_terminology, parse_glossary


def used(text: str, *terms: str) -> list[str]:
    glossary = Glossary(tuple(Term(term, term) for term in terms))
    return [term.source for term in finder(glossary)(source_prose(text))]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Each example has a label.", ["example", "label"]),
        ("The training examples are shuffled.", ["example"]),  # a plural
        ("For example, for instance, in these instances.", []),  # idioms
        ("We sample a minibatch and label them.", ["minibatch"]),  # verbs: after "we", before "them"
        ("Attention mechanisms bias the selection.", []),
        ("It is called with `example` and $label$ in :numref:`sec_label`.", []),  # code, math, roles
        ("By means of this, and by the same token, in sequence.", []),
        ("As a layer, it transforms the outputs; these inputs mean we wait.", []),
        ("The mask filters out invalid tokens.", ["token"]),  # a verb's particle
        ("It does not mean that. Do not label.", []),  # after "do" (a "not" between)
        ("We often label tokens and will randomly transform inputs; we apply labels.", ["token", "label"]),  # adverbs
        ("Dropout is applied to early tokens.", ["token"]),  # "to" and an adjective in -ly
        ("Two labels out of ten are wrong.", ["label"]),  # a noun's "out of"
        ("Compute it prior to training, with a prior over the labels.", ["prior", "label"]),  # "before"
        ("It becomes imperative to see that. The labels are imperative.", ["label", "imperative"]),  # said of it
    ],
)
def test_a_term_is_a_noun_of_the_prose(text: str, found: list[str]) -> None:
    assert (
        used(
            text,
            "example",
            "label",
            "minibatch",
            "bias",
            "mean",
            "instance",
            "token",
            "transform",
            "sequence",
            "prior",
            "imperative",
        )
        == found
    )


@pytest.mark.parametrize(
    ("text", "term"), [("A nai\u0308ve Bayes model.", "naïve Bayes"), ("A naïve Bayes.", "nai\u0308ve Bayes")]
)
def test_a_term_is_found_whether_its_letters_are_written_composed_or_not(text: str, term: str) -> None:
    assert used(text, term) == [term]


@pytest.mark.parametrize(
    ("rendering", "text", "lang"),
    [
        ("geçit", "sıfırlama geçidi", "tr"),  # a consonant softened before a suffix
        ("ağırlık sönümü", "ağırlık sönümlemesi", "tr"),  # a final vowel
        ("ön işlemek", "veriyi ön işlenmiş", "tr"),  # an infinitive
        ("geri yayma", "Geriye yayma için", "tr"),  # a suffix on a first word, a capital
        ("makine öğrenmesi", "Makine\nöğrenmesi", "tr"),
        ("kodçözücü", "bir dönüştürücü kod çözücü", "tr"),  # written apart
        ("iş parçacığı", "çekirdekleri (ve iş parçacıklarını) kullanır", "tr"),  # its consonant hard again
        ("ön bellek", "CPU önbelleğinde tutarız", "tr"),  # a compound written together, with a suffix
        ("veriyolu", "Ağlar ve Veri Yolları", "tr"),  # ... or apart
        ("amaç fonksiyonları", "çoğu amaç fonksiyonu karmaşıktır", "tr"),  # a plural rendering, said once
        ("veri kümesi", "veri kümeleri", "tr"),  # a compound's -sI
        ("kodçözücü", "ışın araması kodçüzücüde", "tr"),  # one letter inside it another: misspelt
        ("kodçözücü", "(kodçüzücü)", "tr"),  # ... in parentheses
        ("düzenlileştirme", "[**Düzenleştirmesiz Eğitim**]", "tr"),  # a long one with two letters left out
        ("düzenlileştirme", "düzenliletirme", "tr"),  # ... or one
        ("tam bağlı", "tam bağ(lantı)lı katman", "tr"),  # a word's optional letters in parentheses
        ("melezleştirme", "melezleme ile", "tr"),  # made X (-leştir) said as X-ed (-le)
        ("önişlemci", "Ön işlemci talimatları yükler", "tr"),
        ("uzun ömu\u0308rlu\u0308 bellek", "uzun-ömürlü bellek", "tr"),  # letters written decomposed ...
        ("uzun ömürlü bellek", "uzun ömu\u0308rlu\u0308 bellek", "tr"),  # ... on either side
        ("İşlemci", "I\u0307şlemci", "tr"),
        ("学习率", "学习速率", "zh"),  # one more character inside
        ("精度", "模型的精确度", "zh"),
        ("端到端", "端对端地", "zh"),  # one other
        ("二元分类", "二分类任务", "zh"),  # one left out
        ("线性回归", "线性(**回归**)变得", "zh"),  # a slide mark inside
        ("长短期记忆网络", "例如长\n短期记忆网络", "zh"),  # a line break between two ideographs
        ("长短期记忆网络", "例如，长－短期记忆网络），", "zh"),  # a full-width hyphen inside
        ("长短期记忆网络", "（例如长－短期记忆），", "zh"),  # a long one without its head (network)
        ("偏移量", "位置偏移", "zh"),  # a word's quantity left out
    ],
)
def test_a_rendering_is_found_in_the_forms_its_language_writes_it(rendering: str, text: str, lang: str) -> None:
    assert rendered(Term("x", rendering), text, lang)


@pytest.mark.parametrize(
    ("rendering", "text", "lang"),
    [
        ("dizi", "dize", "tr"),
        ("学习率", "学习", "zh"),  # its head left out: another word (learning, not its rate)
        ("卷积神经网络", "神经网络", "zh"),  # a long one's first characters left out: another word
        ("误差", "偏差", "zh"),
        ("gerey", "tensör", "tr"),
        ("örneklem", "örneklenmesi", "tr"),  # a letter more inside it: another word of its root
        ("düzenlileştirme", "düzenlilik", "tr"),  # a long one's end left out: another word of its root
        ("düzenlileştirme", "dzenlileştirme", "tr"),  # one of its first four left out: not told from another
        ("veriyolu", "veri yapısı", "tr"),  # a compound apart: its own second word
    ],
)
def test_another_word_is_not_the_rendering(rendering: str, text: str, lang: str) -> None:
    assert not rendered(Term("x", rendering), text, lang)


@pytest.mark.parametrize(
    ("prose", "term", "is_name"),
    [
        ("We begin with an Amazon Machine Image (AMI) here.", "image", True),
        ("Install CUDA (or use an Amazon Machine Image with CUDA).", "image", True),
        ("The image is large. Image sizes vary.", "image", False),  # a sentence's first word
        ("Then an Image. Another follows.", "image", False),  # no capitalised word beside it
        ("The two main makers of GPUs are NVIDIA GPUs.", "gpu", False),  # an acronym
        ("The Global Interpreter Lock, and the interpreter.", "interpreter", False),  # once not in a name
        ("1. **Tagging and Parsing**. This involves", "parsing", False),  # the next sentence's word
        ("We train a Naïve Bayes Classifier here.", "nai\u0308ve", True),  # the term written decomposed
    ],
)
def test_a_term_in_a_name_is_the_name(prose: str, term: str, is_name: bool) -> None:
    assert named(prose, term) is is_name


def test_a_name_is_no_use_but_a_heading_is() -> None:
    from polybook.check.code_match import match_cells
    from polybook.check.segments import pair_segments
    from polybook.check.terms import term_uses
    from polybook.dialect import parse_text

    en = parse_text("# Machine Image\n\nUse an Amazon Machine Image for it.\n\nThe image is big.\n", "en.md")
    zh = parse_text("# 机器映像\n\n使用亚马逊机器映像。\n\n映像很大。\n", "zh.md")
    glossary = Glossary((Term("image", "图像"),))
    uses = list(term_uses(pair_segments(en, zh, match_cells(en, zh)), glossary, "zh"))
    assert [(use.source_line, use.rendered) for use in uses] == [(1, False), (5, False)]


def test_the_term_kept_as_the_source_writes_it_is_english_lowercased_in_turkish() -> None:
    assert rendered(Term("api", "uygulama programlama arayüzü"), "Bu API ile", "tr")


def test_terminology_alternatives_become_variants() -> None:
    text = "实例/示例，instance\n动量法，momentum (method)\n长短期记忆网络，long short-term memory (LSTM)\n"
    text += (
        "loss function; kayıp veya yitim fonksiyonu\nbias; sinir ağlarında ek girdi\nbias; algoritmalardaki yanlılık\n"
    )
    text += "api (application programming interface); uygulama programlama arayüzü\n"
    text += "pipeline; veri/komut işleme hattı\n"
    glossary = parse_glossary(from_terminology(text), "glossary")
    assert {t.source: (t.rendering, *t.variants) for t in glossary.terms} == {
        "instance": ("实例", "示例"),
        "momentum method": ("动量法",),
        "long short-term memory": ("长短期记忆网络",),
        "loss function": ("kayıp fonksiyonu", "yitim fonksiyonu"),
        "bias": ("sinir ağlarında ek girdi", "ek girdi", "algoritmalardaki yanlılık", "yanlılık"),
        "api": ("uygulama programlama arayüzü",),
        "pipeline": ("veri işleme hattı", "komut işleme hattı"),
    }


def test_a_term_the_translation_renders_otherwise_as_a_rule_is_said_once(tmp_path: Path) -> None:
    from polybook.book import load_book
    from polybook.check import check_book
    from polybook.config import load_config
    from test_translate import ported

    conf = ported(tmp_path)
    ja = tmp_path / "chapters" / "ja"
    (ja / "glossary").write_text("loop = 繰り返し\n", encoding="utf-8")
    en = tmp_path / "chapters" / "en" / "many.md"
    en.write_text("# Many\n\n" + "\n\n".join(f"Loop {n} runs." for n in range(6)) + "\n", encoding="utf-8")
    (ja / "many.md").write_text(
        "# 多く\n\n" + "\n\n".join(f"ループ {n} が回る。" for n in range(6)) + "\n", encoding="utf-8"
    )
    found = [f for f in check_book(load_book(load_config(conf))).active if str(f.code).startswith("terms.")]
    unfollowed = [f for f in found if str(f.code) == "terms.unfollowed"]
    assert [(f.location.path.endswith("glossary"), f.location.line) for f in unfollowed] == [(True, 1)]
    assert "which 0 of the 7 translated blocks that use the term follow (2 documents)" in unfollowed[0].message
    assert not [f for f in found if str(f.code) == "terms.missing"]  # its blocks not one by one, but in it:
    places = [(Path(t.split(":")[0]).parts[-2:], int(t.rsplit(":", 1)[1]), s) for t, s in unfollowed[0].diff]
    assert len(places) == 7 and {translated[0] for translated, _, _ in places} == {"ja"}
    # in the book's order, each with the source's words around the term
    assert places[-6:] == [(("ja", "many.md"), 3 + 2 * n, f"Loop {n} runs.") for n in range(6)]  # as written


def test_a_note_shows_the_source_s_words_around_the_term() -> None:
    from polybook.check.terms import _AROUND, _excerpt

    words = [f"w{n}" * (n % 4 + 1) for n in range(60)]
    for place in (0, 5, 30, 59):
        sentence = " ".join([*words[:place], "samples", *words[place:]])
        shown = _excerpt(sentence, "sample")  # (a term is found as it or its plural)
        cut = shown.removeprefix("…").removesuffix("…")
        assert "samples" in cut.split() and set(cut.split()) <= {*words, "samples"}  # whole words
        assert cut in sentence and len(cut) <= 2 * _AROUND + len("samples")
        assert shown.startswith("…") == (not sentence.startswith(cut))
        assert shown.endswith("…") == (not sentence.endswith(cut))
    assert _excerpt("the means of the samples", "sample") == "the means of the samples"
    assert _excerpt("we train low-precision networks", "precision") == "we train low-precision networks"  # as found


def test_a_block_two_languages_leave_unrendered_uses_the_word_in_another_sense() -> None:
    from polybook.check.findings import Finding, Location
    from polybook.check.terms import terms_once
    from polybook.diagnostics import Code

    def missing(lang: str, block: str) -> Finding:
        where = Location(f"chapters/{lang}/a.md", 3)
        return Finding.make(Code.TERMS_MISSING, "m", lang, "a", where, subject=("feature", block))

    kept = terms_once([missing("zh", "b1"), missing("tr", "b1"), missing("tr", "b2")])
    assert [(f.lang, f.subject[1]) for f in kept] == [("tr", "b2")]


def test_a_language_that_renders_the_term_otherwise_everywhere_says_nothing_of_one_sentence() -> None:
    from polybook.check.findings import Finding, Location
    from polybook.check.terms import terms_once
    from polybook.diagnostics import Code

    def missing(lang: str, block: str) -> Finding:
        where = Location(f"chapters/{lang}/a.md", 3)
        return Finding.make(Code.TERMS_MISSING, "m", lang, "a", where, subject=("feature", block))

    def tally(lang: str, uses: int, followed: int) -> Finding:
        found = Finding.make(Code.TERMS_UNFOLLOWED, "t", lang, "a", Location("g", 1), subject=("feature", ""))
        return replace(found, diff=((str(uses), str(followed)),))

    # tr leaves the term out everywhere (1 of 6 followed): its miss of b1 does not make zh's another sense
    kept = terms_once([missing("zh", "b1"), tally("zh", 20, 19), missing("tr", "b1"), tally("tr", 6, 1)])
    assert [(str(f.code), f.lang) for f in kept] == [("terms.missing", "zh"), ("terms.unfollowed", "tr")]


def test_one_or_two_departures_are_no_rule_but_notes_at_their_blocks() -> None:
    from polybook.check.findings import Finding, Location
    from polybook.check.terms import terms_once
    from polybook.diagnostics import Code

    def tally(uses: int, followed: int) -> Finding:
        found = Finding.make(Code.TERMS_UNFOLLOWED, "t", "tr", "a", Location("g", 1), subject=("switch", ""))
        return replace(found, diff=((str(uses), str(followed)),))

    note = Finding.make(Code.TERMS_MISSING, "m", "tr", "a", Location("chapters/tr/a.md", 3), subject=("switch", "s"))
    assert [str(f.code) for f in terms_once([note, tally(5, 4)])] == ["terms.missing"]  # 4 of 5: one departure
    assert [str(f.code) for f in terms_once([note, tally(10, 7)])] == ["terms.unfollowed"]  # 3 of 10 depart


def test_a_note_is_about_the_source_sentence_however_the_blocks_were_paired() -> None:
    from polybook.check.segments import flatten
    from polybook.check.terms import _sentence
    from polybook.dialect import parse_text

    doc = parse_text("## Summary\n\n* Adam combines features of\n  many methods. It is robust.\n* Yogi too.\n", "a.md")
    items = flatten(doc)
    whole, alone = _sentence(items, "feature"), _sentence(items[1], "feature")  # a stretch, a block
    assert whole == alone == "adam combines features of many methods."


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="aIİΣσ *_~()-‐\n\t学", max_size=12), min_size=1, max_size=3),
    st.sampled_from(["tr", "zh", ""]),
)
def test_texts_read_together_are_normalised_as_their_joined_text(texts: list[str], lang: str) -> None:
    seen = written(texts, lang)
    assert seen.plain.plain == normalized("\n".join(texts), lang)
    assert seen.kept.plain == normalized("\n".join(texts), "")


def _variant_patterns(way: str) -> list[str]:
    """The patterns :func:`_cjk_variant` looks for, as regular expressions (what it was written as)."""
    cjk = "[\u3040-\u30ff\u4e00-\u9fff]"
    inside = cjk + ("{1,2}" if len(way) >= 3 else "")
    patterns = [re.escape(way[:i]) + inside + re.escape(way[i:]) for i in range(1, len(way))]
    if len(way) >= 3:
        patterns += [re.escape(way[:i]) + cjk + re.escape(way[i + 1 :]) for i in range(len(way))]
    if len(way) >= 4:
        patterns += [re.escape(way[:i] + way[i + 1 :]) for i in range(1, len(way) - 1)]
    return patterns


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="学习率速端对あ", min_size=2, max_size=5), st.text(alphabet="学习率速端对あa ", max_size=14))
def test_a_cjk_variant_is_what_its_patterns_match(way: str, plain: str) -> None:
    assert _cjk_variant(way, plain) == any(re.search(p, plain) for p in _variant_patterns(way))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a-‐－ \t\n\u00a0\u2009\u3000\x1cb", max_size=12))
def test_spaced_is_the_pattern_of_white_space_and_hyphens(text: str) -> None:
    assert spaced(text) == re.sub(r"[\s\-‐－]+", " ", text)


@pytest.mark.parametrize(
    ("pattern", "plain", "alphabet"),
    [
        # slide marks and emphasis, each alternative written to start with its first character
        (_MARKS, r"\((?:\*\*|~~)|(?:\*\*|~~)\)|[*_]", "(*~_)a "),
        # a word's optional letters, looked for from the "(" (the look behind after it)
        (_OPTIONAL, r"(?<=[a-zà-ɏ])\([a-zà-ɏ]{1,12}\)(?=[a-zà-ɏ])", "ab(c)é ( )(a"),
    ],
)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_pattern_written_for_speed_finds_what_its_plain_one_finds(
    pattern: re.Pattern[str], plain: str, alphabet: str, data: st.DataObject
) -> None:
    text = data.draw(st.text(alphabet=alphabet, max_size=14))
    assert pattern.sub("", text) == re.sub(plain, "", text)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.text(alphabet="aIbğuü\u0308\u0307 (lantı)*_~-\n学习", max_size=14), min_size=1, max_size=3),
    st.text(alphabet="abğuü lantı()*~学习", min_size=1, max_size=6),
    st.sampled_from(["tr", "zh", ""]),
)
@example(["tam bağ(lantı)lı"], "lantı", "tr")  # written only as a word's optional letters, which normalising drops
def test_a_way_the_text_says_as_written_is_in_the_normalised_text(texts: list[str], way: str, lang: str) -> None:
    # the quick test on the text as written never says yes where the normalised text says no
    seen, normal = written(texts, lang), normalized(way, lang)
    if seen.says(normal):
        assert normal in seen.plain.plain


def test_a_rendering_inside_a_words_optional_letters_is_not_said() -> None:
    # "lantı" is written, but only as the optional letters of "bağ(lantı)lı", which normalising drops
    term = Term("connection", "lantı", (), 1)
    assert not rendered(term, "tam bağ(lantı)lı katman", "tr")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "for example",
                "for instance",
                "in these instances",
                "example",
                "trial and error",
                "x",
                " ",
                "for",
                "means of",
                "by",
                "prior to",
                "prior",
            ]
        ),
        max_size=6,
    )
)
def test_a_text_without_an_idioms_words_has_no_idiom(parts: list[str]) -> None:
    text = " ".join(parts)
    assert source_prose(text) == _IDIOMS.sub(" ", text.lower())
