// uno-env serve: the page. Plain JavaScript, no build step, nothing fetched but this server's own API.
// It draws only what the server sends for the human's seat; every decision is a click.
"use strict";

const $ = (id) => document.getElementById(id);
const DELAY = Number(new URLSearchParams(location.search).get("delay") ?? 700); // ms between narrated moves
let config = null;
let session = null;   // the current game's id
let view = null;      // the human seat's view, as last drawn
let replay = null;    // {source, data, frame}
let decisionButtons = [];  // the buttons of the current decision (a card's mode chooser goes back to them)

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardEl(card, tag = "span", extra = "") {
  // the face: a symbol for an action card (⊘ skip, ⇄ reverse, ★ wild, ...); the tooltip names the card in words
  const face = card.face || card.name;
  const node = el(tag, `card c-${card.colour} ${extra}`.trim(), face);
  node.dataset.card = card.name;
  node.dataset.face = face;  // the corner index (CSS)
  node.style.setProperty("--len", [...face].length);  // a long face is printed smaller (CSS)
  if (card.title) node.title = card.title;
  if (tag === "button") node.type = "button";
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, body) {
  const init = body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

// ---------------------------------------------------------------- setup

function fillSetup() {
  const variant = $("variant");
  for (const name of Object.keys(config.variants)) variant.append(new Option(name, name));
  $("agent-forms").textContent = `Opponents: choose one, or "other..." to type any spec the server accepts: ` +
    config.agent_forms + ".";
  const list = el("datalist"); list.id = "agent-specs";
  for (const spec of config.agents) list.append(new Option(spec, spec));
  document.body.append(list);
  variant.addEventListener("change", onVariant);
  $("players").addEventListener("input", onPlayers);
  onVariant();
}

function onVariant() {
  const spec = config.variants[$("variant").value];
  const players = $("players");
  players.min = spec.min_players; players.max = spec.max_players;
  players.value = Math.min(Math.max(Number(players.value) || 2, spec.min_players), spec.max_players);
  const box = $("options");
  box.replaceChildren();
  for (const option of spec.options) {
    const label = el("label", "", option.key + " ");
    label.title = option.doc;
    let input;
    if (option.choices) {
      input = el("select");
      for (const choice of option.choices) input.append(new Option(String(choice), String(choice)));
    } else {
      input = el("input");
    }
    input.value = typeof option.default === "object" ? JSON.stringify(option.default) : String(option.default);
    input.dataset.key = option.key;
    input.dataset.default = input.value;
    label.append(input);
    box.append(label);
  }
  onPlayers();
}

function onPlayers() {
  const n = Number($("players").value) || 2;
  const seat = $("seat"), old = seat.value;
  seat.replaceChildren(...Array.from({length: n}, (_, q) => new Option(`P${q}`, String(q))));
  seat.value = old !== "" && Number(old) < n ? old : "0";  // "" on first load: Number("") is 0
  const box = $("opponents-setup");
  const specs = Array.from(box.querySelectorAll(".opponent"), (_, i) => opponentSpec(i));
  box.replaceChildren();
  for (let i = 0; i < n - 1; i++) box.append(opponentChooser(i, specs[i] ?? "heuristic"));
}

const OTHER = "other";  // the drop-down's choice that shows a text field for any other spec

function opponentChooser(i, spec) {
  // a drop-down of the agents the server offers, grouped; "other..." shows a field to type a custom spec
  const label = el("label", "opponent-box", `Opponent ${i + 1} `);
  const select = el("select", "opponent");
  const groups = [["by strength", (s) => s.startsWith("level:")], ["built-in agents", (s) => !s.includes(":")],
                  ["search", (s) => s.startsWith("ismcts")],
                  ["trained policies", (s) => s.startsWith("pretrained")]];
  const listed = new Set();
  for (const [title, test] of groups) {
    const group = el("optgroup");
    group.label = title;
    for (const s of config.agents.filter((s) => test(s) && !listed.has(s))) {
      group.append(new Option(agentLabel(s), s));
      listed.add(s);
    }
    if (group.children.length) select.append(group);
  }
  const rest = config.agents.filter((s) => !listed.has(s));  // anything new the server offers
  select.append(...rest.map((s) => new Option(s, s)), new Option("other...", OTHER));
  const custom = el("input", "opponent-custom");
  custom.setAttribute("list", "agent-specs");
  custom.placeholder = "agent spec";
  custom.setAttribute("aria-label", `Opponent ${i + 1}'s agent spec`);
  const known = config.agents.includes(spec);
  select.value = known ? spec : OTHER;
  custom.value = known ? "" : spec;
  custom.hidden = known;
  select.addEventListener("change", () => {
    custom.hidden = select.value !== OTHER;
    if (!custom.hidden) custom.focus();
  });
  label.append(select, custom);
  return label;
}

function agentLabel(spec) {
  // a level shows what it plays and its measured win rate against heuristic at the table being set up
  if (!spec.startsWith("level:") || !config.levels) return spec;
  const name = spec.slice("level:".length), level = config.levels[name];
  if (!level) return spec;
  const table = `${$("variant").value}-${Number($("players").value) || 2}p`;
  const row = (config.level_rates[table] || {})[name];
  const rate = row ? `wins ${Math.round(100 * row.win_rate)}% against heuristic here (${row.games} games)`
                   : "not measured at this table";
  return `${name}: ${level.about}; ${rate}`;
}

function opponentSpec(i) {
  const select = document.querySelectorAll(".opponent")[i];
  return select.value === OTHER ? select.parentNode.querySelector(".opponent-custom").value.trim() : select.value;
}

async function startGame(event) {
  event.preventDefault();
  const options = Array.from($("options").querySelectorAll("[data-key]"))
    .filter((i) => i.value !== i.dataset.default).map((i) => `${i.dataset.key}=${i.value}`);
  const seed = $("seed").value.trim();
  const body = {variant: $("variant").value, players: Number($("players").value), seat: Number($("seat").value),
                opponents: Array.from(document.querySelectorAll(".opponent"), (_, i) => opponentSpec(i)),
                options, seed: seed === "" ? null : Number(seed)};
  try {
    const data = await api("/api/games", body);
    session = data.session;
    showError("");
    $("log").replaceChildren();
    $("setup").hidden = true;
    $("table").hidden = false;
    await play(data);
  } catch (err) { showError(err.message); }
}

// ---------------------------------------------------------------- the game

async function play(data) {
  document.body.dataset.state = "busy";
  $("decision").hidden = true;
  $("result").hidden = true;
  $("hand").classList.remove("choosing");
  const rules = data.view.rules;
  for (const event of data.events) {   // the moves up to the human's decision, one at a time
    for (const line of event.lines) log(line);
    const note = reverseNote(event, view, rules);
    if (note) log(note);
    draw(event.view);
    if (DELAY > 0) await new Promise((done) => setTimeout(done, DELAY));
  }
  draw(data.view);
  decide(data.view);
}

function reverseNote(event, before, rules) {
  // two players: a Reverse acts as a Skip (the option two_player_reverse_as_skip, on by default), so the
  // player who played it plays again; said once, unless the narration says so itself
  const played = event.lines[0] && event.lines[0].match(/^(you|P(\d+)): play (\S+)/);
  const after = event.view;
  if (!played || after.players !== 2 || !after.top || after.top.face !== "⇄" || after.top.name !== played[3] ||
      rules.options.two_player_reverse_as_skip === false || after.turn === null) return null;
  if ((before && before.pending) || event.lines.some((line) => /skip/i.test(line))) return null;  // a deflection
  return played[1] === "you" ? "  two players: the Reverse acts as a Skip, so you play again" :
    `  two players: the Reverse acts as a Skip, so P${played[2]} plays again`;
}

function log(line) {
  const item = el("li", line.startsWith("you") || line.startsWith("  you") ? "mine" : "", line);
  $("log").append(item);
  $("log").scrollTop = $("log").scrollHeight;
}

function draw(v) {
  view = v;
  const opponents = $("opponents");
  opponents.replaceChildren();
  for (const seat of v.seats) {
    if (seat.seat === v.seat) continue;
    opponents.append(seatEl(seat, v));
  }
  const me = v.seats[v.seat];
  $("me-box").classList.toggle("deciding", v.deciding === v.seat);
  $("me-box").classList.toggle("turn", v.turn === v.seat && v.deciding !== v.seat);
  $("me-name").textContent = `${me.name}: ${cardCount(me.cards)}` + (me.score !== undefined ? `, ${me.score} points` : "");
  $("me-power").textContent = me.power === undefined ? "" : `power card ${me.power ? "✓" : "✘"}`;
  drawCommon(v, "");
  $("hand").replaceChildren(...v.hand.map((card) => cardEl(card, "button")));
  const reveal = $("reveal");
  reveal.hidden = !v.reveal;
  reveal.replaceChildren();
  if (v.reveal) {
    reveal.replaceChildren(el("span", "", `P${v.reveal.owner} showed you: `),
                           ...v.reveal.cards.map((c) => cardEl(c, "span", "small")));
  }
}

function cardCount(n) {
  return `${n} card${n === 1 ? "" : "s"}`;
}

function seatEl(seat, v) {
  // the seat that decides now is lit up; the seat whose turn it is, when another one decides, is marked
  const deciding = v.deciding === seat.seat, turn = v.turn === seat.seat && !deciding;
  const box = el("div", "seat" + (deciding ? " deciding" : "") + (turn ? " turn" : "") + (seat.out ? " out" : ""));
  box.dataset.seat = seat.seat;
  const head = el("div", "name", seat.name);
  if (deciding) head.append(el("span", "badge", "deciding"));
  else if (turn) head.append(el("span", "badge turn-badge", "turn"));
  box.append(head, el("div", "count", cardCount(seat.cards)));
  if (!seat.hand) {   // a fan of card backs, as many as the seat holds (at most 12 drawn)
    const fan = el("div", "fan");
    fan.setAttribute("aria-hidden", "true");
    for (let k = 0; k < Math.min(seat.cards, 12); k++) fan.append(el("span", "mini-back"));
    box.append(fan);
  }
  if (seat.power !== undefined) box.append(el("div", "power", `power card ${seat.power ? "✓" : "✘"}`));
  if (seat.score !== undefined) box.append(el("div", "score", `${seat.score} points${seat.out ? ", out" : ""}`));
  if (seat.backs) {
    const backs = el("div", "backs");
    backs.title = "the back faces you can see";
    backs.append(...seat.backs.map((c) => cardEl(c, "span", "small back")));
    box.append(backs);
  }
  if (seat.hand) {
    const hand = el("div", "hand");
    hand.append(...seat.hand.map((c) => cardEl(c, "span", "small")));
    box.append(hand);
  }
  return box;
}

function drawCommon(v, prefix) {
  // the table's middle: shared by the game and the replay viewer (ids prefixed "rp-" there)
  const status = prefix ? $(prefix + "status") : null;
  const lines = [`top ${v.top ? v.top.name : "-"}`, `colour ${v.colour}`, `direction ${v.direction}`,
                 `${v.pile.word} ${v.pile.count}`];
  if (v.turn !== null && v.turn !== undefined) lines.push(v.status);
  if (v.flip) lines.push(`active side ${v.flip.side}`);
  if (v.pending) lines.push(v.pending);
  if (v.flip && v.flip.duel) lines.push(v.flip.duel);
  if (status) { status.textContent = lines.join(" · "); return; }
  $("top").replaceChildren(v.top ? cardEl(v.top) : el("span", "", "-"));
  $("colour").textContent = v.colour_word || v.colour;
  $("colour").className = "swatch" + (v.colour_word ? ` c-${v.colour}` : "");
  $("direction").textContent = v.direction === "clockwise" ? "↻ clockwise" : "↺ counter-clockwise";
  $("pile-word").textContent = v.pile.word;
  $("pile-count").textContent = v.pile.count;
  $("turn").textContent = v.turn === null ? "" : v.status;
  $("turn").classList.toggle("mine", v.deciding === v.seat);
  $("side").textContent = v.flip ? `active side ${v.flip.side}` : "";
  $("pending").textContent = v.pending || "";
  $("duel").textContent = v.flip && v.flip.duel ? v.flip.duel : "";
  const back = $("draw-top-back");
  back.replaceChildren();
  if (v.flip && v.flip.draw_top_back) back.append(el("span", "label", "its top's back "),
                                                   cardEl(v.flip.draw_top_back, "span", "small back"));
}

function decide(v) {
  if (v.result) return finish(v);
  const decision = v.decision;
  document.body.dataset.state = "decide";
  $("decision").hidden = false;
  $("decision").dataset.step = v.step;
  $("decision").dataset.phase = decision.phase;
  $("prompt").textContent = decision.prompt;
  const inHand = new Set(v.hand.map((c) => c.name));
  $("hand").classList.toggle("choosing", Object.keys(decision.plays).some((card) => inHand.has(card)));
  const buttons = [];
  for (const [card, actions] of Object.entries(decision.plays)) {
    if (!inHand.has(card)) for (const a of actions) buttons.push({...a, label: a.text});
  }
  buttons.push(...decision.buttons);
  decisionButtons = buttons;
  showButtons(buttons);
  for (const node of $("hand").children) {
    const actions = decision.plays[node.dataset.card];
    if (!actions) continue;
    node.classList.add("legal");
    node.dataset.actions = actions.map((a) => a.action).join(" ");
    node.addEventListener("click", () => actions.length === 1 ? send(actions[0].action) :
      showButtons([...actions.map((a) => ({...a, label: a.text})), {cancel: true, label: "back"}]));
  }
}

function showButtons(buttons) {
  const box = $("buttons");
  box.replaceChildren();
  for (const b of buttons) {
    const node = el("button", "", b.label);
    node.type = "button";
    if (b.cancel) { node.addEventListener("click", () => showButtons(decisionButtons)); box.append(node); continue; }
    node.dataset.action = b.action;
    node.dataset.text = b.text;
    const colour = b.text.match(/^colour (\w+)$/);
    if (colour) node.className = `card choice c-${colour[1]}`;
    node.addEventListener("click", () => send(b.action));
    box.append(node);
  }
}

async function send(action) {
  if (document.body.dataset.state !== "decide") return;
  document.body.dataset.state = "busy";
  try {
    const data = await api(`/api/games/${session}/act`, {action, step: view.step});
    showError("");
    await play(data);
  } catch (err) {
    showError(err.message);
    document.body.dataset.state = "decide";   // the game is unchanged: the same decision again
  }
}

function finish(v) {
  document.body.dataset.state = "over";
  $("decision").hidden = true;
  $("result").hidden = false;
  $("result-text").textContent = v.result.text;
  const points = v.result.round_points.map((p, q) => `P${q} ${p}`).join(", ");
  $("result-points").textContent = `round points: ${points}; totals: ${v.result.scores.join(", ")}`;
  $("save").href = `/api/games/${session}/record`;
}

async function rematch() {
  try {
    const data = await api(`/api/games/${session}/rematch`, {});
    showError("");
    log(`-- game ${data.view.game_number} --`);
    await play(data);
  } catch (err) { showError(err.message); }
}

// ---------------------------------------------------------------- replay viewer

// The server sends a game's frames a page at a time: replay.frames holds those loaded so far (by index);
// stepping to a frame not loaded yet fetches the page around it.

async function openReplay(source, index = 0) {
  try {
    const data = await api("/api/replay", {...source, game: index});
    showError("");
    replay = {source, game: index, total: data.total, result: data.result, page: data.frames.length,
              frames: [], frame: 0, loading: false};
    keepFrames(data);
    const games = $("replay-game");
    games.replaceChildren(...data.games.map((g) => new Option(
      `game ${g.index}: ${g.variant}, ${g.actions} decisions, seed ${g.seed}`, String(g.index))));
    games.value = String(index);
    $("replay-view").hidden = false;
    showFrame(0);
  } catch (err) { showError(err.message); }
}

function keepFrames(data) {
  data.frames.forEach((frame, k) => { replay.frames[data.start + k] = frame; });
}

async function showFrame(i) {
  const target = Math.max(0, Math.min(replay.total - 1, i));
  if (!replay.frames[target]) {   // not loaded yet: fetch its page (backwards: the page ending at it)
    if (replay.loading) return;
    replay.loading = true;
    const start = target < replay.frame ? Math.max(0, target - replay.page + 1) : target;
    try {
      keepFrames(await api("/api/replay", {...replay.source, game: replay.game, start}));
      showError("");
    } catch (err) { showError(err.message); return; } finally { replay.loading = false; }
  }
  replay.frame = target;
  const frame = replay.frames[target];
  $("rp-position").textContent = `${target} / ${replay.total - 1}`;
  $("rp-caption").textContent = frame.text;
  drawCommon(frame.view, "rp-");
  $("rp-seats").replaceChildren(...frame.view.seats.map((s) => seatEl(s, frame.view)));
  $("rp-result").textContent = target === replay.total - 1 ? replay.result.text : "";
}

// ---------------------------------------------------------------- wiring

function tab(name) {
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
}

async function init() {
  $("tab-play").addEventListener("click", () => tab("play"));
  $("tab-replay").addEventListener("click", () => tab("replay"));
  $("setup").addEventListener("submit", startGame);
  $("rematch").addEventListener("click", rematch);
  $("new-game").addEventListener("click", () => { $("table").hidden = true; $("setup").hidden = false;
                                                   document.body.dataset.state = "setup"; });
  $("replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) await openReplay({text: await file.text()});
  });
  $("replay-folder").addEventListener("change", (e) => e.target.value && openReplay({path: e.target.value}));
  $("replay-game").addEventListener("change", (e) => replay && openReplay(replay.source, Number(e.target.value)));
  $("rp-first").addEventListener("click", () => showFrame(0));
  $("rp-prev").addEventListener("click", () => showFrame(replay.frame - 1));
  $("rp-next").addEventListener("click", () => showFrame(replay.frame + 1));
  $("rp-last").addEventListener("click", () => showFrame(Infinity));
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || !replay) return;
    if (e.key === "ArrowRight") showFrame(replay.frame + 1);
    if (e.key === "ArrowLeft") showFrame(replay.frame - 1);
  });
  try {
    config = await api("/api/config");
  } catch (err) { showError(err.message); return; }
  fillSetup();
  if (config.records.length) {
    $("replay-folder-box").hidden = false;
    $("replay-folder").replaceChildren(new Option("choose a file", ""), ...config.records.map((r) => new Option(r, r)));
  }
  document.body.dataset.ready = "1";
}

init();
