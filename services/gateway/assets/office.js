// The tournament office (issue 37): the organiser and the chief judge run
// the day from here. Every change goes to the scoring service over gRPC-web
// (the Scoring API `mafia tournament` uses: one path for both), which alone
// checks it; the page keeps no rules of its own. What it shows of a
// tournament it reads from the gateway's fold of the same log
// (/office/api/tournament/ID, waiting for the version a command returned).
// The credential lives in sessionStorage only: never in a URL or history.
"use strict";
import { call, GrpcError, NetError, CODES } from "./grpc_web.js";

// ---------------------------------------------------------------- language
const I18N = {
  en: {
    title: "Tournament office", signin: "Sign in", token: "Organiser's or chief judge's credential", signout: "Sign out",
    signinHelp: "Paste the credential the organiser gave you. It stays in this tab only and is forgotten when the tab closes.",
    badToken: "This credential is not known.", notOffice: "The office takes an organiser's or the chief judge's credential.",
    noScoring: "This gateway knows no scoring service (start it with --scoring-url).",
    noDetail: "This credential does not cover the whole tournament: the office needs an organiser's or chief judge's grant over all of it.",
    unavailable: "The service did not answer", busy: "Working…", done: "Done",
    tabs: { tournaments: "Tournaments", players: "Players", judges: "Judges", seating: "Seating", stages: "Stages", exports: "Exports", board: "Table board", rulings: "Rulings" },
    list: "Tournaments", archived: "Show archived", open: "Open", archive: "Archive", unarchive: "Back from the archive", remove: "Remove",
    confirmRemove: "Remove tournament %s? Only a tournament with no game played can be removed.",
    confirmArchive: "Archive tournament %s? It leaves the list (kept, shown with “Show archived”).",
    none: "None yet.", id: "Id", name: "Name", rules: "Rule set", scheme: "Scoring scheme", players: "Players", games: "Games", scored: "Scored",
    create: "New tournament", createBtn: "Create the tournament", idHelp: "Letters, digits and dashes; made from the name when empty.",
    overrides: "Rule overrides", overridesHelp: "Change a value to override the rule set's; each names the clauses it comes from.",
    preset: "rule set's value", moreJson: "Other overrides (JSON, optional)", badJson: "Not valid JSON: %s",
    stages: "Stages", stage: "Stage", rounds: "Rounds", tables: "Tables", coefficient: "Coefficient", addStage: "Add a stage",
    stageHelp: "Each stage: rounds, tables (10 players each) and its points coefficient (1.3 in an rfm final).",
    created: "Tournament %s created.", startsOn: "Starts on", endsOn: "Ends on", dates: "Dates", yes: "yes", no: "no",
    csv: "Players from a file", csvHelp: "Paste the list or choose the file as Excel or Google Sheets saves it: “,” or “;”, UTF-8 or Windows-1251. Columns: id (optional), nickname, club, photo URL.",
    file: "File", preview: "Preview", register: "Register these players", encoding: "Read as %s, separated by “%s”.",
    broken: "%s broken line(s) (line %s): nothing is stored until every line is fixed.", previewOk: "%s players, no broken line.", line: "Line", madeId: "made from the nickname", error: "Problem",
    registered: "%s players registered.", roster: "Registered players", nickname: "Nickname", club: "Club", photo: "Photo URL", status: "Status",
    withdrawn: "withdrawn", active: "playing", edit: "Edit", withdraw: "Withdraw", save: "Save", cancel: "Cancel",
    addPlayer: "Add a player", add: "Add", editTitle: "Edit %s", playerSaved: "Player saved",
    withdrawTitle: "Withdraw %s?", withdrawNone: "He is seated in no round not opened yet.",
    withdrawPlaying: "He is playing now: %s. That game goes on with him and counts.",
    withdrawSeated: "He is seated in rounds not opened yet: %s. Re-seat them (Seating) before opening: his seat would stay empty.",
    withdrawCount: "%s players remain.", withdrawShort: "Too few to seat the remaining rounds of %s. Add a player or change the stage before seating them.",
    withdrawFits: "They still fill every round still to seat.", perRound: "a round", confirmWithdraw: "Withdraw",
    pairs: "Pair rules", pairsHelp: "Separate: never at one table (team-mates, relatives). Avoid: as rarely as possible.",
    separate: "separate", avoid: "avoid", savePairs: "Save the pair rules", pairsSaved: "Pair rules saved.",
    judges: "Judges", addJudge: "Add a judge", judgeId: "Judge id", judgeName: "Name", tablesOf: "Tables",
    creds: "Credentials", issue: "Issue", reissue: "Re-issue", revoke: "Revoke", role: "Role", scopes: "Covers", issuedBy: "Issued by", issuedAt: "Issued", revokedAt: "Revoked",
    issueAll: "Issue for every judge without one", sheet: "QR sheet", print: "Print", sheetHelp: "Each code opens the judge console signed in. Shown once: print it now.",
    tokenOnce: "The credential (shown once):", roleChief: "Chief judge", roleOrganiser: "Organiser", roleTable: "Table judge", credsUnavailable: "Credentials: %s",
    round: "Round", generate: "Generate a seating", generated: "Proposal", random: "Random seating", metric: "Measure", proposal: "This proposal",
    swapHelp: "Click two seats to swap them; the seating is checked again before it can be published.",
    chiefSwapHelp: "Chief judge: click two seats to swap them in this published round; the swap is checked first and refused with the rule it would break.", problems: "Rules this seating breaks", noProblems: "Breaks no rule.",
    publish: "Publish the seating", published: "Round %s seated.", seated: "Seated rounds", openRound: "Open the round on the referee", opened: "Opened: %s",
    judgeOf: "Judge", seat: "Seat", table: "Table", noStage: "Add a stage first (Tournaments or Stages tab).",
    advance: "Advance the top N into the next stage", topN: "Top N", toStage: "Into", showTop: "Show the top N",
    advanceSeat: "Seat them into round 1", advanceSize: "%s players fill %s: choose that many.",
    advanceNote: "Ranked by the standings now (a tie waiting for a lot is broken by the list's order: draw the lot first). Tables by rank, seat numbers drawn; then check, swap and publish in Seating.",
    standings: "Standings", standingsCsv: "Standings CSV", standingsJson: "Standings JSON", gamesCsv: "Games CSV", gamesJson: "Games JSON", seatingSheet: "Seating sheet (HTML)", protocols: "Game protocols",
    screens: "Screens", placeholder: "This panel is not installed on this gateway yet.",
  },
  ru: {
    title: "Офис турнира", signin: "Войти", token: "Ключ организатора или главного судьи", signout: "Выйти",
    signinHelp: "Вставьте ключ, выданный организатором. Он хранится только в этой вкладке и забывается при её закрытии.",
    badToken: "Такой ключ неизвестен.", notOffice: "В офис входят с ключом организатора или главного судьи.",
    noScoring: "Шлюз не знает сервиса подсчёта (запустите его с --scoring-url).",
    noDetail: "Этот ключ не охватывает весь турнир: офису нужен доступ организатора или главного судьи ко всему турниру.",
    unavailable: "Сервис не ответил", busy: "Выполняется…", done: "Готово",
    tabs: { tournaments: "Турниры", players: "Игроки", judges: "Судьи", seating: "Рассадка", stages: "Этапы", exports: "Выгрузки", board: "Столы", rulings: "Решения" },
    list: "Турниры", archived: "Показать архив", open: "Открыть", archive: "В архив", unarchive: "Вернуть из архива", remove: "Удалить",
    confirmRemove: "Удалить турнир %s? Удалить можно только турнир без сыгранных игр.",
    confirmArchive: "Отправить турнир %s в архив? Он уйдёт из списка (сохранится, виден с «Показать архив»).",
    none: "Пока нет.", id: "Код", name: "Название", rules: "Правила", scheme: "Система подсчёта", players: "Игроки", games: "Игры", scored: "Подсчитано",
    create: "Новый турнир", createBtn: "Создать турнир", idHelp: "Латиница, цифры и дефисы; если пусто — из названия.",
    overrides: "Изменения правил", overridesHelp: "Измените значение, чтобы заменить значение правил; у каждого указаны пункты регламента.",
    preset: "по правилам", moreJson: "Другие изменения (JSON, необязательно)", badJson: "Неверный JSON: %s",
    stages: "Этапы", stage: "Этап", rounds: "Туры", tables: "Столы", coefficient: "Коэффициент", addStage: "Добавить этап",
    stageHelp: "Для каждого этапа: туры, столы (по 10 игроков) и коэффициент очков (1,3 в финале ФСМ).",
    created: "Турнир %s создан.", startsOn: "Начало", endsOn: "Окончание", dates: "Даты", yes: "да", no: "нет",
    csv: "Игроки из файла", csvHelp: "Вставьте список или выберите файл, как его сохраняет Excel или Google Таблицы: «,» или «;», UTF-8 или Windows-1251. Колонки: код (необязательно), ник, клуб, ссылка на фото.",
    file: "Файл", preview: "Проверить", register: "Зарегистрировать игроков", encoding: "Прочитан как %s, разделитель «%s».",
    broken: "Ошибочных строк: %s (строка %s). Ничего не сохранится, пока все строки не исправлены.", previewOk: "Игроков: %s, ошибок нет.", line: "Строка", madeId: "из ника", error: "Ошибка",
    registered: "Зарегистрировано игроков: %s.", roster: "Зарегистрированные игроки", nickname: "Ник", club: "Клуб", photo: "Ссылка на фото", status: "Статус",
    withdrawn: "снят", active: "играет", edit: "Изменить", withdraw: "Снять", save: "Сохранить", cancel: "Отмена",
    addPlayer: "Добавить игрока", add: "Добавить", editTitle: "Изменить: %s", playerSaved: "Игрок сохранён",
    withdrawTitle: "Снять игрока %s?", withdrawNone: "Он не посажен ни в один ещё не открытый тур.",
    withdrawPlaying: "Он сейчас играет: %s. Эта игра продолжается с ним и засчитывается.",
    withdrawSeated: "Он посажен в ещё не открытые туры: %s. Пересадите их (вкладка «Рассадка») до открытия: его место останется пустым.",
    withdrawCount: "Останется игроков: %s.", withdrawShort: "Не хватит, чтобы рассадить оставшиеся туры этапа %s. Добавьте игрока или измените этап до рассадки.",
    withdrawFits: "Их хватает на все ещё не рассаженные туры.", perRound: "за тур", confirmWithdraw: "Снять",
    pairs: "Правила пар", pairsHelp: "Развести: никогда за одним столом (одноклубники, родственники). Избегать: как можно реже.",
    separate: "развести", avoid: "избегать", savePairs: "Сохранить правила пар", pairsSaved: "Правила пар сохранены.",
    judges: "Судьи", addJudge: "Добавить судью", judgeId: "Код судьи", judgeName: "Имя", tablesOf: "Столы",
    creds: "Ключи доступа", issue: "Выдать", reissue: "Перевыпустить", revoke: "Отозвать", role: "Роль", scopes: "Доступ", issuedBy: "Выдал", issuedAt: "Выдан", revokedAt: "Отозван",
    issueAll: "Выдать всем судьям без ключа", sheet: "Лист QR-кодов", print: "Печать", sheetHelp: "Каждый код открывает пульт судьи с входом. Показывается один раз: распечатайте сейчас.",
    tokenOnce: "Ключ (показывается один раз):", roleChief: "Главный судья", roleOrganiser: "Организатор", roleTable: "Судья стола", credsUnavailable: "Ключи: %s",
    round: "Тур", generate: "Составить рассадку", generated: "Предложение", random: "Случайная рассадка", metric: "Показатель", proposal: "Это предложение",
    swapHelp: "Нажмите на два места, чтобы поменять их; рассадка проверяется заново до публикации.",
    chiefSwapHelp: "Главный судья: нажмите на два места, чтобы поменять их в опубликованном туре; обмен сначала проверяется и отклоняется с названием нарушенного правила.", problems: "Нарушенные правила", noProblems: "Правила не нарушены.",
    publish: "Опубликовать рассадку", published: "Тур %s рассажен.", seated: "Рассаженные туры", openRound: "Открыть тур у рефери", opened: "Открыты: %s",
    judgeOf: "Судья", seat: "Место", table: "Стол", noStage: "Сначала добавьте этап (вкладка «Турниры» или «Этапы»).",
    advance: "Вывести лучших N в следующий этап", topN: "Лучших", toStage: "В", showTop: "Показать лучших N",
    advanceSeat: "Рассадить их в 1-й тур", advanceSize: "%s игроков заполняют этап «%s»: выберите столько.",
    advanceNote: "По текущей таблице (равенство, ждущее жребия, решается порядком списка: сначала проведите жребий). Столы по месту, номера по жребию; затем проверка, обмен и публикация во вкладке «Рассадка».",
    standings: "Таблица", standingsCsv: "Таблица CSV", standingsJson: "Таблица JSON", gamesCsv: "Игры CSV", gamesJson: "Игры JSON", seatingSheet: "Лист рассадки (HTML)", protocols: "Протоколы игр",
    screens: "Экраны", placeholder: "Эта панель на этом шлюзе ещё не установлена.",
  },
};
const METRICS = {
  pair_meetings_min: ["Fewest meetings of a pair", "Меньше всего встреч пары"],
  pair_meetings_max: ["Most meetings of a pair", "Больше всего встреч пары"],
  pair_meetings_variance: ["Spread of pair meetings (variance)", "Разброс встреч пар (дисперсия)"],
  pairs_never_met: ["Pairs never met", "Пары, не встретившиеся ни разу"],
  seat_number_max_per_player: ["Most times in one seat number", "Больше всего раз на одном номере"],
  seat_cap_violations: ["Players over the seat-number cap", "Игроки сверх предела по номеру"],
  edge_seats_max_per_player: ["Most games in seats 1, 2, 9, 10", "Больше всего игр на местах 1, 2, 9, 10"],
  avoid_meetings: ["Meetings of “avoid” pairs", "Встречи пар «избегать»"],
  separate_violations: ["“Separate” pairs at one table", "Пары «развести» за одним столом"],
  judge_same_table_max: ["Most rounds of a judge at one table", "Больше всего туров судьи за одним столом"],
  games_min: ["Fewest games of a player", "Меньше всего игр у игрока"],
  games_max: ["Most games of a player", "Больше всего игр у игрока"],
};

