/* In-place updates for the Intelligence tab, without a library (nothing is fetched from the internet).
   Forms and links marked data-inplace are submitted with fetch; the server answers with the same full page
   it would render without JavaScript (after its redirect), and the page's <main> is swapped in place. */
(function () {
  "use strict";
  function swap(html, url, push) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.querySelector("main");
    if (!next) { window.location.href = url; return; }
    document.querySelector("main").replaceWith(next);
    document.title = doc.title;
    if (push && url) { history.pushState({}, "", url); }
    var target = url && url.indexOf("#") >= 0 ? document.getElementById(url.split("#")[1]) : null;
    if (target) { target.scrollIntoView(); }
  }
  function go(url, options, push) {
    document.body.setAttribute("aria-busy", "true");
    return fetch(url, Object.assign({ credentials: "same-origin", headers: { "X-Requested-With": "fetch" } }, options))
      .then(function (response) { return response.text().then(function (html) { swap(html, response.url, push); }); })
      .catch(function () { window.location.href = url; })
      .finally(function () { document.body.removeAttribute("aria-busy"); });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-inplace]")) { return; }
    event.preventDefault();
    var data = new FormData(form);
    if (event.submitter && event.submitter.name) { data.append(event.submitter.name, event.submitter.value); }
    if ((form.method || "get").toLowerCase() === "get") {
      var url = form.action.split("?")[0] + "?" + new URLSearchParams(data).toString();
      go(url, {}, true);
    } else {
      go(form.action, { method: "POST", body: data }, true);
    }
  });
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-inplace]");
    if (!link || event.metaKey || event.ctrlKey) { return; }
    event.preventDefault();
    go(link.href, {}, true);
  });
  window.addEventListener("popstate", function () { go(window.location.href, {}, false); });
})();
