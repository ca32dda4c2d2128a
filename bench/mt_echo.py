"""A deterministic machine translation engine for ``polybook translate --engine command``: reads
the request on stdin and answers each segment as its text with a marker at its start (after a
heading's or list's marker), its tokens kept (``--drop``: the last token of each segment that
has one dropped, to measure refusals).

    polybook translate ja --engine command --command "python bench/mt_echo.py"
"""

from __future__ import annotations

import json
import re
import sys


def main() -> None:
    request = json.load(sys.stdin)
    drop = "--drop" in sys.argv[1:]
    marker = f"‹{request['target_lang']}› "
    segments = []
    for segment in request["segments"]:
        text = segment["text"]
        if drop:
            tokens = re.findall(r"⟦\d+⟧", text)
            if tokens:
                head, _, tail = text.rpartition(tokens[-1])
                text = head + tail
        lead = re.match(r"(?:⟦\d+⟧)*", text).end()  # after a heading's or a list's marker
        segments.append({"id": segment["id"], "text": text[:lead] + marker + text[lead:]})
    json.dump({"segments": segments}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
