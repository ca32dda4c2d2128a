// polybook: keep the reader's place when switching language, and say so when a page
// is shown in the source language because the chosen one does not have it.
// (Framework tabs are synced and remembered by sphinx-design: localStorage + ?framework=.)
(function () {
  "use strict";

  function data() {
    const el = document.getElementById("polybook-data");
    try {
      return el ? JSON.parse(el.textContent) : null;
    } catch (err) {
      return null;
    }
  }

  // Carry the section anchor (#sec_async) over to the other language's page: the links'
  // href follows the address (on load and on every hash change), so opening one in a new
  // tab or copying it keeps the section too.
  function keepAnchorOnSwitch() {
    const links = Array.prototype.slice.call(document.querySelectorAll("a.polybook-language"));
    const follow = function () {
      links.forEach(function (link) {
        if (!link.dataset.page) link.dataset.page = link.getAttribute("href").split("#")[0];
        link.setAttribute("href", link.dataset.page + window.location.hash);
      });
    };
    follow();
    window.addEventListener("hashchange", follow);
    links.forEach(function (link) {
      link.addEventListener("click", follow);
    });
  }

  // ?polybook-from=ja: this source page is not in Japanese yet (said in Japanese);
  // ?polybook-nearest=en: the English page the reader came from is not in this language, this is
  // the nearest part of the book it has (said in this page's language).
  function fallbackNotice(info) {
    const params = new URLSearchParams(window.location.search);
    const wanted = params.get("polybook-from");
    const from = params.get("polybook-nearest");
    if (!info) return;
    let text, lang;
    if (wanted && wanted !== info.language) {
      text = info.fallback[wanted];
      lang = wanted;
    } else if (from && from !== info.language) {
      text = info.nearest;
      lang = info.language;
    }
    if (!text) return;
    const notice = document.createElement("div");
    notice.className = "admonition note polybook-fallback" + (lang === info.language ? " polybook-nearest" : "");
    notice.setAttribute("lang", lang);
    notice.setAttribute("role", "status");
    const p = document.createElement("p");
    p.textContent = text;
    notice.appendChild(p);
    const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
    article.insertBefore(notice, article.firstChild);
  }

  // sphinx-copybutton (loaded before this deferred script) keeps its strings in its global
  // `messages` table and picks `locale` from <html lang> -- English for a language it does
  // not know. Give it the page's strings before it adds its buttons (on DOMContentLoaded).
  function copyButtonStrings(info) {
    /* global messages, locale, iconCopy, iconCheck */
    if (!info || !info.copybutton || typeof messages === "undefined" || typeof locale === "undefined") return;
    const strings = info.copybutton;
    const lang = document.documentElement.lang || info.language;
    messages[lang] = strings;
    locale = lang;
    const title = function (svg, text) {
      const safe = text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
      return svg.replace(/<title>[^<]*<\/title>/, "<title>" + safe + "</title>");
    };
    if (typeof iconCopy === "string") iconCopy = title(iconCopy, strings.copy_to_clipboard);
    if (typeof iconCheck === "string") iconCheck = title(iconCheck, strings.copy_success);
  }

  // The header's navigation links that do not fit beside the title, search, downloads and
  // languages move into its "More" menu, last first (the theme puts a fixed number of links
  // before the menu, whatever their length and the window's width). Again on every resize.
  function fitHeaderLinks() {
    const center = document.querySelector(".bd-header .navbar-header-items__center");
    const end = document.querySelector(".bd-header .navbar-header-items__end");
    const list = center && center.querySelector("ul.navbar-nav");
    if (!list || !end) return;
    const links = Array.prototype.slice.call(list.querySelectorAll(":scope > li.nav-item:not(.dropdown)"));
    if (!links.length) return;
    let more = list.querySelector(":scope > li.dropdown");
    if (!more) {
      more = document.createElement("li");
      more.className = "nav-item dropdown polybook-more";
      more.innerHTML = '<button class="btn dropdown-toggle nav-item" type="button" data-bs-toggle="dropdown" ' +
        'aria-expanded="false">More</button><ul class="dropdown-menu"></ul>';
      list.appendChild(more);
    }
    const menu = more.querySelector(".dropdown-menu");
    const copies = links.map(function (li) {
      if (!li.polybookCopy) {
        const copy = li.cloneNode(true);
        copy.className = "polybook-moved-copy";
        copy.querySelectorAll("a").forEach(function (a) { a.classList.add("dropdown-item"); });
        li.polybookCopy = copy;
      }
      return li.polybookCopy;
    });
    copies.slice().reverse().forEach(function (copy) { menu.insertBefore(copy, menu.firstChild); });
    const show = function (count) {
      links.forEach(function (li, i) { li.classList.toggle("polybook-moved", i >= count); });
      copies.forEach(function (copy, i) { copy.hidden = i < count; });
      more.hidden = count === links.length && !menu.querySelector(":scope > li:not(.polybook-moved-copy)");
    };
    const fits = function () {
      const items = Array.prototype.slice.call(end.children).filter(function (el) { return el.offsetParent; });
      const limit = Math.min.apply(null, items.map(function (el) { return el.getBoundingClientRect().left; }));
      const start = document.querySelector(".bd-header .navbar-header-items__start");
      const first = list.getBoundingClientRect().left;
      return list.getBoundingClientRect().right <= limit - 8 && (!start || start.getBoundingClientRect().right <= first);
    };
    let count = links.length;
    show(count);
    if (!center.offsetParent) return; // the narrow layout: the header's items are in the sidebar
    while (count > 0 && !fits()) show(--count);
  }

  function ready() {
    keepAnchorOnSwitch();
    fallbackNotice(data());
    fitHeaderLinks();
    let pending = false;
    window.addEventListener("resize", function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        fitHeaderLinks();
      });
    });
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(fitHeaderLinks);
  }

  copyButtonStrings(data());

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