const params = new URLSearchParams(location.search);
const S = {
  lang: (params.get("lang") || localStorage.getItem("mafia.office.lang") || navigator.language || "en").toLowerCase().startsWith("ru") ? "ru" : "en",
  scoring: document.querySelector('meta[name="mafia-scoring"]').content,
  token: sessionStorage.getItem("mafia.office.token") || "",
  who: null, tab: "tournaments", tournament: sessionStorage.getItem("mafia.office.tournament") || "",
  view: null, list: [], showArchived: false, presets: null,
  preview: null, csvBytes: null, plan: null, picked: null, pairDraft: null, issued: [],
  top: null,
};
// For tests: what the page knows, without scraping.
window.__office = S;

function tr(key, ...args) {
  let v = key.split(".").reduce((o, k) => (o ? o[k] : undefined), I18N[S.lang]);
  if (v === undefined) v = key;
  for (const a of args) v = v.replace("%s", a);
  return v;
}
// An element: h("tag#id.class", {attrs, on*: handler}, ...children).
function h(spec, attrs, ...kids) {
  const [, tag, id, cls] = spec.match(/^([a-z0-9]+)(?:#([\w-]+))?((?:\.[\w-]+)*)$/);
  const el = document.createElement(tag);
  if (id) el.id = id;
  if (cls) el.className = cls.slice(1).replace(/\./g, " ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k in el && k !== "list") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat(Infinity)) if (kid !== null && kid !== undefined && kid !== false) el.append(kid instanceof Node ? kid : String(kid));
  return el;
}
const app = document.getElementById("app");
const noteEl = document.getElementById("note");
function note(text, bad) { noteEl.textContent = text || ""; noteEl.className = bad ? "bad" : text ? "ok" : ""; }

// ---------------------------------------------------------------- calls
function scoring(method, reqType, msg, respType) {
  return call(S.scoring, "Scoring", method, reqType, msg, respType, S.token);
}
function failText(e) {
  if (e instanceof GrpcError) {
    if (e.code === CODES.UNAUTHENTICATED) return tr("badToken");
    return e.message || String(e.code);
  }
  if (e instanceof NetError || e instanceof TypeError) return tr("unavailable") + ": " + (e.message || e);
  return e.message || String(e);
}
// Runs `work` with the page marked busy; its error shown in the note.
async function act(work, okText) {
  document.body.dataset.busy = "1";
  note(tr("busy"));
  try {
    const r = await work();
    note(typeof okText === "function" ? okText(r) : okText || tr("done"));
    return r;
  } catch (e) {
    note(failText(e), true);
    throw e;
  } finally { document.body.dataset.busy = "0"; }
}
async function command(cmd) {
  const r = await scoring("Command", "mafia.v1.CommandRequest", { tournament: S.tournament, command_json: JSON.stringify(cmd) }, "mafia.v1.CommandReply");
  await loadView();
  return r;
}
async function gateway(path, init) {
  const r = await fetch(path, { ...init, headers: { authorization: "Bearer " + S.token, ...(init && init.headers) }, cache: "no-store" });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(body.error || "HTTP " + r.status), { status: r.status });
  return body;
}
// The tournament as the office shows it: GetTournament's detail (the
// scoring service's own fold, so a command's effect is there at once),
// for an organiser or a chief judge of the whole tournament.
async function loadView() {
  if (!S.tournament) { S.view = null; return; }
  const t = await scoring("GetTournament", "mafia.v1.TournamentRef", { tournament: S.tournament }, "mafia.v1.TournamentSummary");
  if (!t.detail_json) throw new Error(tr("noDetail"));
  const d = JSON.parse(t.detail_json);
  S.view = {
    id: t.id, name: t.name, rules: t.rules, scheme: t.scheme, version: t.version, starts_on: t.starts_on, ends_on: t.ends_on,
    archived: t.archived, stages: d.stages, judges: d.judges, pair_rules: d.pair_rules, rounds: d.rounds, appeals: d.appeals, audit: d.audit,
    players: d.players.map((r) => ({ player: r.player, withdrawn: r.withdrawn_at !== null && r.withdrawn_at !== undefined })),
    // A game is assigned when its round is opened (OpenRound).
    games: d.games.map((g) => ({ ...g, id: g.game, opened: g.state !== "annulled", scored: g.state === "finished" || g.state === "confirmed" })),
  };
}
const nick = (id) => { const p = S.view && S.view.players.find((r) => r.player.id === id); return p ? p.player.nickname : id; };
function download(bytes, name, type) {
  S.downloaded = { name, type, bytes: bytes.byteLength };
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
const slug = (text) => text.toLowerCase().normalize("NFKD").replace(/[^\w-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
// Cyrillic names made into ids (the scoring service makes players' own).
const TRANSLIT = { а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ё: "e", ж: "zh", з: "z", и: "i", й: "y", к: "k", л: "l", м: "m", н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "h", ц: "ts", ч: "ch", ш: "sh", щ: "sch", ъ: "", ы: "y", ь: "", э: "e", ю: "yu", я: "ya" };
const idFrom = (text) => slug([...text.toLowerCase()].map((c) => TRANSLIT[c] ?? c).join(""));

// A question in a modal dialog (#<id>, its yes button #<id>-ok): true
// when the yes button closed it.
async function ask(id, title, yes, ...body) {
  const dialog = h(`dialog#${id}`, {}, h("h3", {}, title), ...body,
    h("form", { method: "dialog" }, h("button", { value: "cancel" }, tr("cancel")), h(`button#${id}-ok.danger`, { value: "ok" }, yes)));
  document.body.append(dialog);
  dialog.showModal();
  await new Promise((resolve) => dialog.addEventListener("close", resolve, { once: true }));
  dialog.remove();
  return dialog.returnValue === "ok";
}

// ---------------------------------------------------------------- frame
function renderFrame() {
  document.documentElement.lang = S.lang;
  document.title = tr("title");
  document.getElementById("lang").textContent = S.lang === "en" ? "RU" : "EN";
  const out = document.getElementById("signout");
  out.hidden = !S.who; out.textContent = tr("signout");
  document.getElementById("who").textContent = S.who ? `${S.who.holder || S.who.role}` : "";
  document.getElementById("title").textContent = S.view ? S.view.name : tr("title");
  const tabs = document.getElementById("tabs");
  tabs.hidden = !S.who;
  tabs.replaceChildren(...Object.keys(I18N.en.tabs).map((t) => h("button", {
    type: "button", dataset: { tab: t }, className: S.tab === t ? "on" : "",
    disabled: t !== "tournaments" && !S.tournament,
    onclick: () => { S.tab = t; render(); },
  }, tr("tabs." + t))));
}
async function render() {
  if (mounted && mounted.stop) mounted.stop();
  mounted = null;
  renderFrame();
  document.body.dataset.screen = S.who ? S.tab : "signin";
  if (!S.who) return app.replaceChildren(signinScreen());
  const screens = { tournaments: tournamentsScreen, players: playersScreen, judges: judgesScreen, seating: seatingScreen, stages: stagesScreen, exports: exportsScreen, board: boardScreen, rulings: rulingsScreen };
  app.replaceChildren(await screens[S.tab]());
}

// ---------------------------------------------------------------- sign-in
function signinScreen() {
  const input = h("input#token", { type: "password", autocomplete: "current-password", required: true });
  return h("form#signin.card", {
    onsubmit: (e) => { e.preventDefault(); signIn(input.value.trim()); },
  }, h("h1", {}, tr("title")), h("p.help", {}, tr("signinHelp")),
  S.scoring ? null : h("p.bad", {}, tr("noScoring")),
  h("label", {}, tr("token"), input), h("button", { type: "submit" }, tr("signin")));
}
async function signIn(token) {
  S.token = token;
  try {
    S.who = await gateway("/office/api/whoami");
  } catch (e) {
    S.token = ""; S.who = null;
    note(e.status === 403 ? tr("notOffice") : e.status === 401 ? tr("badToken") : failText(e), true);
    return;
  }
  sessionStorage.setItem("mafia.office.token", token);
  note("");
  if (S.tournament) await loadView().catch(() => { S.tournament = ""; S.view = null; });
  render();
}
document.getElementById("signout").onclick = () => {
  sessionStorage.removeItem("mafia.office.token");
  sessionStorage.removeItem("mafia.office.tournament");
  Object.assign(S, { token: "", who: null, view: null, tournament: "", tab: "tournaments", issued: [], plan: null, preview: null });
  note(""); render();
};
document.getElementById("lang").onclick = () => {
  S.lang = S.lang === "en" ? "ru" : "en";
  localStorage.setItem("mafia.office.lang", S.lang);
  render();
};

// ---------------------------------------------------------------- tournaments
async function tournamentsScreen() {
  const list = await scoring("ListTournaments", "mafia.v1.ListTournamentsRequest", { include_archived: S.showArchived }, "mafia.v1.ListTournamentsReply")
    .then((r) => r.tournaments).catch((e) => { note(failText(e), true); return []; });
  S.list = list;
  if (!S.presets) S.presets = await gateway("/office/api/presets");
  const rows = list.map((t) => h("tr", { dataset: { tournament: t.id }, className: t.id === S.tournament ? "on" : "" },
    h("td", {}, h("strong", {}, t.name), h("br"), h("code", {}, t.id), t.starts_on ? h("small", {}, ` · ${t.starts_on}${t.ends_on && t.ends_on !== t.starts_on ? " – " + t.ends_on : ""}`) : null), h("td", {}, t.rules), h("td", {}, t.scheme),
    h("td.num", {}, t.players), h("td.num", {}, `${t.scored_games}/${t.games}`),
    h("td.actions", {},
      h("button.open", { type: "button", onclick: () => openTournament(t.id) }, tr("open")),
      t.archived ? h("button.unarchive", { type: "button", onclick: () => archive(t, "unarchive") }, tr("unarchive")) : h("button.archive", { type: "button", onclick: () => archive(t, "archive") }, tr("archive")),
      h("button.remove.danger", { type: "button", onclick: () => removeTournament(t) }, tr("remove")))));
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("list")),
      h("label.inline", {}, h("input", { type: "checkbox", checked: S.showArchived, onchange: (e) => { S.showArchived = e.target.checked; render(); } }), tr("archived")),
      list.length ? h("div.scroll", {}, h("table#tournaments", {}, h("thead", {}, h("tr", {}, [tr("name"), tr("rules"), tr("scheme"), tr("players"), tr("scored"), ""].map((x) => h("th", {}, x)))), h("tbody", {}, rows))) : h("p", {}, tr("none"))),
    createForm());
}
async function openTournament(id) {
  S.tournament = id;
  sessionStorage.setItem("mafia.office.tournament", id);
  Object.assign(S, { plan: null, preview: null, picked: null, pairDraft: null, issued: [], top: null });
  await act(() => loadView()).catch(() => {});
  S.tab = "players";
  render();
}
async function archive(t, type) {
  if (type === "archive" && !await ask("archive", tr("archive"), tr("archive"), h("p", {}, tr("confirmArchive", t.name)))) return;
  await act(() => scoring("Command", "mafia.v1.CommandRequest", { tournament: t.id, command_json: JSON.stringify({ type }) }, "mafia.v1.CommandReply")).catch(() => {});
  render();
}
async function removeTournament(t) {
  if (!await ask("remove", tr("remove"), tr("remove"), h("p", {}, tr("confirmRemove", t.name)))) return;
  await act(() => scoring("RemoveTournament", "mafia.v1.TournamentRef", { tournament: t.id }, "mafia.v1.CommandReply")).catch(() => {});
  if (S.tournament === t.id) { S.tournament = ""; S.view = null; sessionStorage.removeItem("mafia.office.tournament"); }
  render();
}

function createForm() {
  const P = S.presets;
  const f = {
    name: h("input#t-name", { required: true, maxLength: 120 }),
    id: h("input#t-id", { pattern: "[A-Za-z0-9][A-Za-z0-9\\-]*", maxLength: 40 }),
    rules: h("select#t-rules", {}, P.rules.map((r) => h("option", { value: r.id }, r.id))),
    scheme: h("select#t-scheme", {}, Object.keys(P.schemes).map((s) => h("option", { value: s }, `${s} — ${P.schemes[s].name}`))),
    json: h("textarea#t-json", { rows: 2, placeholder: '{"speech_secs": 50}' }),
    starts: h("input#t-starts", { type: "date" }),
    ends: h("input#t-ends", { type: "date" }),
  };
  f.name.addEventListener("input", () => { f.id.placeholder = idFrom(f.name.value); });
  const overridesBox = h("div.overrides");
  const valueAt = (params, path) => path.split(".").reduce((o, k) => (o ? o[k] : undefined), params);
  const drawOverrides = () => {
    const params = P.rules.find((r) => r.id === f.rules.value).params;
    overridesBox.replaceChildren(...P.overrides.map((o) => {
      const v = valueAt(params, o.path);
      const input = typeof v === "boolean"
        ? h("select", { dataset: { path: o.path, preset: String(v) } }, h("option", { value: "true", selected: v }, tr("yes")), h("option", { value: "false", selected: !v }, tr("no")))
        : h("input", { type: "number", min: 0, max: 600, value: v ?? "", disabled: v === undefined || v === null, dataset: { path: o.path, preset: String(v) } });
      return h("label.override", {}, h("span", {}, S.lang === "ru" ? o.ru : o.en, h("small", {}, ` ${o.clauses} · ${tr("preset")}: ${v === true ? tr("yes") : v === false ? tr("no") : v ?? "—"}`)), input);
    }));
  };
  f.rules.addEventListener("change", () => { drawOverrides(); const s = f.rules.value; if (P.schemes[s]) f.scheme.value = s; });
  if (P.schemes[f.rules.value]) f.scheme.value = f.rules.value;
  drawOverrides();
  const stageRows = h("tbody#t-stages");
  const addStage = (id, name, rounds, tables, coef) => stageRows.append(h("tr", {},
    h("td", {}, h("input", { value: id, size: 8, dataset: { k: "id" } })), h("td", {}, h("input", { value: name, dataset: { k: "name" } })),
    h("td", {}, h("input", { type: "number", min: 1, max: 50, value: rounds, dataset: { k: "rounds" } })),
    h("td", {}, h("input", { type: "number", min: 1, max: 100, value: tables, dataset: { k: "tables" } })),
    h("td", {}, h("input", { type: "number", min: 0.1, max: 100, step: 0.001, value: coef, dataset: { k: "coefficient" } }))));
  addStage("main", S.lang === "ru" ? "Отбор" : "Qualifying", 10, 2, 1);
  const submit = async (e) => {
    e.preventDefault();
    let overrides = {};
    try { overrides = f.json.value.trim() ? JSON.parse(f.json.value) : {}; } catch (err) { return note(tr("badJson", err.message), true); }
    for (const input of overridesBox.querySelectorAll("[data-path]")) {
      if (input.disabled || String(input.value) === input.dataset.preset) continue;
      const v = input.tagName === "SELECT" ? input.value === "true" : Number(input.value);
      const path = input.dataset.path.split(".");
      let o = overrides;
      for (const k of path.slice(0, -1)) o = o[k] = o[k] || {};
      o[path.at(-1)] = v;
    }
    const id = f.id.value.trim() || idFrom(f.name.value);
    const spec = { id, name: f.name.value.trim(), rules: f.rules.value, rule_overrides: overrides, scheme: P.schemes[f.scheme.value] };
    if (f.starts.value) spec.starts_on = f.starts.value;
    if (f.ends.value) spec.ends_on = f.ends.value;
    const stages = [...stageRows.querySelectorAll("tr")].map((tr_) => {
      const v = (k) => tr_.querySelector(`[data-k="${k}"]`).value.trim();
      return { id: v("id"), name: v("name") || v("id"), rounds: Number(v("rounds")), tables: Number(v("tables")), coefficient: Number(v("coefficient")) };
    }).filter((s) => s.id);
    try {
      await act(async () => {
        await scoring("CreateTournament", "mafia.v1.CreateTournamentRequest", { spec_json: JSON.stringify(spec) }, "mafia.v1.CommandReply");
        S.tournament = id;
        for (const stage of stages) await scoring("Command", "mafia.v1.CommandRequest", { tournament: id, command_json: JSON.stringify({ type: "add_stage", stage }) }, "mafia.v1.CommandReply");
      }, tr("created", spec.name));
    } catch (_) { return; }
    await openTournament(id);
    note(tr("created", spec.name));
  };
  return h("form#create.card", { onsubmit: submit }, h("h2", {}, tr("create")),
    h("div.grid", {}, h("label", {}, tr("name"), f.name), h("label", {}, tr("id"), f.id, h("small", {}, tr("idHelp"))),
      h("label", {}, tr("startsOn"), f.starts), h("label", {}, tr("endsOn"), f.ends),
      h("label", {}, tr("rules"), f.rules), h("label", {}, tr("scheme"), f.scheme)),
    h("h3", {}, tr("stages")), h("p.help", {}, tr("stageHelp")),
    h("div.scroll", {}, h("table.stages", {}, h("thead", {}, h("tr", {}, [tr("id"), tr("name"), tr("rounds"), tr("tables"), tr("coefficient")].map((x) => h("th", {}, x)))), stageRows)),
    h("button", { type: "button", onclick: () => addStage("final", S.lang === "ru" ? "Финал" : "Final", 2, 1, 1.3) }, tr("addStage")),
    h("details", {}, h("summary", {}, tr("overrides")), h("p.help", {}, tr("overridesHelp")), overridesBox, h("label", {}, tr("moreJson"), f.json)),
    h("p", {}, h("button#create-btn.primary", { type: "submit" }, tr("createBtn"))));
}

// ---------------------------------------------------------------- players
async function playersScreen() {
  const v = S.view;
  const text = h("textarea#csv-text", { rows: 6, placeholder: "id;nickname;club;photo_url" });
  const file = h("input#csv-file", { type: "file", accept: ".csv,text/csv,text/plain" });
  const bytesNow = async () => {
    if (file.files[0]) return new Uint8Array(await file.files[0].arrayBuffer());
    return new TextEncoder().encode(text.value);
  };
  const preview = async () => {
    S.csvBytes = await bytesNow();
    S.preview = await act(() => scoring("PreviewPlayersCsv", "mafia.v1.RegisterPlayersCsvRequest", { tournament: S.tournament, csv_bytes: S.csvBytes }, "mafia.v1.PlayersCsvPreview"),
      (p) => p.errors ? "" : tr("previewOk", p.rows.length)).catch(() => null);
    if (S.preview && S.preview.errors) note(brokenText(S.preview), true);
    render();
  };
  const register = async () => {
    await act(async () => {
      const r = await scoring("RegisterPlayersCsv", "mafia.v1.RegisterPlayersCsvRequest", { tournament: S.tournament, csv_bytes: S.csvBytes }, "mafia.v1.CommandReply");
      await loadView();
    }, tr("registered", S.preview.rows.length)).catch(() => {});
    S.preview = null; S.csvBytes = null;
    render();
  };
  const brokenText = (p) => tr("broken", p.errors, p.rows.filter((r) => r.error).map((r) => r.line).slice(0, 20).join(", "));
  const p = S.preview;
  const previewBox = p ? h("div#preview", { dataset: { errors: p.errors, rows: p.rows.length } },
    h("p", {}, tr("encoding", p.encoding, p.separator), " ", h("strong", { className: p.errors ? "bad" : "ok" }, p.errors ? brokenText(p) : tr("previewOk", p.rows.length))),
    h("div.scroll", {}, h("table", {}, h("thead", {}, h("tr", {}, [tr("line"), tr("id"), tr("nickname"), tr("club"), tr("photo"), tr("error")].map((x) => h("th", {}, x)))),
      h("tbody", {}, p.rows.map((r) => h("tr", { className: r.error ? "broken" : "", dataset: { line: r.line } },
        h("td.num", {}, r.line), h("td", {}, h("code", {}, r.id), r.id_made && r.id ? h("small", {}, ` (${tr("madeId")})`) : null),
        h("td", {}, r.nickname), h("td", {}, r.club), h("td.url", {}, r.photo_url), h("td.err", {}, S.lang === "ru" && r.error_ru ? r.error_ru : r.error)))))),
    h("button#register.primary", { type: "button", disabled: p.errors > 0 || !p.rows.length, onclick: register }, tr("register"))) : null;
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("csv")), h("p.help", {}, tr("csvHelp")), text, h("label", {}, tr("file"), file),
      h("button#preview-btn", { type: "button", onclick: preview }, tr("preview")), previewBox),
    h("section.card", {}, h("h2", {}, tr("addPlayer")), playerForm()),
    h("section.card", {}, h("h2", {}, `${tr("roster")} (${v.players.filter((r) => !r.withdrawn).length}/${v.players.length})`), rosterTable()),
    h("section.card", {}, h("h2", {}, tr("pairs")), h("p.help", {}, tr("pairsHelp")), pairRules()));
}
function playerForm() {
  const f = { nickname: h("input#p-nick", { required: true, maxLength: 80 }), id: h("input#p-id", { maxLength: 40 }), club: h("input#p-club", { maxLength: 80 }), photo: h("input#p-photo", { type: "url", maxLength: 500 }) };
  f.nickname.addEventListener("input", () => { f.id.placeholder = idFrom(f.nickname.value); });
  return h("form#add-player.grid", {
    onsubmit: async (e) => {
      e.preventDefault();
      const player = { id: f.id.value.trim() || idFrom(f.nickname.value), nickname: f.nickname.value.trim(), club: f.club.value.trim() || null, photo_url: f.photo.value.trim() || null };
      await act(() => command({ type: "register_player", player })).catch(() => {});
      render();
    },
  }, h("label", {}, tr("nickname"), f.nickname), h("label", {}, tr("id"), f.id), h("label", {}, tr("club"), f.club), h("label", {}, tr("photo"), f.photo),
  h("button", { type: "submit" }, tr("add")));
}
function rosterTable() {
  const v = S.view;
  if (!v.players.length) return h("p", {}, tr("none"));
  return h("div.scroll", {}, h("table#roster", {}, h("thead", {}, h("tr", {}, [tr("id"), tr("nickname"), tr("club"), tr("photo"), tr("status"), ""].map((x) => h("th", {}, x)))),
    h("tbody", {}, v.players.map((r) => h("tr", { className: r.withdrawn ? "withdrawn" : "", dataset: { player: r.player.id } },
      h("td", {}, h("code", {}, r.player.id)), h("td.nick", {}, r.player.nickname), h("td", {}, r.player.club || ""),
      h("td.url", {}, r.player.photo_url ? h("a", { href: r.player.photo_url, target: "_blank", rel: "noopener" }, "↗") : ""),
      h("td", {}, r.withdrawn ? tr("withdrawn") : tr("active")),
      h("td.actions", {}, h("button", { type: "button", dataset: { edit: r.player.id }, onclick: () => editPlayer(r.player) }, tr("edit")),
        r.withdrawn ? null : h("button.danger", { type: "button", onclick: () => withdraw(r.player) }, tr("withdraw"))))))));
}
// Where `player` sits in rounds not over: seated but not opened yet, or
// opened and still being played.
function seatsOf(player) {
  const v = S.view;
  const out = { ahead: [], playing: [] };
  for (const r of v.rounds) {
    const t = r.tables.find((x) => x.seats.includes(player));
    if (!t) continue;
    const prefix = `${v.id}.${r.stage}.r${r.round}.`;
    const games = v.games.filter((g) => g.id.startsWith(prefix));
    const where = `${r.stage} ${tr("round").toLowerCase()} ${r.round}, ${tr("table").toLowerCase()} ${t.table}, ${tr("seat").toLowerCase()} ${t.seats.indexOf(player) + 1}`;
    if (!games.length) out.ahead.push(where);
    else if (games.some((g) => !g.scored)) out.playing.push(where);
  }
  return out;
}
// Nickname, club and photo of a registered player; his id stays.
async function editPlayer(p) {
  const nick = h("input#e-nick", { value: p.nickname, required: true, maxLength: 80 });
  const club = h("input#e-club", { value: p.club || "", maxLength: 80 });
  const photo = h("input#e-photo", { type: "url", value: p.photo_url || "", maxLength: 500 });
  const ok = await ask("edit-player", tr("editTitle", p.nickname), tr("save"),
    h("label", {}, tr("nickname"), nick), h("label", {}, tr("club"), club), h("label", {}, tr("photo"), photo));
  if (!ok) return;
  const player = { id: p.id, nickname: nick.value.trim(), club: club.value.trim() || null, photo_url: photo.value.trim() || null };
  await act(() => command({ type: "update_player", player }), tr("playerSaved")).catch(() => {});
  render();
}
async function withdraw(player) {
  const v = S.view;
  const at = seatsOf(player.id);
  const left = v.players.filter((r) => !r.withdrawn && r.player.id !== player.id).length;
  // Stages with rounds not seated yet, and whether those still fill.
  const short = v.stages.filter((s) => v.rounds.filter((r) => r.stage === s.id).length < s.rounds && left < s.tables * 10);
  const ok = await ask("withdraw", tr("withdrawTitle", player.nickname), tr("confirmWithdraw"),
    at.playing.length ? h("p", {}, tr("withdrawPlaying", at.playing.join("; "))) : null,
    h("p", {}, at.ahead.length ? tr("withdrawSeated", at.ahead.join("; ")) : tr("withdrawNone")),
    h("p", { className: short.length ? "bad" : "" }, tr("withdrawCount", left), " ",
      short.length ? tr("withdrawShort", short.map((s) => `${s.name} (${s.tables * 10} ${tr("perRound")})`).join(", ")) : tr("withdrawFits")));
  if (!ok) return;
  await act(() => command({ type: "withdraw_player", player: player.id })).catch(() => {});
  render();
}
function pairRules() {
  const v = S.view;
  if (!S.pairDraft) S.pairDraft = v.pair_rules.map((r) => ({ ...r }));
  const options = () => v.players.filter((r) => !r.withdrawn).map((r) => h("option", { value: r.player.id }, `${r.player.nickname} (${r.player.id})`));
  const a = h("select#pair-a", {}, options()), b = h("select#pair-b", {}, options());
  const kind = h("select#pair-kind", {}, h("option", { value: "separate" }, tr("separate")), h("option", { value: "avoid" }, tr("avoid")));
  return h("div", {},
    h("ul#pairs", {}, S.pairDraft.map((r, i) => h("li", {}, `${nick(r.a)} — ${nick(r.b)}: ${tr(r.kind)} `,
      h("button", { type: "button", onclick: () => { S.pairDraft.splice(i, 1); render(); } }, "✕")))),
    h("div.row", {}, a, b, kind, h("button#pair-add", { type: "button", onclick: () => { if (a.value !== b.value) { S.pairDraft.push({ kind: kind.value, a: a.value, b: b.value }); render(); } } }, tr("add"))),
    h("button#pairs-save.primary", { type: "button", onclick: async () => { await act(() => command({ type: "set_pair_rules", rules: S.pairDraft }), tr("pairsSaved")).catch(() => {}); S.pairDraft = null; render(); } }, tr("savePairs")));
}

