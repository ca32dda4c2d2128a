"""The engines that draft translations, behind one small interface: ``translate(batch)`` gives
one text per segment of the batch, in order. Each engine's client library is imported when the
engine is made (``polybook check`` never loads openai).

* ``command``: any program; one JSON object on its stdin, one on its stdout (:data:`COMMAND_PROTOCOL`),
  a segment's context in it;
* ``openai``: an OpenAI-compatible chat-completions endpoint, through the official client; the
  context and the neighbouring translated paragraphs in the prompt;
* ``deepl``: DeepL through its official SDK, the glossary as a DeepL glossary, the context as its
  ``context`` parameter;
* ``aws``: Amazon Translate through boto3, the glossary as a custom terminology (no context: its
  API has none).

A rate limit or a server's error (429, 5xx) is :class:`Transient` (the caller retries with
back-off); anything else an engine does wrong -- an answer that is not JSON, ids it was not sent,
fewer segments than asked -- is an :class:`EngineError` that says what and which engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from polybook.config.model import ENGINES, TranslateConfig

COMMAND_PROTOCOL = """\
stdin:  {"source_lang": "en", "target_lang": "ja", "glossary": {"term": "訳語"},
         "segments": [{"id": "...", "text": "..."}, {"id": "...", "text": "...", "context": "..."}]}
stdout: {"segments": [{"id": "...", "text": "..."}]}"""
#: A segment's ``context`` is there only when it has one (a stale block's old translation and the
#: source's word diff, with ``--stale``): a program written for the shape without it reads every request.


@dataclass(frozen=True, slots=True)
class Segment:
    """One block to translate: its protected text (:mod:`polybook.dialect.protect`) and what helps translate it
    (a stale block's old translation and the source's word diff)."""

    id: str
    text: str
    context: str = ""


@dataclass(frozen=True, slots=True)
class Batch:
    source_lang: str
    target_lang: str
    glossary: dict[str, str]
    segments: tuple[Segment, ...]
    neighbours: tuple[str, ...] = ()  # translated paragraphs of the same document, as context


class Engine(Protocol):
    name: str
    model: str

    def translate(self, batch: Batch) -> list[str]: ...


class EngineError(Exception):
    """An engine that cannot be used or answered what is no translation of the batch."""


class Transient(EngineError):
    """A rate limit or a server's passing error: worth asking again, later."""


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """conf.py's ``polybook.translate`` with the command line's overrides."""

    engine: str
    model: str = ""
    endpoint: str | None = None
    key_env: str | None = None
    command: str | None = None
    where: str = "conf.py"  # conf.py:LINE of the settings, for errors

    @property
    def identity(self) -> str:
        """What besides the engine's name decides its answers, for the cache's key: the model,
        and the command engine's program."""
        return f"{self.model} {self.command}" if self.engine == "command" else self.model

    @classmethod
    def of(cls, config: TranslateConfig, path: str, engine: str | None, command: str | None) -> EngineSettings:
        chosen = engine or config.engine
        where = f"{path}:{config.line}"
        if chosen is None:
            raise EngineError(f"no engine: set polybook.translate.engine in {where} or pass --engine")
        if chosen not in ENGINES:
            raise EngineError(f"unknown engine {chosen!r} (known: {', '.join(ENGINES)})")
        return cls(chosen, config.model or "", config.endpoint, config.key_env, command or config.command, where)


def make_engine(settings: EngineSettings) -> Engine:
    """The engine ``settings`` names, ready to be asked (its key read, its client made)."""
    if settings.engine == "command":
        if not settings.command:
            raise EngineError(
                "the command engine needs a program: --command 'PROG ARGS' or polybook.translate.command "
                f"in {settings.where}"
            )
        return CommandEngine(settings.command, settings.model or "")
    if settings.engine == "openai":
        return OpenAIEngine(settings.model or "gpt-4o-mini", _key(settings, "OPENAI_API_KEY"), settings.endpoint)
    if settings.engine == "deepl":
        return DeepLEngine(settings.model or "default", _key(settings, "DEEPL_AUTH_KEY"), settings.endpoint)
    return AwsEngine(settings.model or "default", settings.endpoint)


