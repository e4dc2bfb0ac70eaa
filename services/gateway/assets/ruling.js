// The chief judge's rulings, for the dashboard (/judge) and the office:
// pending approvals with their clause and game, appeals with the filed
// text, the protocol and the disputed moment, decided with a reason; the
// results waiting for his confirmation (rfm §7.4); seat swaps; the
// standings' ties with the criterion that settled each and a lot drawn
// here; and the audit trail (who, when, why). It reads the gateway's
// /api/ruling/{tournament} and sends every decision to the scoring
// service's Command RPC (ctx.call), the path `mafia tournament` takes:
// the scoring service alone checks and stores it.
//
// mountRulings(el, ctx): ctx = {tournament, token, lang ("en"|"ru"),
// scoringUrl, call(method, reqType, msg, respType), onData(data)?}: onData
// hears each newer /api/ruling answer. Returns {refresh, stop, focus(game)}.
"use strict";

const TEXT = {
  en: {
    approvals: "Pending approvals", appeals: "Open appeals", decided: "Decided appeals", confirm: "Results to confirm",
    swaps: "Seat swap", ties: "Ties in the standings", audit: "Audit trail", none: "none",
    approve: "Approve", refuse: "Refuse", reason: "Reason", reasonNeeded: "A reason is required: nothing was sent.",
    round: "Round", table: "Table", game: "Game", judge: "Judge", winner: "Result", red: "Red win", black: "Black win", draw: "Draw",
    notScored: "not recorded yet", filedBy: "filed by", player: "Player", seat: "Seat", event: "event",
    protocol: "Protocol", disputed: "Disputed moment", hide: "Hide", before: "Before it", after: "After it",
    decide: "Decide", rejected: "Rejected", points_corrected: "Points corrected", result_changed: "Result changed", replay: "Replay",
    newWinner: "New result", addRow: "Add a correction", points: "Points", note: "Note", pointsNeeded: "Each correction needs a player and non-zero points.",
    confirmBtn: "Confirm result", swapBtn: "Swap", swapA: "First seat", swapB: "Second seat", swapSame: "Pick two different seats.",
    drawLot: "Draw a lot", recordLot: "Record this lot", lotOrder: "Order drawn", awaitingLot: "Waiting for a lot",
    decidedBy: "decided by", total: "total", lot: "lot", shared: "shared rank", level: "level",
    sent: "Stored (version %s).", failed: "Refused: %s", sending: "Sending…", noScoring: "The scoring service's address is not configured: decisions cannot be sent.",
    living: "Living", out: "Out", fouls: "Fouls", nominees: "Nominated", tally: "Votes", step: "Step", day: "Day", night: "Night",
    by: "by", at: "at", what: "what", why: "why", only: "Only a chief judge of this tournament rules here.",
    item: {extra_value: (i) => `+${i.points} extra points for seat ${i.seat}`, game_sum: (i) => `the game's extras add up to +${i.sum}`, rewarded: (i) => `${i.count} players rewarded`},
    tieBreaks: {extra_and_penalties: "extras and penalties", extra_penalties_and_best_move: "extras, penalties and best move", fewer_games: "fewer games",
      more_wins: "more wins", more_wins_as_don_or_sheriff: "more wins as don or sheriff", more_first_night_deaths: "more first-night deaths",
      more_best_move_triples_then_doubles: "more best moves of 3, then of 2", highest_single_extra: "highest single extra"},
    actions: {judge_inputs_recorded: "judge's inputs", approval_given: "approved", approval_refused: "refused", appeal_filed: "appeal filed",
      appeal_decided: "appeal decided", lot_drawn: "lot drawn", seats_swapped: "seats swapped", result_confirmed: "result confirmed"},
    roles: {civilian: "civilian", sheriff: "sheriff", mafia: "mafia", don: "don", beauty: "beauty"},
    causes: {vote: "voted out", lift: "lifted", shot: "killed", fouls: "4 fouls", technical_fouls: "technical fouls", disqualified: "disqualified"},
    actors: {organiser: "the organiser", chief_judge: "the chief judge", table_judge: "table judge", referee_log: "the referee's log"},
  },
  ru: {
    approvals: "Ждут утверждения", appeals: "Открытые апелляции", decided: "Решённые апелляции", confirm: "Результаты к подтверждению",
    swaps: "Обмен мест", ties: "Равенства в таблице", audit: "Журнал решений", none: "нет",
    approve: "Утвердить", refuse: "Отклонить", reason: "Причина", reasonNeeded: "Нужна причина: ничего не отправлено.",
    round: "Тур", table: "Стол", game: "Игра", judge: "Судья", winner: "Итог", red: "Победа красных", black: "Победа чёрных", draw: "Ничья",
    notScored: "ещё не записан", filedBy: "подал", player: "Игрок", seat: "Место", event: "событие",
    protocol: "Протокол", disputed: "Спорный момент", hide: "Скрыть", before: "До него", after: "После него",
    decide: "Решить", rejected: "Отклонена", points_corrected: "Баллы исправлены", result_changed: "Результат изменён", replay: "Переигровка",
    newWinner: "Новый итог", addRow: "Добавить исправление", points: "Баллы", note: "Примечание", pointsNeeded: "В каждом исправлении нужны игрок и ненулевые баллы.",
    confirmBtn: "Подтвердить результат", swapBtn: "Поменять", swapA: "Первое место", swapB: "Второе место", swapSame: "Выберите два разных места.",
    drawLot: "Бросить жребий", recordLot: "Записать жребий", lotOrder: "Выпавший порядок", awaitingLot: "Ждут жребия",
    decidedBy: "решено по", total: "сумме", lot: "жребию", shared: "делят место", level: "уровень",
    sent: "Сохранено (версия %s).", failed: "Отказ: %s", sending: "Отправка…", noScoring: "Адрес сервиса подсчёта не настроен: решения не отправить.",
    living: "В игре", out: "Выбыли", fouls: "Фолы", nominees: "Выставлены", tally: "Голоса", step: "Шаг", day: "День", night: "Ночь",
    by: "кто", at: "когда", what: "что", why: "почему", only: "Решения здесь принимает только главный судья этого турнира.",
    item: {extra_value: (i) => `+${i.points} доп. балла месту ${i.seat}`, game_sum: (i) => `сумма доп. баллов игры +${i.sum}`, rewarded: (i) => `награждены ${i.count} игроков`},
    tieBreaks: {extra_and_penalties: "доп. баллы и штрафы", extra_penalties_and_best_move: "доп. баллы, штрафы и лучший ход", fewer_games: "меньше игр",
      more_wins: "больше побед", more_wins_as_don_or_sheriff: "больше побед доном или шерифом", more_first_night_deaths: "больше отстрелов в первую ночь",
      more_best_move_triples_then_doubles: "больше ЛХ на 3, затем на 2", highest_single_extra: "наибольший доп. балл за игру"},
    actions: {judge_inputs_recorded: "ввод судьи", approval_given: "утверждено", approval_refused: "отклонено", appeal_filed: "подана апелляция",
      appeal_decided: "апелляция решена", lot_drawn: "жребий", seats_swapped: "обмен мест", result_confirmed: "результат подтверждён"},
    roles: {civilian: "мирный", sheriff: "шериф", mafia: "мафия", don: "дон", beauty: "красотка"},
    causes: {vote: "заголосован", lift: "поднят", shot: "убит", fouls: "4 фола", technical_fouls: "технические фолы", disqualified: "дисквалифицирован"},
    actors: {organiser: "организатор", chief_judge: "главный судья", table_judge: "судья стола", referee_log: "лог рефери"},
  },
};