// ---------------------------------------------------------------- judges
async function judgesScreen() {
  const v = S.view;
  const jid = h("input#j-id", { maxLength: 40 }), jname = h("input#j-name", { required: true, maxLength: 80 });
  jname.addEventListener("input", () => { jid.placeholder = idFrom(jname.value); });
  let creds = [], credError = null;
  try {
    creds = (await scoring("ListCredentials", "mafia.v1.TournamentRef", { tournament: S.tournament }, "mafia.v1.CredentialList")).credentials;
  } catch (e) { credError = failText(e); }
  const tablesOf = (j) => v.rounds.flatMap((r) => r.tables.filter((t) => t.judge === j).map((t) => `${r.stage} r${r.round} t${t.table}`));
  const live = (name) => creds.find((c) => c.name === name && c.role === "table_judge" && !c.revoked_at_ms);
  const issue = async (judge) => {
    const r = await scoring("IssueCredential", "mafia.v1.IssueCredentialRequest", { tournament: S.tournament, role: "table_judge", name: judge.id, scopes: [] }, "mafia.v1.IssueCredentialReply");
    S.issued.push({ judge, token: r.token, credential: r.credential });
  };
  const revoke = (c) => scoring("RevokeCredential", "mafia.v1.RevokeCredentialRequest", { tournament: S.tournament, id: c.id }, "mafia.v1.CredentialList");
  const when = (ms) => ms ? new Date(ms).toLocaleString(S.lang === "ru" ? "ru-RU" : "en-GB") : "";
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("judges")),
      v.judges.length ? h("div.scroll", {}, h("table#judges", {}, h("thead", {}, h("tr", {}, [tr("judgeId"), tr("judgeName"), tr("tablesOf"), tr("creds")].map((x) => h("th", {}, x)))),
        h("tbody", {}, v.judges.map((j) => {
          const c = live(j.id);
          return h("tr", { dataset: { judge: j.id } }, h("td", {}, h("code", {}, j.id)), h("td", {}, j.name), h("td", {}, tablesOf(j.id).join(", ")),
            h("td.actions", {}, c ? h("button", { type: "button", onclick: async () => { await act(async () => { await revoke(c); S.issued = S.issued.filter((i) => i.credential.id !== c.id); await issue(j); }).catch(() => {}); render(); } }, tr("reissue"))
              : h("button.issue", { type: "button", onclick: async () => { await act(() => issue(j)).catch(() => {}); render(); } }, tr("issue"))));
        })))) : h("p", {}, tr("none")),
      h("form#add-judge.row", {
        onsubmit: async (e) => { e.preventDefault(); await act(() => command({ type: "add_judge", judge: { id: jid.value.trim() || idFrom(jname.value), name: jname.value.trim() } })).catch(() => {}); render(); },
      }, h("label", {}, tr("judgeName"), jname), h("label", {}, tr("judgeId"), jid), h("button", { type: "submit" }, tr("addJudge")))),
    S.issued.length ? qrSheet() : null,
    h("section.card", {}, h("h2", {}, tr("creds")),
      credError ? h("p.bad", {}, tr("credsUnavailable", credError)) : null,
      h("button#issue-all", { type: "button", disabled: !!credError, onclick: async () => { await act(async () => { for (const j of v.judges) if (!live(j.id)) await issue(j); }).catch(() => {}); render(); } }, tr("issueAll")),
      otherCredential(),
      creds.length ? h("div.scroll", {}, h("table#creds", {}, h("thead", {}, h("tr", {}, [tr("id"), tr("role"), tr("name"), tr("scopes"), tr("issuedBy"), tr("issuedAt"), tr("revokedAt"), ""].map((x) => h("th", {}, x)))),
        h("tbody", {}, creds.map((c) => h("tr", { className: c.revoked_at_ms ? "withdrawn" : "", dataset: { credential: c.id } },
          h("td", {}, h("code", {}, c.id)), h("td", {}, tr({ table_judge: "roleTable", chief_judge: "roleChief", organiser: "roleOrganiser" }[c.role] || c.role)), h("td", {}, c.name), h("td", {}, c.scopes.join(" ")), h("td", {}, c.issued_by), h("td", {}, when(c.issued_at_ms)),
          h("td", {}, c.revoked_at_ms ? `${when(c.revoked_at_ms)} (${c.revoked_by})` : ""),
          h("td", {}, c.revoked_at_ms ? null : h("button.danger", { type: "button", onclick: async () => { await act(() => revoke(c)).catch(() => {}); S.issued = S.issued.filter((i) => i.credential.id !== c.id); render(); } }, tr("revoke")))))))) : null));
}
// A chief judge's or organiser's credential over the whole tournament:
// its token shown once (in the sheet, with a QR code of the page it is for).
function otherCredential() {
  const role = h("select#cred-role", {}, h("option", { value: "chief_judge" }, tr("roleChief")), h("option", { value: "organiser" }, tr("roleOrganiser")));
  const name = h("input#cred-name", { required: true, maxLength: 80 });
  return h("form#issue-other.row", {
    onsubmit: async (e) => {
      e.preventDefault();
      await act(async () => {
        const r = await scoring("IssueCredential", "mafia.v1.IssueCredentialRequest", { tournament: S.tournament, role: role.value, name: name.value.trim(), scopes: [] }, "mafia.v1.IssueCredentialReply");
        S.issued.push({ judge: { id: role.value, name: name.value.trim() }, token: r.token, credential: r.credential, page: role.value === "organiser" ? "/office" : "/judge" });
      }).catch(() => {});
      render();
    },
  }, h("label", {}, tr("role"), role), h("label", {}, tr("name"), name), h("button", { type: "submit" }, tr("issue")));
}
// The credentials just issued as a printable sheet of QR codes, each the
// judge console's link with the token in its fragment (never sent to a
// server); the codes drawn by the gateway from a POST body.
function qrSheet() {
  const box = h("div#qr-sheet.sheet");
  // The office and the dashboard take a credential typed in, never one in
  // a link: their codes carry the page alone.
  const links = S.issued.map((i) => i.page ? `${location.origin}${i.page}` : `${location.origin}/judge-console#token=${encodeURIComponent(i.token)}`);
  gateway("/office/api/qr", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ texts: links }) })
    .then((r) => box.replaceChildren(...S.issued.map((i, n) => {
      const code = h("div.qr");
      code.innerHTML = r.svgs[n]; // SVG made by the gateway from our own text
      return h("figure", { dataset: { judge: i.judge.id } }, code, h("figcaption", {}, h("strong", {}, i.judge.name), h("br"), `${S.view.name} · ${i.judge.id}`, h("br"),
        h("small", {}, (i.credential ? i.credential.scopes : []).join(" ")), h("br"), h("code.token", {}, i.token)));
    })))
    .catch((e) => note(failText(e), true));
  return h("section#sheet.card", {}, h("h2", {}, tr("sheet")), h("p.help", {}, tr("sheetHelp")),
    h("button.noprint", { type: "button", onclick: () => window.print() }, tr("print")),
    h("button.noprint", { type: "button", onclick: () => { S.issued = []; render(); } }, "✕"), box);
}

