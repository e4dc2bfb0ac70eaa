// Shared code of the gateway's screens: language, tokens, the raw feed
// (FEED.md) with resume, which game is current at a table, the game's
// events in words, and rendering helpers. No build step, no deps, nothing
// loaded from anywhere but the gateway.
"use strict";

const params = new URLSearchParams(location.search);
const TOKEN = params.get("token") || "";
const LANG = (params.get("lang") || (navigator.language || "en")).toLowerCase().startsWith("ru") ? "ru" : "en";

// The gateway's clock minus ours: timers count from the judge's `at`
// stamps, which are server-side times, not this viewer's clock. A delayed
// feed (the broadcast's) runs `feedDelay` behind it: its timers and news
// go by the delayed clock (`feedNow`).
let clockOffset = 0, feedDelay = 0;
async function syncClock() {
  try {
    const t0 = Date.now();
    const r = await fetch("/api/clock" + (TOKEN ? "?token=" + encodeURIComponent(TOKEN) : ""), {cache: "no-store"});
    const {server_ms, delay_ms} = await r.json();
    const t1 = Date.now();
    clockOffset = server_ms + (t1 - t0) / 2 - t1;
    feedDelay = delay_ms || 0;
  } catch (e) { /* keep the last offset */ }
}
syncClock();
setInterval(syncClock, 60000);
function serverNow() { return Date.now() + clockOffset; }
function feedNow() { return serverNow() - feedDelay; }

