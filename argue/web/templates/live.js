"use strict";
// argue serve: keep the page's #live section current. The server sends the section, already
// rendered and escaped, over server-sent events each time the debate's folder changes; when
// the stream drops, the page asks for it every 2 s and tries the stream again every 10 s.
// Stop and interject are POSTs carrying the token in a header (a cross-site form cannot).
(() => {
  const body = document.body;
  const token = body.dataset.token;
  const live = document.getElementById("live");
  const connection = document.getElementById("connection");
  const controls = document.getElementById("controls");
  // The page's own words for the stream's states, in the debate's language (data-* attributes).
  const words = connection ? connection.dataset : {};
  let poller = null;
  const say = (text) => {
    if (connection && text) connection.textContent = text;
  };
  const apply = (html) => {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    live.replaceChildren(holder.content);
    body.dataset.updates = String(Number(body.dataset.updates || "0") + 1);
    const view = live.firstElementChild;
    if (controls && view) controls.hidden = view.dataset.running !== "yes";
  };
  const poll = () =>
    fetch(live.dataset.fragment, { headers: { "X-Argue-Token": token }, cache: "no-store" })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then(apply, () => say(words.retrying));
  const startPolling = () => {
    if (poller === null) {
      poller = setInterval(poll, 2000);
      poll();
    }
    say(words.lost);
  };
  const connect = () => {
    const source = new EventSource(live.dataset.stream);
    source.addEventListener("update", (event) => {
      apply(event.data);
      if (poller !== null) {
        clearInterval(poller);
        poller = null;
      }
      body.dataset.stream = "open";
      say(words.open);
    });
    source.onerror = () => {
      source.close();
      body.dataset.stream = "lost";
      startPolling();
      setTimeout(connect, 10000);
    };
  };
  if (live && live.dataset.stream) connect();
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.action) return;
    event.preventDefault();
    const result = document.getElementById("result");
    const payload = {};
    if (form.dataset.action === "interject") payload.note = form.elements.namedItem("note").value;
    fetch(form.action, {
      method: "POST",
      headers: { "X-Argue-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(payload),
      cache: "no-store",
    })
      .then((r) => r.json().then((data) => ({ ok: r.ok, data })))
      .then(({ ok, data }) => {
        result.textContent = ok ? data.message : result.dataset.refused + data.error;
        if (ok && form.dataset.action === "interject") form.reset();
      })
      .catch(() => {
        result.textContent = result.dataset.unreachable;
      });
  });
})();