// ---------------------------------------------------------------- seating
function stagePicker() {
  const v = S.view;
  if (!S.seatStage || !v.stages.some((s) => s.id === S.seatStage)) S.seatStage = v.stages.length ? v.stages[0].id : "";
  const stage = v.stages.find((s) => s.id === S.seatStage);
  if (stage && !S.seatRound) {
    const seated = v.rounds.filter((r) => r.stage === stage.id).map((r) => r.round);
    S.seatRound = Math.min(stage.rounds, seated.length ? Math.max(...seated) + 1 : 1);
  }
  return h("div.row", {},
    h("label", {}, tr("stage"), h("select#seat-stage", { onchange: (e) => { S.seatStage = e.target.value; S.seatRound = 0; S.plan = null; render(); } },
      v.stages.map((s) => h("option", { value: s.id, selected: s.id === S.seatStage }, s.name)))),
    h("label", {}, tr("round"), h("input#seat-round", { type: "number", min: 1, max: stage ? stage.rounds : 1, value: S.seatRound || 1, onchange: (e) => { S.seatRound = Number(e.target.value); S.plan = null; render(); } })));
}
async function plan(tables) {
  const req = { tournament: S.tournament, stage: S.seatStage, round: S.seatRound, seed: S.seed || 0, tables_json: tables ? JSON.stringify(tables) : "" };
  const r = await scoring("PlanSeating", "mafia.v1.PlanSeatingRequest", req, "mafia.v1.SeatingPlan");
  S.plan = { tables: JSON.parse(r.tables_json || "[]"), metrics: r.metrics_json ? JSON.parse(r.metrics_json) : null, random: r.random_metrics_json ? JSON.parse(r.random_metrics_json) : null, problems: r.problems };
}
async function seatingScreen() {
  const v = S.view;
  if (!v.stages.length) return h("div.screen", {}, h("p.card", {}, tr("noStage")));
  const picker = stagePicker();
  const seatedRound = v.rounds.find((r) => r.stage === S.seatStage && r.round === S.seatRound);
  const generate = async () => {
    S.seed = Math.floor(Math.random() * 2 ** 31);
    S.picked = null;
    await act(() => plan(null)).catch(() => {});
    render();
  };
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("tabs.seating")), picker,
      seatedRound ? null : h("button#generate.primary", { type: "button", onclick: generate }, tr("generate")),
      S.plan && !seatedRound ? planView() : null,
      seatedRound ? seatedView(seatedRound) : null),
    h("section.card", {}, h("h2", {}, tr("seated")), h("ul", {}, v.rounds.map((r) => h("li", {}, h("a", { href: "#", dataset: { round: `${r.stage}.${r.round}` }, onclick: (e) => { e.preventDefault(); S.seatStage = r.stage; S.seatRound = r.round; S.picked = null; render(); } }, `${r.stage} · ${tr("round")} ${r.round}`))))));
}
function tablesGrid(tables, onSeat, picked, judgeSelect) {
  return h("div.tables", {}, tables.map((t, ti) => h("div.table", { dataset: { table: t.table } },
    h("h3", {}, `${tr("table")} ${t.table}`),
    judgeSelect ? judgeSelect(t, ti) : h("p.judge", {}, `${tr("judgeOf")}: ${t.judge ? (S.view.judges.find((j) => j.id === t.judge) || { name: t.judge }).name : "—"}`),
    h("ol", {}, t.seats.map((p, si) => h("li", {},
      onSeat ? h("button.seat", { type: "button", dataset: { table: t.table, seat: si + 1 }, className: picked && picked[0] === ti && picked[1] === si ? "seat picked" : "seat", onclick: () => onSeat(ti, si) }, h("span.no", {}, si + 1), h("span.nick", {}, nick(p)))
        : h("span.seat", {}, h("span.no", {}, si + 1), h("span.nick", {}, nick(p)))))))));
}
// A click on seat (ti, si): the first of two is remembered (null back);
// the second gives the tables with the two seats swapped.
function pickSeat(current, ti, si) {
  if (!S.picked) { S.picked = [ti, si]; return null; }
  const [tj, sj] = S.picked;
  S.picked = null;
  if (tj === ti && sj === si) return null;
  const tables = current.map((t) => ({ ...t, seats: [...t.seats] }));
  [tables[ti].seats[si], tables[tj].seats[sj]] = [tables[tj].seats[sj], tables[ti].seats[si]];
  return { tables, tj, sj };
}
function planView() {
  const p = S.plan;
  const onSeat = async (ti, si) => {
    const picked = pickSeat(p.tables, ti, si);
    if (!picked) return render();
    await act(() => plan(picked.tables)).catch(() => {});
    render();
  };
  const judgeSelect = (t, ti) => h("label.judge", {}, tr("judgeOf"), h("select", {
    dataset: { table: t.table },
    onchange: async (e) => { const tables = p.tables.map((x) => ({ ...x })); tables[ti].judge = e.target.value || null; await act(() => plan(tables)).catch(() => {}); render(); },
  }, h("option", { value: "" }, "—"), S.view.judges.map((j) => h("option", { value: j.id, selected: j.id === t.judge }, j.name))));
  const publish = async () => {
    await act(() => command({ type: "seat_round", stage: S.seatStage, round: S.seatRound, tables: p.tables }), tr("published", S.seatRound)).catch(() => {});
    S.plan = null; render();
  };
  return h("div#plan", { dataset: { problems: p.problems.length } },
    h("p.help", {}, tr("swapHelp")),
    h("div.plan", {}, tablesGrid(p.tables, onSeat, S.picked, judgeSelect), metricsTable(p.metrics, p.random)),
    h("div#problems", { className: p.problems.length ? "bad" : "ok" }, p.problems.length ? [h("strong", {}, tr("problems")), h("ul", {}, p.problems.map((x) => h("li", {}, withNicknames(x))))] : tr("noProblems")),
    h("button#publish.primary", { type: "button", disabled: p.problems.length > 0, onclick: publish }, tr("publish")));
}
// The service names players by id; the organiser knows them by nickname.
function withNicknames(text) {
  const ids = S.view.players.map((r) => r.player.id).sort((a, b) => b.length - a.length);
  if (!ids.length) return text;
  const re = new RegExp(`(?<![\\w-])(${ids.map((i) => i.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\w-])`, "g");
  return text.replace(re, (id) => `${nick(id)} (${id})`);
}
function metricsTable(m, r) {
  if (!m) return null;
  const fmt = (x) => typeof x === "number" && !Number.isInteger(x) ? x.toFixed(2) : x ?? "—";
  return h("table#metrics", {}, h("thead", {}, h("tr", {}, h("th", {}, tr("metric")), h("th", {}, tr("proposal")), h("th", {}, tr("random")))),
    h("tbody", {}, Object.entries(METRICS).filter(([k]) => k in m).map(([k, label]) => h("tr", { dataset: { metric: k } },
      h("td", {}, label[S.lang === "ru" ? 1 : 0]), h("td.num", {}, fmt(m[k])), h("td.num", {}, r ? fmt(r[k]) : "—")))));
}
function seatedView(round) {
  const v = S.view;
  const prefix = `${v.id}.${round.stage}.r${round.round}.`;
  const games = v.games.filter((g) => g.id.startsWith(prefix));
  const open = async () => {
    await act(async () => {
      const r = await scoring("OpenRound", "mafia.v1.OpenRoundRequest", { tournament: S.tournament, stage: round.stage, round: round.round }, "mafia.v1.OpenRoundReply");
      await loadView();
      return r;
    }, (r) => tr("opened", r.game_ids.join(", "))).catch(() => {});
    render();
  };
  // Before its game is assigned, a table's judge can still change: the
  // game is assigned with him (`assign_game`), and OpenRound keeps it.
  const judgeSelect = (t) => {
    const id = `${prefix}t${t.table}.g1`;
    const game = games.find((g) => g.id === id);
    const current = game ? game.judge : t.judge;
    if (game) return h("p.judge", {}, `${tr("judgeOf")}: ${(v.judges.find((j) => j.id === current) || { name: current || "—" }).name}`);
    return h("label.judge", {}, tr("judgeOf"), h("select", {
      dataset: { table: t.table },
      onchange: async (e) => { await act(() => command({ type: "assign_game", game: id, judge: e.target.value || null })).catch(() => {}); render(); },
    }, h("option", { value: "" }, "—"), v.judges.map((j) => h("option", { value: j.id, selected: j.id === current }, j.name))));
  };
  // The chief judge swaps two seats of a round not opened yet: the swap
  // is checked by PlanSeating first (every rule it would break named),
  // then stored as `swap_seats`.
  const swap = async (ti, si) => {
    const picked = pickSeat(round.tables, ti, si);
    if (!picked) return render();
    const { tables, tj, sj } = picked;
    await act(async () => {
      const r = await scoring("PlanSeating", "mafia.v1.PlanSeatingRequest", { tournament: S.tournament, stage: round.stage, round: round.round, seed: 0, tables_json: JSON.stringify(tables) }, "mafia.v1.SeatingPlan");
      S.swapProblems = r.problems;
      if (r.problems.length) throw new Error(r.problems.map(withNicknames).join("; "));
      await command({ type: "swap_seats", stage: round.stage, round: round.round, a: { table: tables[ti].table, seat: si + 1 }, b: { table: tables[tj].table, seat: sj + 1 } });
    }).catch(() => {});
    render();
  };
  const chiefSwaps = S.who.role === "chief_judge" && !games.length;
  return h("div#seated", { dataset: { opened: games.filter((g) => g.opened).length } },
    chiefSwaps ? h("p.help", {}, tr("chiefSwapHelp")) : null,
    tablesGrid(round.tables, chiefSwaps ? swap : null, S.picked, judgeSelect),
    h("button#open-round.primary", { type: "button", onclick: open }, tr("openRound")),
    games.length ? h("ul.games", {}, games.map((g) => h("li", {}, h("code", {}, g.id), g.opened ? " ✓" : ""))) : null);
}