const TEXT = {
  en: {
    hall: "Tables", table: "Table", round: "Round", stage: "Stage", day: "Day", night: "Night", game: "Game",
    speaker: "Speaking", nominees: "Nominated", lastNight: "Last night", killed: "killed", miss: "miss",
    out: "out", fouls: "fouls", foul: "Foul", votes: "votes", ended: "Game over", winner: "Winner",
    red: "Red (civilians)", black: "Black (mafia)", draw: "Draw", redWin: "Red win", blackWin: "Black win",
    noTables: "No tables yet", pick: "Pick a table", log: "Game log", connecting: "Connecting…", alerts: "Alerts",
    tie: "Tie vote", lift: "Lift vote", removal: "Removal", otv: "Opposite-team victory",
    confirm: "Finished: awaiting confirmation", idle: "No command for", min: "min", allLive: "All tables, live",
    live: "Live", finished: "Finished", notStarted: "Not started", page: "Page", vote: "Vote", bestMove: "Best move",
    hits: "hits", legend: "Legend", standings: "Standings", total: "Total", player: "Player", seat: "Seat",
    badToken: "This link's token is not recognised: ask the organiser for a new link.",
    noGame: "Waiting for the game at this table…", spectators: "Spectators", tournament: "Tournament",
    watch: "Watch", noEvents: "Nothing yet", judge: "Judge", approvals: "Pending approvals", appeals: "Open appeals",
    decidedAppeals: "Decided appeals", decision: {rejected: "rejected", result_changed: "result changed", points_corrected: "points corrected", replay: "replayed"},
    none: "none", gamesScored: "Games scored", waitingTournament: "Waiting for the tournament…", top: "top",
    games: "Games", wins: "Wins", sheriff: "Sheriff", don: "Don", base: "Base", extra: "Extra", penalties: "Penalties", ci: "Ci",
    mark: {speaking: "speaking", nominated: "nominated (in order)", fouls: "fouls", muted: "loses the next speech",
      vote: "voted out", lift: "lifted", shot: "killed at night", removed: "removed (fouls, disqualified)",
      nominatedBar: "nominated (order below)", roleLetters: "Don, mafia, sheriff (finished games)", result: "result of a finished game"},
    steps: {before_deal: "Before the deal", night0: "Night 0", speech: "Speech", free_talk: "Free talk", vote_call: "Vote call", voting: "Voting",
      roll_call: "Roll call", lift: "Lift vote", last_words: "Last words", night: "Night", best_move: "Best move", ended: "Ended"},
    causes: {vote: "voted out", lift: "lifted", shot: "killed", fouls: "4 fouls", technical_fouls: "technical fouls", disqualified: "disqualified"},
    roles: {civilian: "Civilian", sheriff: "Sheriff", mafia: "Mafia", don: "Don", beauty: "Beauty"},
    reasons: {all_black_out: "every black player is out", black_parity: "mafia reached parity", no_departures: "nobody left the table",
      all_out: "everyone left at once", opposite_team_victory: "a penalty gave the game away", nights_without_kill: "three nights without a kill"},
    noVote: {no_nominees: "no nominees", cancelled: "cancelled", not_wanted: "not wanted"},
    approval: {extraValue: (seat, pts) => `+${pts} extra points for seat ${seat} (rfm §6.4.2)`, gameSum: (sum) => `the game's extras add up to +${sum} (rfm §6.4.4)`,
      rewarded: (n) => `${n} players rewarded (rfm §6.4.6)`},
    p: (n) => `Player ${n}`,
    ev: {
      dealt: () => "The cards are dealt",
      day: (d) => `Day ${d} begins`,
      nightKill: (who) => `Night: ${who} was killed`,
      nightMiss: () => "Night: nobody was killed (a miss)",
      nightStarts: (n) => `Night ${n} falls`,
      speaks: (who) => `${who} speaks`,
      skipped: (who) => `${who}'s turn is skipped`,
      nominated: (by, t) => `${by} nominated ${t}`,
      withdrawn: (by, t) => `${by} withdrew the nomination of ${t}`,
      fouled: (who, n) => `Foul on ${who} (${n} in all)`,
      muted: (who) => `${who} loses the next speech (3rd foul)`,
      techFoul: (who, n) => `Technical foul on ${who} (${n} in all)`,
      penalty: (who, big) => `${big ? "Big" : "Small"} penalty: ${who}`,
      yellow: (who) => `Yellow card: ${who}`,
      left: {vote: (w) => `${w} was voted out`, lift: (w) => `${w} was lifted from the table`, shot: (w) => `Night: ${w} was killed`,
        fouls: (w) => `${w} was removed: 4th foul`, technical_fouls: (w) => `${w} was removed: technical fouls`, disqualified: (w) => `${w} was disqualified`},
      disqualified: (who) => `${who} was disqualified`,
      votesCancelled: () => "Today's vote is cancelled",
      voteSkipped: (why) => `No vote today (${why})`,
      voteCalled: (n, held) => `Vote call: ${n} for, ${held ? "the vote is held" : "no vote"}`,
      candidates: (l) => `On the vote: ${l}`,
      votes: (n, who) => `${n} ${n === 1 ? "vote" : "votes"} against ${who}`,
      ballot: (v, t) => t ? `${v} votes against ${t}` : `${v} abstains`,
      tie: (l) => `Tie: ${l}`,
      liftDenied: () => "No lift vote",
      liftVoted: (n, passed) => `Lift vote: ${n} for, ${passed ? "they leave" : "they stay"}`,
      shooting: () => "The mafia shoots",
      shot: (by, t) => t ? `${by} shoots ${t}` : `${by} misses`,
      nightResult: (who) => who ? `Night result: ${who} killed` : "Night result: a miss",
      donCheck: (t, yes) => t ? `The Don checks ${t}: ${yes ? "the sheriff" : "not the sheriff"}` : "The Don checks nobody",
      sheriffCheck: (t, black) => t ? `The Sheriff checks ${t}: ${black ? "black" : "red"}` : "The Sheriff checks nobody",
      beauty: (t) => t ? `The Beauty picks ${t}` : "The Beauty picks nobody",
      bestMove: (who, l, hits) => `Best move by ${who}: ${l}${hits != null ? ` (${hits} black)` : ""}`,
      otv: (who) => `A penalty on ${who} gives the game to the other team`,
      ended: (r) => `Game over: ${r}`,
      roles: () => "The roles are revealed",
      undone: () => "The judge took back the last action",
    },
  },
  ru: {
    hall: "Столы", table: "Стол", round: "Тур", stage: "Этап", day: "День", night: "Ночь", game: "Игра",
    speaker: "Говорит", nominees: "Выставлены", lastNight: "Прошлая ночь", killed: "убит", miss: "промах",
    out: "выбыл", fouls: "фолы", foul: "Фол", votes: "голоса", ended: "Игра окончена", winner: "Победа",
    red: "Красные (мирные)", black: "Чёрные (мафия)", draw: "Ничья", redWin: "Победа красных", blackWin: "Победа чёрных",
    noTables: "Столов пока нет", pick: "Выберите стол", log: "Ход игры", connecting: "Подключение…", alerts: "Тревоги",
    tie: "Ничья в голосовании", lift: "Голосование за подъём", removal: "Удаление", otv: "Победа команды соперника",
    confirm: "Игра окончена: ждёт подтверждения", idle: "Нет команд", min: "мин", allLive: "Все столы, в реальном времени",
    live: "Идут", finished: "Окончены", notStarted: "Не начата", page: "Страница", vote: "Голосование", bestMove: "Лучший ход",
    hits: "попаданий", legend: "Обозначения", standings: "Турнирная таблица", total: "Итого", player: "Игрок", seat: "Место",
    badToken: "Токен в этой ссылке не распознан: попросите у организатора новую ссылку.",
    noGame: "Ждём игру за этим столом…", spectators: "Зрителям", tournament: "Турнир",
    watch: "Смотреть", noEvents: "Пока ничего", judge: "Судья", approvals: "Ждут утверждения", appeals: "Открытые апелляции",
    decidedAppeals: "Решённые апелляции", decision: {rejected: "отклонена", result_changed: "результат изменён", points_corrected: "баллы исправлены", replay: "переигровка"},
    none: "нет", gamesScored: "Сыграно игр", waitingTournament: "Ждём турнир…", top: "топ",
    games: "Игры", wins: "Победы", sheriff: "Шериф", don: "Дон", base: "Основные", extra: "Доп.", penalties: "Штрафы", ci: "Ci",
    mark: {speaking: "говорит", nominated: "выставлен (по порядку)", fouls: "фолы", muted: "лишён следующей речи",
      vote: "заголосован", lift: "поднят", shot: "убит ночью", removed: "удалён (фолы, дисквалификация)",
      nominatedBar: "выставлен (порядок ниже)", roleLetters: "дон, мафия, шериф (оконченные игры)", result: "итог оконченной игры"},
    steps: {before_deal: "До раздачи", night0: "Нулевая ночь", speech: "Речь", free_talk: "Свободное общение", vote_call: "Нужно ли голосование", voting: "Голосование",
      roll_call: "Поимённое голосование", lift: "Голосование за подъём", last_words: "Последнее слово", night: "Ночь", best_move: "Лучший ход", ended: "Окончена"},
    causes: {vote: "заголосован", lift: "поднят", shot: "убит", fouls: "4 фола", technical_fouls: "техфолы", disqualified: "дисквалифицирован"},
    roles: {civilian: "Мирный", sheriff: "Шериф", mafia: "Мафия", don: "Дон", beauty: "Красотка"},
    reasons: {all_black_out: "все чёрные выбыли", black_parity: "мафия сравнялась с мирными", no_departures: "никто не выбыл",
      all_out: "все выбыли разом", opposite_team_victory: "штраф отдал победу соперникам", nights_without_kill: "три ночи без убийств"},
    noVote: {no_nominees: "никто не выставлен", cancelled: "отменено", not_wanted: "не захотели"},
    approval: {extraValue: (seat, pts) => `+${pts} доп. балла месту ${seat} (ФСМ §6.4.2)`, gameSum: (sum) => `сумма доп. баллов игры +${sum} (ФСМ §6.4.4)`,
      rewarded: (n) => `награждено игроков: ${n} (ФСМ §6.4.6)`},
    p: (n) => `Игрок ${n}`,
    ev: {
      dealt: () => "Карты розданы",
      day: (d) => `Начинается день ${d}`,
      nightKill: (who) => `Ночью убит ${who}`,
      nightMiss: () => "Ночью никто не убит (промах)",
      nightStarts: (n) => `Наступает ночь ${n}`,
      speaks: (who) => `Говорит ${who}`,
      skipped: (who) => `${who} пропускает речь`,
      nominated: (by, t) => `${by} выставил ${t}`,
      withdrawn: (by, t) => `${by} снял выставление ${t}`,
      fouled: (who, n) => `Фол: ${who} (всего ${n})`,
      muted: (who) => `${who} лишён следующей речи (3-й фол)`,
      techFoul: (who, n) => `Технический фол: ${who} (всего ${n})`,
      penalty: (who, big) => `${big ? "Большой" : "Малый"} штраф: ${who}`,
      yellow: (who) => `Жёлтая карточка: ${who}`,
      left: {vote: (w) => `${w} заголосован`, lift: (w) => `${w} поднят из-за стола`, shot: (w) => `Ночью убит ${w}`,
        fouls: (w) => `${w} удалён: 4-й фол`, technical_fouls: (w) => `${w} удалён: технические фолы`, disqualified: (w) => `${w} дисквалифицирован`},
      disqualified: (who) => `${who} дисквалифицирован`,
      votesCancelled: () => "Голосование сегодня отменено",
      voteSkipped: (why) => `Голосования сегодня нет (${why})`,
      voteCalled: (n, held) => `Нужно ли голосование: за ${n}, ${held ? "голосуем" : "не голосуем"}`,
      candidates: (l) => `На голосовании: ${l}`,
      votes: (n, who) => `Против ${who}: ${n}`,
      ballot: (v, t) => t ? `${v} голосует против ${t}` : `${v} воздержался`,
      tie: (l) => `Ничья: ${l}`,
      liftDenied: () => "Голосования за подъём нет",
      liftVoted: (n, passed) => `Подъём: за ${n}, ${passed ? "покидают стол" : "остаются"}`,
      shooting: () => "Мафия стреляет",
      shot: (by, t) => t ? `${by} стреляет в ${t}` : `${by} промахивается`,
      nightResult: (who) => who ? `Итог ночи: убит ${who}` : "Итог ночи: промах",
      donCheck: (t, yes) => t ? `Дон проверяет ${t}: ${yes ? "шериф" : "не шериф"}` : "Дон никого не проверил",
      sheriffCheck: (t, black) => t ? `Шериф проверяет ${t}: ${black ? "чёрный" : "красный"}` : "Шериф никого не проверил",
      beauty: (t) => t ? `Красотка выбирает ${t}` : "Красотка никого не выбрала",
      bestMove: (who, l, hits) => `Лучший ход ${who}: ${l}${hits != null ? ` (чёрных: ${hits})` : ""}`,
      otv: (who) => `Штраф ${who} отдаёт победу другой команде`,
      ended: (r) => `Игра окончена: ${r}`,
      roles: () => "Роли открыты",
      undone: () => "Судья отменил последнее действие",
    },
  },
};
const T = TEXT[LANG];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null && k !== false) e.append(k);
  return e;
}

