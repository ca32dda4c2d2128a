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

  // Carry the section anchor (#sec_async) over to the other language's page.
  function keepAnchorOnSwitch() {
    document.querySelectorAll("a.polybook-language").forEach(function (link) {
      link.addEventListener("click", function () {
        const url = new URL(link.getAttribute("href"), window.location.href);
        url.hash = window.location.hash;
        link.setAttribute("href", url.toString());
      });
    });
  }

  function fallbackNotice(info) {
    const params = new URLSearchParams(window.location.search);
    const wanted = params.get("polybook-from");
    if (!info || !wanted || wanted === info.language) return;
    const text = info.fallback[wanted];
    if (!text) return;
    const notice = document.createElement("div");
    notice.className = "admonition note polybook-fallback";
    notice.setAttribute("lang", wanted);
    notice.setAttribute("role", "status");
    const p = document.createElement("p");
    p.textContent = text;
    notice.appendChild(p);
    const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
    article.insertBefore(notice, article.firstChild);
  }

  function ready() {
    keepAnchorOnSwitch();
    fallbackNotice(data());
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
