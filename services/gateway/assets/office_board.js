// The live table board of a tournament's current round, for the office
// and the chief judge's dashboard, as a scorer's control shows a hall:
// every table with its state (not opened; opened; in play, with its phase
// and the time since its last command; finished: awaiting the result,
// the judge's inputs, approval, or scored), whether its judge's console
// is connected, and alerts; one click to the table's protocol and one to
// the chief judge's actions on it. Reads /api/board/{tournament} every
// few seconds (services/gateway/src/table_board.rs).
//
// mountBoard(el, ctx): ctx = {tournament, token, lang ("en"|"ru"),
// onActions(game)?}. Returns {refresh, stop}.
"use strict";

const TEXT = {
  en: {
    table: "Table", round: "Round", stage: "Stage", judge: "Judge", noRound: "No round is seated yet.", day: "Day", night: "Night",
    status: {not_opened: "Not opened", opened: "Opened, not dealt", in_play: "In play", finished: "Finished"},
    finished: {awaiting_result: "awaiting the result", awaiting_inputs: "awaiting the judge's inputs", awaiting_approval: "awaiting approval", scored: "scored"},
    console: {on: "Console connected", off: "Console not connected"},
    lastCommand: (s) => `last command ${s} ago`,
    alerts: {tie: "Tie vote", lift: "Lift vote", removal: "Removal", opposite_team_victory: "Opposite-team victory", idle: "No command for 5 min",
      awaiting_approval: "Awaits approval", awaiting_confirmation: "Result to confirm", open_appeal: "Open appeal", console_offline: "Console offline"},
    protocol: "Protocol", actions: "Chief judge's actions", hide: "Hide", loading: "Loading…",
    steps: {before_deal: "before the deal", night0: "night 0", speech: "speech", free_talk: "free talk", vote_call: "vote call", voting: "voting",
      roll_call: "roll call", lift: "lift vote", last_words: "last words", night: "night", best_move: "best move", ended: "ended"},
  },
  ru: {
    table: "Стол", round: "Тур", stage: "Этап", judge: "Судья", noRound: "Тур ещё не рассажен.", day: "День", night: "Ночь",
    status: {not_opened: "Не открыт", opened: "Открыт, не роздан", in_play: "Идёт игра", finished: "Окончен"},
    finished: {awaiting_result: "ждёт результата", awaiting_inputs: "ждёт ввода судьи", awaiting_approval: "ждёт утверждения", scored: "подсчитан"},
    console: {on: "Пульт на связи", off: "Пульт не на связи"},
    lastCommand: (s) => `последняя команда ${s} назад`,
    alerts: {tie: "Ничья в голосовании", lift: "Голосование за подъём", removal: "Удаление", opposite_team_victory: "Победа команды соперника", idle: "Нет команд 5 мин",
      awaiting_approval: "Ждёт утверждения", awaiting_confirmation: "Результат к подтверждению", open_appeal: "Открыта апелляция", console_offline: "Пульт не на связи"},
    protocol: "Протокол", actions: "Действия главного судьи", hide: "Скрыть", loading: "Загрузка…",
    steps: {before_deal: "до раздачи", night0: "нулевая ночь", speech: "речь", free_talk: "свободное обсуждение", vote_call: "выставление на голосование", voting: "голосование",
      roll_call: "поимённое голосование", lift: "голосование за подъём", last_words: "последнее слово", night: "ночь", best_move: "лучший ход", ended: "окончена"},
  },
};

const STYLE = `
.ob{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,17rem),1fr));gap:.6rem}
.ob-table{border:1px solid #8884;border-radius:.5rem;padding:.5rem .7rem;min-width:0;overflow-wrap:anywhere;border-left-width:.4rem}
.ob-table[data-status=not_opened]{border-left-color:#888}
.ob-table[data-status=opened]{border-left-color:#4a8fe0}
.ob-table[data-status=in_play]{border-left-color:#2fae6b}
.ob-table[data-status=finished]{border-left-color:#b07be0}
.ob-head{display:flex;flex-wrap:wrap;gap:.2rem .6rem;align-items:baseline}
.ob-name{font-weight:700;font-size:1.1rem}
.ob-status{font-weight:600}
.ob-meta{opacity:.85;font-size:.9em}
.ob-dot{display:inline-block;width:.7em;height:.7em;border-radius:50%;margin-right:.3em;background:#888;vertical-align:baseline}
.ob-dot.on{background:#2fae6b}
.ob-alerts{display:flex;flex-wrap:wrap;gap:.25rem;margin:.3rem 0}
.ob-alert{font-size:.8em;padding:.05rem .4rem;border-radius:.3rem;background:#d33;color:#fff}
.ob-row{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.3rem}
.ob button{font:inherit;font-size:.9em;padding:.15rem .6rem;cursor:pointer}
.ob-protocol{grid-column:1/-1}
.ob-protocol iframe{width:100%;height:26rem;border:1px solid #8884;background:#fff}
.ob-err{color:#d33}
`;

function el(tag, attrs, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "text") n.textContent = v;
    else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k != null && k !== false) n.append(k);
  return n;
}