// replaceChildren without the nulls (it would print them).
function put(node, ...kids) { node.replaceChildren(...kids.flat().filter((k) => k != null && k !== false)); }

function setLangTitle(key) { document.title = T[key] || key; document.documentElement.lang = LANG; }

// Links between the screens keep the language and the token.
function link(path, extra) {
  const q = new URLSearchParams(extra || {});
  if (params.get("lang")) q.set("lang", LANG);
  if (TOKEN) q.set("token", TOKEN);
  const qs = q.toString();
  return `${path}${qs ? "?" + qs : ""}`;
}

function wsUrl(path, extra) {
  const q = new URLSearchParams(extra || {});
  if (TOKEN) q.set("token", TOKEN);
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const qs = q.toString();
  return `${proto}//${location.host}${path}${qs ? "?" + qs : ""}`;
}

// A WebSocket upgrade that fails tells the page nothing, so a bad token
// would be retried forever. The gateway checks the token before anything
// else (FEED.md, "Errors"): a 401 from /api/game/… says the token is
// unknown, whatever the game.
const tokenOk = !TOKEN ? Promise.resolve(true) :
  fetch(`/api/game/-?token=${encodeURIComponent(TOKEN)}`, {cache: "no-store"})
    .then((r) => r.status !== 401).catch(() => true);
