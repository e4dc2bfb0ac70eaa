// The table judge's console (issue 9): gRPC-web to the referee, which alone
// checks and stores commands. This page keeps no rules of its own: what
// comes next is the referee's prompt, a refused command is the referee's
// violation. Commands wait in localStorage with their client sequence
// numbers until acknowledged, so a lost connection or a reload loses none,
// and the referee's acks (duplicates included) mean none is applied twice.
"use strict";
import { stream, call, NetError, GrpcError, CODES } from "./grpc_web.js";

// ---------------------------------------------------------------- gRPC-web
const { UNAVAILABLE, PERMISSION_DENIED, UNAUTHENTICATED, NOT_FOUND, ALREADY_EXISTS } = CODES;
// A method of the referee, or (`Scoring/Command`) of the scoring service.
function target(method) {
  const [service, name] = method.includes("/") ? method.split("/") : ["Referee", method];
  return [service === "Scoring" ? S.scoring : S.referee, service, name];
}
const SILENCE = { silenceMs: 15000, silentText: (ms) => tr("silent", ms / 1000) };
function grpcWeb(method, reqType, msgs, respType, onMessage) {
  const [base, service, name] = target(method);
  return stream(base, service, name, reqType, msgs, respType, S.token, onMessage, SILENCE);
}
function unary(method, reqType, msg, respType) {
  const [base, service, name] = target(method);
  return call(base, service, name, reqType, msg, respType, S.token, SILENCE);
}

// ---------------------------------------------------------------- language
const I18N = {
  en: {
    title: "Judge console", token: "Table judge's token", referee: "Referee (gRPC-web)", login: "Log in",
    games: "Your games", noGames: "No game of yours yet: open one below.",
    assignedGames: "Assigned to you in the tournament", assignedOpen: "open: judge it", notOpened: "not opened yet (the organiser opens the round)", scored: "scored", open: "Open", over: "over", live: "live",
    gameId: "Game id", openById: "Open by id", newGame: "Open a new game", tournamentId: "Tournament id", tournament: "Tournament",
    stage: "Stage", round: "Round", table: "Table", game: "Game", judge: "Judge", rules: "Rule set", seat: "Seat",
    nickname: "Nickname", deal: "Deal", byDrawn: "digital, dealt by the referee", byCards: "drawn cards", create: "Open the game",
    online: "online", offline: "offline", sending: "sending…", queued: "queued", acked: "acked", readOnly: "This game is open in another tab of this browser; this tab only watches.",
    next: "Next", undo: "Undo", foul: "Foul", start: "Start timer", confirmUndo: "Undo the last command of this phase? Enter/y: yes, Esc/n: no",
    rejected: "Refused by the referee", discarded: "Discarded (entered after the refused command)", conflict: "Another console already used command #%s; yours was not applied.",
    expect: {
      night0: "Night 0: %s", speech: "Seat %s speaks", tie: "tie speech", nomOnly: "nominations only", mayWithdraw: "w: withdraw the nomination", free_talk: "Free talk",
      vote_call: "Who wants a vote today? Select, Enter", vote: "Vote on #%s (round %s): hands — select, Enter", ballot: "Seat %s names a candidate",
      lift: "Shall all of them leave (%s)? Hands — select, Enter", last_words: "Last words of seat %s", testament: "testament",
      beauty_pick: "The Beauty (seat %s) picks", shots: "Mafia shoots: seats %s yet to shoot — target", don_check: "The Don (seat %s) checks", sheriff_check: "The Sheriff (seat %s) checks",
      best_move: "Best move of seat %s: name up to three, Enter", game_over: "The game is over",
    },
    night0Steps: { meeting: "the black team meets", sheriff_sign: "the Sheriff's sign", don_sign: "the Don's sign", sheriff_and_don_sign: "the Sheriff's and Don's signs", beauty_sign: "the Beauty's sign", free_seating: "free seating" },
    nominees: "Nominees", candidates: "On the vote", fouls: "fouls", muted: "speech restricted", removed: "removed", out: "out",
    result: "Result", red: "The red team wins", black: "The black team wins", draw: "Draw", summary: "Summary", departures: "Departures",
    bestMove: "Best move", hits: "hits", votes: "votes", day: "Day %s", night: "Night %s", queue: "Queued", legend: "Keys",
    badSeating: "The seating needs ten different nicknames (seat %s).", badCards: "The cards must be 7 red (6 civilians + sheriff) and 3 black (2 mafia + don)", need: "Enter a token.",
    denied: "This token may not do that for game %s", unknownToken: "Unknown token", notJudge: "Not a table judge's or chief judge's token", notFound: "No such game: %s",
    exists: "A different game already exists under this id", noState: "Waiting for the game's state from the referee before taking commands.", unacked: "Waiting for the referee's ack: name every seat (n B T, k B T…) or give JSON.", unavailable: "The referee is unreachable; retrying", silent: "no answer for %s s", recall: "↑ brings it back to correct", leaveQueued: "Commands still wait for the referee's ack; the list once they are in.",
    post: { title: "Post-game inputs", extra: "Extra", penalty: "Penalty", bestMove: "The best move stands", confirmed: "yes", denied: "no (rfm §6.6.6)",
      send: "Send to scoring", saved: "Saved (tournament version %s).", pending: "Waits for the chief judge: %s", waiting: "Waiting for the scoring service to record the result…",
      win: "win", loss: "loss", draw: "draw", none: "—" },
    keys: [["Enter · .", "next / send the selection"], ["1–10", "seat: nominee, target or hand"], ["n T · n B T", "nominate"], ["v H… · l H… · vc S…", "hands, lift, vote call"],
      ["k T · k B T · k -", "shot(s)"], ["d T · c T · bp T", "checks, Beauty"], ["bm A B C", "best move"], ["f S · tf S · y S", "foul, technical, yellow"],
      ["p S small|big · dq S · otv S", "penalty, removal, opposite-team victory"], ["b T · b V T · b -", "roll-call ballot"], ["ms", "“mafia, shoot”: the count begins"], ["w B", "withdraw"], ["s", "start the timer"], ["Backspace · u · undo", "undo (confirm)"], ["↑", "the refused line back, to correct"], ["Esc", "clear"], ["{…}", "a command as JSON"]],
  },
  ru: {
    title: "Консоль судьи", token: "Токен судьи стола", referee: "Рефери (gRPC-web)", login: "Войти",
    games: "Ваши игры", noGames: "Игр пока нет: откройте новую ниже.",
    assignedGames: "Назначены вам в турнире", assignedOpen: "открыта: судите", notOpened: "ещё не открыта (тур открывает организатор)", scored: "засчитана", open: "Открыть", over: "окончена", live: "идёт",
    gameId: "Id игры", openById: "Открыть по id", newGame: "Новая игра", tournamentId: "Id турнира", tournament: "Турнир",
    stage: "Этап", round: "Тур", table: "Стол", game: "Игра", judge: "Судья", rules: "Правила", seat: "Место",
    nickname: "Ник", deal: "Раздача", byDrawn: "цифровая, раздаёт сервер", byCards: "вытянутые карты", create: "Открыть игру",
    online: "на связи", offline: "нет связи", sending: "отправка…", queued: "в очереди", acked: "принято", readOnly: "Эта игра открыта в другой вкладке; здесь только просмотр.",
    next: "Далее", undo: "Отмена", foul: "Фол", start: "Таймер", confirmUndo: "Отменить последнюю команду фазы? Enter/y — да, Esc/n — нет",
    rejected: "Рефери отклонил", discarded: "Сброшено (введено после отклонённой команды)", conflict: "Команду №%s уже ввела другая консоль; ваша не применена.",
    expect: {
      night0: "Нулевая ночь: %s", speech: "Говорит игрок %s", tie: "речь при равенстве", nomOnly: "только выставление", mayWithdraw: "w — снять кандидатуру", free_talk: "Свободное обсуждение",
      vote_call: "Кто хочет голосования? Выберите, Enter", vote: "Голосование за №%s (круг %s): руки — выберите, Enter", ballot: "Игрок %s называет кандидата",
      lift: "Поднять всех (%s)? Руки — выберите, Enter", last_words: "Последнее слово игрока %s", testament: "завещание",
      beauty_pick: "Красотка (место %s) выбирает", shots: "Мафия стреляет: ещё не стреляли %s — цель", don_check: "Дон (место %s) проверяет", sheriff_check: "Шериф (место %s) проверяет",
      best_move: "Лучший ход игрока %s: до трёх номеров, Enter", game_over: "Игра окончена",
    },
    night0Steps: { meeting: "договорка чёрных", sheriff_sign: "знак шерифа", don_sign: "знак дона", sheriff_and_don_sign: "знаки шерифа и дона", beauty_sign: "знак красотки", free_seating: "свободная посадка" },
    nominees: "Выставлены", candidates: "На голосовании", fouls: "фолы", muted: "речь ограничена", removed: "удалён", out: "выбыл",
    result: "Итог", red: "Победа красных", black: "Победа чёрных", draw: "Ничья", summary: "Итоги", departures: "Выбывшие",
    bestMove: "Лучший ход", hits: "попаданий", votes: "гол.", day: "День %s", night: "Ночь %s", queue: "В очереди", legend: "Клавиши",
    badSeating: "Нужны десять разных ников (место %s).", badCards: "Карты: 7 красных (6 мирных + шериф) и 3 чёрных (2 мафии + дон)", need: "Введите токен.",
    denied: "Этот токен не даёт права на это в игре %s", unknownToken: "Неизвестный токен", notJudge: "Это не токен судьи", notFound: "Нет такой игры: %s",
    exists: "Под этим id уже есть другая игра", noState: "Ждём состояние игры от рефери; команды пока не принимаются.", unacked: "Ждём подтверждения рефери: укажите все номера (n B T, k B T…) или JSON.", unavailable: "Рефери недоступен; повторяем", silent: "нет ответа %s с", recall: "↑ вернёт её для исправления", leaveQueued: "Команды ещё ждут подтверждения рефери; к списку — когда их примут.",
    post: { title: "Итоги судьи", extra: "Доп. балл", penalty: "Штраф", bestMove: "Лучший ход засчитан", confirmed: "да", denied: "нет (rfm §6.6.6)",
      send: "Отправить в подсчёт", saved: "Сохранено (версия турнира %s).", pending: "Ждёт утверждения ГС: %s", waiting: "Ждём, пока сервис подсчёта запишет результат…",
      win: "победа", loss: "поражение", draw: "ничья", none: "—" },
    keys: [["Enter · .", "далее / отправить выбор"], ["1–10", "место: кандидат, цель или рука"], ["n T · n B T", "выставить"], ["v H… · l H… · vc S…", "руки, подъём, запрос голосования"],
      ["k T · k B T · k -", "выстрел(ы)"], ["d T · c T · bp T", "проверки, красотка"], ["bm A B C", "лучший ход"], ["f S · tf S · y S", "фол, технический, жёлтая"],
      ["p S small|big · dq S · otv S", "штраф, удаление, победа другой команды"], ["b T · b V T · b -", "именное голосование"], ["ms", "«мафия, стреляет»: начало отсчёта"], ["w B", "снять кандидатуру"], ["s", "запустить таймер"], ["Backspace · u · undo", "отмена (с подтверждением)"], ["↑", "отклонённая строка — исправить"], ["Esc", "очистить"], ["{…}", "команда в JSON"]],
  },
};
function tr(path, ...args) {
  let v = path.split(".").reduce((o, k) => (o ? o[k] : undefined), I18N[S.lang]);
  if (typeof v !== "string") return path;
  for (const a of args) v = v.replace("%s", String(a));
  return v;
}
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// ---------------------------------------------------------------- state
const params = new URLSearchParams(location.search);
const S = {
  lang: (params.get("lang") || localStorage.getItem("mafia.console.lang") || navigator.language || "en").toLowerCase().startsWith("ru") ? "ru" : "en",
  token: localStorage.getItem("mafia.console.token") || "",
  referee: document.querySelector('meta[name="mafia-referee"]').content || localStorage.getItem("mafia.console.referee") || "",
  // Where post-game inputs go; empty: the console offers none.
  scoring: document.querySelector('meta[name="mafia-scoring"]')?.content || "",
  // The post-game form of a tournament game: what the gateway says the
  // scheme allows (`/judge-console/api/inputs/{game}`), and the last send.
  post: null,
  screen: "login", gameId: null, header: null, state: null, view: null, prompt: null, events: [],
  conn: "offline", connNote: "", inflight: false, retryMs: 500, retryTimer: null,
  selection: new Set(), mode: null, confirmUndo: false, violation: null, note: null, discarded: [],
  // The last typed line the referee refused, for ↑ to bring back.
  recall: null,
  // Lets go of this tab's lock on the open game.
  unlock: null,
  store: null, readOnly: false, promptKey: "", promptSince: Date.now(), beeped: {}, latencies: [],
  games: null, assigned: [], scope: [], error: "",
};
// For tests and the bench script: what the page knows, without scraping.
window.__console = S;

