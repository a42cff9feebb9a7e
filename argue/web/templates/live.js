"use strict";
// argue serve: keep the page's #live section current. The server sends the section, already
// rendered and escaped, over server-sent events each time the debate's folder changes; when
// the stream drops, the page asks for it every 2 s and tries the stream again every 10 s.
// Stop and interject are POSTs carrying the token in a header (a cross-site form cannot).
// A 403 means the server no longer knows this page's token: argue serve was restarted (each
// start prints a new one). The page then says so, stops asking, disables its controls, keeps
// what it last saw marked as such, and offers to open the new address in place (#reconnect).
(() => {
  const body = document.body;
  const token = body.dataset.token;
  const live = document.getElementById("live");
  const connection = document.getElementById("connection");
  const controls = document.getElementById("controls");
  const reconnect = document.getElementById("reconnect");
  // The page's own words for the stream's states, in the debate's language (data-* attributes).
  const words = connection ? connection.dataset : {};
  let poller = null;
  let retry = null;
  let source = null;
  let restarted = false;
  const say = (text) => {
    if (connection && text) connection.textContent = text;
  };
  const view = () => (live ? live.firstElementChild : null);
  // A debate that is not running: the page shows its final state (until a resume).
  const ended = () => {
    const shown = view();
    return shown !== null && shown.dataset.ended === "yes";
  };
  const following = () => (ended() ? words.ended : words.open);
  const enableControls = (on) => {
    if (!controls) return;
    controls.hidden = !on;
    for (const field of controls.querySelectorAll("button, textarea, input")) field.disabled = !on;
  };
  const apply = (html) => {
    if (restarted) return;
    const holder = document.createElement("template");
    holder.innerHTML = html;
    live.replaceChildren(holder.content);
    body.dataset.updates = String(Number(body.dataset.updates || "0") + 1);
    const shown = view();
    if (shown) enableControls(shown.dataset.running === "yes");
  };
  const stopAsking = () => {
    if (poller !== null) clearInterval(poller);
    if (retry !== null) clearTimeout(retry);
    if (source !== null) source.close();
    poller = retry = source = null;
  };
  const serverRestarted = () => {
    if (restarted) return;
    restarted = true;
    stopAsking();
    body.dataset.stream = "restarted";
    enableControls(false);
    if (connection) {
      connection.textContent = words.restarted;
      connection.classList.add("alert");
      connection.setAttribute("role", "alert");
    }
    const shown = view();
    if (shown) {
      shown.classList.add("stale");
      shown.dataset.running = "unknown";
      const line = shown.querySelector(".status-line");
      if (line && words.lastSeen) {
        const seen = document.createElement("strong");
        seen.textContent = words.lastSeen;
        line.prepend(seen);
      }
    }
    // Links carrying the old token only lead to a 403 now: they become plain words.
    for (const link of document.querySelectorAll('a[href*="token="]')) link.removeAttribute("href");
    if (reconnect) reconnect.hidden = false;
  };
  const poll = () =>
    fetch(live.dataset.fragment, { headers: { "X-Argue-Token": token }, cache: "no-store" })
      .then((r) => {
        if (r.status === 403) return serverRestarted();
        return r.ok ? r.text().then(apply) : Promise.reject(new Error(String(r.status)));
      })
      .then(
        () => {
          if (!restarted) say(ended() ? words.ended : words.lost);
        },
        () => {
          if (!restarted) say(words.retrying);
        },
      );
  const startPolling = () => {
    if (poller === null) {
      poller = setInterval(poll, 2000);
      poll();
    }
    say(words.lost);
  };
  const connect = () => {
    retry = null;
    if (restarted) return;
    const stream = new EventSource(live.dataset.stream);
    source = stream;
    stream.addEventListener("update", (event) => {
      apply(event.data);
      if (poller !== null) {
        clearInterval(poller);
        poller = null;
      }
      body.dataset.stream = "open";
      say(following());
    });
    stream.onerror = () => {
      stream.close();
      if (restarted) return;
      body.dataset.stream = "lost";
      startPolling();
      if (retry === null) retry = setTimeout(connect, 10000);
    };
  };
  if (live && live.dataset.stream) connect();
  // The new address pasted in: this same page, with the token it carries (a bare token too).
  const newAddress = (text) => {
    const raw = text.trim();
    let url = null;
    try {
      url = new URL(raw);
    } catch (error) {
      url = null;
    }
    let given = raw;
    let origin = location.origin;
    if (url !== null) {
      if (url.protocol !== "http:" && url.protocol !== "https:") return null;
      given = url.searchParams.get("token") || "";
      origin = url.origin;
    }
    if (!/^[A-Za-z0-9_-]{16,}$/.test(given)) return null;
    return `${origin}${location.pathname}?token=${encodeURIComponent(given)}`;
  };
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.action) return;
    event.preventDefault();
    if (form.dataset.action === "reconnect") {
      const target = newAddress(form.elements.namedItem("address").value);
      const said = document.getElementById("reconnect-result");
      if (target === null) {
        said.textContent = said.dataset.bad;
      } else {
        location.assign(target);
      }
      return;
    }
    const result = document.getElementById("result");
    const payload = {};
    if (form.dataset.action === "interject") payload.note = form.elements.namedItem("note").value;
    fetch(form.action, {
      method: "POST",
      headers: { "X-Argue-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(payload),
      cache: "no-store",
    })
      .then((r) => {
        if (r.status === 403) {
          serverRestarted();
          result.textContent = words.restarted;
          return null;
        }
        return r.json().then((data) => {
          result.textContent = r.ok ? data.message : result.dataset.refused + data.error;
          if (r.ok && form.dataset.action === "interject") form.reset();
        });
      })
      .catch(() => {
        result.textContent = result.dataset.unreachable;
      });
  });
})();