tokenOk.then((ok) => {
  if (ok) return;
  const show = () => document.body.prepend(el("div", {class: "bad-token", id: "bad-token", text: T.badToken}));
  if (document.body) show(); else addEventListener("DOMContentLoaded", show);
});

// Opens `url` once the token is known good, and again a while after each
// close; `onMessage` gets each message's JSON. Returns {close()}.
function follow(url, onMessage, retryMs) {
  let ws = null, closed = false;
  function open() {
    if (closed) return;
    ws = new WebSocket(typeof url === "function" ? url() : url);
    ws.onmessage = (m) => onMessage(JSON.parse(m.data), ws);
    ws.onclose = () => { if (!closed) setTimeout(open, retryMs || 1000); };
  }
  tokenOk.then((ok) => { if (ok) open(); });
  return {close() { closed = true; if (ws) ws.close(); }};
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
// Returns {close()}.
function followTable(gameId, onState) {
  const st = {gameId, seq: 0, view: null, events: []};
  let have = false;
  return follow(() => wsUrl(`/ws/game/${encodeURIComponent(gameId)}`, have ? {from: st.seq} : {}), (msg, ws) => {
    if (msg.type === "snapshot") {
      st.seq = msg.seq; st.view = msg.view; have = true;
    } else if (msg.type === "delta") {
      if (msg.seq !== st.seq + 1) { have = false; ws.close(); return; }
      st.seq = msg.seq; st.view = mergePatch(st.view, msg.patch); st.events.push(msg.event);
      if (st.events.length > 2000) st.events.shift();
    }
    onState(st, msg);
  });
}

// The game's events up to `seq`, in the caller's audience, from GraphQL
// `events` (the feed itself starts at a snapshot).
async function history(gameId, seq) {
  const out = [];
  const q = "query($g: String!, $a: Int!) { events(gameId: $g, after: $a, first: 500) { seq at event } }";
  while (out.length < seq) {
    const after = out.length ? out[out.length - 1].seq : 0;
    const r = await fetch("/graphql", {method: "POST", headers: authHeaders({"Content-Type": "application/json"}),
      body: JSON.stringify({query: q, variables: {g: gameId, a: after}})});
    const {data} = await r.json();
    const got = (data && data.events) || [];
    if (!got.length) break;
    out.push(...got.filter((e) => e.seq <= seq));
    if (got[got.length - 1].seq >= seq) break;
  }
  return out;
}

function authHeaders(h) { return Object.assign(h || {}, TOKEN ? {Authorization: `Bearer ${TOKEN}`} : {}); }

// Follows every game (of one tournament when given); calls
// onTables(map game_id -> {info, seq, view, seen}).
function followHall(onTables, tournament) {
  const tables = new Map();
  return follow(() => wsUrl("/ws/hall", tournament ? {tournament} : null), (msg) => {
    const now = Date.now();
    if (msg.type === "tables") {
      for (const t of msg.tables) tables.set(t.game_id, {info: t.info, seq: t.seq, view: t.view, seen: now});
    } else if (msg.type === "table") {
      const old = tables.get(msg.game_id);
      // A game opened after the `tables` message arrives with its info (the
      // tournament's name, the judge) on its first `table` message.
      const info = msg.info || (old ? old.info : parseGameId(msg.game_id));
      if (!old || msg.seq > old.seq) tables.set(msg.game_id, {info, seq: msg.seq, view: msg.view, seen: now});
      else old.info = info;
    }
    onTables(tables);
  });
}

// `<tournament>.<stage>.r<round>.t<table>.g<game>` (crates/record/src/game_id.rs).
function parseGameId(id) {
  const m = /^(.+)\.([^.]+)\.r(\d+)\.t(\d+)\.g(\d+)$/.exec(id || "");
  return m ? {game_id: id, tournament_id: m[1], stage: m[2], round: +m[3], table: +m[4], game: +m[5]}
    : {game_id: id, tournament_id: "", stage: "", round: 0, table: 0, game: 0};
}
function tournamentOf(id) { return parseGameId(id).tournament_id; }

function isOver(t) { return !!(t.view && t.view.result); }
// When the game last moved, by the judge's clock.
function lastActive(t) { const v = t.view || {}; return Math.max(v.speech_started_at || 0, v.step_started_at || 0); }

// Which games a screen shows: `?tournament=` (or the tournament that moved
// last), `?stage=` (or the stage that moved last), `?round=` (or its
// latest round). Returns {tournament, stage, round, games[]}, games by table.
function currentRound(tables, want) {
  const all = [...tables.values()].map((t) => Object.assign({}, t, {id: parseGameId(t.info.game_id)}));
  const latest = (list) => list.reduce((a, b) => (!a || lastActive(b) > lastActive(a) || (lastActive(b) === lastActive(a) && b.id.game_id > a.id.game_id)) ? b : a, null);
  const tournament = want.tournament || (latest(all) || {id: {}}).id.tournament_id;
  const inT = all.filter((t) => t.id.tournament_id === tournament);
  const stage = want.stage || (latest(inT) || {id: {}}).id.stage;
  const inS = inT.filter((t) => t.id.stage === stage);
  const round = want.round != null ? want.round : Math.max(0, ...inS.map((t) => t.id.round));
  const games = inS.filter((t) => t.id.round === round).sort((a, b) => a.id.table - b.id.table || a.id.game - b.id.game);
  return {tournament, stage, round, games, name: (games[0] || inT[0] || {info: {}}).info.tournament};
}

// The game now current at table `table` of the chosen round: the one
// still being played, or else the last one.
function currentAt(tables, want) {
  const r = currentRound(tables, want);
  const here = r.games.filter((t) => t.id.table === want.table);
  const live = here.filter((t) => !isOver(t));
  return (live.length ? live : here).slice(-1)[0] || null;
}

function wantFromParams() {
  const n = (k) => (params.get(k) != null && params.get(k) !== "" ? Number(params.get(k)) : null);
  return {tournament: params.get("tournament") || "", stage: params.get("stage") || "", round: n("round"), table: n("table")};
}

// A game opened but not yet dealt. (At night the public's view has no
// step at all: that is a game under way.)
function notStarted(view) { return !view || (view.step && view.step.kind === "before_deal"); }

function stepName(view) {
  if (!view) return T.connecting;
  if (view.result) return T.ended;
  // The public's view has no step at night: "Night N" says it all.
  if (!view.step) return "";
  const kind = view.step.kind;
  return T.steps[kind] || kind;
}

// "Day 2 · Speech", "Night 1".
function phaseLine(view) { return [phaseName(view), stepName(view)].filter(Boolean).join(" · "); }

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
  if (!s || !s.secs || (view && view.result)) return null;
  const started = view.speech_started_at || view.step_started_at;
  if (!started) return s.secs;
  // Clamped: the judge's clock and the gateway's may still disagree.
  return Math.min(s.secs, Math.max(0, Math.round(s.secs - (feedNow() - started) / 1000)));
}