def _key(settings: EngineSettings, default: str) -> str:
    variable = settings.key_env or default
    value = os.environ.get(variable, "")
    if not value:
        raise EngineError(
            f"the {settings.engine} engine's key is not set: environment variable {variable} is empty "
            f"(polybook.translate.key_env in {settings.where} names it)"
        )
    return value


def answers_by_id(engine: str, batch: Batch, answered: Any) -> list[str]:
    """The texts of an engine's ``{"segments": [{"id", "text"}]}`` answer, in the batch's order."""
    if not isinstance(answered, dict) or not isinstance(answered.get("segments"), list):
        raise EngineError(f"{engine} answered no {{'segments': [...]}} object: {_shown(answered)}")
    texts: dict[str, str] = {}
    for item in answered["segments"]:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("text"), str):
            raise EngineError(f"{engine} answered a segment that is not {{'id': str, 'text': str}}: {_shown(item)}")
        if item["id"] in texts:
            raise EngineError(f"{engine} answered segment {item['id']!r} twice")
        texts[item["id"]] = item["text"]
    sent = [segment.id for segment in batch.segments]
    foreign = [key for key in texts if key not in sent]
    if foreign:
        raise EngineError(f"{engine} answered ids it was not sent: {', '.join(map(repr, foreign[:3]))}")
    missing = [key for key in sent if key not in texts]
    if missing:
        raise EngineError(f"{engine} answered {len(texts)} of {len(sent)} segments (missing {missing[0]!r} ...)")
    return [texts[key] for key in sent]


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text[:120] + ("..." if len(text) > 120 else "")