function ago(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 3600 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function mountBoard(root, ctx) {
  const T = TEXT[ctx.lang === "ru" ? "ru" : "en"];
  if (!document.getElementById("ob-style")) document.head.append(el("style", {id: "ob-style", text: STYLE}));
  const box = el("div", {class: "ob", "data-board": ""});
  root.replaceChildren(box);
  let data = null, timer = null, stopped = false, fetchedAt = 0;
  // The table whose protocol is shown, and its HTML.
  let shown = null;

  async function refresh() {
    try {
      const r = await fetch(`/api/board/${encodeURIComponent(ctx.tournament)}`, {headers: {authorization: "Bearer " + ctx.token}, cache: "no-store"});
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw Object.assign(new Error(body.error || `HTTP ${r.status}`), {status: r.status});
      const same = data && JSON.stringify({...data, now_ms: 0}) === JSON.stringify({...body, now_ms: 0});
      data = body; fetchedAt = Date.now();
      if (!same) render();
    } catch (e) {
      box.replaceChildren(el("div", {class: "ob-err", "data-error": String(e.status || ""), text: e.message}));
    }
  }

  async function protocol(game) {
    if (shown && shown.game === game) { shown = null; return render(); }
    shown = {game, loading: true}; render();
    try {
      const r = await fetch(`/api/protocol/${encodeURIComponent(game)}`, {headers: {authorization: "Bearer " + ctx.token}, cache: "no-store"});
      if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(b.error || `HTTP ${r.status}`); }
      shown = {game, html: await r.text()};
    } catch (e) { shown = {game, error: e.message}; }
    render();
  }

  function phase(p) {
    if (!p) return "";
    const when = p.day != null ? `${T.day} ${p.day}` : p.night != null ? `${T.night} ${p.night}` : "";
    return [when, T.steps[p.step] || p.step].filter(Boolean).join(" · ");
  }

  function tile(t) {
    const now = data.now_ms + (Date.now() - fetchedAt);
    const status = T.status[t.status] || t.status;
    const detail = t.status === "finished" ? (T.finished[t.finished] || t.finished) : t.status === "in_play" ? phase(t.phase) : "";
    return el("div", {class: "ob-table", "data-table": String(t.table), "data-status": t.status, "data-finished": t.finished || "",
      "data-console": t.console.connected ? "on" : "off", "data-game": t.game || ""},
      el("div", {class: "ob-head"},
        el("span", {class: "ob-name", text: `${T.table} ${t.table}`}),
        el("span", {class: "ob-status", text: detail ? `${status}: ${detail}` : status})),
      el("div", {class: "ob-meta"}, t.judge ? `${T.judge}: ${t.judge}` : "",
        t.last_command_at ? el("span", {"data-last": String(t.last_command_at), text: ` · ${T.lastCommand(ago(now - t.last_command_at))}`}) : null),
      el("div", {class: "ob-meta"}, el("span", {class: `ob-dot${t.console.connected ? " on" : ""}`}), t.console.connected ? T.console.on : T.console.off),
      t.alerts.length ? el("div", {class: "ob-alerts"}, t.alerts.map((a) => el("span", {class: "ob-alert", "data-alert": a, text: T.alerts[a] || a}))) : null,
      t.game ? el("div", {class: "ob-row"},
        t.status !== "not_opened" ? el("button", {"data-act": "protocol", text: shown && shown.game === t.game ? T.hide : T.protocol, onclick: () => protocol(t.game)}) : null,
        ctx.onActions ? el("button", {"data-act": "actions", text: T.actions, onclick: () => ctx.onActions(t.game)}) : null) : null);
  }

  function render() {
    if (!data) return;
    box.setAttribute("data-version", String(data.version));
    if (!data.round) return box.replaceChildren(el("div", {class: "ob-meta", text: T.noRound}));
    const tiles = data.tables.map(tile);
    const at = shown ? data.tables.findIndex((t) => t.game === shown.game) : -1;
    if (at >= 0) {
      const view = shown.loading ? el("div", {class: "ob-meta", text: T.loading}) : shown.error ? el("div", {class: "ob-err", text: shown.error})
        : el("iframe", {sandbox: "", srcdoc: shown.html, title: T.protocol});
      tiles.splice(at + 1, 0, el("div", {class: "ob-protocol", "data-protocol": shown.game}, view));
    }
    box.replaceChildren(el("div", {class: "ob-meta", style: "grid-column:1/-1", text: `${data.name} · ${T.stage} ${data.stage} · ${T.round} ${data.round}`}), ...tiles);
  }

  const tick = async () => { await refresh(); if (!stopped) timer = setTimeout(tick, 3000); };
  tick();
  // The times since the last command run between fetches.
  const clock = setInterval(() => {
    if (!data) return;
    const now = data.now_ms + (Date.now() - fetchedAt);
    for (const n of box.querySelectorAll("[data-last]")) n.textContent = ` · ${T.lastCommand(ago(now - Number(n.dataset.last)))}`;
  }, 1000);
  return {refresh, stop: () => { stopped = true; clearTimeout(timer); clearInterval(clock); }};
}