function fmtSecs(n) {
  if (n == null) return "";
  return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
}

function winnerText(view) {
  if (!view || !view.result) return "";
  const w = view.result.winner;
  return w === "red" ? T.redWin : w === "black" ? T.blackWin : T.draw;
}

function resultText(view) {
  if (!view || !view.result) return "";
  const why = T.reasons[view.result.reason];
  return why ? `${winnerText(view)} · ${why}` : winnerText(view);
}

// The latest night's outcome, once the audience may know it: {night, seat}
// (seat null: a miss). The public learns it in the morning.
function lastNight(view) {
  if (!view || !view.seats) return null;
  let best = null;
  for (const s of view.seats) {
    const d = s.departure;
    if (d && d.cause === "shot" && d.when && d.when.night != null && (!best || d.when.night > best.night)) best = {night: d.when.night, seat: s.seat};
  }
  // A morning after a night with no shot departure: a miss.
  const day = view.when && view.when.day;
  if (day != null && day >= 2 && (!best || best.night < day - 1) && view.night >= day - 1) return {night: day - 1, seat: null};
  return best;
}

// The vote's count matters while it is held and in the last words after it.
function voteShown(view) {
  const k = view && view.step && view.step.kind;
  return !!(view && !view.result && ["voting", "roll_call", "lift", "last_words"].includes(k) && view.candidates && view.candidates.length && view.tally && view.tally.length);
}

