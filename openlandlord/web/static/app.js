// The OpenLandlord web table: one page, three views (play, replays, leaderboard), all through
// the JSON API of openlandlord/web/server.py. No framework, no network beyond this server.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text = "") => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== "") e.textContent = text;
  return e;
};

const CARD_HELP = {
  doudizhu: "Cards: 3-9, T = 10, J Q K A 2, B = black joker, R = red joker. Click cards, then Play; or click a move button.",
  shengji: "Cards: rank then suit (T = 10; S spades, H hearts, D diamonds, C clubs); SJ small joker, BJ big joker. Trumps are grouped apart.",
};
const SUIT_SIGN = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

let META = null;        // /api/agents
let GAME = null;        // the state of the game on the table
let selected = [];      // indices into the hand's card elements

async function api(method, path, body) {
  const res = await fetch(path, {
    method, headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function cardFace(card, game) {
  if (game === "shengji" && card.length === 2 && SUIT_SIGN[card[1]]) return card[0] + SUIT_SIGN[card[1]];
  return card;
}

function cardElement(card, game, small) {
  const c = el("span", { class: "card" + (small ? " small" : ""), "data-card": card }, cardFace(card, game));
  if ((game === "shengji" && /[HD]$/.test(card)) || card === "R" || card === "BJ") c.classList.add("red");
  return c;
}

function cardsOf(text, game) {
  if (!text || text === "pass") return [];
  return game === "shengji" ? text.split(" ") : text.split("");
}

function playChips(plays, game, names) {
  const span = el("span");
  for (const p of plays) {
    const chip = el("span", { class: "play-chip" }, `${names[p.seat]}: `);
    const cards = cardsOf(p.cards, game);
    if (!cards.length) chip.append("pass");
    for (const c of cards) chip.append(cardElement(c, game, true));
    span.append(chip);
  }
  return span;
}

// ---- the new-game form -----------------------------------------------------------------------
function buildForm() {
  const game = $("game").value;
  const info = META.games[game];
  const opts = $("options");
  opts.innerHTML = "";
  for (const [name, o] of Object.entries(info.options)) {
    const s = el("select", { id: "opt-" + name, "data-option": name });
    for (const c of o.choices) s.append(el("option", { value: c }, c));
    s.value = name === "bidding" ? "call-rob" : o.default;
    const label = el("label", {}, name + " ");
    label.append(s);
    opts.append(label);
  }
  const seats = $("seat-pickers");
  seats.innerHTML = "";
  // Any agent spec can be typed; the list offers the usual ones.
  const list = el("datalist", { id: "agent-specs" });
  for (const a of META.agents) {
    if (a.startsWith("student:") && !a.endsWith(game)) continue;
    list.append(el("option", { value: a }));
  }
  seats.append(list);
  for (let i = 0; i < info.seats; i++) {
    const s = el("input", { id: "seat-" + i, list: "agent-specs", size: "14" });
    s.value = i === 0 ? "human" : "rule";
    const label = el("label", {}, `seat ${i} `);
    label.append(s);
    seats.append(label);
  }
  $("card-help").textContent = CARD_HELP[game];
}

async function startGame() {
  const game = $("game").value;
  const body = { game, seats: [], player: $("player").value || "you" };
  for (const s of document.querySelectorAll("#options select")) body[s.dataset.option] = s.value;
  for (let i = 0; i < META.games[game].seats; i++) body.seats.push($("seat-" + i).value.trim());
  if ($("seed").value !== "") body.seed = parseInt($("seed").value, 10);
  $("error").textContent = "";
  try {
    show(await api("POST", "/api/games?advice=" + ($("hint-toggle").checked ? 1 : 0), body));
  } catch (e) {
    $("error").textContent = e.message;
    $("table").hidden = false;
    $("table").dataset.version = (+($("table").dataset.version || 0) + 1).toString();
  }
}

// ---- the table -------------------------------------------------------------------------------
function show(state) {
  GAME = state;
  selected = [];
  const game = state.game, view = state.view, names = state.names;
  $("table").hidden = false;
  $("table").dataset.gameId = state.id;
  $("table").dataset.done = state.done;
  $("table").dataset.humanToMove = state.human_to_move;
  $("table").dataset.hint = state.hint === null ? "" : state.hint;
  $("table").dataset.version = (+($("table").dataset.version || 0) + 1).toString();
  $("summary").innerHTML = "";
  for (const line of view.summary) $("summary").append(el("div", {}, line));

  $("seats").innerHTML = "";
  for (const s of view.seats) {
    const box = el("div", { class: "seat" + (state.to_move === s.seat ? " to-move" : ""), id: "seat-box-" + s.seat });
    box.append(el("div", {}, `seat ${s.seat}: ${names[s.seat]}`));
    let role = s.role;
    if (game === "shengji" && state.human_seats.length && s.seat === (state.human_seats[0] + 2) % 4) role += ", your partner";
    box.append(el("div", { class: "role" }, role));
    box.append(el("div", {}, `${s.cards_left} cards`));
    $("seats").append(box);
  }

  const t = view.table;
  $("trick").innerHTML = "";
  $("trick").append(t.trick.length ? playChips(t.trick, game, names) : document.createTextNode("(nothing played yet)"));
  const last = $("last-trick");
  last.innerHTML = "";
  if (t.last_trick) {
    last.append(`Last trick won by ${names[t.last_trick.winner]} (seat ${t.last_trick.winner}), ${t.last_trick.points} points: `);
    last.append(playChips(t.last_trick.plays, game, names));
  } else if (t.last_winner !== undefined && t.last_winner !== null) {
    last.textContent = `Last round won by ${names[t.last_winner]} (seat ${t.last_winner})`;
  }

  let turn = "";
  if (state.done) turn = "Game over.";
  else if (state.human_to_move) turn = `Your move (seat ${state.to_move}, ${view.phase})` +
    (view.phase === "bury" ? ": select 8 cards to bury" : "");
  else turn = `Waiting for seat ${state.to_move}`;
  $("turn").textContent = turn;

  drawHand(state);
  drawControls(state);
  const rounds = state.rounds || [];
  $("round-summary").textContent = rounds.length ? rounds[rounds.length - 1].text : "";
  $("result").innerHTML = "";
  if (state.done) {
    $("result").append(el("div", { id: "outcome" }, state.outcome ? "You " + state.outcome : state.text));
    if (state.points !== null && state.points !== undefined)
      $("result").append(el("div", { id: "points" }, `Ranking points earned: ${state.points}`));
    if (state.record) {
      const a = el("a", { href: "/replays#" + encodeURIComponent(state.record), id: "replay-link" }, "Watch the replay");
      $("result").append(a);
    }
  }
  $("log").innerHTML = "";
  for (const entry of state.log) $("log").append(el("li", {}, entry.text));
  $("log").scrollTop = $("log").scrollHeight;
  drawHint(state);
}

function drawHand(state) {
  const hand = $("hand");
  hand.innerHTML = "";
  const me = state.view.seats.find((s) => s.hand && state.human_seats.includes(s.seat)) ||
             state.view.seats.find((s) => s.hand);
  if (!me) return;
  const hinted = state.human_to_move && $("hint-toggle").checked ? cardsOf(state.hint, state.game) : [];
  let index = 0;
  for (const group of me.hand) {
    const row = el("div", { class: "group" });
    row.append(el("span", { class: "group-label" }, group.label));
    for (const card of group.cards) {
      const c = cardElement(card, state.game, false);
      c.dataset.index = index++;
      const h = hinted.indexOf(card);
      if (h >= 0) { c.classList.add("hinted"); hinted.splice(h, 1); }
      c.addEventListener("click", () => toggle(c));
      row.append(c);
    }
    hand.append(row);
  }
}

function toggle(card) {
  if (!GAME || !GAME.human_to_move) return;
  card.classList.toggle("selected");
}

function selectedText() {
  const cards = [...document.querySelectorAll("#hand .card.selected")].map((c) => c.dataset.card);
  return GAME.game === "shengji" ? cards.join(" ") : cards.join("");
}

function drawControls(state) {
  const mine = state.human_to_move;
  $("play-btn").disabled = !mine;
  $("clear-btn").disabled = !mine;
  const canPass = mine && state.legal && state.legal.some((m) => m === "" || m === "pass");
  $("pass-btn").disabled = !canPass;
  const buttons = $("legal-buttons");
  buttons.innerHTML = "";
  // Bids and declarations are words or a card or two: offered as buttons.
  if (mine && state.legal && ["bidding", "declare"].includes(state.view.phase)) {
    for (const m of state.legal) {
      const b = el("button", { type: "button", class: "legal-move", "data-move": m }, m === "" ? "pass" : m);
      b.addEventListener("click", () => sendMove(m === "" ? "pass" : m));
      buttons.append(b);
    }
  }
}

function drawHint(state) {
  const panel = $("hint-panel");
  const a = state.advice;
  if (!$("hint-toggle").checked || !a || !state.human_to_move) { panel.hidden = true; return; }
  panel.hidden = false;
  $("hint-agent").textContent = a.agent;
  $("hint-move").textContent = a.move === "" ? "pass" : a.move;
  const scores = $("hint-scores");
  scores.innerHTML = "";
  if (a.scores) scores.append(scoreBars(a.scores, 15));
  drawBelief(a.belief, state.names);
}

// Scores as bars, best first: the first `shown` of them, the bar length relative to the range.
function scoreBars(scores, shown) {
  const box = el("div", { class: "score-bars" });
  const top = scores.slice(0, shown);
  const hi = Math.max(...top.map((s) => s[1])), lo = Math.min(...scores.map((s) => s[1]));
  for (const [move, score] of top) {
    const row = el("div", { class: "bar-row" });
    row.append(el("span", { class: "label" }, move === "" ? "pass" : move));
    const bar = el("span", { class: "bar" });
    bar.style.width = (hi > lo ? 4 + 20 * (score - lo) / (hi - lo) : 10) + "em";
    row.append(bar, el("span", {}, score.toFixed(3)));
    box.append(row);
  }
  if (scores.length > shown) box.append(el("div", {}, `... and ${scores.length - shown} more moves`));
  return box;
}

function drawBelief(belief, names) {
  const box = $("belief");
  box.innerHTML = "";
  if (!belief) { box.textContent = "(no belief head for this position)"; return; }
  const cell = 26, left = 150, ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", left + cell * belief.labels.length + 10);
  svg.setAttribute("height", 24 + cell * belief.seats.length);
  svg.setAttribute("id", "belief-picture");
  const text = (x, y, s, anchor) => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("font-size", "12");
    if (anchor) t.setAttribute("text-anchor", anchor);
    t.textContent = s; svg.append(t);
  };
  belief.labels.forEach((l, j) => text(left + j * cell + cell / 2, 14, l, "middle"));
  const top = Math.max(1, ...belief.expected.flat());
  belief.seats.forEach((seat, i) => {
    text(0, 24 + i * cell + 17, `seat ${seat} (${names[seat]})`);
    belief.expected[i].forEach((v, j) => {
      const r = document.createElementNS(ns, "rect");
      r.setAttribute("x", left + j * cell); r.setAttribute("y", 20 + i * cell);
      r.setAttribute("width", cell - 2); r.setAttribute("height", cell - 2);
      r.setAttribute("fill", `rgba(13,110,253,${(v / top).toFixed(3)})`);
      r.setAttribute("stroke", "#ccc");
      const title = document.createElementNS(ns, "title");
      title.textContent = `${names[seat]} holds ${v.toFixed(2)} x ${belief.labels[j]} (expected)`;
      r.append(title); svg.append(r);
      if (v >= 0.05) text(left + j * cell + cell / 2 - 1, 20 + i * cell + 17, v.toFixed(1), "middle");
    });
  });
  box.append(svg);
}

async function sendMove(text) {
  if (!GAME) return;
  $("error").textContent = "";
  try {
    show(await api("POST", `/api/games/${GAME.id}/move?advice=${$("hint-toggle").checked ? 1 : 0}`, { move: text }));
  } catch (e) {
    $("error").textContent = e.message;
    $("table").dataset.version = (+($("table").dataset.version || 0) + 1).toString();
  }
}

async function refresh() {
  if (!GAME) return;
  show(await api("GET", `/api/games/${GAME.id}?advice=${$("hint-toggle").checked ? 1 : 0}`));
}

// ---- replays ---------------------------------------------------------------------------------
let REPLAY = null;

async function loadRecords() {
  const data = await api("GET", "/api/records");
  const body = $("record-list").querySelector("tbody");
  body.innerHTML = "";
  for (const r of data.records) {
    const tr = el("tr", { "data-name": r.name, class: "record-row" });
    for (const v of [r.game, r.seats.join(", "), r.source, r.moves, (r.payoffs || []).join(" "), r.created_utc || ""])
      tr.append(el("td", {}, String(v)));
    tr.addEventListener("click", () => openReplay(r.name));
    body.append(tr);
  }
  if (!data.records.length) body.append(el("tr", {}, "No recorded games yet: play one, or run openlandlord eval."));
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted) openReplay(wanted);
}

async function openReplay(name) {
  try {
    REPLAY = await api("GET", "/api/records/" + name.split("/").map(encodeURIComponent).join("/"));
  } catch (e) {
    $("replay").hidden = false;
    $("replay-title").textContent = e.message;
    return;
  }
  $("replay").hidden = false;
  $("replay-title").textContent = `${REPLAY.game} ${JSON.stringify(REPLAY.options)}, seed ${REPLAY.seed}: ${REPLAY.seats.join(", ")}`;
  $("step-slider").max = REPLAY.frames.length - 1;
  showStep(0);
}

function showStep(i) {
  const frames = REPLAY.frames;
  i = Math.max(0, Math.min(frames.length - 1, i));
  const f = frames[i], game = REPLAY.game, names = REPLAY.seats;
  $("step-slider").value = i;
  $("replay").dataset.step = i;
  $("step-label").textContent = `move ${i + 1} of ${frames.length - 1}` + (f.to_move === null ? " (end)" : "");
  $("replay-summary").innerHTML = "";
  for (const line of f.summary) $("replay-summary").append(el("div", {}, line));
  $("replay-move").textContent = f.to_move === null ? (f.result || "end of the game")
    : `seat ${f.to_move} (${names[f.to_move]}) plays ${f.move}`;
  const hands = $("replay-hands");
  hands.innerHTML = "";
  for (const s of f.seats) {
    const row = el("div", { class: "group" + (s.seat === f.to_move ? " to-move" : "") });
    row.append(el("span", { class: "group-label" }, `seat ${s.seat}`));
    row.append(el("span", {}, ` ${names[s.seat]} (${s.role}) `));
    for (const g of s.hand || []) for (const c of g.cards) row.append(cardElement(c, game, true));
    hands.append(row);
  }
  $("replay-trick").innerHTML = "";
  $("replay-trick").append("Trick: ", f.table.trick.length ? playChips(f.table.trick, game, names) : "(new trick)");
  const sc = $("replay-scores");
  sc.innerHTML = "";
  if (f.scores) {
    sc.append(el("div", {}, `${names[f.to_move]}'s scores of its best moves:`));
    sc.append(scoreBars(f.scores, f.scores.length));
  } else if (f.to_move !== null) {
    sc.textContent = "(no scores: a forced move, or a person)";
  }
  $("replay-events").textContent = (f.events || []).join("; ");
}

// ---- leaderboard -----------------------------------------------------------------------------
async function loadLeaderboard() {
  const data = await api("GET", "/api/leaderboard");
  $("points-rule").textContent = "A game won against Easy bots earns " + data.points.easy +
    ", against Normal " + data.points.normal + ", against Expert " + data.points.expert + " points.";
  const body = $("leaderboard").querySelector("tbody");
  body.innerHTML = "";
  for (const p of data.players) {
    const tr = el("tr", { class: "player-row", "data-player": p.player });
    for (const v of [p.player, p.points, p.games, p.wins]) tr.append(el("td", {}, String(v)));
    body.append(tr);
  }
}

// ---- start -----------------------------------------------------------------------------------
async function main() {
  const page = location.pathname.replace(/\/$/, "").slice(1) || "play";
  for (const p of ["play", "replays", "leaderboard"]) $("page-" + p).hidden = p !== page;
  if (page === "replays") {
    $("prev-step").addEventListener("click", () => showStep(+$("step-slider").value - 1));
    $("next-step").addEventListener("click", () => showStep(+$("step-slider").value + 1));
    $("step-slider").addEventListener("input", () => showStep(+$("step-slider").value));
    return loadRecords();
  }
  if (page === "leaderboard") return loadLeaderboard();
  META = await api("GET", "/api/agents");
  for (const g of Object.keys(META.games)) $("game").append(el("option", { value: g }, g));
  $("game").addEventListener("change", buildForm);
  buildForm();
  $("start").addEventListener("click", startGame);
  $("play-btn").addEventListener("click", () => sendMove(selectedText()));
  $("pass-btn").addEventListener("click", () => sendMove("pass"));
  $("clear-btn").addEventListener("click", () => document.querySelectorAll("#hand .card.selected").forEach((c) => c.classList.remove("selected")));
  $("hint-toggle").addEventListener("change", () => refresh().catch((e) => { $("error").textContent = e.message; }));
}

main().catch((e) => { document.body.append(el("p", { id: "fatal" }, "error: " + e.message)); });
