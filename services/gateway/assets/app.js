// Shared code of the gateway's screens: language, tokens, the raw feed
// (FEED.md) with resume, and rendering helpers. No build step, no deps.
"use strict";

const params = new URLSearchParams(location.search);
const TOKEN = params.get("token") || "";
const LANG = (params.get("lang") || (navigator.language || "en")).toLowerCase().startsWith("ru") ? "ru" : "en";

// The gateway's clock minus ours: timers count from the judge's `at`
// stamps, which are server-side times, not this viewer's clock.
let clockOffset = 0;
async function syncClock() {
  try {
    const t0 = Date.now();
    const r = await fetch("/api/clock", {cache: "no-store"});
    const {server_ms} = await r.json();
    const t1 = Date.now();
    clockOffset = server_ms + (t1 - t0) / 2 - t1;
  } catch (e) { /* keep the last offset */ }
}
syncClock();
setInterval(syncClock, 60000);
function serverNow() { return Date.now() + clockOffset; }

const TEXT = {
  en: {
    hall: "Tables", table: "Table", round: "Round", day: "Day", night: "Night",
    speaker: "Speaking", nominees: "Nominees", lastNight: "Last night", killed: "killed", miss: "miss",
    out: "out", fouls: "fouls", votes: "votes", ended: "Game over", winner: "Winner",
    red: "Red (civilians)", black: "Black (mafia)", draw: "Draw", noTables: "No tables yet",
    pick: "Pick a table", log: "Game log", connecting: "Connecting…", alerts: "Alerts",
    tie: "Tie vote", lift: "Lift vote", removal: "Removal", otv: "Opposite-team victory",
    confirm: "Finished: awaiting confirmation", idle: "No command for", min: "min", allLive: "All tables, live",
    steps: {night0: "Night 0", speech: "Speech", free_talk: "Free talk", vote_call: "Vote call", voting: "Voting",
      roll_call: "Roll call", lift: "Lift vote", last_words: "Last words", night: "Night", best_move: "Best move", ended: "Ended"},
    causes: {vote: "voted out", lift: "lifted", shot: "shot", fouls: "4 fouls", technical_fouls: "technical fouls", disqualified: "removed"},
    roles: {civilian: "Civilian", sheriff: "Sheriff", mafia: "Mafia", don: "Don", beauty: "Beauty"},
  },
  ru: {
    hall: "Столы", table: "Стол", round: "Тур", day: "День", night: "Ночь",
    speaker: "Говорит", nominees: "Выставлены", lastNight: "Прошлая ночь", killed: "убит", miss: "промах",
    out: "выбыл", fouls: "фолы", votes: "голоса", ended: "Игра окончена", winner: "Победа",
    red: "Красные (мирные)", black: "Чёрные (мафия)", draw: "Ничья", noTables: "Столов пока нет",
    pick: "Выберите стол", log: "Ход игры", connecting: "Подключение…", alerts: "Тревоги",
    tie: "Ничья в голосовании", lift: "Голосование за подъём", removal: "Удаление", otv: "Победа команды соперника",
    confirm: "Игра окончена: ждёт подтверждения", idle: "Нет команд", min: "мин", allLive: "Все столы, в реальном времени",
    steps: {night0: "Нулевая ночь", speech: "Речь", free_talk: "Свободное общение", vote_call: "Нужно ли голосование", voting: "Голосование",
      roll_call: "Поимённое голосование", lift: "Голосование за подъём", last_words: "Последнее слово", night: "Ночь", best_move: "Лучший ход", ended: "Окончена"},
    causes: {vote: "заголосован", lift: "поднят", shot: "убит ночью", fouls: "4 фола", technical_fouls: "техфолы", disqualified: "удалён"},
    roles: {civilian: "Мирный", sheriff: "Шериф", mafia: "Мафия", don: "Дон", beauty: "Красотка"},
  },
};
const T = TEXT[LANG];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

function wsUrl(path, extra) {
  const q = new URLSearchParams(extra || {});
  if (TOKEN) q.set("token", TOKEN);
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const qs = q.toString();
  return `${proto}//${location.host}${path}${qs ? "?" + qs : ""}`;
}

// RFC 7386, as the server's patch module.
function mergePatch(target, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  if (target === null || typeof target !== "object" || Array.isArray(target)) target = {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k]; else target[k] = mergePatch(target[k], v);
  }
  return target;
}

// Follows one game; calls onState({seq, view, events}) after each message.
function followTable(gameId, onState) {
  const st = {seq: 0, view: null, events: []};
  let have = false;
  function open() {
    const ws = new WebSocket(wsUrl(`/ws/game/${encodeURIComponent(gameId)}`, have ? {from: st.seq} : {}));
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "snapshot") {
        st.seq = msg.seq; st.view = msg.view; have = true;
      } else if (msg.type === "delta") {
        if (msg.seq !== st.seq + 1) { have = false; ws.close(); return; }
        st.seq = msg.seq; st.view = mergePatch(st.view, msg.patch); st.events.push(msg.event);
        if (st.events.length > 500) st.events.shift();
      }
      onState(st, msg);
    };
    ws.onclose = () => setTimeout(open, 1000);
  }
  open();
}