// The candidates whose hands were counted in the vote now held, from the
// events seen since it began; null when the page came in mid-vote (the
// view's tally alone cannot tell a 0 from a count still to come).
function countedSoFar(events) {
  const counted = new Set();
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i].event;
    if (ev.type === "candidates" || ev.type === "tie") return counted;
    if (ev.type === "votes_cast") counted.add(ev.nominee);
    if (ev.type === "ballot_cast" && ev.target != null) counted.add(ev.target);
  }
  return null;
}

function seatOf(view, n) { return ((view && view.seats) || []).find((s) => s.seat === n); }

// "Nickname (3)" or "Player 3".
function who(view, n) {
  if (n == null) return "—";
  const s = seatOf(view, n);
  return s && s.nickname && s.nickname !== T.p(n) && s.nickname !== TEXT.en.p(n) ? `${s.nickname} (${n})` : T.p(n);
}

// Marks for a seat's departure: the cause's class and its symbol (legend).
const OUT_MARK = {vote: ["vote", "✖"], lift: ["lift", "⇧"], shot: ["shot", "☠"], fouls: ["removed", "⊘"], technical_fouls: ["removed", "⊘"], disqualified: ["removed", "⊘"]};
function outMark(s) {
  if (!s.departure) return null;
  const [cls, sym] = OUT_MARK[s.departure.cause] || ["removed", "⊘"];
  return el("span", {class: `mark out-${cls}`, title: T.causes[s.departure.cause] || s.departure.cause, text: sym});
}

// Roles in one letter, for the hall's small cards (legend()).
const ROLE_LETTER = {en: {mafia: "M", don: "D", sheriff: "S", beauty: "B"}, ru: {mafia: "М", don: "Д", sheriff: "Ш", beauty: "К"}}[LANG];
function roleMark(role, compact) {
  if (!role) return null;
  if (!compact) return el("span", {class: "role", "data-role": role, text: T.roles[role] || role});
  // Civilians are the rest: no mark.
  return ROLE_LETTER[role] ? el("span", {class: "role letter", "data-role": role, title: T.roles[role], text: ROLE_LETTER[role]}) : el("span", {class: "role-none", "data-role": role});
}

