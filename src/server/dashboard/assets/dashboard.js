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
  events.onmessage = schedule;
  // Events may be named by their type; every timeline event refreshes, heartbeats do not.
  const types = [
    "loop_created",
    "loop_queued",
    "loop_deleted",
    "run_started",
    "run_ended",
    "processes_swept",
    "engines_resolved",
    "loop_prepared",
    "setup_ran",
    "steer_requested",
    "steering_applied",
    "pause_requested",
    "resume_requested",
    "cancel_requested",
    "loop_paused",
    "loop_resumed",
    "loop_parked",
    "loop_unparked",
    "iteration_started",
    "maker_started",
    "maker_ended",
    "commit_created",
    "change_screened",
    "gate_started",
    "gate_ended",
    "gate_interrupted",
    "tamper_flagged",
    "verdict_rejected",
    "verifier_started",
    "verifier_ended",
    "iteration_ended",
    "replan_started",
    "replan_ended",
    "loop_finished",
    "pull_request_recorded",
    "loop_stopped",
    "event",
  ];
  for (const type of types) events.addEventListener(type, schedule);
  window.addEventListener("pagehide", () => events.close());
})();