@dataclass(slots=True)
class CommandEngine:
    """Any program: the batch as one JSON object on its stdin, the translations on its stdout."""

    command: str
    model: str = ""
    name: str = "command"
    timeout: float = 600.0

    def translate(self, batch: Batch) -> list[str]:
        request = {
            "source_lang": batch.source_lang,
            "target_lang": batch.target_lang,
            "glossary": batch.glossary,
            "segments": [_with_context({"id": s.id, "text": s.text}, s.context) for s in batch.segments],
        }
        try:
            done = subprocess.run(
                shlex.split(self.command),
                input=json.dumps(request, ensure_ascii=False),
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=self.timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EngineError(f"command {self.command!r} could not run: {exc}") from None
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
            raise EngineError(f"command {self.command!r} exited with {done.returncode}: {tail[0]}")
        try:
            answered = json.loads(done.stdout)
        except ValueError:
            raise EngineError(f"command {self.command!r} answered what is not JSON: {_shown(done.stdout)}") from None
        return answers_by_id(f"command {self.command!r}", batch, answered)


def _with_context(segment: dict[str, str], context: str) -> dict[str, str]:
    return {**segment, "context": context} if context else segment


def prompt(batch: Batch) -> str:
    """The instructions an LLM is given: the languages, the glossary, the tokens' rule, the answer's form."""
    glossary = "\n".join(f"- {term} -> {rendering}" for term, rendering in batch.glossary.items())
    return (
        f"You translate passages of a technical book from {batch.source_lang} to {batch.target_lang}.\n"
        "Each segment is Markdown prose. Tokens like ⟦0⟧ stand for code, formulas, references and markup: "
        "keep every token exactly once, unchanged, where its words go in your translation; add none.\n"
        "Keep the meaning, the numbers and the Markdown emphasis; translate nothing inside tokens.\n"
        + (f"Use this glossary (term -> rendering):\n{glossary}\n" if glossary else "")
        + 'Answer with one JSON object only: {"segments": [{"id": "...", "text": "..."}]}, one per segment, '
        "with the ids given."
    )


def request_text(batch: Batch) -> str:
    """The user's message: the segments (a stale one with its old translation and the source's
    changes) and, as context, translated paragraphs around them."""
    body: dict[str, Any] = {"segments": [{"id": s.id, "text": s.text} for s in batch.segments]}
    context = {s.id: s.context for s in batch.segments if s.context}
    if context:
        body["earlier_translations"] = context
    if batch.neighbours:
        body["context_translated_paragraphs"] = list(batch.neighbours)
    return json.dumps(body, ensure_ascii=False)


_FENCE = re.compile(r"\A\s*```(?:json)?\s*\n(.*?)\n\s*```\s*\Z", re.S)


@dataclass(slots=True)
class OpenAIEngine:
    model: str
    key: str = field(repr=False, default="")
    endpoint: str | None = None
    name: str = "openai"
    client: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        import openai

        self.client = openai.OpenAI(api_key=self.key, base_url=self.endpoint, max_retries=0, timeout=600)

    def translate(self, batch: Batch) -> list[str]:
        import openai

        try:
            response = self.client.chat.completions.create(
                model=self.model,
                temperature=0,
                messages=[
                    {"role": "system", "content": prompt(batch)},
                    {"role": "user", "content": request_text(batch)},
                ],
            )
        except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
            raise Transient(f"openai at {self.endpoint or 'api.openai.com'}: {exc}") from None
        except openai.APIError as exc:
            raise EngineError(f"openai at {self.endpoint or 'api.openai.com'} refused: {exc}") from None
        try:
            content = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            raise EngineError(f"openai answered no message: {_shown(str(response))}") from None
        fenced = _FENCE.match(content)
        try:
            answered = json.loads(fenced.group(1) if fenced else content)
        except ValueError:
            raise EngineError(f"openai answered what is not JSON: {_shown(content)}") from None
        return answers_by_id("openai", batch, answered)


#: DeepL's target languages that need a variety (a source language never does).
_DEEPL_VARIETY = {"EN": "EN-US", "PT": "PT-BR"}


def _deepl_lang(lang: str, target: bool) -> str:
    code = lang.replace("_", "-").upper().split("-")[0]
    return _DEEPL_VARIETY.get(code, code) if target else code


@dataclass(slots=True)
class DeepLEngine:
    model: str
    key: str = field(repr=False, default="")
    endpoint: str | None = None
    name: str = "deepl"
    translator: Any = field(default=None, repr=False)
    glossaries: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        import deepl

        deepl.http_client.max_network_retries = 0  # retried by the caller, with back-off
        self.translator = deepl.Translator(self.key, server_url=self.endpoint)

    def translate(self, batch: Batch) -> list[str]:
        import deepl

        source, target = _deepl_lang(batch.source_lang, False), _deepl_lang(batch.target_lang, True)
        texts: dict[str, str] = {}
        try:
            glossary = self._glossary(batch, source, target)
            for context, segments in _by_context(batch.segments):
                results = self.translator.translate_text(
                    [s.text for s in segments],
                    source_lang=source,
                    target_lang=target,
                    glossary=glossary,
                    context=context or None,
                )
                results = results if isinstance(results, list) else [results]
                if len(results) != len(segments):
                    raise EngineError(f"deepl answered {len(results)} of {len(segments)} segments")
                texts.update({s.id: result.text for s, result in zip(segments, results, strict=True)})
        except deepl.TooManyRequestsException as exc:
            raise Transient(f"deepl: {exc}") from None
        except deepl.DeepLException as exc:
            status = getattr(exc, "http_status_code", None)
            if (status is not None and (status == 429 or status >= 500)) or isinstance(exc, deepl.ConnectionException):
                raise Transient(f"deepl: {exc}") from None
            raise EngineError(f"deepl at {self.endpoint or 'api.deepl.com'} refused: {exc}") from None
        except ValueError as exc:  # the SDK's reading of an answer that is not JSON
            raise EngineError(f"deepl answered what is not JSON: {exc}") from None
        return [texts[s.id] for s in batch.segments]

    def _glossary(self, batch: Batch, source: str, target: str) -> Any:
        """The batch's glossary as a DeepL glossary, made once per run and content."""
        if not batch.glossary:
            return None
        name = "polybook-" + hashlib.sha256(json.dumps(batch.glossary, sort_keys=True).encode()).hexdigest()[:12]
        if name not in self.glossaries:
            self.glossaries[name] = self.translator.create_glossary(name, source, target.split("-")[0], batch.glossary)
        return self.glossaries[name]


def _by_context(segments: tuple[Segment, ...]) -> list[tuple[str, list[Segment]]]:
    """The segments grouped by their context, for DeepL's ``context`` (one a request, not billed):
    those without one in one request, a stale block with its own."""
    groups: dict[str, list[Segment]] = {}
    for segment in segments:
        groups.setdefault(segment.context, []).append(segment)
    return list(groups.items())


@dataclass(slots=True)
class AwsEngine:
    """Amazon Translate, the glossary imported as a custom terminology (credentials: AWS's own chain).
    Its API takes no context: a stale block's old translation and the source's changes are not sent."""

    model: str
    endpoint: str | None = None
    name: str = "aws"
    client: Any = field(default=None, repr=False)
    terminologies: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        try:
            import boto3
            from botocore.config import Config
        except ImportError:
            raise EngineError("the aws engine needs boto3: pip install 'polybook[translate]'") from None
        once = Config(retries={"total_max_attempts": 1})  # retried by the caller, with back-off
        self.client = boto3.client("translate", endpoint_url=self.endpoint, config=once)

    def translate(self, batch: Batch) -> list[str]:
        from botocore.exceptions import BotoCoreError, ClientError

        out = []
        try:
            names = self._terminology(batch)
            for segment in batch.segments:
                answer = self.client.translate_text(
                    Text=segment.text,
                    SourceLanguageCode=batch.source_lang,
                    TargetLanguageCode=batch.target_lang,
                    TerminologyNames=names,
                )
                out.append(str(answer["TranslatedText"]))
        except ClientError as exc:
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            if status == 429 or status >= 500 or "Throttl" in str(exc):
                raise Transient(f"aws: {exc}") from None
            raise EngineError(f"aws refused: {exc}") from None
        except BotoCoreError as exc:
            raise EngineError(f"aws: {exc}") from None
        return out

    def _terminology(self, batch: Batch) -> list[str]:
        if not batch.glossary:
            return []
        rows = [f"{batch.source_lang},{batch.target_lang}"]
        rows += [f'"{term}","{rendering}"' for term, rendering in batch.glossary.items()]
        data = "\n".join(rows).encode("utf-8")
        name = "polybook-" + hashlib.sha256(data).hexdigest()[:12]
        if name not in self.terminologies:
            self.client.import_terminology(
                Name=name, MergeStrategy="OVERWRITE", TerminologyData={"File": data, "Format": "CSV"}
            )
            self.terminologies.add(name)
        return [name]


T = TypeVar("T")


def with_retries(
    call: Callable[[], T],
    attempts: int = 6,
    delay: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    said: Callable[[str], None] | None = None,
) -> T:
    """``call()``, asked again after a :class:`Transient` error, waiting ``delay``, then twice as
    long each time (at most a minute), ``attempts`` times in all."""
    for attempt in range(attempts):
        try:
            return call()
        except Transient as exc:
            if attempt == attempts - 1:
                raise EngineError(f"{exc} (gave up after {attempts} attempts)") from None
            wait = min(60.0, delay * 2**attempt)
            if said is not None:
                said(f"{exc}; again in {wait:g} s")
            sleep(wait)
    raise AssertionError("unreachable")
