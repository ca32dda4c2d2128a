// polybook's search ranking (html_search_scorer: Sphinx puts it in language_data.js, after
// searchtools.js). First the pages whose title holds every word of the query, then the pages
// with the most of its words, by how often they use them (searchindex.js's "polybook" key: each
// page's title words and word counts, made with the index's own splitter and stemmer); a section
// whose title holds the query comes right after its page. Snippets leave out what the index
// skips (class no-search: framework tabs' labels, notebook links, notices, outputs). A Japanese
// or Chinese query is cut into the index's words.
(function () {
  "use strict";
  if (typeof Search === "undefined" || typeof Scorer === "undefined") return;

  let words = []; // the query's words, stemmed as the index's
  let pages = null; // docname -> its number in the index

  const stemmed = function (query) {
    const stemmer = new Stemmer();
    const found = [];
    splitQuery(query.trim()).forEach(function (term) {
      const lower = term.toLowerCase();
      if (stopwords.has(lower) || /^\d+$/.test(lower) || lower[0] === "-") return;
      found.push(stemmer.stemWord(lower));
    });
    return found;
  };

  // Japanese and Chinese are written without spaces: a run of the query the index has no word
  // for is cut into the longest words it has (the index was segmented when it was built, by the
  // Japanese segmenter or jieba), so テンソルの演算 finds the pages with テンソル and 演算.
  const known = function (word) {
    const index = Search._index;
    return index.terms.hasOwnProperty(word) || index.titleterms.hasOwnProperty(word);
  };
  const wordsOf = function (run) {
    const found = [];
    let i = 0;
    while (i < run.length) {
      let j = Math.min(run.length, i + 16);
      while (j > i + 1 && !known(run.slice(i, j).toLowerCase())) j--;
      if (j > i + 1) {
        found.push(run.slice(i, j));
        i = j;
      } else i++;
    }
    return found.length ? found : [run];
  };
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
  const split = splitQuery;
  splitQuery = function (text) {
    const runs = split(text);
    if (!Search._index) return runs;
    return runs.flatMap(function (run) {
      return cjk.test(run) && !known(run.toLowerCase()) ? wordsOf(run) : [run];
    });
  };

  const query = Search.query;
  Search.query = function (text) {
    words = stemmed(text);
    return query(text);
  };

  const has = function (files, page) {
    if (files === undefined) return false;
    return files.length === undefined ? files === page : files.indexOf(page) !== -1;
  };

  // How often page `page` uses `word`: the count polybook kept (three or more), else once when
  // the index has it, else never (a partial match, "tensor" in "tensorflow").
  const uses = function (data, word, page) {
    const counts = data.counts[word];
    if (counts) {
      for (let i = 0; i < counts.length; i += 2) if (counts[i] === page) return counts[i + 1];
    }
    const index = Search._index;
    return has(index.terms[word], page) || has(index.titleterms[word], page) ? 1 : 0;
  };

  Scorer.score = function (result) {
    const data = Search._index && Search._index.polybook;
    const kind = result[6];
    if (!data || !words.length || (kind !== "text" && kind !== "title")) return result[4];
    if (pages === null) {
      pages = new Map();
      Search._index.docnames.forEach(function (name, i) { pages.set(name, i); });
    }
    const page = pages.get(result[0]);
    if (page === undefined) return result[4];
    const title = data.titles[page] || [];
    const inTitle = words.every(function (word) { return title.indexOf(word) !== -1; });
    let count = 0;
    let used = 0; // how many of the query's words the page has: Sphinx lets a page without
    // the words shorter than three letters in (一 and 演算 are words in Japanese and Chinese)
    words.forEach(function (word) {
      const n = uses(data, word, page);
      count += n;
      used += n > 0 ? 1 : 0;
    });
    const score = (inTitle ? 1000000 : 0) + 10000 * used + 10 * count + Math.min(result[4], 9);
    return kind === "title" && result[2] ? score - 5 : score; // a section: after its page
  };

  const htmlToText = Search.htmlToText;
  Search.htmlToText = function (html, anchor) {
    const page = new DOMParser().parseFromString(html, "text/html");
    page.querySelectorAll(".no-search").forEach(function (el) { el.remove(); });
    return htmlToText(page.documentElement.outerHTML, anchor);
  };
})();