// Follows every game; calls onTables(map game_id -> {info, seq, view, seen}).
function followHall(onTables) {
  const tables = new Map();
  function open() {
    const ws = new WebSocket(wsUrl("/ws/hall"));
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      const now = Date.now();
      if (msg.type === "tables") {
        for (const t of msg.tables) tables.set(t.game_id, {info: t.info, seq: t.seq, view: t.view, seen: now});
      } else if (msg.type === "table") {
        const old = tables.get(msg.game_id);
        if (!old || msg.seq > old.seq) tables.set(msg.game_id, {info: old ? old.info : {game_id: msg.game_id}, seq: msg.seq, view: msg.view, seen: now});
      }
      onTables(tables);
    };
    ws.onclose = () => setTimeout(open, 1000);
  }
  open();
}

function stepName(view) {
  if (!view) return T.connecting;
  if (view.result) return T.ended;
  const kind = view.step ? view.step.kind : "night";
  return T.steps[kind] || kind;
}

function phaseName(view) {
  if (!view || !view.when) return "";
  return view.when.day != null ? `${T.day} ${view.when.day}` : `${T.night} ${view.when.night}`;
}

function speaker(view) {
  const s = view && view.step;
  return s && (s.kind === "speech" || s.kind === "last_words" || s.kind === "best_move") ? s.seat : null;
}

// Seconds left in the current step or speech, or null.
function countdown(view) {
  const s = view && view.step;
  if (!s || !s.secs) return null;
  const started = view.speech_started_at || view.step_started_at;
  if (!started) return s.secs;
  // Clamped: the judge's clock and the gateway's may still disagree.
  return Math.min(s.secs, Math.max(0, Math.round(s.secs - (serverNow() - started) / 1000)));
}

function fmtSecs(n) {
  if (n == null) return "";
  return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
}

function resultText(view) {
  if (!view || !view.result) return "";
  const w = view.result.winner;
  return `${T.winner}: ${w === "red" ? T.red : w === "black" ? T.black : T.draw}`;
}

// The seat shot on the latest night, if the audience may see it.
function lastNight(view) {
  if (!view) return null;
  let best = null;
  for (const s of view.seats || []) {
    const d = s.departure;
    if (d && d.cause === "shot" && d.when && d.when.night != null && (!best || d.when.night > best.night)) best = {night: d.when.night, seat: s.seat};
  }
  return best;
}

function seatChips(view, opts) {
  const wrap = el("div", {class: "seats"});
  const nominees = new Set((view && view.nominees) || []);
  const cands = (view && view.candidates) || [];
  const talker = speaker(view);
  for (const s of (view && view.seats) || []) {
    const cls = ["seat"];
    if (!s.alive) cls.push("out");
    if (nominees.has(s.seat)) cls.push("nominated");
    if (talker === s.seat) cls.push("speaking");
    if (s.role) cls.push("role-" + s.role);
    const chip = el("div", {class: cls.join(" "), "data-seat": s.seat},
      el("span", {class: "num", text: s.seat}),
      opts && opts.names ? el("span", {class: "nick", text: s.nickname}) : null,
      el("span", {class: "fouls", text: "●".repeat(s.fouls || 0)}));
    if (s.role && opts && opts.roles) chip.append(el("span", {class: "role", text: T.roles[s.role] || s.role}));
    const i = cands.indexOf(s.seat);
    if (i >= 0 && view.tally && view.tally[i] != null) chip.append(el("span", {class: "tally", text: `${view.tally[i]}`}));
    if (!s.alive && s.departure) chip.append(el("span", {class: "cause", text: T.causes[s.departure.cause] || s.departure.cause}));
    wrap.append(chip);
  }
  return wrap;
}

function describeEvent(e) {
  const ev = e.event || {};
  const parts = Object.entries(ev).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `#${e.seq} ${ev.type} ${parts.join(" ")}`;
}

// replaceChildren without the nulls (it would print them).
function put(node, ...kids) { node.replaceChildren(...kids.filter((k) => k != null)); }

function setLangTitle(key) { document.title = T[key] || key; document.documentElement.lang = LANG; }

// A tournament's standings off `/ws/standings/{tournament}` (FEED.md): each
// message is the whole table with its version; reconnects on its own.
function followStandings(tournament, onTable) {
  function open() {
    const ws = new WebSocket(wsUrl(`/ws/standings/${encodeURIComponent(tournament)}`));
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "standings") onTable(msg);
    };
    ws.onclose = () => setTimeout(open, 2000);
  }
  open();
}

function fmtPoints(x) { return (Math.round(x * 100) / 100).toFixed(2); }