// ---------------------------------------------------------------- stages
async function stagesScreen() {
  const v = S.view;
  const f = { id: h("input#s-id", { required: true, maxLength: 40 }), name: h("input#s-name", { required: true }), rounds: h("input", { type: "number", min: 1, value: 2 }), tables: h("input", { type: "number", min: 1, value: 1 }), coef: h("input", { type: "number", step: 0.001, min: 0.1, value: 1.3 }) };
  const n = h("input#top-n", { type: "number", min: 1, value: 10 });
  const into = h("select#to-stage", {}, v.stages.map((s, i) => h("option", { value: s.id, selected: i === v.stages.length - 1 }, s.name)));
  // The top N seated into round 1 of the next stage: spread over its
  // tables by rank (a snake, so each table gets strong and weaker
  // players), seat numbers drawn; the proposal then goes to the Seating
  // tab, where PlanSeating checks it and it can be swapped and published.
  const advance = async () => {
    const stage = v.stages.find((s) => s.id === into.value);
    const top = S.top.rows.slice(0, S.top.n).map((r) => r.player);
    if (top.length !== stage.tables * 10) return note(tr("advanceSize", stage.tables * 10, stage.name), true);
    const judges = v.judges.map((j) => j.id);
    const tables = Array.from({ length: stage.tables }, (_, i) => ({ table: i + 1, seats: [], judge: judges.length >= stage.tables ? judges[i] : null }));
    top.forEach((p, i) => { const lap = Math.floor(i / stage.tables), k = i % stage.tables; tables[lap % 2 ? stage.tables - 1 - k : k].seats.push(p); });
    for (const t of tables) for (let i = t.seats.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [t.seats[i], t.seats[j]] = [t.seats[j], t.seats[i]]; }
    S.seatStage = stage.id; S.seatRound = 1; S.picked = null;
    await act(() => plan(tables)).catch(() => {});
    S.tab = "seating"; render();
  };
  const showTop = async () => {
    const r = await act(() => scoring("GetStandings", "mafia.v1.TournamentRef", { tournament: S.tournament }, "mafia.v1.StandingsReply")).catch(() => null);
    if (!r) return;
    const rows = JSON.parse(r.standings_json).rows.filter((x) => !x.withdrawn);
    S.top = { n: Number(n.value), rows };
    render();
  };
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("stages")),
      h("table", {}, h("thead", {}, h("tr", {}, [tr("id"), tr("name"), tr("rounds"), tr("tables"), tr("coefficient")].map((x) => h("th", {}, x)))),
        h("tbody", {}, v.stages.map((s) => h("tr", {}, h("td", {}, h("code", {}, s.id)), h("td", {}, s.name), h("td.num", {}, s.rounds), h("td.num", {}, s.tables), h("td.num", {}, s.coefficient))))),
      h("form#add-stage.row", {
        onsubmit: async (e) => {
          e.preventDefault();
          const stage = { id: f.id.value.trim(), name: f.name.value.trim(), rounds: Number(f.rounds.value), tables: Number(f.tables.value), coefficient: Number(f.coef.value) };
          await act(() => command({ type: "add_stage", stage })).catch(() => {});
          render();
        },
      }, h("label", {}, tr("id"), f.id), h("label", {}, tr("name"), f.name), h("label", {}, tr("rounds"), f.rounds), h("label", {}, tr("tables"), f.tables), h("label", {}, tr("coefficient"), f.coef), h("button", { type: "submit" }, tr("addStage")))),
    h("section.card", {}, h("h2", {}, tr("advance")), h("div.row", {}, h("label", {}, tr("topN"), n), h("button#show-top", { type: "button", onclick: showTop }, tr("showTop"))),
      S.top ? h("div", {}, h("ol#top", {}, S.top.rows.slice(0, S.top.n).map((x) => h("li", {}, `${x.nickname} — ${x.points.total}`))),
        h("div.row", {}, h("label", {}, tr("toStage"), into), h("button#advance.primary", { type: "button", onclick: advance }, tr("advanceSeat"))),
        h("p.help", {}, tr("advanceNote"))) : null));
}

