"""Where the language switch takes a page (polybook.render.counterparts): d2l's pairs in small."""

from __future__ import annotations

from polybook.render.counterparts import Counterpart, LanguagePages, switch_targets

#: The source (1.0 names) and a translation keeping 0.17's names, with a page of its own.
EN = LanguagePages(
    {
        "index": (),
        "chapter_builders-guide/index": ("chap_computation",),
        "chapter_builders-guide/parameters": ("subsec_param-access",),
        "chapter_builders-guide/lazy-init": ("sec_lazy_init",),
        "chapter_preliminaries/ndarray": ("sec_ndarray", "subsec_broadcasting"),
    },
    {"chapter_builders-guide/index": "index", "chapter_builders-guide/parameters": "chapter_builders-guide/index"},
)
JA = LanguagePages(
    {
        "index": (),
        "chapter_deep-learning-computation/index": ("chap_computation",),
        "chapter_deep-learning-computation/parameters": (),  # unlabelled: paired by its file name
        "chapter_deep-learning-computation/deferred-init": ("sec_deferred_init",),
        "chapter_preliminaries/ndarray": ("sec_ndarray",),
    },
    {
        "chapter_deep-learning-computation/index": "index",
        "chapter_deep-learning-computation/parameters": "chapter_deep-learning-computation/index",
        "chapter_deep-learning-computation/deferred-init": "chapter_deep-learning-computation/index",
    },
)


def test_a_page_switches_to_the_page_sharing_its_labels_or_its_file_name() -> None:
    switch = switch_targets({"en": EN, "ja": JA}, "en")
    assert switch["en"]["chapter_builders-guide/index"]["ja"] == Counterpart("chapter_deep-learning-computation/index")
    assert switch["en"]["chapter_builders-guide/parameters"]["ja"] == Counterpart(
        "chapter_deep-learning-computation/parameters"
    )
    assert switch["ja"]["chapter_deep-learning-computation/parameters"]["en"] == Counterpart(
        "chapter_builders-guide/parameters"
    )
    assert "chapter_preliminaries/ndarray" not in switch["en"]  # the same name: nothing to say


def test_a_page_the_source_lacks_goes_to_the_nearest_part_the_other_language_has() -> None:
    switch = switch_targets({"en": EN, "ja": JA}, "en")
    # ja's deferred-init has no counterpart: its parent's counterpart, the chapter
    assert switch["ja"]["chapter_deep-learning-computation/deferred-init"]["en"] == Counterpart(
        "chapter_builders-guide/index", nearest=True
    )
    # the source's lazy-init, missing in ja, is shown from the source with a notice: not in the map
    assert "chapter_builders-guide/lazy-init" not in switch["en"]


def test_the_pages_of_a_language_survive_its_stamp() -> None:
    assert LanguagePages.from_json(JA.to_json()) == JA
    assert LanguagePages.from_json({}) is None
