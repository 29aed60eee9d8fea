// Blitzboard's service worker: the pages opened before open again without a connection.
// Served as /sw.js by app/routes/offline.py, which puts a first line before this file:
//   var BUILD = "<the deployment's build hash>", SHELL = [<the versioned static URLs>, "/offline"],
//       KEPT = [<the patterns of the pages it may keep, app/paths.py>];
// No eval, no inline script: it runs under the site's CSP like app.js.
//
// - The shell (our CSS and scripts, htmx, the icons, the offline page) is fetched when the worker
//   installs, into a cache named after the deployment. Versioned static files (?v=<hash>) come from
//   that cache first: their URL changes whenever their content does.
// - Pages are asked of the network first; a copy is kept only when the server allows it (the
//   Blitzboard-Offline: keep header: the start page, a view page, a scorekeeper's page without its
//   share or handover box) and the address has no query (TV's ?tv=1 aside). A page that shows an edit
//   key or a handover link never carries that header, and an edit link (/g/<id>/edit/<key>) is never
//   kept whatever it answers: only 200s of the addresses below are. Without a connection, the kept copy
//   answers, marked with when it was kept (data-offline-copy on <html>: app.js says "offline — last
//   updated 21:04"); a page never kept gets /offline, fetched again whenever a page comes in another
//   language than the one it was kept in (a switch of language).
// - The state a kept page showed last: a live page's refresh (a GET of its #game fragment, with
//   `since`) is kept as that page's latest fragment, and the scorekeeper's page sends its own after
//   each change (static/rounds.js, by postMessage: a save's answer is a post, which this worker does
//   not read). A kept copy served offline has its #game replaced by the latest one when it is newer
//   (game.html marks where #game ends).
// - Nothing else is touched: posts, fragments, the API and the event streams go to the network as if
//   there were no worker (the scorekeeper's rounds made offline wait in IndexedDB: static/rounds.js).
// - A new deployment is a new first line, so a new worker: it installs its own shell, takes over at
//   once, deletes the old caches (old scripts never run under new pages) and fetches its own copies of
//   the pages the old one kept, so they still open offline.
/* global BUILD, SHELL, KEPT */
"use strict";

var STATIC_CACHE = "blitzboard-static-" + BUILD;
var PAGE_CACHE = "blitzboard-pages-" + BUILD;
var LATEST_CACHE = "blitzboard-latest-" + BUILD;
var PREFIX = "blitzboard-";

// The pages that may be kept (the start page, a view page, a scorekeeper's page): app/paths.py's
// KEPT_PAGES, on the first line /sw.js is served with.
var KEPT_PAGES = KEPT.map(function (source) { return new RegExp(source); });

function keptAddress(url) {
  if (url.search && url.search !== "?tv=1") return false;
  return KEPT_PAGES.some(function (pattern) { return pattern.test(url.pathname); });
}

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(STATIC_CACHE)
      .then(function (cache) { return cache.addAll(SHELL); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    self.clients.claim().then(function () { return caches.keys(); }).then(function (names) {
      var old = names.filter(function (name) {
        return name.indexOf(PREFIX) === 0 && [STATIC_CACHE, PAGE_CACHE, LATEST_CACHE].indexOf(name) < 0;
      });
      return refetchPages(old)
        .then(function () { return Promise.all(old.map(function (name) { return caches.delete(name); })); });
    })
  );
});

// The pages an older worker kept, fetched again for this deployment, one after the other (best effort:
// one that fails stays unkept until it is opened again).
function refetchPages(oldCaches) {
  var pages = oldCaches.filter(function (name) { return name.indexOf(PREFIX + "pages-") === 0; });
  return pages.reduce(function (done, name) {
    return done.then(function () {
      return caches.open(name).then(function (cache) { return cache.keys(); }).then(function (requests) {
        return requests.reduce(function (before, request) {
          return before.then(function () {
            return fetch(request.url, { credentials: "same-origin" }).then(keep, function () {});
          });
        }, Promise.resolve());
      });
    });
  }, Promise.resolve());
}

// Keep a copy of a page the server allows to be kept (a promise: kept, or not). A kept address that now
// answers "not allowed", "not found" or "gone" (the game handed over or deleted) loses its copy.
function keep(response) {
  if (response && response.type === "basic" && [403, 404, 410].indexOf(response.status) >= 0 &&
      keptAddress(new URL(response.url))) {
    return forget(pageKey(new URL(response.url)));
  }
  if (!response || response.status !== 200 || response.type !== "basic" || response.redirected) return Promise.resolve();
  if (response.headers.get("Blitzboard-Offline") !== "keep" || !keptAddress(new URL(response.url))) return Promise.resolve();
  var headers = new Headers(response.headers);
  headers.set("Blitzboard-Kept-At", String(Date.now()));
  return response.blob().then(function (body) {
    return caches.open(PAGE_CACHE).then(function (cache) {
      return cache.put(response.url, new Response(body, { status: 200, headers: headers }));
    });
  }).catch(function () { /* storage full or refused: the page just isn't kept */ });
}