function storeKey(id) { return "mafia.console.game." + id; }
function loadStore(id) {
  try { const s = JSON.parse(localStorage.getItem(storeKey(id))); if (s && Array.isArray(s.queue)) return s; } catch (_) { /* a fresh store */ }
  return { acked: null, queue: [] };
}
function save() { if (S.gameId && !S.readOnly) localStorage.setItem(storeKey(S.gameId), JSON.stringify(S.store)); }

// ---------------------------------------------------------------- referee
function fail(e, id) {
  if (e instanceof GrpcError) {
    if (e.code === PERMISSION_DENIED) return tr("denied", id || "");
    if (e.code === UNAUTHENTICATED) return tr("unknownToken");
    if (e.code === NOT_FOUND) return tr("notFound", id || "");
    if (e.code === ALREADY_EXISTS) return tr("exists");
    return `${e.code}: ${e.message}`;
  }
  return tr("unavailable") + ` (${e.message})`;
}
function applyState(st) {
  if (!st) return;
  // A GetGame that crossed an ack in flight must not step the screen back.
  if (S.state && st.seq < S.state.seq) return;
  S.state = st;
  try { S.view = JSON.parse(st.view_json); } catch (_) { S.view = null; }
  try { S.prompt = st.prompt_json ? JSON.parse(st.prompt_json) : null; } catch (_) { S.prompt = null; }
  const expectKey = JSON.stringify(S.prompt);
  if (expectKey !== S.promptKey) {
    S.promptKey = expectKey; S.promptSince = Date.now(); S.beeped = {}; S.selection = new Set(); S.mode = null;
    // The last nominee gets the hands not yet raised (counted for the judge).
    const p = S.prompt, v = S.view;
    if (p && p.expect === "vote" && v && v.candidates.length && v.candidates[v.candidates.length - 1] === p.nominee) {
      S.selection = new Set(p.not_yet_voted);
    }
  }
  if (S.store.acked === null) S.store.acked = st.last_client_seq;
  // Kept with the queue (saved with the next ack, by the tab that
  // judges): a reload while the referee is away shows it.
  S.store.state = st;
}
async function refresh() {
  const r = await unary("GetGame", "mafia.v1.GetGameRequest", { game_id: S.gameId, audience: "AUDIENCE_JUDGE" }, "mafia.v1.GetGameResponse");
  try { S.header = JSON.parse(r.header_json); } catch (_) { S.header = null; }
  S.events = recent(r.events);
  applyState(r.state);
  S.conn = "online";
}
// The last events, each once (a replayed ack carries events already shown).
function recent(events) {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq).slice(-12);
}
function nextSeq() {
  const q = S.store.queue;
  if (q.length) return q[q.length - 1].seq + 1;
  return Math.max(S.store.acked || 0, S.state ? S.state.last_client_seq : 0) + 1;
}
// `typed`: the judge typed the line (not a tap, Enter or an undo).
function enqueue(cmds, line, typed = false) {
  const t0 = performance.now();
  for (const c of cmds) S.store.queue.push({ seq: nextSeq(), json: JSON.stringify(c), at: Date.now(), line, typed, sent: false, t0 });
  S.violation = null; S.discarded = [];
  save(); render(); pump();
}
function onReply(reply, batch, outcome) {
  if (reply.attached) { applyState(reply.attached.state); return; }
  if (reply.accepted) {
    const a = reply.accepted, q = S.store.queue, i = q.findIndex((c) => c.seq === a.client_seq);
    if (i >= 0) {
      const mine = q[i];
      if (a.duplicate && !batch.resent.has(a.client_seq)) S.note = tr("conflict", a.client_seq);
      if (mine.t0 !== undefined && !a.replayed) S.latencies.push(performance.now() - mine.t0);
      q.splice(i, 1);
    }
    S.store.acked = Math.max(S.store.acked || 0, a.client_seq);
    S.events = recent(S.events.concat(a.events));
    applyState(a.state);
    save(); render();
    return;
  }
  if (reply.rejected) {
    const r = reply.rejected, q = S.store.queue;
    const i = q.findIndex((c) => c.seq === r.client_seq);
    const refused = i >= 0 ? q[i] : null;
    // Later commands were numbered after it and entered expecting it to
    // pass: they are dropped (and shown), never renumbered behind the judge.
    S.discarded = q.filter((c) => c.seq > r.client_seq).map((c) => c.line);
    S.store.queue = q.filter((c) => c.seq < r.client_seq);
    S.violation = { ...r.violation, line: refused ? refused.line : "" };
    // A typed line is kept for ↑ to bring back and correct; the line
    // itself stays free for what the judge enters next.
    S.recall = refused && refused.typed ? refused.line : null;
    outcome.rejected = true;
    save(); render();
  }
}
// Sends every queued command in one gRPC-web Judge call: Attach (from the
// last ack: the referee re-sends acks this page missed), then the Submits.
async function pump() {
  if (S.inflight || S.readOnly || !S.gameId || !S.store.queue.length) return;
  clearTimeout(S.retryTimer);
  S.inflight = true; S.conn = "sending"; render();
  const queue = S.store.queue;
  const batch = { resent: new Set(queue.filter((c) => c.sent).map((c) => c.seq)) };
  for (const c of queue) c.sent = true;
  save();
  const msgs = [{ attach: { game_id: S.gameId, last_acked_seq: S.store.acked || 0, omit_state: false } }]
    .concat(queue.map((c) => ({ submit: { client_seq: c.seq, at: c.at, command_json: c.json } })));
  const outcome = { rejected: false };
  try {
    await grpcWeb("Judge", "mafia.v1.JudgeCommand", msgs, "mafia.v1.RefereeReply", (m) => onReply(m, batch, outcome));
    S.conn = "online"; S.connNote = ""; S.retryMs = 500;
  } catch (e) {
    const gap = e instanceof GrpcError && e.code === 9 && outcome.rejected;
    if (gap) { S.conn = "online"; S.connNote = ""; }
    else if (e instanceof NetError || (e instanceof GrpcError && e.code === UNAVAILABLE)) {
      S.conn = "offline"; S.connNote = e.message;
      S.retryTimer = setTimeout(pump, S.retryMs);
      S.retryMs = Math.min(S.retryMs * 2, 4000);
    } else { S.conn = "error"; S.connNote = fail(e, S.gameId); }
  }
  S.inflight = false;
  render();
  if (S.conn === "online" && S.store.queue.length) pump();
}
// While idle, a periodic GetGame shows whether the referee is reachable.
setInterval(async () => {
  if (S.screen !== "game" || S.inflight || S.store.queue.length) return;
  try { await refresh(); } catch (e) { S.conn = e instanceof GrpcError && e.code !== UNAVAILABLE ? "error" : "offline"; S.connNote = fail(e, S.gameId); }
  render();
}, 3000);