const STYLE = `
.rl{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,30rem),1fr));gap:.8rem;align-items:start}
.rl-card{border:1px solid #8884;border-radius:.5rem;padding:.6rem .8rem;min-width:0;overflow-wrap:anywhere}
.rl-card h3{margin:.1rem 0 .5rem;font-size:1.05rem}
.rl-item{border-top:1px solid #8883;padding:.5rem 0}
.rl-item:first-of-type{border-top:0}
.rl-focus{outline:2px solid #f5b82e;outline-offset:2px;border-radius:.3rem}
.rl-title{font-weight:600}
.rl-clause{display:inline-block;font-size:.8em;padding:0 .35em;border:1px solid #8886;border-radius:.3em;margin-left:.3em;white-space:nowrap}
.rl-meta{opacity:.8;font-size:.9em}
.rl-seats{display:flex;flex-wrap:wrap;gap:.2rem .6rem;font-size:.85em;margin:.3rem 0}
.rl-seats span{min-width:0;overflow-wrap:anywhere}
.rl-row{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.3rem 0}
.rl-row input,.rl-row select,.rl-row textarea{font:inherit;min-width:0;max-width:100%}
.rl-row textarea{flex:1 1 14rem;min-height:2.2em}
.rl button{font:inherit;padding:.2rem .7rem;cursor:pointer}
.rl-msg{font-size:.9em;margin:.2rem 0}
.rl-msg.err{color:#d33}
.rl-msg.ok{color:#2a7}
.rl-state{font-size:.85em;white-space:pre-wrap;background:#8881;padding:.3rem;border-radius:.3rem;margin:.2rem 0}
.rl iframe{width:100%;height:24rem;border:1px solid #8884;background:#fff}
.rl table{border-collapse:collapse;width:100%;font-size:.9em}
.rl td,.rl th{text-align:left;padding:.15rem .3rem;border-top:1px solid #8883;overflow-wrap:anywhere}
.rl td.rl-num{white-space:nowrap;overflow-wrap:normal;text-align:right}
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

function fmt(s, ...args) { let i = 0; return s.replace(/%s/g, () => String(args[i++])); }

export function mountRulings(root, ctx) {
  const T = TEXT[ctx.lang === "ru" ? "ru" : "en"];
  if (!document.getElementById("rl-style")) document.head.append(el("style", {id: "rl-style", text: STYLE}));
  const box = el("div", {class: "rl", "data-rulings": ""});
  root.replaceChildren(box);
  // What the chief judge typed, by form, kept across re-renders.
  const drafts = new Map();
  // Messages under each form, by form.
  const notes = new Map();
  // Shown details (protocols, disputed moments, lots drawn), by key.
  const open = new Map();
  let data = null, version = null, timer = null, stopped = false, focused = null;

  const headers = () => ({authorization: "Bearer " + ctx.token});
  const when = (ms) => ms ? new Date(ms).toLocaleString(ctx.lang === "ru" ? "ru-RU" : "en-GB") : "";
  const gameName = (c, id) => {
    const g = c || parseId(id);
    return `${T.round} ${g.round} · ${T.table} ${g.table}${g.game_no > 1 ? ` · ${T.game} ${g.game_no}` : ""}`;
  };
  function parseId(id) {
    const [, stage, r, t, g] = String(id).split(".");
    return {stage, round: Number(String(r).slice(1)), table: Number(String(t).slice(1)), game_no: Number(String(g).slice(1))};
  }
  // mafia_tournament::Actor as JSON: {"role": …, "judge": …}.
  const actor = (a) => !a ? "" : typeof a === "string" ? a : `${T.actors[a.role] || a.role}${a.judge ? " " + a.judge : ""}`;
  const winnerText = (w) => w === "red" ? T.red : w === "black" ? T.black : T.draw;
  const draft = (key, field, fallback = "") => (drafts.get(key) || {})[field] ?? fallback;
  const setDraft = (key, field, value) => drafts.set(key, {...(drafts.get(key) || {}), [field]: value});
  const note = (key) => {
    const n = notes.get(key);
    return n ? el("div", {class: `rl-msg ${n.ok ? "ok" : "err"}`, "data-note": key, text: n.text}) : null;
  };

  async function load() {
    const r = await fetch(`/api/ruling/${encodeURIComponent(ctx.tournament)}`, {headers: headers(), cache: "no-store"});
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(body.error || `HTTP ${r.status}`), {status: r.status});
    return body;
  }

  async function refresh(force) {
    if (stopped) return;
    try {
      const next = await load();
      if (force || next.version !== version || !data) { data = next; version = next.version; render(); if (ctx.onData) ctx.onData(data); }
    } catch (e) {
      data = null;
      box.replaceChildren(el("div", {class: "rl-card rl-msg err", "data-error": String(e.status || ""), text: e.status === 403 || e.status === 401 ? `${T.only} (${e.message})` : e.message}));
    }
  }

  // One command to the scoring service; the board's fold follows the log,
  // so the panel waits for a newer version before it shows the outcome.
  async function send(key, command) {
    if (!ctx.scoringUrl) { notes.set(key, {ok: false, text: T.noScoring}); return render(); }
    notes.set(key, {ok: true, text: T.sending}); render();
    const before = version;
    try {
      const reply = await ctx.call("Command", "mafia.v1.CommandRequest",
        {tournament: ctx.tournament, command_json: JSON.stringify(command)}, "mafia.v1.CommandReply");
      drafts.delete(key);
      notes.set(key, {ok: true, text: fmt(T.sent, reply ? reply.version : "?")});
      for (let i = 0; i < 40 && !stopped; i++) {
        const next = await load().catch(() => null);
        if (next && next.version !== before) { data = next; version = next.version; if (ctx.onData) ctx.onData(data); break; }
        await new Promise((res) => setTimeout(res, 250));
      }
    } catch (e) {
      notes.set(key, {ok: false, text: fmt(T.failed, e.message || String(e))});
    }
    render();
  }

  function seatsLine(c) {
    if (!c || !c.seats || !c.seats.length) return null;
    return el("div", {class: "rl-seats"}, c.seats.map((s) => el("span", {"data-seat": s.seat,
      text: `${s.seat}. ${s.nickname} (${T.roles[s.role] || s.role}${s.out ? ", " + (T.causes[s.out.cause] || s.out.cause) : ""})`})));
  }

  function contextLine(c) {
    if (!c) return null;
    const result = c.scored ? winnerText(c.winner) : T.notScored;
    return el("div", {class: "rl-meta"}, `${c.tournament_name} · ${gameName(c)}${c.judge ? ` · ${T.judge} ${c.judge}` : ""} · ${T.winner}: ${result}`);
  }

  function reasonBox(key) {
    return el("textarea", {"data-reason": key, placeholder: T.reason, rows: "1",
      oninput: (e) => setDraft(key, "reason", e.target.value)}, draft(key, "reason"));
  }

  function reasonOf(key) { return String(draft(key, "reason")).trim(); }

  function approvalItem(a) {
    const key = `approval:${a.game}:${JSON.stringify(a.item)}`;
    const say = T.item[a.kind];
    return el("div", {class: "rl-item", "data-game": a.game, "data-approval": a.game, "data-kind": a.kind},
      el("div", {class: "rl-title"}, say ? say(a.item) : a.kind, el("span", {class: "rl-clause", text: a.clause})),
      contextLine(a.context), seatsLine(a.context),
      el("div", {class: "rl-row"},
        el("button", {"data-act": "approve", onclick: () => send(key, {type: "approve", game: a.game, item: a.item}), text: T.approve}),
        reasonBox(key),
        el("button", {"data-act": "refuse", text: T.refuse, onclick: () => {
          const reason = reasonOf(key);
          if (!reason) { notes.set(key, {ok: false, text: T.reasonNeeded}); return render(); }
          send(key, {type: "refuse", game: a.game, item: a.item, reason});
        }})),
      note(key));
  }

  function viewText(v) {
    if (!v) return "";
    const when = v.when && v.when.day != null ? `${T.day} ${v.when.day}` : v.when ? `${T.night} ${v.when.night}` : "";
    const living = (v.seats || []).filter((s) => s.alive).map((s) => s.seat).join(" ") || "—";
    const out = (v.seats || []).filter((s) => !s.alive).map((s) => `${s.seat} (${s.departure ? T.causes[s.departure.cause] || s.departure.cause : ""})`).join(", ") || "—";
    const fouls = (v.seats || []).filter((s) => s.fouls).map((s) => `${s.seat}: ${s.fouls}`).join(", ") || "—";
    const lines = [`${when} · ${T.step}: ${v.step ? v.step.kind : "—"}`, `${T.living}: ${living}`, `${T.out}: ${out}`, `${T.fouls}: ${fouls}`,
      `${T.nominees}: ${(v.nominees || []).join(" ") || "—"}`];
    if (v.candidates && v.candidates.length) lines.push(`${T.tally}: ${v.candidates.map((c, i) => `${c}: ${v.tally[i] ?? 0}`).join(", ")}`);
    if (v.result) lines.push(`${T.winner}: ${winnerText(v.result.winner)}`);
    return lines.join("\n");
  }

  async function toggle(key, fetcher) {
    if (open.has(key)) { open.delete(key); return render(); }
    open.set(key, {loading: true}); render();
    try { open.set(key, await fetcher()); } catch (e) { open.set(key, {error: e.message || String(e)}); }
    render();
  }

  async function fetchOk(url, as) {
    const r = await fetch(url, {headers: headers(), cache: "no-store"});
    if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(b.error || `HTTP ${r.status}`); }
    return as === "text" ? r.text() : r.json();
  }

  function details(key) {
    const d = open.get(key);
    if (!d) return null;
    if (d.loading) return el("div", {class: "rl-msg", text: T.sending});
    if (d.error) return el("div", {class: "rl-msg err", text: d.error});
    if (d.html != null) return el("iframe", {sandbox: "", srcdoc: d.html, title: T.protocol, "data-protocol": key});
    if (d.state) {
      const s = d.state;
      return el("div", {"data-state": String(s.seq)},
        el("div", {class: "rl-meta", text: `${T.event} ${s.seq}: ${s.event.event.type} ${JSON.stringify(Object.fromEntries(Object.entries(s.event.event).filter(([k]) => k !== "type")))}`}),
        el("div", {class: "rl-meta", text: T.before}), el("div", {class: "rl-state", text: viewText(s.before)}),
        el("div", {class: "rl-meta", text: T.after}), el("div", {class: "rl-state", text: viewText(s.after)}));
    }
    return null;
  }

  function decisionForm(a) {
    const key = `appeal:${a.id}`;
    const kind = draft(key, "kind", "rejected");
    const rows = draft(key, "rows", []);
    const seats = (a.context && a.context.seats) || [];
    const kinds = ["rejected", "points_corrected", "result_changed", "replay"];
    const form = el("div", {class: "rl-row"},
      el("select", {"data-decision-kind": String(a.id), onchange: (e) => { setDraft(key, "kind", e.target.value); render(); }},
        kinds.map((k) => el("option", {value: k, selected: k === kind, text: T[k]}))));
    const extra = [];
    if (kind === "result_changed") {
      extra.push(el("div", {class: "rl-row"}, el("span", {text: T.newWinner}),
        el("select", {"data-winner": String(a.id), onchange: (e) => setDraft(key, "winner", e.target.value)},
          ["red", "black", "draw"].map((w) => el("option", {value: w, selected: draft(key, "winner", "red") === w, text: winnerText(w)})))));
    }
    if (kind === "points_corrected") {
      const list = rows.length ? rows : [{player: a.player || (seats[0] && seats[0].player) || "", points: "", note: ""}];
      if (!rows.length) setDraft(key, "rows", list);
      list.forEach((row, i) => {
        const upd = (f) => (e) => { const next = draft(key, "rows", []).map((r, j) => j === i ? {...r, [f]: e.target.value} : r); setDraft(key, "rows", next); };
        extra.push(el("div", {class: "rl-row", "data-correction": String(i)},
          el("select", {"data-field": "player", onchange: upd("player")},
            seats.map((s) => el("option", {value: s.player, selected: s.player === row.player, text: `${s.seat}. ${s.nickname}`}))),
          el("input", {"data-field": "points", type: "number", step: "0.05", placeholder: T.points, value: row.points, oninput: upd("points"), style: "width:6rem"}),
          el("input", {"data-field": "note", placeholder: T.note, value: row.note, oninput: upd("note")})));
      });
      extra.push(el("div", {class: "rl-row"}, el("button", {"data-act": "add-correction", text: T.addRow,
        onclick: () => { setDraft(key, "rows", [...draft(key, "rows", []), {player: seats[0] ? seats[0].player : "", points: "", note: ""}]); render(); }})));
    }
    const submit = () => {
      const reason = reasonOf(key);
      if (!reason) { notes.set(key, {ok: false, text: T.reasonNeeded}); return render(); }
      let decision = {kind};
      if (kind === "result_changed") { const w = draft(key, "winner", "red"); decision.winner = w === "draw" ? null : w; }
      if (kind === "points_corrected") {
        const corrections = draft(key, "rows", []).map((r) => ({player: r.player, points: Number(r.points), note: r.note || ""}));
        if (!corrections.length || corrections.some((c) => !c.player || !Number.isFinite(c.points) || c.points === 0)) {
          notes.set(key, {ok: false, text: T.pointsNeeded}); return render();
        }
        decision.corrections = corrections;
      }
      send(key, {type: "decide_appeal", appeal: a.id, decision, reason});
    };
    return [form, ...extra, el("div", {class: "rl-row"}, reasonBox(key), el("button", {"data-act": "decide", onclick: submit, text: T.decide})), note(key)];
  }

  function appealItem(a) {
    const pkey = `protocol:${a.id}`, skey = `state:${a.id}`;
    const c = a.context;
    return el("div", {class: "rl-item", "data-game": a.game, "data-appeal": String(a.id)},
      el("div", {class: "rl-title", text: `№${a.id} · ${gameName(c, a.game)}${a.nickname ? ` · ${a.nickname}` : ""}`}),
      el("div", {class: "rl-text", text: a.text}),
      el("div", {class: "rl-meta", text: `${T.filedBy} ${actor(a.filed_by)} · ${when(a.filed_at)}${a.event_seq ? ` · ${T.event} ${a.event_seq}` : ""}`}),
      contextLine(c), seatsLine(c),
      el("div", {class: "rl-row"},
        el("button", {"data-act": "protocol", text: open.has(pkey) ? T.hide : T.protocol,
          onclick: () => toggle(pkey, async () => ({html: await fetchOk(`/api/protocol/${encodeURIComponent(a.game)}`, "text")}))}),
        a.event_seq ? el("button", {"data-act": "disputed", text: open.has(skey) ? T.hide : T.disputed,
          onclick: () => toggle(skey, async () => ({state: await fetchOk(`/api/ruling/${encodeURIComponent(ctx.tournament)}/state/${encodeURIComponent(a.game)}?seq=${a.event_seq}`)}))}) : null),
      details(pkey), details(skey),
      a.decided ? null : decisionForm(a));
  }

  function decidedItem(a) {
    const d = a.decided;
    const nick = (p) => ((a.context && a.context.seats) || []).find((s) => s.player === p)?.nickname || p;
    const corr = (d.decision.corrections || []).map((c) => `${nick(c.player)} ${c.points > 0 ? "+" : ""}${c.points}`).join(", ");
    const win = d.kind === "result_changed" ? ` → ${winnerText(d.decision.winner)}` : "";
    return el("div", {class: "rl-item", "data-appeal": String(a.id), "data-decision": d.kind},
      el("div", {class: "rl-title", text: `№${a.id} · ${gameName(a.context, a.game)}: ${T[d.kind] || d.kind}${win}${corr ? ` (${corr})` : ""}`}),
      el("div", {class: "rl-text", text: a.text}),
      el("div", {class: "rl-meta", text: `${T.by} ${actor(d.by)} · ${when(d.at)} · ${T.why}: ${d.reason}`}));
  }

  function confirmItem(c) {
    const key = `confirm:${c.game}`;
    return el("div", {class: "rl-item", "data-game": c.game, "data-confirm": c.game},
      contextLine(c),
      el("div", {class: "rl-row"}, el("button", {"data-act": "confirm", text: T.confirmBtn, onclick: () => send(key, {type: "confirm_result", game: c.game})})),
      note(key));
  }

  function swapCard(seating) {
    if (!seating || !seating.tables || !seating.tables.length) return null;
    const key = "swap";
    const places = seating.tables.flatMap((t) => t.seats.map((s) => ({value: `${t.table}:${s.seat}`, text: `${T.table} ${t.table} · ${s.seat}. ${s.nickname}`})));
    const pick = (field) => el("select", {"data-swap": field, onchange: (e) => setDraft(key, field, e.target.value)},
      places.map((p) => el("option", {value: p.value, selected: draft(key, field, field === "a" ? places[0].value : places[1] ? places[1].value : places[0].value) === p.value, text: p.text})));
    const go = () => {
      const a = draft(key, "a", places[0].value), b = draft(key, "b", places[1] ? places[1].value : places[0].value);
      if (a === b) { notes.set(key, {ok: false, text: T.swapSame}); return render(); }
      const place = (v) => { const [table, seat] = v.split(":").map(Number); return {table, seat}; };
      send(key, {type: "swap_seats", stage: seating.stage, round: seating.round, a: place(a), b: place(b)});
    };
    return el("div", {class: "rl-card", id: "rl-swaps"}, el("h3", {text: `${T.swaps} · ${T.round} ${seating.round}`}),
      el("div", {class: "rl-row"}, el("span", {text: T.swapA}), pick("a")),
      el("div", {class: "rl-row"}, el("span", {text: T.swapB}), pick("b")),
      el("div", {class: "rl-row"}, el("button", {"data-act": "swap", text: T.swapBtn, onclick: go})), note(key));
  }

  function decidedText(d) {
    if (!d) return "";
    if (d.by === "tie_break") return `${T.decidedBy} ${T.tieBreaks[d.tie_break] || d.tie_break} (${T.level} ${d.level})`;
    if (d.by === "lot") return `${T.decidedBy} ${T.lot}`;
    if (d.by === "shared") return T.shared;
    return "";
  }

  // Each tie (rows whose total equals the row above's) with what settled
  // it, and each group still waiting for a lot with its draw.
  function tiesCard(st) {
    if (!st) return null;
    const rows = st.rows;
    const tied = rows.filter((r, i) => r.games > 0 && ((i > 0 && r.total === rows[i - 1].total) || (rows[i + 1] && rows[i + 1].total === r.total)));
    const byId = new Map(rows.map((r) => [r.player, r]));
    const groups = (st.awaiting_lot || []).map((g, n) => {
      const key = `lot:${g.join(",")}`;
      const drawn = open.get(key);
      return el("div", {class: "rl-item", "data-lot": String(n)},
        el("div", {class: "rl-title", text: `${T.awaitingLot}: ${g.map((p) => (byId.get(p) || {nickname: p}).nickname).join(", ")}`}),
        drawn && drawn.order ? el("div", {class: "rl-meta", "data-drawn": drawn.order.join(","), text: `${T.lotOrder}: ${drawn.order.map((p, i) => `${i + 1}. ${(byId.get(p) || {nickname: p}).nickname}`).join("; ")}`}) : null,
        el("div", {class: "rl-row"},
          el("button", {"data-act": "draw-lot", text: T.drawLot, onclick: () => { open.set(key, {order: shuffled(g)}); render(); }}),
          drawn && drawn.order ? el("button", {"data-act": "record-lot", text: T.recordLot, onclick: () => { open.delete(key); send(key, {type: "draw_lot", players: drawn.order}); }}) : null),
        note(key));
    });
    if (!tied.length && !groups.length) return null;
    return el("div", {class: "rl-card", id: "rl-ties"}, el("h3", {text: T.ties}),
      tied.length ? el("table", {}, el("tbody", {}, tied.map((r) => el("tr", {"data-player": r.player, "data-decided": r.decided_by ? r.decided_by.by : ""},
        el("td", {class: "rl-num", text: String(r.rank)}), el("td", {text: r.nickname}), el("td", {class: "rl-num", text: Number(r.total).toFixed(2)}), el("td", {text: decidedText(r.decided_by)}))))) : null,
      groups);
  }

  function shuffled(list) {
    const a = list.slice();
    const r = new Uint32Array(a.length);
    crypto.getRandomValues(r);
    for (let i = a.length - 1; i > 0; i--) { const j = r[i] % (i + 1); [a[i], a[j]] = [a[j], a[i]]; }
    return a;
  }

  function auditLine(e) {
    const game = e.game ? gameName(null, e.game) : "";
    const what = [T.actions[e.type] || e.type, game, e.appeal ? `№${e.appeal}` : "",
      e.item ? (T.item[e.item.item] ? T.item[e.item.item](e.item) : e.item.item) : "",
      e.decision ? (T[e.decision.kind] || e.decision.kind) : "",
      e.players ? e.players.join(", ") : "",
      e.a && e.b ? `${T.table} ${e.a.table}/${e.a.seat} ↔ ${T.table} ${e.b.table}/${e.b.seat}` : "",
      e.text || ""].filter(Boolean).join(" · ");
    const by = actor(e.by);
    return el("tr", {"data-audit": e.type},
      el("td", {text: when(e.at)}), el("td", {text: by}), el("td", {text: what}), el("td", {text: e.reason || ""}));
  }

  function card(id, title, items, line) {
    return el("div", {class: "rl-card", id},
      el("h3", {text: `${title}${items.length ? ` (${items.length})` : ""}`}),
      items.length ? items.map(line) : el("div", {class: "rl-meta", text: T.none}));
  }

  function render() {
    if (!data) return;
    // Keep the focus and caret in a form being typed into.
    const active = document.activeElement && box.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = active ? ["data-reason", "data-field", "data-swap"].map((a) => active.getAttribute(a) != null ? `[${a}="${active.getAttribute(a)}"]` : "").join("") : "";
    const holder = active && active.closest("[data-appeal],[data-approval],[data-correction]");
    const openAppeals = data.appeals.filter((a) => !a.decided);
    const decided = data.appeals.filter((a) => a.decided).reverse();
    box.setAttribute("data-version", String(data.version));
    // A card with nothing to show is null, which replaceChildren would
    // write as the text "null".
    box.replaceChildren(...[
      card("rl-approvals", T.approvals, data.approvals, approvalItem),
      card("rl-appeals", T.appeals, openAppeals, appealItem),
      card("rl-confirm", T.confirm, data.confirmations || [], confirmItem),
      tiesCard(data.standings),
      swapCard(data.seating),
      card("rl-decided", T.decided, decided, decidedItem),
      el("div", {class: "rl-card", id: "rl-audit"}, el("h3", {text: T.audit}),
        data.audit.length ? el("table", {}, el("thead", {}, el("tr", {}, [T.at, T.by, T.what, T.why].map((h) => el("th", {text: h})))),
          el("tbody", {}, data.audit.slice().reverse().map(auditLine))) : el("div", {class: "rl-meta", text: T.none}))].filter(Boolean));
    box.querySelectorAll(".rl-focus").forEach((n) => n.classList.remove("rl-focus"));
    if (focused) box.querySelectorAll(`[data-game="${CSS.escape(focused)}"]`).forEach((n) => n.classList.add("rl-focus"));
    if (active && focusKey) {
      const sel = holder ? [...box.querySelectorAll(focusKey)].find((n) => {
        const h = n.closest("[data-appeal],[data-approval],[data-correction]");
        return h && holder.getAttribute("data-appeal") === h.getAttribute("data-appeal") && holder.getAttribute("data-approval") === h.getAttribute("data-approval");
      }) : box.querySelector(focusKey);
      if (sel) { sel.focus(); if (sel.setSelectionRange && typeof sel.value === "string") sel.setSelectionRange(sel.value.length, sel.value.length); }
    }
  }

  const tick = async () => { await refresh(false); if (!stopped) timer = setTimeout(tick, 3000); };
  tick();
  // The chief judge's actions on one game (the table board's link): its
  // items outlined and the first brought into view.
  function focus(game) {
    focused = game;
    render();
    const first = box.querySelector(`[data-game="${CSS.escape(game)}"]`);
    (first || box).scrollIntoView({block: "start"});
  }
  return {refresh: () => refresh(true), stop: () => { stopped = true; clearTimeout(timer); }, focus};
}