// The offline page in the language of the pages opened now: it was fetched when the worker installed,
// in the language of then; after a switch (the switch's cookie) it is fetched again, so a page never
// opened answers offline in the language the visitor reads.
function offlineInLanguage(response) {
  var lang = response.status === 200 && response.type === "basic" && response.headers.get("Content-Language");
  if (!lang) return Promise.resolve();
  return caches.open(STATIC_CACHE).then(function (cache) {
    return cache.match("/offline").then(function (kept) {
      if (kept && kept.headers.get("Content-Language") === lang) return;
      return fetch("/offline", { credentials: "same-origin" }).then(function (fresh) {
        if (fresh.status === 200 && fresh.headers.get("Content-Language") === lang) return cache.put("/offline", fresh);
      });
    });
  }).catch(function () { /* offline again, or storage refused: the page of before stays */ });
}

// Where a kept page's state is filed: its path, and ?tv=1 for the TV layout.
function pageKey(url) {
  return url.origin + url.pathname + (/(^|&)tv=1(&|$)/.test(url.search.slice(1)) ? "?tv=1" : "");
}

function versionOf(html) {
  var found = /<div id="game"[^>]*?data-version="(\d+)"/.exec(html);
  return found ? Number(found[1]) : -1;
}

// Keep a page's latest #game fragment (its HTML), with when; never an older one over a newer.
function keepLatest(key, html) {
  return caches.open(LATEST_CACHE).then(function (cache) {
    return cache.match(key).then(function (before) { return before ? before.text() : ""; }).then(function (old) {
      if (old && versionOf(old) > versionOf(html)) return;
      return cache.put(key, new Response(html, { headers: { "Blitzboard-Kept-At": String(Date.now()) } }));
    });
  }).catch(function () {});
}

function forget(key) {
  return Promise.all([PAGE_CACHE, LATEST_CACHE].map(function (name) {
    return caches.open(name).then(function (cache) { return cache["delete"](key); });
  })).catch(function () {});
}

// A kept page, with the latest #game it showed, marked as a copy (with when) for app.js; its own
// headers (the CSP among them).
function keptCopy(url) {
  var key = pageKey(url);
  return Promise.all([
    caches.open(PAGE_CACHE).then(function (cache) { return cache.match(key); }),
    caches.open(LATEST_CACHE).then(function (cache) { return cache.match(key); }),
  ]).then(function (found) {
    var kept = found[0], latest = found[1];
    if (!kept) return caches.match("/offline");
    return Promise.all([kept.text(), latest ? latest.text() : ""]).then(function (texts) {
      var html = texts[0], fragment = texts[1];
      var at = Number(kept.headers.get("Blitzboard-Kept-At") || 0);
      var start = html.indexOf('<div id="game"'), end = html.indexOf("<!--/game-->");
      if (fragment && start >= 0 && end > start && versionOf(fragment) > versionOf(html)) {
        html = html.slice(0, start) + fragment.trim() + html.slice(end);
        at = Math.max(at, Number(latest.headers.get("Blitzboard-Kept-At") || 0));
      }
      html = html.replace("<html ", '<html data-offline-copy="' + at + '" ');
      return new Response(html, { status: 200, headers: kept.headers });
    });
  });
}

// The scorekeeper's page sends its #game after each change (static/rounds.js).
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (!event.source || typeof data.latest !== "string" || typeof data.html !== "string") return;
  var url = new URL(data.latest, self.location.origin), from = new URL(event.source.url);
  // Only a page of this site, for itself.
  if (url.origin !== self.location.origin || from.origin !== url.origin || from.pathname !== url.pathname) return;
  if (!keptAddress(new URL(url.pathname, url.origin))) return;
  event.waitUntil(keepLatest(pageKey(url), data.html));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).then(function (response) {
      event.waitUntil(Promise.all([keep(response.clone()), offlineInLanguage(response)]));
      return response;
    }, function () {
      return keptAddress(url) ? keptCopy(url) : caches.match("/offline");
    }).then(function (response) {
      return response || Response.error();
    }));
    return;
  }
  // A live page's refresh: its #game as the server has it now, kept as that page's latest state. Not
  // one of an older page of the history (?page=2): the kept page shows the latest rounds.
  if (request.headers.get("HX-Request") && /(^|&)since=/.test(url.search.slice(1)) &&
      !/(^|&)page=/.test(url.search.slice(1)) && keptAddress(new URL(url.pathname, url.origin))) {
    event.respondWith(fetch(request).then(function (response) {
      if (response.status === 200) {
        event.waitUntil(response.clone().text().then(function (html) { return keepLatest(pageKey(url), html); }));
      }
      return response;
    }));
    return;
  }
  if (url.pathname.indexOf("/static/") === 0 && /(^|&)v=/.test(url.search.slice(1))) {
    event.respondWith(caches.open(STATIC_CACHE).then(function (cache) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) {
          if (response.status === 200) cache.put(request, response.clone());
          return response;
        });
      });
    }));
  }
});
