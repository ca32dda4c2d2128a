"""The documentation that is written from the code stays equal to it."""

from __future__ import annotations

from polybook.config.reference import reference_markdown

from conftest import ROOT

CONF_REFERENCE = ROOT / "docs" / "reference" / "conf.md"


def test_the_conf_reference_documents_every_key_the_validator_knows(regen: bool) -> None:
    if regen:
        CONF_REFERENCE.parent.mkdir(parents=True, exist_ok=True)
        CONF_REFERENCE.write_text(reference_markdown(), encoding="utf-8")
    assert CONF_REFERENCE.read_text(encoding="utf-8") == reference_markdown(), "run: pytest tests/test_docs.py --regen"


def test_the_readme_is_a_door_not_a_manual() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for page in ("import", "check", "port", "execute", "html", "pdf", "notebooks", "publish", "reference/conf"):
        assert f"docs/{page}.md" in readme, page
        assert (ROOT / "docs" / f"{page}.md").is_file(), page