// The legend of the marks `seatRow` and `seatChips` draw. opts.roles:
// role names are shown (broadcast, judges); opts.compactRoles: as letters.
function legend(opts) {
  opts = opts || {};
  const item = (node, text) => el("span", {class: "legend-item"}, node, el("span", {text}));
  return el("div", {class: "legend", id: "legend"},
    el("span", {class: "legend-title", text: T.legend}),
    item(el("span", {class: "mark speaking-mark", text: "▶"}), T.mark.speaking),
    opts.compactRoles ? item(el("span", {class: "nom-bar"}), T.mark.nominatedBar) : item(el("span", {class: "nom-order", text: "1"}), T.mark.nominated),
    item(el("span", {class: "foul-count f2", text: "2"}), T.mark.fouls),
    item(el("span", {class: "mark muted-mark", text: "✕"}), T.mark.muted),
    item(el("span", {class: "mark out-vote", text: "✖"}), T.mark.vote),
    item(el("span", {class: "mark out-lift", text: "⇧"}), T.mark.lift),
    item(el("span", {class: "mark out-shot", text: "☠"}), T.mark.shot),
    item(el("span", {class: "mark out-removed", text: "⊘"}), T.mark.removed),
    opts.compactRoles ? item(el("span", {}, ...["don", "mafia", "sheriff"].map((r) => roleMark(r, true))), T.mark.roleLetters) : null,
    item(el("span", {class: "result-chip red", text: T.redWin}), T.mark.result));
}

// One seat as a line (hall cards, judge): number, nickname, marks.
// opts.compact: roles as letters and no nomination order (the card lists it).
function seatRow(view, s, opts) {
  const compact = opts && opts.compact;
  const nominees = (view && view.nominees) || [];
  const order = nominees.indexOf(s.seat);
  const cls = ["seat-row"];
  if (!s.alive) cls.push("out");
  if (speaker(view) === s.seat) cls.push("speaking");
  if (order >= 0) cls.push("nominated");
  if (s.role) cls.push("role-" + s.role);
  return el("div", {class: cls.join(" "), "data-seat": s.seat},
    el("span", {class: "num", text: String(s.seat)}),
    el("span", {class: "nick", text: s.nickname || T.p(s.seat)}),
    roleMark(s.role, compact),
    order >= 0 && !compact ? el("span", {class: "nom-order", text: String(order + 1)}) : null,
    s.muted ? el("span", {class: "mark muted-mark", text: "✕"}) : null,
    s.fouls ? el("span", {class: `foul-count f${Math.min(4, s.fouls)}`, text: String(s.fouls)}) : null,
    outMark(s),
    speaker(view) === s.seat ? el("span", {class: "mark speaking-mark", text: "▶"}) : null);
}

// The seats as a strip of chips (overlay, spectator): photo, number,
// nickname, fouls, status, the vote against each candidate.
function seatChips(view, opts) {
  const wrap = el("div", {class: "seats"});
  const nominees = (view && view.nominees) || [];
  const cands = (view && view.candidates) || [];
  const talker = speaker(view);
  const photos = (opts && opts.photos) || {};
  for (const s of (view && view.seats) || []) {
    const cls = ["seat"];
    if (!s.alive) cls.push("out");
    const order = nominees.indexOf(s.seat);
    if (order >= 0) cls.push("nominated");
    if (talker === s.seat) cls.push("speaking");
    if (s.role) cls.push("role-" + s.role);
    const photo = photos[s.player_id];
    const chip = el("div", {class: cls.join(" "), "data-seat": s.seat},
      photo ? el("img", {class: "photo", src: photo, alt: ""}) : el("div", {class: "photo none", text: String(s.seat)}),
      el("div", {class: "seat-line"},
        // Without a photo the circle holds the number.
        photo ? el("span", {class: "num", text: String(s.seat)}) : null,
        el("span", {class: "nick", text: s.nickname || T.p(s.seat)})),
      el("div", {class: "seat-marks"},
        roleMark(s.role, false),
        order >= 0 ? el("span", {class: "nom-order", text: String(order + 1)}) : null,
        s.muted ? el("span", {class: "mark muted-mark", text: "✕"}) : null,
        s.fouls ? el("span", {class: `foul-count f${Math.min(4, s.fouls)}`, text: String(s.fouls)}) : null,
        outMark(s),
        !s.alive && s.departure ? el("span", {class: "cause", text: T.causes[s.departure.cause] || s.departure.cause}) : null));
    const i = cands.indexOf(s.seat);
    if (i >= 0 && voteShown(view) && view.tally[i] != null && (!opts || !opts.counted || opts.counted.has(s.seat))) chip.append(el("span", {class: "tally", text: String(view.tally[i])}));
    wrap.append(chip);
  }
  return wrap;
}

