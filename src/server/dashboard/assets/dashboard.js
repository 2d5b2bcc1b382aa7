// loopwright dashboard: live updates. The pages are complete without this script; with it, an
// EventSource on the page's event stream (the API's Server-Sent Events) triggers a refetch of the
// page's live fragment, whose parts ([data-live-part]) replace the page's parts of the same name in
// place (open <details> stay open), so new iterations and phase changes appear without reloading.
(() => {
  const body = document.body;
  const source = body.dataset.liveEvents;
  const fragment = body.dataset.liveFragment;
  if (!source || !fragment || !("EventSource" in window)) return;
  const indicator = document.getElementById("live-state");
  const show = (text) => {
    if (!indicator) return;
    indicator.hidden = false;
    indicator.textContent = text;
  };

  let timer;
  let busy = false;
  let again = false;
  let refreshes = 0;
  const refresh = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const response = await fetch(fragment, {
        headers: { accept: "text/html" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const open = new Set(
          Array.from(
            document.querySelectorAll("[data-live-part] details[open][id]"),
            (element) => element.id,
          ),
        );
        const template = document.createElement("template");
        template.innerHTML = await response.text();
        for (const part of template.content.querySelectorAll("[data-live-part]")) {
          const name = part.getAttribute("data-live-part");
          document.querySelector(`[data-live-part="${CSS.escape(name)}"]`)?.replaceWith(part);
        }
        for (const id of open) document.getElementById(id)?.setAttribute("open", "");
        refreshes += 1;
        body.dataset.refreshes = String(refreshes);
      }
    } catch {
      // The next event tries again.
    } finally {
      busy = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  // At most one refetch per `gap` ms, however many events arrive (fifty busy loops send many).
  const gap = Number(body.dataset.liveGap || 500);
  let last = 0;
  const schedule = () => {
    if (timer !== undefined) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        last = Date.now();
        refresh();
      },
      Math.max(100, last + gap - Date.now()),
    );
  };

  const events = new EventSource(source);
  events.onopen = () => {
    show("● live");
    // Whatever happened while disconnected is fetched at once.
    schedule();
  };
  let polling = false;
  events.onerror = () => {
    if (events.readyState !== EventSource.CLOSED) {
      show("○ reconnecting…");
      return;
    }
    // The stream is refused for good (no event stream here): look again every few seconds instead.
    show("○ polling");
    if (!polling) setInterval(refresh, 5000);
    polling = true;
  };
  // The API sends every timeline event as an unnamed message; heartbeats are comments, never messages.
  events.onmessage = schedule;
  window.addEventListener("pagehide", () => events.close());
})();