// ---------------------------------------------------------------- shorthand
// The same shorthand as `mafia judge` (crates/judge-client/src/keys.rs),
// plus bare seat numbers for the prompt's obvious command.
// A line that is no command: said in the page's language (usage strings,
// which are the shorthand itself, stay as they are).
const RU_KEY_ERRORS = [
  [/^Enter moves on only in speeches, last words, night 0 and free talk$/, "Enter переходит дальше только в речах, последних словах, нулевой ночи и свободном обсуждении"],
  [/^(.*)nobody is to shoot now$/, "$1сейчас никто не стреляет"],
  [/^(.*)nobody is speaking$/, "$1сейчас никто не говорит"],
  [/^no best move is due$/, "лучший ход сейчас не ожидается"],
  [/^no prompt yet$/, "подсказки рефери ещё нет"],
  [/^no seat is asked for now$/, "номер места сейчас не нужен"],
  [/^no vote is under way$/, "голосование не идёт"],
  [/^one seat$/, "нужен один номер"],
  [/^not a command: (.*)$/, "не команда: $1"],
  [/^not a seat: (.*) \(1–10\)$/, "не место: $1 (1–10)"],
  [/^unknown shorthand (.*); see the legend$/, "неизвестное сокращение $1; см. подсказку"],
  [/^(.*), or (.*)$/, "$1 или $2"],
];
class KeyError extends Error {
  constructor(message) {
    const rule = S.lang === "ru" && RU_KEY_ERRORS.find(([re]) => re.test(message));
    super(rule ? message.replace(rule[0], rule[1]) : message);
  }
}
function seat(w) { const n = Number(w); if (!/^\d+$/.test(w) || n < 1 || n > 10) throw new KeyError(`not a seat: "${w}" (1–10)`); return n; }
function maybeSeat(w) { return w === "-" || w === "0" ? null : seat(w); }
function seats(ws) { return [...new Set(ws.map(seat))].sort((a, b) => a - b); }
function speaker(p) { return p && (p.expect === "speech" || p.expect === "last_words") ? p.seat : null; }
function nextOf(p) {
  if (!p) throw new KeyError("no prompt yet");
  if (p.expect === "speech") return { type: "end_speech", seat: p.seat, timeout: false };
  if (p.expect === "last_words") return { type: "end_last_words", seat: p.seat };
  if (p.expect === "night0" || p.expect === "free_talk") return { type: "next_step" };
  throw new KeyError("Enter moves on only in speeches, last words, night 0 and free talk");
}
// The prompt's command for a set of selected seats (or one seat).
function forSeats(p, list) {
  if (!p) throw new KeyError("no prompt yet");
  const one = () => { if (list.length !== 1) throw new KeyError("one seat"); return list[0]; };
  switch (p.expect) {
    case "vote": return [{ type: "vote", nominee: p.nominee, hands: list }];
    case "lift": return [{ type: "lift", hands: list }];
    case "vote_call": return [{ type: "vote_call", yes: list }];
    case "best_move": return [{ type: "best_move", seat: p.seat, named: list }];
    case "ballot": return [{ type: "ballot", voter: p.voter, target: list.length ? one() : null }];
    case "shots": return p.pending.map((by) => ({ type: "shot", by, target: list.length ? one() : null }));
    case "don_check": return [{ type: "don_check", target: list.length ? one() : null }];
    case "sheriff_check": return [{ type: "sheriff_check", target: list.length ? one() : null }];
    case "beauty_pick": return [{ type: "beauty_pick", target: list.length ? one() : null }];
    case "speech": if (list.length) return [{ type: "nominate", by: p.seat, target: one() }]; return [nextOf(p)];
    default: if (!list.length) return [nextOf(p)]; throw new KeyError("no seat is asked for now");
  }
}
const SELECTING = new Set(["vote", "lift", "vote_call", "best_move"]);
export function parseLine(line, p) {
  line = line.trim();
  if (line.startsWith("{")) { try { return [JSON.parse(line)]; } catch (e) { throw new KeyError("not a command: " + e.message); } }
  const words = line.split(/\s+/).filter(Boolean);
  if (!words.length) return SELECTING.has(p && p.expect) ? forSeats(p, [...S.selection].sort((a, b) => a - b)) : forSeats(p, []);
  if (/^(\d+|-)$/.test(words[0])) return forSeats(p, words.includes("-") ? [] : seats(words));
  const [head, ...rest] = words;
  const only = (usage) => { if (rest.length !== 1) throw new KeyError(usage); return seat(rest[0]); };
  const onlyMaybe = (usage) => { if (rest.length !== 1) throw new KeyError(usage); return maybeSeat(rest[0]); };
  switch (head.toLowerCase()) {
    case ".": return [nextOf(p)];
    case "u": case "undo": return [{ type: "undo" }];
    case "ms": return [{ type: "start_shooting" }];
    case "s": { const s = speaker(p); if (!s) throw new KeyError("nobody is speaking"); return [{ type: "start_speech", seat: s }]; }
    case "n":
      if (rest.length === 1) { const s = speaker(p); if (!s) throw new KeyError("n B T: nobody is speaking"); return [{ type: "nominate", by: s, target: seat(rest[0]) }]; }
      if (rest.length === 2) return [{ type: "nominate", by: seat(rest[0]), target: seat(rest[1]) }];
      throw new KeyError("n T, or n B T");
    case "w":
      if (!rest.length) { const s = speaker(p); if (!s) throw new KeyError("w B: nobody is speaking"); return [{ type: "withdraw", by: s }]; }
      return [{ type: "withdraw", by: only("w, or w B") }];
    case "v": if (!p || p.expect !== "vote") throw new KeyError("no vote is under way"); return [{ type: "vote", nominee: p.nominee, hands: seats(rest) }];
    case "vc": return [{ type: "vote_call", yes: seats(rest) }];
    case "b":
      if (rest.length === 1 && p && p.expect === "ballot") return [{ type: "ballot", voter: p.voter, target: maybeSeat(rest[0]) }];
      if (rest.length === 2) return [{ type: "ballot", voter: seat(rest[0]), target: maybeSeat(rest[1]) }];
      throw new KeyError("b T (the voter on the prompt), or b V T");
    case "l": return [{ type: "lift", hands: seats(rest) }];
    case "k":
      if (rest.length === 1) { if (!p || p.expect !== "shots") throw new KeyError("k B T: nobody is to shoot now"); const t = maybeSeat(rest[0]); return p.pending.map((by) => ({ type: "shot", by, target: t })); }
      if (rest.length === 2) return [{ type: "shot", by: seat(rest[0]), target: maybeSeat(rest[1]) }];
      throw new KeyError("k T, k B T, or k -");
    case "d": return [{ type: "don_check", target: onlyMaybe("d T, or d -") }];
    case "c": return [{ type: "sheriff_check", target: onlyMaybe("c T, or c -") }];
    case "bp": return [{ type: "beauty_pick", target: onlyMaybe("bp T, or bp -") }];
    case "bm": {
      // Its own step, or (minsk2017 §8.3) said in the first victim's last words.
      if (!p || !(p.expect === "best_move" || (p.expect === "last_words" && !p.testament))) throw new KeyError("no best move is due");
      return [{ type: "best_move", seat: p.seat, named: rest.map(seat) }];
    }
    case "f": return [{ type: "foul", seat: only("f S") }];
    case "tf": return [{ type: "technical_foul", seat: only("tf S") }];
    case "y": return [{ type: "yellow_card", seat: only("y S") }];
    case "dq": return [{ type: "disqualify", seat: only("dq S") }];
    case "otv": return [{ type: "opposite_team_victory", seat: only("otv S") }];
    case "p": {
      const kind = { small: "small", s: "small", big: "big", b: "big" }[(rest[1] || "").toLowerCase()];
      if (rest.length !== 2 || !kind) throw new KeyError("p S small, or p S big");
      return [{ type: "penalty", seat: seat(rest[0]), kind }];
    }
    default: throw new KeyError(`unknown shorthand "${head}"; see the legend`);
  }
}
// The prompt is the referee's latest; with commands still unacknowledged it
// may be out of date, so only lines that name every seat are taken then.
function promptForParsing(line) {
  if (!S.store.queue.length) return S.prompt;
  const explicit = /^\s*(\{|(n|k|b)\s+\S+\s+\S+|(f|tf|y|dq|otv|p|w|vc|l|d|c|bp)\s|(ms|u|undo)\s*$)/i.test(line);
  if (!explicit) throw new KeyError(tr("unacked"));
  return S.prompt;
}

// ---------------------------------------------------------------- input
function submitLine(text) {
  S.note = null;
  if (S.readOnly) return;
  // Without the referee's state this page knows neither the prompt nor the
  // next sequence number: nothing is numbered blind.
  if (!S.state) { S.note = tr("noState"); render(); return; }
  const line = text.trim();
  if (line === "u" || line === "undo") { lineInput().value = ""; S.confirmUndo = true; render(); return; }
  // The Foul button asked "Foul: Seat?": a seat typed now is the answer.
  if (S.mode === "foul" && /^\d+$/.test(line)) {
    try { foul(seat(line)); lineInput().value = ""; } catch (e) { S.note = e.message; render(); }
    return;
  }
  try {
    const cmds = parseLine(line, promptForParsing(line));
    enqueue(cmds, line || "⏎", !!line);
    lineInput().value = "";
  } catch (e) {
    if (!(e instanceof KeyError)) throw e;
    S.note = e.message; render();
  }
}
function seatTapped(n) {
  if (S.readOnly || !S.state || !S.prompt) return;
  if (S.mode === "foul") { foul(n); return; }
  if (SELECTING.has(S.prompt.expect)) {
    if (S.selection.has(n)) S.selection.delete(n); else S.selection.add(n);
    render(); return;
  }
  // The tap stands for the prompt's command, and the prompt is out of
  // date while a command awaits its ack: no guess is queued (see
  // promptForParsing).
  if (S.store.queue.length) { S.note = tr("unacked"); render(); return; }
  try { enqueue(forSeats(S.prompt, [n]), String(n)); } catch (e) { S.note = e.message; render(); }
}
function foul(n) { S.mode = null; enqueue([{ type: "foul", seat: n }], "f " + n); }
function undoAnswer(yes) {
  S.confirmUndo = false;
  if (yes) enqueue([{ type: "undo" }], "u"); else render();
  // Back to the line: an Enter left on the Undo button would ask again.
  lineInput().focus();
}
document.addEventListener("keydown", (ev) => {
  if (S.screen !== "game") return;
  // The post-game form takes its own keys (Enter sends it).
  if (ev.target && ev.target.closest && ev.target.closest("#post")) return;
  const input = lineInput();
  if (S.confirmUndo) {
    ev.preventDefault();
    if (ev.key === "y" || ev.key === "Y" || ev.key === "Enter" || ev.key === "н") undoAnswer(true);
    else if (ev.key === "n" || ev.key === "N" || ev.key === "Escape" || ev.key === "т") undoAnswer(false);
    return;
  }
  if (ev.key === "Escape") { input.value = ""; S.selection = new Set(); S.mode = null; S.note = null; render(); return; }
  // A control the judge reached with Tab (Foul, Undo, a seat) is pressed
  // by Enter and Space as anywhere else, not taken for the line's keys.
  const control = ev.target !== input && ev.target.closest && ev.target.closest("button, select, a[href], input, textarea");
  if (control && (ev.key === "Enter" || ev.key === " ")) return;
  if (ev.key === "Enter") { ev.preventDefault(); submitLine(input.value); return; }
  if (ev.key === "ArrowUp" && input.value === "" && S.recall) { ev.preventDefault(); input.value = S.recall; input.focus(); return; }
  if (ev.key === "Backspace" && input.value === "") { ev.preventDefault(); S.confirmUndo = true; render(); return; }
  if (document.activeElement !== input && ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey) input.focus();
});

// ---------------------------------------------------------------- screens
const app = document.getElementById("app");
function lineInput() { return document.getElementById("line") || { value: "", focus() {} }; }
function setBody() {
  const b = document.body.dataset;
  b.screen = S.screen; b.conn = S.conn;
  b.acked = String(S.store ? S.store.acked || 0 : 0);
  b.queued = String(S.store ? S.store.queue.length : 0);
  b.expect = S.prompt ? S.prompt.expect : "";
  b.over = String(!!(S.state && S.state.over));
  b.violation = S.violation ? S.violation.code : "";
  b.readonly = String(S.readOnly);
  document.documentElement.lang = S.lang;
  document.title = tr("title");
  document.getElementById("lang").textContent = S.lang === "en" ? "RU" : "EN";
  document.getElementById("logout").hidden = S.screen === "login";
  const games = document.getElementById("games");
  games.hidden = S.screen !== "game"; games.title = tr("games");
  const conn = document.getElementById("conn");
  conn.className = "conn " + S.conn;
  conn.textContent = S.screen === "game" ? tr(S.conn === "error" ? "offline" : S.conn) + (S.connNote && S.conn !== "online" ? " · " + S.connNote : "") : "";
  document.getElementById("game-title").textContent = S.gameId && S.screen === "game" ? S.gameId : "";
  const lat = S.latencies.slice().sort((a, b) => a - b);
  document.getElementById("stats").textContent = S.screen === "game" && S.store
    ? `${tr("acked")} ${S.store.acked || 0} · ${tr("queued")} ${S.store.queue.length}` + (lat.length ? ` · p50 ${lat[Math.floor(lat.length / 2)].toFixed(0)} ms` : "")
    : "";
}
function render() {
  setBody();
  if (S.screen === "login") return renderLogin();
  if (S.screen === "games") return renderGames();
  renderGame();
}

function renderLogin() {
  if (app.querySelector("#login-form")) { app.querySelector("#login-error").textContent = S.error; return; }
  app.innerHTML = `<form id="login-form" class="card narrow">
    <h1>${esc(tr("title"))}</h1>
    <label>${esc(tr("token"))}<input id="token" type="password" autocomplete="current-password" value="${esc(S.token)}" autofocus></label>
    <label>${esc(tr("referee"))}<input id="referee" value="${esc(S.referee)}" placeholder="http://127.0.0.1:50051"></label>
    <button type="submit">${esc(tr("login"))}</button>
    <p id="login-error" class="error">${esc(S.error)}</p></form>`;
  app.querySelector("#login-form").onsubmit = (ev) => {
    ev.preventDefault();
    S.token = app.querySelector("#token").value.trim();
    S.referee = app.querySelector("#referee").value.trim();
    login();
  };
}
async function login() {
  S.error = "";
  if (!S.token) { S.error = tr("need"); return render(); }
  const r = await fetch("/judge-console/api/games", { headers: { authorization: "Bearer " + S.token } }).catch(() => null);
  if (!r || !r.ok) {
    S.error = !r ? tr("unavailable") : r.status === 401 ? tr("unknownToken") : r.status === 403 ? tr("notJudge") : "HTTP " + r.status;
    S.screen = "login"; return render();
  }
  const body = await r.json();
  localStorage.setItem("mafia.console.token", S.token);
  localStorage.setItem("mafia.console.referee", S.referee);
  S.games = body.games; S.assigned = body.assigned || []; S.scope = body.scope; S.holder = body.holder;
  const wanted = new URLSearchParams(location.hash.slice(1)).get("game");
  if (wanted) return openGame(wanted);
  S.screen = "games"; app.innerHTML = ""; render();
}

const RULES = ["rfm", "classic", "minsk2017", "ua", "club"];
const ROLES = ["civilian", "sheriff", "beauty", "mafia", "don"];
function scopeDefaults() {
  // A table judge's pattern (e.g. cup-2026.*.*.t3.*) fills what it fixes.
  const d = { tournament_id: "", stage: "main", round: 1, table: 1, game: 1 };
  const p = (S.scope || [])[0];
  if (p && p !== "*") {
    const [t, st, r, tb, g] = p.split(".");
    if (t && t !== "*") d.tournament_id = t;
    if (st && st !== "*") d.stage = st;
    if (r && r !== "*") d.round = Number(r.slice(1));
    if (tb && tb !== "*") d.table = Number(tb.slice(1));
    if (g && g !== "*") d.game = Number(g.slice(1));
  }
  return d;
}
function renderGames() {
  const d = scopeDefaults();
  const list = (S.games || []).map((g) => `<li><button class="game" data-game="${esc(g.info.game_id)}">${esc(g.info.game_id)}</button>
     <span class="meta">${esc(g.info.tournament)} · ${esc(tr("table"))} ${g.info.table} · ${esc(g.over ? tr("over") : tr("live"))}</span></li>`).join("");
  const seatsRows = Array.from({ length: 10 }, (_, i) => `<tr><td>${i + 1}</td><td><input name="nick${i + 1}"></td>
     <td><select name="card${i + 1}" class="card-pick">${ROLES.map((r) => `<option>${r}</option>`).join("")}</select></td></tr>`).join("");
  // The tournament's games for this judge: open ones to judge, the others
  // waiting for the organiser to open the round.
  const assigned = (S.assigned || []).map((g) => `<li>${g.opened ? `<button class="game assigned" data-game="${esc(g.game_id)}">${esc(g.game_id)}</button>` : `<span class="game assigned waiting" data-game="${esc(g.game_id)}">${esc(g.game_id)}</span>`}
     <span class="meta">${esc(g.tournament)} · ${esc(tr("table"))} ${g.table} · ${esc(g.scored ? tr("scored") : g.opened ? tr("assignedOpen") : tr("notOpened"))}</span></li>`).join("");
  app.innerHTML = `${assigned ? `<section class="card" id="assigned"><h2>${esc(tr("assignedGames"))}</h2><ul class="games">${assigned}</ul></section>` : ""}
    <section class="card"><h2>${esc(tr("games"))}</h2>
    ${list ? `<ul class="games">${list}</ul>` : `<p class="meta">${esc(tr("noGames"))}</p>`}
    <form id="by-id" class="row"><label>${esc(tr("gameId"))}<input id="game-id" placeholder="cup.main.r1.t3.g1"></label><button>${esc(tr("openById"))}</button></form>
    </section>
    <form id="new-game" class="card"><h2>${esc(tr("newGame"))}</h2>
    <div class="row">
      <label>${esc(tr("tournamentId"))}<input name="tournament_id" value="${esc(d.tournament_id)}" required></label>
      <label>${esc(tr("tournament"))}<input name="tournament" value="${esc(d.tournament_id)}"></label>
      <label>${esc(tr("stage"))}<input name="stage" value="${esc(d.stage)}" required></label>
      <label>${esc(tr("round"))}<input name="round" type="number" min="1" value="${d.round}"></label>
      <label>${esc(tr("table"))}<input name="table" type="number" min="1" value="${d.table}"></label>
      <label>${esc(tr("game"))}<input name="game" type="number" min="1" value="${d.game}"></label>
      <label>${esc(tr("judge"))}<input name="judge" value="${esc(S.holder || "")}"></label>
      <label>${esc(tr("rules"))}<select name="rules">${RULES.map((r) => `<option>${r}</option>`).join("")}</select></label>
    </div>
    <div class="row"><label>${esc(tr("deal"))}<select name="deal"><option value="drawn">${esc(tr("byDrawn"))}</option><option value="cards">${esc(tr("byCards"))}</option></select></label></div>
    <table class="seating"><tr><th>${esc(tr("seat"))}</th><th>${esc(tr("nickname"))}</th><th>${esc(tr("byCards"))}</th></tr>${seatsRows}</table>
    <button type="submit">${esc(tr("create"))}</button><p id="new-error" class="error">${esc(S.error)}</p></form>`;
  app.querySelectorAll("button.game").forEach((b) => { b.onclick = () => openGame(b.dataset.game); });
  app.querySelector("#by-id").onsubmit = (ev) => { ev.preventDefault(); openGame(app.querySelector("#game-id").value.trim()); };
  app.querySelector("#new-game").onsubmit = (ev) => { ev.preventDefault(); createGame(new FormData(ev.target)); };
}
// The seating as the judge entered it, or why it is not one; nothing is
// sent for a malformed seating.
export function seatingFrom(form) {
  const nicks = Array.from({ length: 10 }, (_, i) => String(form.get("nick" + (i + 1)) || "").trim());
  const seen = new Map();
  for (let i = 0; i < 10; i++) {
    const key = nicks[i].toLowerCase();
    if (!key || seen.has(key)) throw new KeyError(tr("badSeating", i + 1));
    seen.set(key, i);
  }
  const seats = nicks.map((nickname, i) => ({ seat: i + 1, player_id: nickname.toLowerCase().replace(/[^a-z0-9а-яё_-]+/g, "-"), nickname }));
  const req = {
    tournament_id: String(form.get("tournament_id")).trim(), tournament: String(form.get("tournament") || form.get("tournament_id")).trim(),
    stage: String(form.get("stage")).trim(), round: Number(form.get("round")), table: Number(form.get("table")), game: Number(form.get("game")),
    judge: String(form.get("judge") || "").trim(), rules: String(form.get("rules")), seats, at: Date.now(),
  };
  if (form.get("deal") === "cards") {
    const roles = Array.from({ length: 10 }, (_, i) => String(form.get("card" + (i + 1))));
    const count = (r) => roles.filter((x) => x === r).length;
    const red = count("civilian") + count("sheriff") + count("beauty");
    if (count("don") !== 1 || count("sheriff") !== 1 || red !== 7) throw new KeyError(tr("badCards"));
    req.cards = { roles };
  } else req.drawn = {}; // the referee draws the seed and publishes only its commitment
  return req;
}
// Opening attempts (the form, a game id, a listed game) are numbered and
// only the newest one's outcome is shown: an answer that arrives after a
// later attempt began changes neither its message nor the screen (a slow
// refusal of the previous seating once hid the error of a malformed one
// entered after it).
let attempt = 0;
async function createGame(form) {
  const mine = ++attempt;
  S.error = "";
  let req;
  try { req = seatingFrom(form); } catch (e) { S.error = e.message; app.querySelector("#new-error").textContent = S.error; return; }
  try {
    const r = await unary("OpenGame", "mafia.v1.OpenGameRequest", req, "mafia.v1.OpenGameResponse");
    if (mine === attempt) return openGame(r.game_id);
  } catch (e) {
    if (mine !== attempt) return;
    S.error = fail(e, `${req.tournament_id}.${req.stage}.r${req.round}.t${req.table}.g${req.game}`);
    app.querySelector("#new-error").textContent = S.error;
  }
}
async function openGame(id) {
  if (!id) return;
  const mine = ++attempt;
  S.gameId = id; S.store = loadStore(id); S.readOnly = false; S.post = null;
  S.state = null; S.view = null; S.prompt = null; S.violation = null; S.recall = null; S.note = null; S.promptKey = "";
  applyState(S.store.state);
  try { await refresh(); } catch (e) {
    if (mine !== attempt) return;
    if (e instanceof GrpcError && e.code !== UNAVAILABLE) { S.error = fail(e, id); S.gameId = null; S.screen = "games"; app.innerHTML = ""; render(); const n = app.querySelector("#new-error"); if (n) n.textContent = S.error; return; }
    S.conn = "offline"; S.connNote = e.message;
  }
  if (mine !== attempt) return;
  history.replaceState(null, "", location.pathname + location.search + "#game=" + encodeURIComponent(id));
  S.screen = "game"; app.innerHTML = "";
  // One tab per game in this browser: a second one only watches, so two
  // queues never number commands against each other.
  if (navigator.locks) {
    navigator.locks.request("mafia-console:" + id, { ifAvailable: true }, (lock) => {
      if (S.gameId !== id) return undefined;
      if (!lock) { S.readOnly = true; render(); return undefined; }
      return new Promise((release) => { S.unlock = release; });
    });
  }
  render(); pump();
}

function promptText(p) {
  if (!p) return "…";
  const e = (k, ...a) => tr("expect." + k, ...a);
  const list = (xs) => (xs || []).join(", ");
  switch (p.expect) {
    case "night0": return e("night0", tr("night0Steps." + p.step));
    case "speech": return e("speech", p.seat) + (p.tie ? ` · ${e("tie")}` : "") + (p.nominations_only ? ` · ${e("nomOnly")}` : "") + (p.may_withdraw ? ` · ${e("mayWithdraw")}` : "");
    case "vote": return e("vote", p.nominee, p.round + 1);
    case "ballot": return e("ballot", p.voter);
    case "lift": return e("lift", list(p.seats));
    case "last_words": return e("last_words", p.seat) + (p.testament ? ` · ${e("testament")}` : "");
    case "beauty_pick": return e("beauty_pick", p.beauty);
    case "shots": return e("shots", list(p.pending));
    case "don_check": return e("don_check", p.don);
    case "sheriff_check": return e("sheriff_check", p.sheriff);
    case "best_move": return e("best_move", p.seat);
    default: return e(p.expect);
  }
}
// The step's start as the referee stored it (the judge's clock, so it
// survives a reload), unless it is implausibly old (a record replayed with
// other times) or no judge's command started it (the first step began
// when the game was opened, for a tournament when the organiser opened
// the round, minutes before the table sat down): then since the prompt
// appeared here.
function timerStart() {
  const v = S.view, p = S.prompt;
  if (!S.state || !S.state.last_client_seq) return S.promptSince;
  const at = p && p.expect === "speech" && v && v.speech_started_at ? v.speech_started_at : v && v.step_started_at;
  return at && Math.abs(Date.now() - at) < 3600e3 ? at : S.promptSince;
}
function remaining() {
  const p = S.prompt;
  if (!p || !p.secs) return null;
  return p.secs - Math.floor((Date.now() - timerStart()) / 1000);
}
function beep() {
  try {
    const ctx = (S.audio ||= new AudioContext()), o = ctx.createOscillator(), g = ctx.createGain();
    o.connect(g); g.connect(ctx.destination); g.gain.value = 0.1; o.start(); o.stop(ctx.currentTime + 0.15);
  } catch (_) { /* no sound: the flash still shows */ }
}
function renderTimer() {
  const el = document.getElementById("timer");
  if (!el) return;
  const left = remaining();
  if (left === null) { el.textContent = ""; el.className = "timer"; return; }
  const shown = Math.max(left, 0);
  el.textContent = `${Math.floor(shown / 60)}:${String(shown % 60).padStart(2, "0")}`;
  el.className = "timer" + (left <= 0 ? " zero" : left <= 10 ? " warn" : "");
  for (const mark of [10, 0]) if (left <= mark && !S.beeped[mark]) { S.beeped[mark] = true; beep(); }
}
setInterval(renderTimer, 250);
// The table board's "console connected" (table_board.rs): while a game
// is open here, the gateway hears from this page every few seconds.
setInterval(() => {
  if (S.screen !== "game" || !S.gameId || !S.token) return;
  fetch("/judge-console/api/presence/" + encodeURIComponent(S.gameId), { method: "POST", headers: { authorization: "Bearer " + S.token } }).catch(() => {});
}, 5000);

function seatCard(s) {
  const v = S.view, p = S.prompt;
  const nomineeAt = v.nominees.indexOf(s.seat), candidateAt = v.candidates.indexOf(s.seat);
  const cls = ["seat", s.alive ? "alive" : "gone", S.selection.has(s.seat) ? "selected" : "", speaker(p) === s.seat ? "speaking" : "",
    p && p.expect === "vote" && p.nominee === s.seat ? "on-vote" : "", s.muted ? "muted" : ""].filter(Boolean).join(" ");
  const fouls = "●".repeat(s.fouls) + "○".repeat(Math.max(0, 4 - s.fouls));
  const consequence = s.departure && ["fouls", "technical_fouls", "disqualified"].includes(s.departure.cause) ? tr("removed")
    : !s.alive ? tr("out") : s.muted ? tr("muted") : "";
  const tally = candidateAt >= 0 && v.tally[candidateAt] !== undefined ? ` · ${v.tally[candidateAt]} ${tr("votes")}` : "";
  return `<button class="${cls}" data-seat="${s.seat}" type="button">
    <span class="no">${s.seat}</span><span class="nick">${esc(s.nickname)}</span>
    <span class="role role-${esc(s.role || "")}">${esc(s.role || "")}</span>
    <span class="fouls" title="${esc(tr("fouls"))}">${fouls}${s.technical_fouls ? ` T${s.technical_fouls}` : ""}${s.yellow_cards ? " 🟨" : ""}</span>
    <span class="conseq">${esc(consequence)}</span>
    ${nomineeAt >= 0 ? `<span class="nom">#${nomineeAt + 1}${tally}</span>` : ""}</button>`;
}
function summary(v) {
  const w = v.result.winner;
  const deps = v.seats.filter((s) => s.departure).map((s) => `<li>${s.seat} ${esc(s.nickname)} — ${esc(s.departure.cause)} (${esc(whenText(s.departure.when))})</li>`).join("");
  const fouls = v.seats.filter((s) => s.fouls || s.technical_fouls).map((s) => `${s.seat}: ${s.fouls}${s.technical_fouls ? "+T" + s.technical_fouls : ""}`).join(", ");
  const bm = v.best_move ? `${v.best_move.seat} → ${v.best_move.named.join(", ")}${v.best_move.hits !== null && v.best_move.hits !== undefined ? ` (${v.best_move.hits} ${tr("hits")})` : ""}` : "—";
  return `<section id="result" class="card result"><h2>${esc(tr(w === "red" ? "red" : w === "black" ? "black" : "draw"))}</h2>
    <p class="meta">${esc(v.result.reason)}</p><h3>${esc(tr("departures"))}</h3><ul>${deps}</ul>
    <p>${esc(tr("fouls"))}: ${esc(fouls || "—")}</p><p>${esc(tr("bestMove"))}: ${esc(bm)}</p></section>`;
}
// The referee cites a clause by its source file's number among
// shared/rules/sources/ (RULESETS.md): the judge knows the rulebook.
const SOURCES = { "000": "rfm", "001": "classic", "002": "minsk2017", "003": "ua", "004": "club" };
function rulebookClause(clause) { return String(clause || "").replace(/^(\d{3}) /, (all, n) => (SOURCES[n] ? SOURCES[n] + " " : all)); }
function whenText(w) { return w && w.day !== undefined ? tr("day", w.day) : w && w.night !== undefined ? tr("night", w.night) : ""; }
function renderGame() {
  if (!app.querySelector("#game")) {
    app.innerHTML = `<div id="game">
      <section id="prompt-box" class="card prompt"><div id="phase" class="meta"></div><div id="prompt-text"></div><div id="timer" class="timer"></div><div id="lists" class="meta"></div></section>
      <section id="seats" class="seats"></section>
      <section class="card entry">
        <div class="row buttons"><button id="b-next" type="button">${esc(tr("next"))} ⏎</button><button id="b-start" type="button">${esc(tr("start"))}</button>
          <button id="b-foul" type="button">${esc(tr("foul"))}</button><button id="b-undo" type="button">${esc(tr("undo"))} ⌫</button></div>
        <input id="line" autocomplete="off" autocapitalize="off" spellcheck="false" placeholder="n 7 · v 1 2 3 · k 5 · f 3 · ⏎">
        <div id="confirm" class="confirm" hidden></div><div id="violation" class="violation" hidden></div><div id="note" class="note" hidden></div>
        <div id="queue" class="queue"></div>
      </section>
      <section id="legend" class="card legend"></section>
      <section id="events" class="card events"></section></div>`;
    app.querySelector("#seats").onclick = (ev) => { const b = ev.target.closest("[data-seat]"); if (b) { seatTapped(Number(b.dataset.seat)); lineInput().focus(); } };
    app.querySelector("#b-next").onclick = () => { submitLine(""); lineInput().focus(); };
    app.querySelector("#b-start").onclick = () => { submitLine("s"); lineInput().focus(); };
    app.querySelector("#b-foul").onclick = () => { S.mode = S.mode === "foul" ? null : "foul"; render(); lineInput().focus(); };
    app.querySelector("#b-undo").onclick = () => { S.confirmUndo = true; render(); };
    lineInput().focus();
  }
  const v = S.view, p = S.prompt;
  app.querySelector("#phase").textContent = v ? `${v.rules} · ${whenText(v.when)}` : "";
  app.querySelector("#prompt-text").textContent = S.mode === "foul" ? `${tr("foul")}: ${tr("seat")}?` : promptText(p);
  app.querySelector("#lists").textContent = v ? [v.nominees.length ? `${tr("nominees")}: ${v.nominees.join(", ")}` : "", v.candidates.length && p && (p.expect === "vote" || p.expect === "lift") ? `${tr("candidates")}: ${v.candidates.join(", ")}` : ""].filter(Boolean).join(" · ") : "";
  // Replaced only when it changed: a tap whose press and release straddle
  // a replacement (the idle refresh renders every 3 s) is no click.
  const seats = app.querySelector("#seats"), seatsHtml = v ? v.seats.map(seatCard).join("") : "";
  if (seats.shownHtml !== seatsHtml) { seats.innerHTML = seatsHtml; seats.shownHtml = seatsHtml; }
  const confirm = app.querySelector("#confirm");
  confirm.hidden = !S.confirmUndo; confirm.innerHTML = S.confirmUndo ? `${esc(tr("confirmUndo"))} <button id="undo-yes" type="button">✓</button><button id="undo-no" type="button">✗</button>` : "";
  if (S.confirmUndo) { confirm.querySelector("#undo-yes").onclick = () => undoAnswer(true); confirm.querySelector("#undo-no").onclick = () => undoAnswer(false); }
  const vio = app.querySelector("#violation");
  vio.hidden = !S.violation && !S.discarded.length;
  if (S.violation) {
    const msg = S.lang === "ru" && S.violation.message_ru ? S.violation.message_ru : S.violation.message;
    vio.innerHTML = `<strong>${esc(tr("rejected"))}</strong> <code class="code">${esc(S.violation.code)}</code> <span class="clause" title="${esc(S.violation.clause)}">${esc(rulebookClause(S.violation.clause))}</span>
      <div class="message">${esc(msg)}</div><div class="meta">${esc(S.violation.line)}${S.recall ? ` · ${esc(tr("recall"))}` : ""}</div>`
      + (S.discarded.length ? `<div class="meta">${esc(tr("discarded"))}: ${esc(S.discarded.join(" · "))}</div>` : "");
  }
  const note = app.querySelector("#note");
  const notes = [S.readOnly ? tr("readOnly") : "", S.note || ""].filter(Boolean).join(" ");
  note.hidden = !notes; note.textContent = notes;
  lineInput().disabled = S.readOnly || !!(S.state && S.state.over);
  app.querySelector("#queue").textContent = S.store.queue.length ? `${tr("queue")}: ` + S.store.queue.map((c) => `#${c.seq} ${c.line}`).join(" · ") : "";
  app.querySelector("#legend").innerHTML = `<h3>${esc(tr("legend"))}</h3><dl>` + I18N[S.lang].keys.map(([k, d]) => `<dt>${esc(k)}</dt><dd>${esc(d)}</dd>`).join("") + "</dl>";
  app.querySelector("#events").innerHTML = S.events.slice().reverse().map((e) => `<div><span class="meta">${e.seq}</span> ${esc(e.type)}</div>`).join("");
  const old = app.querySelector("#result");
  if (old) old.remove();
  if (v && v.result) app.querySelector("#prompt-box").insertAdjacentHTML("afterend", summary(v));
  renderPost(v);
  renderTimer();
}

// ---------------------------------------------------------------- after the game
// Once a tournament game is over, the judge gives its extra points,
// penalties and the best move's verdict; the scoring service checks them
// against the scheme (and names the clause when it refuses).
async function loadPost() {
  const id = S.gameId;
  const r = await fetch("/judge-console/api/inputs/" + encodeURIComponent(id), { headers: { authorization: "Bearer " + S.token } }).catch(() => null);
  if (S.gameId !== id) return;
  // Not recorded yet (409), or no answer (the network, a gateway
  // restarting): asked again, or the form would never come.
  if (!r || r.status === 409 || r.status >= 500) { S.post = { waiting: true }; setTimeout(() => { if (S.post && S.post.waiting) loadPost(); }, 1000); }
  else if (r && r.ok) S.post = { data: await r.json() };
  else S.post = { none: true };
  render();
}
function postRow(d, s) {
  const given = d.inputs || { extras: [], penalties: [] };
  const extra = (given.extras.find((e) => e.seat === s.seat) || {}).points;
  const pen = (given.penalties.find((p) => p.seat === s.seat) || {}).code;
  const allowed = s.extras;
  const extraInput = allowed.kind === "list"
    ? `<select name="extra${s.seat}"><option value="">${esc(tr("post.none"))}</option>${allowed.values.map((x) => `<option${x === extra ? " selected" : ""}>${x}</option>`).join("")}</select>`
    : allowed.kind === "up_to" ? `<input name="extra${s.seat}" type="number" min="0" max="${allowed.max}" step="${allowed.step}" value="${extra ?? ""}">` : "—";
  const codes = s.penalties;
  const penInput = `<select name="penalty${s.seat}"><option value="">${esc(tr("post.none"))}</option>${codes.map((p) => `<option value="${esc(p.code)}"${p.code === pen ? " selected" : ""}>${esc(p.code)} (${p.points})</option>`).join("")}</select>`;
  return `<tr data-seat="${s.seat}"><td>${s.seat}</td><td>${esc(s.nickname)}</td><td>${esc(tr("post." + s.outcome))}</td><td>${extraInput}</td><td>${penInput}</td></tr>`;
}
// Below the game's summary.
function postAnchor() { return app.querySelector("#result") || app.querySelector("#prompt-box"); }
function renderPost(v) {
  const old = app.querySelector("#post");
  if (!v || !v.result || !S.scoring) { if (old) old.remove(); return; }
  if (!S.post) { S.post = { loading: true }; loadPost(); return; }
  if (S.post.none || S.post.loading) return;
  if (S.post.waiting) {
    if (!old) postAnchor().insertAdjacentHTML("afterend", `<section id="post" class="card"><p class="meta">${esc(tr("post.waiting"))}</p></section>`);
    return;
  }
  if (old && old.dataset.version === String(S.post.data.version)) { showPostOutcome(old); return; }
  if (old) old.remove();
  const d = S.post.data;
  const bm = d.best_move ? `<label>${esc(tr("post.bestMove"))} <select name="best_move"><option value="confirmed">${esc(tr("post.confirmed"))}</option>
    <option value="denied"${d.inputs && d.inputs.best_move === "denied" ? " selected" : ""}>${esc(tr("post.denied"))}</option></select></label>` : "";
  const html = `<form id="post" class="card post" data-version="${d.version}"><h2>${esc(tr("post.title"))}</h2>
    <table class="seating"><tr><th>${esc(tr("seat"))}</th><th>${esc(tr("nickname"))}</th><th></th><th>${esc(tr("post.extra"))}</th><th>${esc(tr("post.penalty"))}</th></tr>
    ${d.seats.map((s) => postRow(d, s)).join("")}</table>${bm}
    <button type="submit">${esc(tr("post.send"))}</button><div id="post-outcome"></div></form>`;
  postAnchor().insertAdjacentHTML("afterend", html);
  const form = app.querySelector("#post");
  form.onsubmit = (ev) => { ev.preventDefault(); sendPost(new FormData(form)); };
  showPostOutcome(form);
}
function showPostOutcome(form) {
  const box = form.querySelector("#post-outcome");
  if (!box) return;
  const o = S.post.outcome;
  box.className = o && o.error ? "violation" : "note";
  box.textContent = !o ? "" : o.error ? o.error : [tr("post.saved", o.version), o.pending.length ? tr("post.pending", o.pending.map((p) => p.item).join(", ")) : ""].filter(Boolean).join(" ");
  form.dataset.outcome = !o ? "" : o.error ? "refused" : "saved";
}
// The form as `SubmitJudgeInputs`: one extra and one penalty per seat.
export function inputsFrom(form) {
  const extras = [], penalties = [];
  for (let seat = 1; seat <= 10; seat++) {
    const x = String(form.get("extra" + seat) || "").trim();
    if (x) extras.push({ seat, points: Number(x) });
    const code = String(form.get("penalty" + seat) || "");
    if (code) penalties.push({ seat, code });
  }
  return { extras, penalties, best_move: String(form.get("best_move") || "confirmed") };
}
async function sendPost(form) {
  const d = S.post.data;
  const command = { type: "submit_judge_inputs", game: d.game, inputs: inputsFrom(form) };
  try {
    const r = await unary("Scoring/Command", "mafia.v1.CommandRequest", { tournament: d.game.split(".")[0], command_json: JSON.stringify(command) }, "mafia.v1.CommandReply");
    const pending = r.events_json.map((e) => JSON.parse(e)).flatMap((e) => e.pending || []);
    S.post.outcome = { version: String(r.version), pending };
  } catch (e) {
    S.post.outcome = { error: e instanceof GrpcError ? e.message : tr("unavailable") };
  }
  showPostOutcome(app.querySelector("#post"));
}

document.getElementById("lang").onclick = () => {
  S.lang = S.lang === "en" ? "ru" : "en";
  localStorage.setItem("mafia.console.lang", S.lang);
  app.innerHTML = ""; render();
};
// Leaving a game's screen lets go of its lock, or coming back to it in
// this tab would find it taken and only watch.
function leaveGame() {
  if (S.unlock) S.unlock();
  S.unlock = null; S.gameId = null; S.post = null; S.readOnly = false;
  history.replaceState(null, "", location.pathname + location.search);
}
document.getElementById("logout").onclick = () => {
  localStorage.removeItem("mafia.console.token");
  leaveGame();
  S.token = ""; S.screen = "login";
  app.innerHTML = ""; render();
};
// Back to the list for the next game; commands still unacknowledged keep
// the judge here (their answers belong to this game's screen).
document.getElementById("games").onclick = () => {
  if (S.inflight || (S.store && S.store.queue.length)) { S.note = tr("leaveQueued"); render(); return; }
  leaveGame();
  // Drawn once, when login() has the list: a stale list drawn first and
  // replaced under a tap would lose the tap.
  S.screen = "games"; app.innerHTML = ""; login();
};
window.addEventListener("online", () => pump());

// A token in the URL (a link handed to the judge) is taken and then
// dropped from the address bar and the history.
if (params.get("token")) {
  S.token = params.get("token");
  params.delete("token");
  history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : "") + location.hash);
}
// The office's QR links carry it in the fragment (#token=…), which no
// server or proxy log sees; taken and dropped the same way.
if (location.hash.startsWith("#token=")) {
  S.token = decodeURIComponent(location.hash.slice("#token=".length));
  history.replaceState(null, "", location.pathname + location.search);
}
render();
if (S.token) login();
