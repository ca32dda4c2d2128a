"""What readers are told of a page a port or a machine left behind the source, in each language
of the bundled book (:mod:`.i18n` merges them into its strings; a language missing here falls back
to English): the page's one notice, its counts, and the short label of a marked block."""

from __future__ import annotations

MARK_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "untranslated_page": "This page is not translated yet: it is shown as the source language has it.",
        "marked_page": (
            "Parts of this page are not up to date with the source: {parts}. Each is marked where it stands."
        ),
        "marked_separator": ", ",
        "marked_untranslated": "{n} not translated yet",
        "marked_stale": "{n} translated from an older source text",
        "marked_review": "{n} to review",
        "marked_draft": "{n} machine drafts not yet reviewed",
        "mark_untranslated": "Not translated yet",
        "mark_stale": "Source changed",
        "mark_review": "To review",
        "mark_draft": "Machine draft",
        "mark_source_now": "The source now says:",
        "mark_changes": "What changed (struck out: removed; underlined: added):",
    },
    "ja": {
        "untranslated_page": "このページはまだ翻訳されていません。原文のまま表示しています。",
        "marked_page": (
            "このページには原文の現在の内容に追いついていない部分があります（{parts}）。各部分に印があります。"
        ),
        "marked_separator": "、",
        "marked_untranslated": "未翻訳 {n} 箇所",
        "marked_stale": "原文変更 {n} 箇所",
        "marked_review": "要確認 {n} 箇所",
        "marked_draft": "未確認の機械翻訳 {n} 箇所",
        "mark_untranslated": "未翻訳",
        "mark_stale": "原文が変更されました",
        "mark_review": "要確認",
        "mark_draft": "機械翻訳",
        "mark_source_now": "現在の原文：",
        "mark_changes": "変更点（取り消し線：削除、下線：追加）：",
    },
    "zh": {
        "untranslated_page": "本页尚未翻译：显示的是原文。",
        "marked_page": "本页有部分内容尚未与原文同步（{parts}）。各处均已标出。",
        "marked_separator": "，",
        "marked_untranslated": "{n} 处尚未翻译",
        "marked_stale": "{n} 处译自旧版原文",
        "marked_review": "{n} 处待审校",
        "marked_draft": "{n} 处机器翻译尚未审校",
        "mark_untranslated": "尚未翻译",
        "mark_stale": "原文已更改",
        "mark_review": "待审校",
        "mark_draft": "机器翻译",
        "mark_source_now": "当前原文：",
        "mark_changes": "改动（删除线：删除；下划线：新增）：",
    },
    "pt": {
        "untranslated_page": "Esta página ainda não foi traduzida: é mostrada no idioma de origem.",
        "marked_page": (
            "Partes desta página ainda não acompanham o texto original: {parts}. Cada uma está marcada onde aparece."
        ),
        "marked_separator": ", ",
        "marked_untranslated": "{n} ainda não traduzidas",
        "marked_stale": "{n} traduzidas de um texto original anterior",
        "marked_review": "{n} a revisar",
        "marked_draft": "{n} rascunhos de tradução automática não revisados",
        "mark_untranslated": "Ainda não traduzido",
        "mark_stale": "Texto original alterado",
        "mark_review": "A revisar",
        "mark_draft": "Tradução automática",
        "mark_source_now": "O texto original agora diz:",
        "mark_changes": "O que mudou (riscado: removido; sublinhado: acrescentado):",
    },
    "tr": {
        "untranslated_page": "Bu sayfa henüz çevrilmedi: kaynak dildeki hâliyle gösteriliyor.",
        "marked_page": (
            "Bu sayfanın bazı bölümleri kaynak metnin güncel hâline henüz uymuyor: {parts}. "
            "Her biri bulunduğu yerde işaretli."
        ),
        "marked_separator": ", ",
        "marked_untranslated": "{n} henüz çevrilmemiş",
        "marked_stale": "{n} kaynak metnin eski hâlinden çevrilmiş",
        "marked_review": "{n} gözden geçirilecek",
        "marked_draft": "{n} gözden geçirilmemiş makine çevirisi",
        "mark_untranslated": "Henüz çevrilmedi",
        "mark_stale": "Kaynak metin değişti",
        "mark_review": "Gözden geçirilecek",
        "mark_draft": "Makine çevirisi",
        "mark_source_now": "Kaynak metin şimdi:",
        "mark_changes": "Değişenler (üstü çizili: çıkarılan; altı çizili: eklenen):",
    },
}
