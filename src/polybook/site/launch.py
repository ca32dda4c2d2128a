"""``polybook publish --notebooks-branch``: what is checked before the launch notebooks are committed.

The launch notebooks (``build/launch/<lang>/<framework>/``, made by ``polybook build notebooks``
for the languages and frameworks conf.py's ``polybook.notebooks.launch`` names a place for) are
committed as the only content of one branch, as the site is (:mod:`polybook.site.branch`). The
pages' "Open in Colab" links name the repository and branch conf.py gives: a branch published
here that conf.py does not name is said, since no page would link to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from polybook.config import BookConfig


@dataclass(slots=True)
class LaunchCheck:
    refusal: str = ""  # why nothing can be published ("" when it can)
    warnings: list[str] = field(default_factory=list)


def launch_problems(config: BookConfig, branch: str) -> LaunchCheck:
    """Whether the launch notebooks can be published to ``branch``."""
    from polybook.notebooks.build import notebook_targets

    check = LaunchCheck()
    targets = notebook_targets(config)
    placed = [(t, place) for t in targets if (place := config.notebooks.place(t.language, t.framework)) is not None]
    if not placed:
        check.refusal = "conf.py names no place for launch notebooks (polybook.notebooks.launch)"
        return check
    missing = [t.name for t, _ in placed if not any(t.launch.glob("**/*.ipynb"))]
    if missing:
        check.refusal = f"no launch notebooks for {', '.join(missing)}: run `polybook build notebooks`"
        return check
    elsewhere = sorted({t.name for t, place in placed if place.branch != branch})
    if elsewhere:
        check.warnings.append(
            f"conf.py's polybook.notebooks.launch puts {', '.join(elsewhere)} on another branch than {branch!r}: "
            "their pages' launch links do not lead here"
        )
    return check