// polybook: a framework tab-set without the reader's framework shows nothing, as d2l.ai shows a
// tab group only with the frameworks it has something for. The build marks such a set
// `polybook-lacks-<framework>` for each framework of the page it lacks and
// `polybook-default-<framework>` with the framework the page shows before the reader chooses one
// (polybook.stage.myst.partial_classes); a reader whose framework the page does not have at all
// reads the page's default version.
(function () {
  "use strict";
  const GROUP = "framework"; // the sync group (and ?framework=), polybook.stage.myst.SYNC_GROUP

  function chosen() {
    const query = new URLSearchParams(window.location.search).get(GROUP);
    if (query) return query;
    const script = document.querySelector("script[data-sd-tabs-storage-prefix]");
    const prefix = script ? script.getAttribute("data-sd-tabs-storage-prefix") : "sphinx-design-tab-id-";
    if (!prefix) return null;
    try {
      return window.localStorage.getItem(prefix + GROUP);
    } catch (err) {
      return null;
    }
  }

  function sets() {
    return Array.prototype.slice.call(document.querySelectorAll(".sd-tab-set.polybook-tabs"));
  }

  function label(set, framework) {
    return Array.prototype.slice.call(set.querySelectorAll(":scope > label.sd-tab-label")).find(function (el) {
      return el.getAttribute("data-sync-group") === GROUP && el.getAttribute("data-sync-id") === framework;
    });
  }

  function pageDefault(all) {
    for (const set of all) {
      const found = Array.prototype.slice.call(set.classList).find(function (c) {
        return c.indexOf("polybook-default-") === 0;
      });
      if (found) return found.slice("polybook-default-".length);
    }
    return null;
  }

  function show(reader) {
    const all = sets();
    const fallback = pageDefault(all);
    if (!fallback) return; // every set has every framework of the page
    const onPage = reader && all.some(function (set) {
      return label(set, reader) || set.classList.contains("polybook-lacks-" + reader);
    });
    const framework = onPage ? reader : fallback;
    all.forEach(function (set) {
      set.style.display = set.classList.contains("polybook-lacks-" + framework) ? "none" : "";
      const own = !onPage && label(set, framework);
      const input = own && document.getElementById(own.getAttribute("for"));
      if (input) input.checked = true; // the page's default version, not the set's first tab
    });
  }

  function ready() {
    show(chosen());
    sets().forEach(function (set) {
      set.querySelectorAll(":scope > input").forEach(function (input) {
        input.addEventListener("change", function () {
          const own = input.nextElementSibling;
          if (input.checked && own && own.getAttribute("data-sync-group") === GROUP) {
            show(own.getAttribute("data-sync-id"));
          }
        });
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