// An event of the feed (FEED.md) in words, or null for bookkeeping
// events nobody needs to read (a step started, a speech ended).
function describeEvent(e, view) {
  const ev = (e && e.event) || {};
  const p = (n) => who(view, n);
  const list = (l) => (l || []).map(p).join(", ");
  const E = T.ev;
  switch (ev.type) {
    case "dealt": return E.dealt();
    case "day_started": return ev.day > 1 || ev.killed != null ? [ev.killed != null ? E.nightKill(p(ev.killed)) : E.nightMiss(), E.day(ev.day)].join(". ") : E.day(ev.day);
    case "night_started": return E.nightStarts(ev.night);
    case "speech_started": return E.speaks(p(ev.seat));
    case "turn_skipped": return E.skipped(p(ev.seat));
    case "nominated": return E.nominated(p(ev.by), p(ev.target));
    case "withdrawn": return E.withdrawn(p(ev.by), p(ev.target));
    case "fouled": return E.fouled(p(ev.seat), ev.fouls);
    case "muted": return E.muted(p(ev.seat));
    case "technical_fouled": return E.techFoul(p(ev.seat), ev.count);
    case "penalized": return E.penalty(p(ev.seat), ev.kind === "big");
    case "yellow_carded": return E.yellow(p(ev.seat));
    case "left": return (E.left[ev.cause] || E.left.disqualified)(p(ev.seat));
    case "disqualified": return E.disqualified(p(ev.seat));
    case "votes_cancelled": return E.votesCancelled();
    case "vote_skipped": return E.voteSkipped(T.noVote[ev.reason] || ev.reason);
    case "vote_called": return E.voteCalled((ev.yes || []).length, ev.held);
    case "candidates": return E.candidates(list(ev.seats));
    case "votes_cast": return E.votes((ev.hands || []).length, p(ev.nominee));
    case "ballot_cast": return E.ballot(p(ev.voter), ev.target != null ? p(ev.target) : null);
    case "tie": return E.tie(list(ev.seats));
    case "lift_denied": return E.liftDenied();
    case "lift_voted": return E.liftVoted((ev.hands || []).length, ev.passed);
    case "shooting_started": return E.shooting();
    case "shot_fired": return E.shot(p(ev.by), ev.target != null ? p(ev.target) : null);
    case "night_result": return E.nightResult(ev.killed != null ? p(ev.killed) : null);
    case "don_checked": return E.donCheck(ev.target != null ? p(ev.target) : null, ev.sheriff);
    case "sheriff_checked": return E.sheriffCheck(ev.target != null ? p(ev.target) : null, ev.black);
    case "beauty_picked": return E.beauty(ev.target != null ? p(ev.target) : null);
    case "best_move_made": return E.bestMove(p(ev.seat), (ev.named || []).join(", "), ev.hits);
    case "best_move_announced": return E.bestMove(p(ev.seat), (ev.named || []).join(", "), null);
    case "opposite_team_victory": return E.otv(p(ev.seat));
    case "game_ended": {
      const w = ev.outcome && ev.outcome.winner;
      return E.ended(w === "red" ? T.redWin : w === "black" ? T.blackWin : T.draw);
    }
    case "roles_revealed": return E.roles();
    case "undone": return E.undone();
    default: return null;
  }
}

// A tournament's standings off `/ws/standings/{tournament}` (FEED.md): each
// message is the whole table with its version; reconnects on its own.
function followStandings(tournament, onTable) {
  return follow(() => wsUrl(`/ws/standings/${encodeURIComponent(tournament)}`), (msg) => {
    if (msg.type === "standings") onTable(msg);
  }, 2000);
}

// The tournament's players' photos, player id -> URL (`/api/players/{id}`);
// {} when it has none or is not followed.
const photoCache = new Map();
function photosFor(tournament) {
  if (!tournament) return Promise.resolve({});
  if (!photoCache.has(tournament)) {
    photoCache.set(tournament, fetch(`/api/players/${encodeURIComponent(tournament)}`)
      .then((r) => r.ok ? r.json() : {players: []})
      .then(({players}) => Object.fromEntries((players || []).filter((p) => p.photo_url).map((p) => [p.id, p.photo_url])))
      .catch(() => ({})));
  }
  return photoCache.get(tournament);
}

// A page laid out for 1920x1080 (the OBS overlays) scaled to the window,
// so a 1280x720 source shows the same picture.
function fitTo1080p() {
  const fit = () => { document.body.style.zoom = String(Math.min(innerWidth / 1920, innerHeight / 1080)); };
  addEventListener("resize", fit);
  fit();
}

function fmtPoints(x) { return (Math.round(x * 100) / 100).toFixed(2); }

// Moves `hold` through `n` pages every `every` seconds; returns the page
// index now. `fixed` (1-based) holds one page.
function pager(every, fixed) {
  const started = Date.now();
  return (n) => fixed ? Math.min(fixed, n) - 1 : Math.floor((Date.now() - started) / (every * 1000)) % Math.max(1, n);
}