// ---------------------------------------------------------------- exports
async function exportsScreen() {
  const v = S.view;
  const get = (kind, extra) => act(async () => {
    const r = await scoring("Export", "mafia.v1.ExportRequest", { tournament: S.tournament, kind, ...extra }, "mafia.v1.ExportReply");
    download(r.content, r.file_name, r.content_type);
  }).catch(() => {});
  const button = (label, kind, id) => h("button", { type: "button", id, onclick: () => get(kind) }, label);
  return h("div.screen", {},
    h("section.card", {}, h("h2", {}, tr("tabs.exports")),
      h("div.row", {}, button(tr("standingsCsv"), "EXPORT_KIND_STANDINGS_CSV", "x-standings-csv"), button(tr("standingsJson"), "EXPORT_KIND_STANDINGS_JSON"),
        button(tr("gamesCsv"), "EXPORT_KIND_GAMES_CSV"), button(tr("gamesJson"), "EXPORT_KIND_GAMES_JSON")),
      h("h3", {}, tr("seatingSheet")),
      h("ul#x-seating", {}, v.rounds.map((r) => h("li", {}, h("button", { type: "button", onclick: () => get("EXPORT_KIND_SEATING_HTML", { round: r.round, stage: r.stage }) }, `${r.stage} · ${tr("round")} ${r.round}`)))),
      h("h3", {}, tr("protocols")),
      h("ul.games", {}, v.games.filter((g) => g.opened).map((g) => h("li", {}, h("button", { type: "button", onclick: () => protocol(g.id) }, g.id))))),
    h("section.card", {}, h("h2", {}, tr("screens")), h("ul", {},
      h("li", {}, h("a", { href: `/standings?tournament=${encodeURIComponent(v.id)}`, target: "_blank" }, tr("standings"))),
      h("li", {}, h("a", { href: `/hall?tournament=${encodeURIComponent(v.id)}`, target: "_blank" }, "Hall / Зал")))));
}

