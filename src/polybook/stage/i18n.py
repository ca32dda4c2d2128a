"""The few UI strings polybook adds to a page, in each language of the bundled book.

Sphinx and the theme translate their own strings ("Fig. %s", "Search"...); these are the
notices about code cells, tabs and languages. A language missing here falls back to English.
"""

from __future__ import annotations

from polybook.stage.mark_strings import MARK_STRINGS

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "status_plan": "Migration plan: what the source changed since",
        "published_page": "This part is shown on the book's page",
        "download_notebook": "Download notebook",
        "downloads": "Downloads",
        "notebooks": "Notebooks",
        "open_colab": "Open in Colab",
        "open_studio_lab": "Open in SageMaker Studio Lab",
        "needs_gpu": "Needs a GPU",
        "needs_gpu_body": "This cell needs a GPU. It ran on {device} ({date}), which has none, and stopped with:",
        "download_failed": "Needs the network",
        "download_failed_body": (
            "This cell downloads {url}. It ran on {device} ({date}) without network access and stopped with:"
        ),
        "missing_framework": (
            "{framework} is not installed where this book was built ({device}, {date}): its cells did not run."
        ),
        "computed_on": "Computed on {device}",
        "frozen": (
            "The {framework} outputs of this page were computed on {device} ({date}) and are kept as frozen results."
        ),
        "not_run": "Not run: an earlier {framework} cell of this page did not finish.",
        "not_executed": "No outputs: this cell has not been executed.",
        "failed": "This cell failed ({status}):",
        "traceback": "Traceback",
        "fallback": "This page is not available in {language} yet; you are reading the {source} version.",
        "nearest": "The page you came from is not available in {language}: this is the part of the book it belongs to.",
        "choose": "Choose a language",
        "languages": "Languages",
        "references": "References",
        "search_bar": "Search the docs ...",
        "copy": "Copy",
        "copy_to_clipboard": "Copy to clipboard",
        "copy_success": "Copied!",
        "copy_failure": "Failed to copy",
        "not_found": "Page not found",
        "not_found_body": "There is no page at this address.",
        "home": "Go to the book's home page",
        "status": "Translation status",
        "status_intro": (
            "How far each translation is from the {source} source, as of this build: "
            "the findings of polybook check and the source commits since each chapter's last sync (git)."
        ),
        "status_language": "Language",
        "status_failing": "Failing",
        "status_missing": "Not translated",
        "status_behind": "Behind",
        "status_ok": "Up to date",
        "status_error": "Errors",
        "status_warning": "Warnings",
        "status_info": "Notes",
        "status_suppressed": "Suppressed",
        "status_source": "source language",
        "status_chapter": "Chapter",
        "status_state": "State",
        "status_kinds": "Findings by kind",
        "status_synced": "Synced with",
        "status_since": "Source commits since",
        "status_unknown": "never synced",
        "status_none": "No findings.",
        "status_findings": "Findings",
    },
    "ja": {
        "status_plan": "移行計画：原文の変更点",
        "published_page": "この部分は本のページに表示されます",
        "download_notebook": "ノートブックをダウンロード",
        "downloads": "ダウンロード",
        "notebooks": "ノートブック",
        "open_colab": "Colab で開く",
        "open_studio_lab": "SageMaker Studio Lab で開く",
        "needs_gpu": "GPU が必要です",
        "needs_gpu_body": (
            "このセルには GPU が必要です。GPU のない {device} ({date}) で実行され、次のエラーで停止しました:"
        ),
        "download_failed": "ネットワークが必要です",
        "download_failed_body": (
            "このセルは {url} をダウンロードします。"
            "ネットワークのない {device} ({date}) で実行され、次のエラーで停止しました:"
        ),
        "missing_framework": (
            "この本をビルドした環境 ({device}, {date}) には {framework} がインストールされていないため、"
            "セルは実行されていません。"
        ),
        "computed_on": "{device} で計算",
        "frozen": (
            "このページの {framework} の出力は {device} ({date}) で計算され、固定された結果として保存されています。"
        ),
        "not_run": "未実行: このページの前の {framework} セルが完了しませんでした。",
        "not_executed": "出力なし: このセルはまだ実行されていません。",
        "failed": "このセルは失敗しました ({status}):",
        "traceback": "トレースバック",
        "fallback": "このページはまだ{language}で読めません。{source}版を表示しています。",
        "nearest": "移動元のページは{language}にありません。そのページを含む部分を表示しています。",
        "choose": "言語を選択",
        "languages": "言語",
        "references": "参考文献",
        "search_bar": "この本を検索...",
        "copy": "コピー",
        "copy_to_clipboard": "クリップボードにコピー",
        "copy_success": "コピーしました",
        "copy_failure": "コピーできませんでした",
        "not_found": "ページが見つかりません",
        "not_found_body": "このアドレスにはページがありません。",
        "home": "本のトップページへ",
        "status": "翻訳の状況",
        "status_intro": (
            "各翻訳と{source}の原文との差 (このビルド時点): "
            "polybook check の指摘と、各章の最終同期以降の原文のコミット数 (git)。"
        ),
        "status_language": "言語",
        "status_failing": "要修正",
        "status_missing": "未翻訳",
        "status_behind": "遅れあり",
        "status_ok": "最新",
        "status_error": "エラー",
        "status_warning": "警告",
        "status_info": "情報",
        "status_suppressed": "抑制済み",
        "status_source": "原文の言語",
        "status_chapter": "章",
        "status_state": "状態",
        "status_kinds": "種類別の指摘",
        "status_synced": "同期したコミット",
        "status_since": "以降の原文コミット",
        "status_unknown": "未同期",
        "status_none": "指摘はありません。",
        "status_findings": "指摘",
    },
    "pt": {
        "status_plan": "Plano de migração: o que mudou na fonte",
        "published_page": "Esta parte é mostrada na página do livro",
        "download_notebook": "Baixar o notebook",
        "downloads": "Downloads",
        "notebooks": "Notebooks",
        "open_colab": "Abrir no Colab",
        "open_studio_lab": "Abrir no SageMaker Studio Lab",
        "needs_gpu": "Requer uma GPU",
        "needs_gpu_body": (
            "Esta célula requer uma GPU. Foi executada em {device} ({date}), que não tem nenhuma, e parou com:"
        ),
        "download_failed": "Requer acesso à rede",
        "download_failed_body": (
            "Esta célula baixa {url}. Foi executada em {device} ({date}) sem acesso à rede e parou com:"
        ),
        "missing_framework": (
            "{framework} não está instalado onde este livro foi construído "
            "({device}, {date}): suas células não foram executadas."
        ),
        "computed_on": "Calculado em {device}",
        "frozen": (
            "As saídas {framework} desta página foram calculadas em {device} "
            "({date}) e guardadas como resultados congelados."
        ),
        "not_run": "Não executada: uma célula {framework} anterior desta página não terminou.",
        "not_executed": "Sem saídas: esta célula ainda não foi executada.",
        "failed": "Esta célula falhou ({status}):",
        "traceback": "Traceback",
        "fallback": "Esta página ainda não está disponível em {language}; você está lendo a versão em {source}.",
        "nearest": "A página de onde você veio não está em {language}: esta é a parte do livro a que ela pertence.",
        "choose": "Escolha um idioma",
        "languages": "Idiomas",
        "references": "Referências",
        "search_bar": "Pesquisar no livro...",
        "copy": "Copiar",
        "copy_to_clipboard": "Copiar para a área de transferência",
        "copy_success": "Copiado!",
        "copy_failure": "Falha ao copiar",
        "not_found": "Página não encontrada",
        "not_found_body": "Não há nenhuma página neste endereço.",
        "home": "Ir para a página inicial do livro",
        "status": "Estado da tradução",
        "status_intro": (
            "Quão longe cada tradução está da fonte em {source}, nesta compilação: os achados do "
            "polybook check e os commits da fonte desde a última sincronização de cada capítulo (git)."
        ),
        "status_language": "Idioma",
        "status_failing": "Com erros",
        "status_missing": "Não traduzido",
        "status_behind": "Atrasado",
        "status_ok": "Em dia",
        "status_error": "Erros",
        "status_warning": "Avisos",
        "status_info": "Notas",
        "status_suppressed": "Suprimidos",
        "status_source": "idioma de origem",
        "status_chapter": "Capítulo",
        "status_state": "Estado",
        "status_kinds": "Achados por tipo",
        "status_synced": "Sincronizado com",
        "status_since": "Commits da fonte desde então",
        "status_unknown": "nunca sincronizado",
        "status_none": "Nenhum achado.",
        "status_findings": "Achados",
    },
    "zh": {
        "status_plan": "迁移计划：原文的变化",
        "published_page": "这一部分显示在本书的网页上",
        "download_notebook": "下载 Notebook",
        "downloads": "下载",
        "notebooks": "Notebook",
        "open_colab": "在 Colab 中打开",
        "open_studio_lab": "在 SageMaker Studio Lab 中打开",
        "needs_gpu": "需要 GPU",
        "needs_gpu_body": "此单元需要 GPU。它在没有 GPU 的 {device}（{date}）上运行，并因以下错误而停止：",
        "download_failed": "需要网络",
        "download_failed_body": "此单元需要下载 {url}。它在没有网络的 {device}（{date}）上运行，并因以下错误而停止：",
        "missing_framework": "构建本书的环境（{device}，{date}）没有安装 {framework}：其单元没有运行。",
        "computed_on": "在 {device} 上计算",
        "frozen": "本页 {framework} 的输出在 {device}（{date}）上计算，并作为固定结果保存。",
        "not_run": "未运行：本页前面的一个 {framework} 单元没有完成。",
        "not_executed": "没有输出：此单元尚未执行。",
        "failed": "此单元运行失败（{status}）：",
        "traceback": "回溯",
        "fallback": "本页尚无{language}版本；您正在阅读{source}版本。",
        "nearest": "您来自的页面没有{language}版本；这里是它所属的部分。",
        "choose": "选择语言",
        "languages": "语言",
        "references": "参考文献",
        "search_bar": "搜索本书...",
        "copy": "复制",
        "copy_to_clipboard": "复制到剪贴板",
        "copy_success": "复制成功！",
        "copy_failure": "复制失败",
        "not_found": "页面不存在",
        "not_found_body": "此地址没有页面。",
        "home": "前往本书首页",
        "status": "翻译状态",
        "status_intro": (
            "各译本与{source}原文的差距（截至本次构建）："
            "polybook check 的检查结果，以及各章上次同步以来原文的提交数（git）。"
        ),
        "status_language": "语言",
        "status_failing": "有错误",
        "status_missing": "未翻译",
        "status_behind": "落后",
        "status_ok": "最新",
        "status_error": "错误",
        "status_warning": "警告",
        "status_info": "提示",
        "status_suppressed": "已抑制",
        "status_source": "原文语言",
        "status_chapter": "章节",
        "status_state": "状态",
        "status_kinds": "按类型的问题",
        "status_synced": "同步的提交",
        "status_since": "此后原文的提交",
        "status_unknown": "从未同步",
        "status_none": "没有发现问题。",
        "status_findings": "问题",
    },
    "tr": {
        "status_plan": "Geçiş planı: kaynakta değişenler",
        "published_page": "Bu bölüm kitabın sayfasında gösterilir",
        "download_notebook": "Not defterini indir",
        "downloads": "İndirilenler",
        "notebooks": "Not defterleri",
        "open_colab": "Colab'de aç",
        "open_studio_lab": "SageMaker Studio Lab'de aç",
        "needs_gpu": "GPU gerekiyor",
        "needs_gpu_body": (
            "Bu hücre bir GPU gerektiriyor. GPU'su olmayan {device} ({date}) üzerinde çalıştı ve şu hatayla durdu:"
        ),
        "download_failed": "Ağ erişimi gerekiyor",
        "download_failed_body": (
            "Bu hücre {url} adresini indiriyor. Ağ erişimi olmayan "
            "{device} ({date}) üzerinde çalıştı ve şu hatayla durdu:"
        ),
        "missing_framework": (
            "Bu kitabın derlendiği ortamda ({device}, {date}) {framework} kurulu değil: hücreleri çalışmadı."
        ),
        "computed_on": "{device} üzerinde hesaplandı",
        "frozen": (
            "Bu sayfadaki {framework} çıktıları {device} ({date}) üzerinde "
            "hesaplandı ve dondurulmuş sonuç olarak saklandı."
        ),
        "not_run": "Çalıştırılmadı: bu sayfadaki önceki bir {framework} hücresi tamamlanmadı.",
        "not_executed": "Çıktı yok: bu hücre henüz çalıştırılmadı.",
        "failed": "Bu hücre başarısız oldu ({status}):",
        "traceback": "Hata izi",
        "fallback": "Bu sayfa henüz {language} dilinde yok; {source} sürümünü okuyorsunuz.",
        "nearest": "Geldiğiniz sayfa {language} dilinde yok: bu, onun ait olduğu bölüm.",
        "choose": "Bir dil seçin",
        "languages": "Diller",
        "references": "Kaynaklar",
        "search_bar": "Kitapta ara...",
        "copy": "Kopyala",
        "copy_to_clipboard": "Panoya kopyala",
        "copy_success": "Kopyalandı!",
        "copy_failure": "Kopyalanamadı",
        "not_found": "Sayfa bulunamadı",
        "not_found_body": "Bu adreste bir sayfa yok.",
        "home": "Kitabın ana sayfasına git",
        "status": "Çeviri durumu",
        "status_intro": (
            "Her çevirinin {source} kaynaktan ne kadar uzak olduğu (bu derlemede): polybook check "
            "bulguları ve her bölümün son eşitlenmesinden bu yana kaynaktaki commit sayısı (git)."
        ),
        "status_language": "Dil",
        "status_failing": "Hatalı",
        "status_missing": "Çevrilmedi",
        "status_behind": "Geride",
        "status_ok": "Güncel",
        "status_error": "Hatalar",
        "status_warning": "Uyarılar",
        "status_info": "Notlar",
        "status_suppressed": "Bastırılan",
        "status_source": "kaynak dil",
        "status_chapter": "Bölüm",
        "status_state": "Durum",
        "status_kinds": "Türe göre bulgular",
        "status_synced": "Eşitlendiği commit",
        "status_since": "O zamandan beri kaynak commitleri",
        "status_unknown": "hiç eşitlenmedi",
        "status_none": "Bulgu yok.",
        "status_findings": "Bulgular",
    },
}

#: Sphinx's own catalogs are named with a region for some languages.
SPHINX_LANGUAGE = {"zh": "zh_CN"}


for _lang, _table in MARK_STRINGS.items():
    STRINGS.setdefault(_lang, {}).update(_table)


def text(lang: str, key: str, **values: str) -> str:
    table = STRINGS.get(lang.split("_")[0], STRINGS["en"])
    return table.get(key, STRINGS["en"][key]).format(**values)