// A game's paper protocol (the gateway's /api/protocol, from the log), saved.
function protocol(game) {
  return act(async () => {
    const r = await fetch(`/api/protocol/${encodeURIComponent(game)}`, { headers: { authorization: "Bearer " + S.token }, cache: "no-store" });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || "HTTP " + r.status);
    download(await r.arrayBuffer(), `${game}-protocol.html`, "text/html; charset=utf-8");
  }).catch(() => {});
}

// ---------------------------------------------------------------- board, rulings
// The chief judge's modules (office_board.js, ruling.js), loaded when
// their tab is opened; a gateway without them shows a placeholder.
function ctx() {
  return {
    tournament: S.tournament, token: S.token, lang: S.lang, scoringUrl: S.scoring,
    call: (method, reqType, msg, respType) => scoring(method, reqType, msg, respType),
    onActions: () => { S.tab = "rulings"; render(); },
  };
}
let mounted = null;
async function moduleScreen(path, mount) {
  const el = h("div.screen.module", { dataset: { module: mount } });
  try {
    const m = await import(path);
    mounted = m[mount](el, ctx());
  } catch (e) {
    el.append(h("p.card.placeholder", {}, tr("placeholder")));
  }
  return el;
}
const boardScreen = () => moduleScreen("/assets/office_board.js", "mountBoard");
const rulingsScreen = () => moduleScreen("/assets/ruling.js", "mountRulings");

// ---------------------------------------------------------------- start
if (S.token) signIn(S.token); else render();
