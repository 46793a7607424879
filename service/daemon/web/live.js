// The Live games pages: #/live, the umpire's (sign in, list and create
// games, hand out the players' credentials), #/live/GAME/umpire (one game
// for the umpire: every event and finding, start a turn, end the game,
// export), and #/live/GAME/CLAN, a player's (the game's state, its events
// with their outcomes, the action form, live updates by /v1/games:watch).
// A game played on a table (its log has a `table`) shows the map of the
// table after the latest event on both, redrawn as events arrive.
//
// Credentials. Each is kept in the browser's localStorage, under the game
// and the clan it is for, so that one sign-in holds for every tab of that
// game in this browser until "Sign out" (which forgets it in every tab);
// two players in two browsers (or two browser profiles) do not see each
// other's. A credential is sent only in the Authorization header, and a
// player's page checks at sign-in that it is this clan's (another clan's
// is refused). A player's link carries the
// game id and the clan, never the credential: the umpire gives the
// credential separately (shown with a copy button). A token in the URL,
// even in the fragment, lands in the history, in bookmarks and in a pasted
// link; a credential given apart from the link does not.
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const UMPIRE_KEY = 'gunbai.live.umpire';
  const playerKey = (game, clan) => 'gunbai.live.player.' + game + '.' + clan;
  // This page's own copy, for a browser whose storage refuses (private
  // mode): then the sign-in lasts for this page only.
  const memory = new Map();

  function stored(key) {
    try { return localStorage.getItem(key) || ''; } catch (e) { return memory.get(key) || ''; }
  }
  function store(key, value) {
    try {
      if (value) localStorage.setItem(key, value);
      else localStorage.removeItem(key);
    } catch (e) {
      if (value) memory.set(key, value); else memory.delete(key);
    }
  }

  // Checkpoint cosigning (issue 34). The player's Ed25519 key is made here
  // with WebCrypto and kept in this browser's IndexedDB, its private half
  // not extractable: it never leaves the browser. The C2SP formats: key id
  // = the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key);
  // verifier key "NAME+HEX(id)+BASE64(0x01 || public key)"; a signature
  // line "— NAME BASE64(id || Ed25519 signature over the note's text)".
  const COSIGN_DB = 'gunbai-cosign-keys';
  const utf8 = new TextEncoder();
  const b64 = (bytes) => btoa(String.fromCharCode(...bytes));
  const unb64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const hexOf = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

  function keyDb() {
    return new Promise((resolve, reject) => {
      const open = indexedDB.open(COSIGN_DB, 1);
      open.onupgradeneeded = () => open.result.createObjectStore('keys');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
  }
  function dbDo(db, mode, act) {
    return new Promise((resolve, reject) => {
      const request = act(db.transaction('keys', mode).objectStore('keys'));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  async function keyIdOf(name, publicKey) {
    const input = new Uint8Array([...utf8.encode(name), 0x0a, 0x01, ...publicKey]);
    return new Uint8Array(await crypto.subtle.digest('SHA-256', input)).slice(0, 4);
  }

  // This clan's cosigning key in this game, made the first time.
  async function cosignKey(game, clan) {
    const db = await keyDb();
    const id = `${game}\n${clan}`;
    let entry = await dbDo(db, 'readonly', (s) => s.get(id));
    if (!entry) {
      const pair = await crypto.subtle.generateKey({name: 'Ed25519'}, false, ['sign', 'verify']);
      const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      entry = {name: `${clan.replace(/[^A-Za-z0-9._-]/g, '_')}.browser`,
               privateKey: pair.privateKey, publicKey};
      await dbDo(db, 'readwrite', (s) => s.put(entry, id));
    }
    const keyId = await keyIdOf(entry.name, entry.publicKey);
    return {...entry, keyId,
            verifierKey: `${entry.name}+${hexOf(keyId)}+${b64(new Uint8Array([1, ...entry.publicKey]))}`};
  }

  // Whether this gunbaid signs checkpoints (GET /v1/info publishes its key):
  // asked once a page, so that a daemon without a key is not asked for
  // checkpoints it would refuse (a refusal the browser logs as an error).
  let daemonSigns = null;
  function signsCheckpoints() {
    if (!daemonSigns) {
      daemonSigns = fetch('/v1/info', {credentials: 'omit', cache: 'no-store'})
          .then((r) => (r.ok ? r.json() : {}))
          .then((info) => Boolean(info.checkpointVerifierKey))
          .catch(() => { daemonSigns = null; return false; });
    }
    return daemonSigns;
  }

  // Whether `note` carries a valid signature of the key `verifierKey`.
  async function noteSignedBy(note, verifierKey) {
    // NAME+HEX(id)+BASE64: a name holds no '+'; the base64 may.
    const parts = verifierKey.split('+');
    const [name, idHex, key] = [parts[0], parts[1], parts.slice(2).join('+')];
    const raw = unb64(key);
    if (raw[0] !== 1 || raw.length !== 33) return false;
    const publicKey = await crypto.subtle.importKey('raw', raw.slice(1), {name: 'Ed25519'},
                                                    false, ['verify']);
    const blank = note.indexOf('\n\n');
    const text = utf8.encode(note.slice(0, blank + 1));
    for (const line of note.slice(blank + 2).split('\n')) {
      const prefix = `\u2014 ${name} `;
      if (!line.startsWith(prefix)) continue;
      const blob = unb64(line.slice(prefix.length));
      if (hexOf(blob.slice(0, 4)) !== idHex) continue;
      if (await crypto.subtle.verify({name: 'Ed25519'}, publicKey, blob.slice(4), text)) {
        return true;
      }
    }
    return false;
  }

  // Cosigns turn `turn`'s checkpoint as `clan`: registers the key (the same
  // again is fine), checks the daemon's signature, signs, sends.
  async function cosignTurn(game, token, clan, turn) {
    const key = await cosignKey(game, clan);
    await Gunbai.api('/v1/games:registerCheckpointKey',
                     {gameId: game, verifierKey: key.verifierKey}, {token});
    const checkpoint = await Gunbai.api('/v1/games:checkpoint', {gameId: game, turn}, {token});
    const note = checkpoint.checkpoint || '';
    if (!(await noteSignedBy(note, checkpoint.verifierKey || ''))) {
      throw new Error(`the daemon's checkpoint of turn ${turn} does not verify: not cosigned`);
    }
    const text = note.slice(0, note.indexOf('\n\n') + 1);
    const signature = new Uint8Array(
        await crypto.subtle.sign({name: 'Ed25519'}, key.privateKey, utf8.encode(text)));
    const line = `\u2014 ${key.name} ${b64(new Uint8Array([...key.keyId, ...signature]))}\n`;
    return Gunbai.api('/v1/games:cosignCheckpoint',
                      {gameId: game, turn, cosigned: note + line}, {token});
  }

  // The message for a refused credential: what to do, then gunbaid's words.
  function credentialError(e) {
    if (e instanceof Gunbai.ApiError &&
        (e.status === 'PERMISSION_DENIED' || e.status === 'UNAUTHENTICATED' ||
         e.httpStatus === 401 || e.httpStatus === 403)) {
      return el('p', {class: 'error', role: 'alert'},
          'This credential is not accepted: check that you pasted the whole ' +
          'credential the umpire gave you, for this game and this clan (each ' +
          'clan has its own). gunbaid says: ' + Gunbai.describeError(e));
    }
    return Gunbai.errorBox(e);
  }

  // A sign-in form: one password field and a button. onToken(token) returns
  // a promise; its rejection is shown under the form.
  function signInForm(title, label, onToken) {
    const input = el('input', {type: 'password', id: 'live-credential',
                               autocomplete: 'off', spellcheck: 'false',
                               class: 'mono credential-input', required: true});
    const status = el('div', {class: 'sign-in-status', 'aria-live': 'polite'});
    const button = el('button', {type: 'submit', class: 'primary', text: 'Sign in'});
    const form = el('form', {class: 'card sign-in'},
        el('h2', {text: title}),
        el('label', {for: 'live-credential', text: label}), el('br'),
        input, ' ', button, status);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      button.disabled = true;
      replaceChildren(status, el('p', {class: 'muted', text: 'Checking…'}));
      try {
        await onToken(token);
      } catch (e) {
        replaceChildren(status, credentialError(e));
        button.disabled = false;
        input.focus();
      }
    });
    return {form, input};
  }

  // A read-only credential with a copy button.
  function credentialField(token, labelText) {
    const field = el('input', {type: 'text', readonly: true, value: token,
                               class: 'mono credential', 'aria-label': labelText});
    const said = el('span', {class: 'muted copy-said', 'aria-live': 'polite'});
    const copy = el('button', {type: 'button', text: 'Copy', on: {click: async () => {
      field.select();
      try {
        await navigator.clipboard.writeText(token);
        said.textContent = 'copied';
      } catch (e) {
        said.textContent = 'selected: press Ctrl+C';
      }
    }}});
    return el('span', {class: 'credential-row'}, field, ' ', copy, ' ', said);
  }

  // --- Reading a game -------------------------------------------------

  // Every event of the game (ReadEvents, page after page) and the last
  // page's version, header, order of battle and settings.
  async function readGame(game, token) {
    let fromSeq = 0;
    const events = [];
    let last;
    for (;;) {
      last = await Gunbai.api('/v1/games:read', {gameId: game, fromSeq: String(fromSeq)}, {token});
      for (const e of last.events || []) events.push(e);
      const next = Number(last.nextSeq || 0);
      if (!next) break;
      fromSeq = next;
    }
    return {events, version: Number(last.version || 0), header: last.header || {},
            orderOfBattle: last.orderOfBattle || {}, settings: last.settings || {},
            dice: last.dice || {}, table: last.table, terrain: last.terrain};
  }

  // The game's table and terrain ({table, terrain}), or null for a game
  // without one. ExportGame's log carries them (its first page, with the
  // header and the order of battle); a gunbaid whose games have no table
  // gives none, and then there is no map.
  async function tableOfGame(game, token, read) {
    if (read.table) return {table: read.table, terrain: read.terrain || []};
    try {
      const first = await Gunbai.api('/v1/games:export', {gameId: game}, {token});
      const log = (first.game || {}).log || {};
      return log.table ? {table: log.table, terrain: log.terrain || []} : null;
    } catch (e) {
      return null;  // No map; the rest of the page says what is wrong.
    }
  }

  // The whole export, pages put together as `gunbai game export` does
  // (service/cli/game_client.cc): the first page, then each next page's events
  // and their ids, chain hashes and dice attempts, and the last page's
  // settings and dice commitment.
  async function exportGame(game, token) {
    const first = await Gunbai.api('/v1/games:export', {gameId: game}, {token});
    const whole = first.game || {};
    whole.log = whole.log || {};
    let next = Number(first.nextSeq || 0);
    while (next) {
      const page = await Gunbai.api('/v1/games:export',
          {gameId: game, fromSeq: String(next)}, {token});
      const g = page.game || {};
      const add = (key, from) => {
        if (!from || !from.length) return;
        whole[key] = (whole[key] || []).concat(from);
      };
      whole.log.events = (whole.log.events || []).concat((g.log && g.log.events) || []);
      add('eventIds', g.eventIds);
      add('chainHashes', g.chainHashes);
      add('diceAttempts', g.diceAttempts);
      if (g.settings) whole.settings = g.settings;
      if (g.dice) whole.dice = g.dice;
      const after = Number(page.nextSeq || 0);
      if (after && after <= next) throw new Error('the export goes backwards');
      next = after;
    }
    return whole;
  }

  const BODY_KINDS = ['turnStart', 'activation', 'move', 'charge', 'firing',
                      'meleeRound', 'challenge', 'moraleTest', 'leaderLoss',
                      'resultMove', 'removal', 'turnEnd', 'gameEnd'];
  const KIND_WORDS = {turnStart: 'turn start', activation: 'activation',
                      move: 'move', charge: 'charge', firing: 'fire',
                      meleeRound: 'melee', challenge: 'challenge',
                      moraleTest: 'morale test', leaderLoss: 'leader loss',
                      resultMove: 'result move', removal: 'removal',
                      turnEnd: 'turn end', gameEnd: 'game end'};

  function bodyKind(event) {
    for (const k of BODY_KINDS) if (event && k in event) return k;
    return '';
  }

  // Every die an event carries, wherever the body keeps them.
  function diceOf(value, out = []) {
    if (Array.isArray(value)) {
      for (const v of value) diceOf(v, out);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if ((k === 'dice' || k === 'initiativeDice') && Array.isArray(v)) out.push(...v);
        else if (typeof v === 'object') diceOf(v, out);
      }
    }
    return out;
  }

  // Names for the ids of a game: units, clans and leaders by their names,
  // each with its id ("Oda Teppo (oda-teppo)") so that the map and the
  // rules' findings can be matched.
  function namesOf(header, orderOfBattle) {
    const by = (list) => new Map((list || []).map((x) => [x.id, x.name || '']));
    const units = by((orderOfBattle || {}).units);
    const leaders = by((orderOfBattle || {}).leaders);
    const clans = by((header || {}).clans);
    const named = (map) => (id) => {
      if (!id) return '';
      const name = map.get(id);
      return name && name !== id ? `${name} (${id})` : id;
    };
    return {unit: named(units), leader: named(leaders), clan: named(clans),
            clanName: (id) => clans.get(id) || id};
  }

  const RANGE_WORDS = {RANGE_BAND_EFFECTIVE: 'at effective range',
                       RANGE_BAND_LONG: 'at long range'};
  const RESULT_MOVE_WORDS = {
    RESULT_MOVE_KIND_PUSH_BACK: 'is pushed back', RESULT_MOVE_KIND_ROUT: 'routs',
    RESULT_MOVE_KIND_FOLLOW_UP: 'follows up', RESULT_MOVE_KIND_PURSUIT: 'pursues',
    RESULT_MOVE_KIND_HOLD: 'holds its ground', RESULT_MOVE_KIND_RETIRE: 'retires',
    RESULT_MOVE_KIND_RETREAT: 'retreats'};
  const MORALE_WORDS = {
    MORALE_RESULT_NO_EFFECT: 'no effect', MORALE_RESULT_HALT: 'halt',
    MORALE_RESULT_RETIRE: 'retire', MORALE_RESULT_RETREAT: 'retreat',
    MORALE_RESULT_ROUT: 'rout', MORALE_RESULT_STAND_OR_RETIRE: 'stand or retire',
    MORALE_RESULT_COUNTER_CHARGE: 'may counter-charge', MORALE_RESULT_CHARGE: 'charge',
    MORALE_RESULT_RALLY: 'rally', MORALE_RESULT_DISPERSED: 'dispersed',
    MORALE_RESULT_FRENZY: 'frenzy'};
  const REASON_WORDS = {1: 'a stand lost', 2: 'charged', 3: 'charged by cavalry',
                        4: 'declaring a charge', 5: 'its leader lost', 6: 'friends routing near',
                        7: 'routers passed through it', 8: 'to rally'};
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const mm = (v) => `${Number(v || 0)} mm`;

  // An event as a sentence a player reads: who did what to whom, with the
  // numbers declared (the dice are shown beside it). `names` is namesOf's.
  function describeEvent(e, names) {
    const clan = e.clan ? names.clanName(e.clan) : '';
    const u = names.unit;
    const b = e[bodyKind(e)] || {};
    switch (bodyKind(e)) {
      case 'turnStart':
        return `Turn ${e.turn || 0} begins` +
            (b.initiativeClan ? `; ${names.clanName(b.initiativeClan)} has the initiative.` : '.');
      case 'activation':
        return `${clan} is activated.`;
      case 'turnEnd':
        return clan ? `${clan} ends its activation and its part of turn ${e.turn || 0}.`
                    : `Turn ${e.turn || 0} ends.`;
      case 'gameEnd':
        return 'The game ends.';
      case 'move': {
        const verb = b.kind === 'MOVE_KIND_MANOEUVRE' ? 'manoeuvres'
            : b.kind === 'MOVE_KIND_TURN_ABOUT' ? 'turns about' : 'moves';
        const to = b.to ? ` to ${Math.round(Number(b.to.xMm || 0) / 10)}, ` +
            `${Math.round(Number(b.to.yMm || 0) / 10)} cm, facing ` +
            `${Number(b.to.facingDeg || 0)}°` : '';
        const far = b.distanceMm ? ` ${mm(b.distanceMm)}` : '';
        return `${u(b.unit)} ${verb}${far}${to}.`;
      }
      case 'charge': {
        const to = b.to ? `, to ${Math.round(Number(b.to.xMm || 0) / 10)}, ` +
            `${Math.round(Number(b.to.yMm || 0) / 10)} cm, facing ` +
            `${Number(b.to.facingDeg || 0)}°` : '';
        return `${u(b.unit)} ${b.counterCharge ? 'counter-charges' : 'charges'} ${u(b.target)}` +
            to + (b.fellShort ? ', and falls short.' : '.');
      }
      case 'firing': {
        const facts = b.facts || {};
        const band = RANGE_WORDS[facts.range] ||
            (facts.distanceMm ? `at ${mm(facts.distanceMm)}` : '');
        const hits = b.claimedHits !== undefined
            ? ` The log claims ${plural(Number(b.claimedHits), 'hit', 'hits')}.` : '';
        return `${u(b.unit)} fires ${plural(Number(b.standsFiring || 0), 'stand', 'stands')} ` +
            `at ${u(b.target)}${band ? ' ' + band : ''}.${hits}`;
      }
      case 'meleeRound': {
        const [x, y] = b.sides || [];
        const side = (sd) => sd ? `${u(sd.unit)} (${plural(Number(sd.standsFighting || 0),
            'stand', 'stands')})` : '?';
        return `Melee: ${side(x)} fights ${side(y)}.`;
      }
      case 'moraleTest': {
        const why = REASON_WORDS[b.reason] ? ` (${REASON_WORDS[b.reason]})` : '';
        const result = MORALE_WORDS[b.claimedResult];
        return `${u(b.unit)} takes a morale test${why}` +
            (result ? `: ${result}.` : '.');
      }
      case 'leaderLoss':
        return `${names.leader(b.leader)} rolls to see if he falls` +
            (b.claimedKilled === true ? ': killed.' : b.claimedKilled === false ? ': he lives.' : '.');
      case 'resultMove':
        return `${u(b.unit)} ${RESULT_MOVE_WORDS[b.kind] || 'makes a result move'}` +
            (b.distanceMm ? ` ${mm(b.distanceMm)}.` : '.');
      case 'removal':
        return `${u(b.unit)} is removed` + (b.reason ? `: ${b.reason}.` : '.');
      case 'challenge':
        return `${names.leader(b.challenger)} challenges ${names.leader(b.challenged)}` +
            (b.accepted ? ', who accepts.' : ', who refuses.');
      default:
        return 'An event of a kind this page does not know.';
    }
  }

  const SEVERITY = {
    SEVERITY_VIOLATION: {word: 'violation', css: 'sev-violation'},
    SEVERITY_DISPUTE: {word: 'disputed result', css: 'sev-dispute'},
    SEVERITY_WARNING: {word: 'warning', css: 'sev-warning'},
    SEVERITY_UNVERIFIABLE: {word: 'unverifiable', css: 'sev-unverifiable'},
    SEVERITY_INFO: {word: 'note', css: 'sev-info'},
  };

  // A finding, coloured by its severity (a violation red, a dispute amber,
  // a warning or an unverifiable point grey-blue), its word first.
  function findingItem(f) {
    const sev = SEVERITY[f.severity] || {word: 'finding', css: 'sev-info'};
    return el('li', {class: `finding ${sev.css}`, dataset: {severity: f.severity || ''}},
        el('span', {class: 'sev-word', text: sev.word}), ': ',
        f.ruleId ? Gunbai.ruleLink(f.ruleId) : null, f.ruleId ? ' ' : null,
        f.seq ? `seq ${f.seq}: ` : null, f.message || f.summary || JSON.stringify(f));
  }

  const OUTCOME_WORDS = {hits: 'hits', stands_lost: 'stands lost', result: 'result',
                         killed: 'killed', outcome: 'outcome', total: 'total'};

  // One stored event as a list item: the sentence, the dice, the outcomes
  // the engine computed (with names) and the findings.
  function eventItem(stored, names) {
    const e = stored.event || {};
    const kind = bodyKind(e);
    const dice = diceOf(e[kind]);
    const outcomes = stored.outcomes || [];
    const findings = stored.findings || [];
    const value = (v) => String(v || '').replace(/^MORALE_RESULT_/, '')
        .replace(/^MELEE_OUTCOME_/, '').replace(/_/g, ' ').toLowerCase();
    return el('li', {class: 'live-event', dataset: {seq: String(e.seq || ''), kind}},
        el('div', {class: 'event-head'},
            el('span', {class: 'mono event-seq', text: `#${e.seq || '?'}`}), ' ',
            el('span', {class: 'muted', text: `turn ${e.turn || 0}`}), ' ',
            el('span', {class: 'event-kind muted', text: KIND_WORDS[kind] || kind})),
        el('div', {class: 'event-sentence', text: describeEvent(e, names)}),
        dice.length ? el('div', {class: 'event-dice'}, 'dice: ',
            dice.map((d) => el('span', {class: 'die', text: String(d)}))) : null,
        outcomes.length ? el('ul', {class: 'outcomes'}, outcomes.map((o) =>
            el('li', {}, el('strong', {text: names.unit(o.subject) || names.leader(o.subject) || ''}),
                ' ', OUTCOME_WORDS[o.kind] || o.kind || '', o.value !== undefined ? ': ' : '',
                el('span', {class: 'outcome-value', text: value(o.value)})))) : null,
        findings.length ? el('ul', {class: 'findings'}, findings.map(findingItem)) : null);
  }

  function eventList(events, names) {
    if (!events.length) return el('p', {class: 'muted', text: 'No events yet.'});
    return el('ol', {class: 'live-events', reversed: true},
        events.slice().reverse().map((e) => eventItem(e, names)));
  }

  // The units table of a state snapshot, with names from the order of battle.
  function unitsTable(state, orderOfBattle) {
    const names = new Map((orderOfBattle.units || []).map((u) => [u.id, u.name || '']));
    const units = state.units || [];
    if (!units.length) return el('p', {class: 'muted', text: 'No units.'});
    const FLAGS = {disordered: 'disordered', halted: 'halted', firedThisTurn: 'fired',
                   movedThisTurn: 'moved', inMelee: 'in melee', routing: 'routing',
                   removed: 'removed'};
    const flags = (u) => Object.keys(FLAGS).filter((f) => u[f]).map((f) => FLAGS[f]).join(', ');
    return el('div', {class: 'table-wrap'}, el('table', {class: 'live-units'},
        el('thead', {}, el('tr', {},
            ['Unit', 'Clan', 'Stands', 'Lost', 'Hits', 'Status']
                .map((h) => el('th', {scope: 'col', text: h})))),
        el('tbody', {}, units.map((u) => el('tr', {},
            el('td', {}, el('span', {class: 'mono', text: u.id}),
                names.get(u.id) ? el('div', {class: 'muted', text: names.get(u.id)}) : null),
            el('td', {text: u.clan || ''}),
            el('td', {text: String(u.stands || 0)}),
            el('td', {text: String(u.standsLost || 0)}),
            el('td', {text: String(u.carriedHits || 0)}),
            el('td', {text: flags(u)}))))));
  }

  function stateLine(state, header) {
    const clans = new Map(((header && header.clans) || []).map((c) => [c.id, c.name || c.id]));
    const name = (id) => (id ? `${clans.get(id) || id} (${id})` : '–');
    return el('dl', {class: 'state-line'},
        el('dt', {text: 'Turn'}), el('dd', {class: 'state-turn', text: String(state.turn || 0)}),
        el('dt', {text: 'Phase'}), el('dd', {text: state.phase || '–'}),
        el('dt', {text: 'Initiative'}), el('dd', {text: name(state.initiativeClan)}),
        el('dt', {text: 'Active'}), el('dd', {class: 'state-active', text: name(state.activeClan)}),
        el('dt', {text: 'Ended'}), el('dd', {class: 'state-over', text: state.gameOver ? 'yes' : 'no'}));
  }

  function eventId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return 'web:' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  // Appends `events` (Event objects) after `version`; resolves to the
  // AppendEventsResponse.
  function append(game, token, version, events) {
    return Gunbai.api('/v1/games:append', {
      gameId: game, expectedVersion: String(version),
      events: events.map((event) => ({eventId: eventId(), event})),
    }, {token});
  }

  // What the reply of an append did: each stored event with its dice and
  // outcomes, and the batch's findings.
  function replyBox(reply, names) {
    return el('div', {class: 'card reply', role: 'status'},
        el('h3', {text: `Sent: the game has ${reply.version} events`}),
        el('ol', {class: 'live-events'}, (reply.events || []).map((e) => eventItem(e, names))),
        (reply.findings || []).length
            ? el('ul', {class: 'findings'}, reply.findings.map(findingItem)) : null);
  }

  // Follows the game from `fromSeq`: onEvent(storedEvent) for each; when
  // the stream breaks, `onStatus` says so and it reconnects from the next
  // seq after a pause. Returns a function that stops it.
  function watch(game, token, fromSeq, onEvent, onStatus) {
    let stopped = false;
    let controller = null;
    let next = fromSeq;
    let timer = null;
    const run = async () => {
      if (stopped) return;
      controller = new AbortController();
      onStatus('live', 'Live: updates as they are appended.');
      try {
        const end = await Gunbai.stream('/v1/games:watch',
            {gameId: game, fromSeq: String(next)}, (msg) => {
              const seq = Number((msg.event && msg.event.event && msg.event.event.seq) || 0);
              if (seq >= next) next = seq + 1;
              onEvent(msg.event || {});
            }, {token, signal: controller.signal});
        if (stopped || (end && end.aborted)) return;
        onStatus('ended', 'The game has ended: no more updates.');
        return;
      } catch (e) {
        if (stopped) return;
        onStatus('broken', 'Live updates broke off (' + Gunbai.describeError(e) +
                 '); reconnecting in 3 seconds…');
      }
      timer = setTimeout(run, 3000);
    };
    run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (controller) controller.abort();
    };
  }

  // --- The umpire's list page ----------------------------------------

  // The BattleLog in an order-of-battle file (text format, JSON or binary),
  // read by gunbaid as `gunbai game create` reads it (/v1/logs:parse).
  async function readBattleLog(file) {
    const content = await Gunbai.readFileAsBase64(file);
    const parsed = await Gunbai.api('/v1/logs:parse', {content, fileName: file.name});
    return parsed.log || {};
  }

  function umpireList(main) {
    const token = stored(UMPIRE_KEY);
    if (!token) {
      const {form, input} = signInForm('Sign in as the umpire',
          'The umpire credential (gunbaid\'s GUNBAI_UMPIRE_TOKEN)', async (t) => {
            await Gunbai.api('/v1/games:list', {pageSize: 1}, {token: t});
            store(UMPIRE_KEY, t);
            replaceChildren(main);
            umpireList(main);
          });
      main.appendChild(el('h1', {text: 'Live games'}));
      main.appendChild(el('p', {text:
          'The umpire creates a game and hands each player their link and ' +
          'credential. A player opens their link and signs in with the credential.'}));
      main.appendChild(form);
      input.focus();
      return;
    }
    main.appendChild(el('h1', {text: 'Live games: umpire'}));
    main.appendChild(el('p', {},
        el('button', {type: 'button', class: 'sign-out', text: 'Sign out', on: {click: () => {
          store(UMPIRE_KEY, '');
          replaceChildren(main);
          umpireList(main);
        }}})));

    // Creating a game.
    const file = el('input', {type: 'file', id: 'live-oob', accept: '.textproto,.txtpb,.json,.txt,text/plain,application/json'});
    const policy = el('select', {id: 'live-policy'},
        el('option', {value: 'APPEND_POLICY_STRICT', text: 'strict: refuse a batch that breaks a rule'}),
        el('option', {value: 'APPEND_POLICY_RECORD', text: 'record: accept it and record the findings'}));
    const dice = el('select', {id: 'live-dice'},
        el('option', {value: 'DICE_MODE_SERVER', text: 'server dice: gunbaid rolls'}),
        el('option', {value: 'DICE_MODE_RECORDED', text: 'recorded dice: the players roll'}));
    const created = el('div', {class: 'created', 'aria-live': 'polite'});
    const createButton = el('button', {type: 'submit', class: 'primary', text: 'Create the game'});
    const form = el('form', {class: 'card create-game'},
        el('h2', {text: 'Create a game'}),
        el('p', {class: 'muted', text:
            'From an order of battle: a battle log file with the header and the ' +
            'armies and no events (text format, as samples/pbem/armies.textproto, JSON or binary). ' +
            'A file with a table (positions and terrain) makes a game played on the table: ' +
            'gunbaid measures ranges and contacts, and both sides see the map.'}),
        el('label', {for: 'live-oob', text: 'Order of battle'}), el('br'), file, el('br'),
        el('label', {for: 'live-policy', text: 'Policy'}), policy, el('br'),
        el('label', {for: 'live-dice', text: 'Dice'}), dice, el('br'),
        createButton, created);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!file.files.length) {
        replaceChildren(created, el('p', {class: 'error', role: 'alert',
                                           text: 'Choose an order of battle file first.'}));
        return;
      }
      createButton.disabled = true;
      try {
        const log = await readBattleLog(file.files[0]);
        const request = {
          header: log.header, orderOfBattle: log.orderOfBattle,
          settings: {policy: policy.value, diceMode: dice.value},
        };
        // A game on a table: the file's table and terrain (sent only when
        // the file has them).
        if (log.table) {
          request.table = log.table;
          if (log.terrain) request.terrain = log.terrain;
        }
        const reply = await Gunbai.api('/v1/games:create', request, {token});
        replaceChildren(created, createdBox(reply, log.header || {}));
        loadList(true);
      } catch (e) {
        replaceChildren(created, e instanceof Gunbai.ApiError || e instanceof TypeError
            ? Gunbai.errorBox(e) : el('p', {class: 'error', role: 'alert', text: e.message}));
      } finally {
        createButton.disabled = false;
      }
    });
    main.appendChild(form);

    // The list of games, a page at a time.
    const list = el('div', {class: 'game-list'});
    const more = el('p');
    main.appendChild(el('h2', {text: 'Games'}));
    main.appendChild(list);
    main.appendChild(more);
    let pageToken = '';
    let tbody = null;
    async function loadList(fromStart) {
      if (fromStart) {
        pageToken = '';
        tbody = null;
        replaceChildren(list);
      }
      replaceChildren(more);
      try {
        const reply = await Gunbai.api('/v1/games:list', {pageSize: 20, pageToken}, {token});
        const games = reply.games || [];
        if (!tbody) {
          if (!games.length) {
            list.appendChild(el('p', {class: 'muted', text: 'No games yet.'}));
            return;
          }
          tbody = el('tbody');
          list.appendChild(el('div', {class: 'table-wrap'}, el('table', {class: 'games'},
              el('thead', {}, el('tr', {}, ['Game', 'Events', 'Ended']
                  .map((h) => el('th', {scope: 'col', text: h})))), tbody)));
        }
        for (const g of games) {
          tbody.appendChild(el('tr', {},
              el('td', {}, el('a', {class: 'mono game-link',
                  href: '#/live/' + encodeURIComponent(g.gameId) + '/umpire', text: g.gameId})),
              el('td', {text: String(g.version || 0)}),
              el('td', {text: g.ended ? 'yes' : 'no'})));
        }
        pageToken = reply.nextPageToken || '';
        if (pageToken) {
          more.appendChild(el('button', {type: 'button', text: 'More games',
                                         on: {click: () => loadList(false)}}));
        }
      } catch (e) {
        list.appendChild(credentialError(e));
      }
    }
    loadList(true);
  }

  // What CreateGame gave: the game id, and for each clan its link and
  // credential.
  function createdBox(reply, header) {
    const game = reply.gameId;
    const names = new Map((header.clans || []).map((c) => [c.id, c]));
    const base = location.href.replace(/#.*$/, '');
    return el('div', {class: 'card created-game'},
        el('h3', {}, 'Created ', el('span', {class: 'mono created-id', text: game})),
        el('p', {text:
            'Give each player their link and, separately, their credential: ' +
            'it is shown only now (gunbaid keeps only its hash).'}),
        el('ul', {class: 'credentials'}, (reply.credentials || []).map((c) => {
          const clan = names.get(c.clan) || {};
          const link = base + '#/live/' + encodeURIComponent(game) + '/' + encodeURIComponent(c.clan);
          return el('li', {class: 'credential-item', dataset: {clan: c.clan}},
              el('div', {}, el('strong', {class: 'clan-name', text: clan.name || c.clan}), ' ',
                  el('span', {class: 'mono muted', text: `(${c.clan})`}),
                  clan.player ? el('span', {class: 'player-name', text: ` played by ${clan.player}`}) : null),
              el('div', {}, 'Link: ', el('a', {class: 'player-link mono', href: link, text: link})),
              el('div', {}, 'Credential: ', credentialField(c.token, `credential for ${c.clan}`)));
        })),
        el('p', {}, el('a', {href: '#/live/' + encodeURIComponent(game) + '/umpire',
                             class: 'umpire-game-link', text: 'Open the game as the umpire'})));
  }

  // --- One game: the umpire's and the players' view ------------------

  // The page of game `game` for `role`: 'umpire' or a clan id.
  function gamePage(main, game, role) {
    const umpire = role === 'umpire';
    const key = umpire ? UMPIRE_KEY : playerKey(game, role);
    const token = stored(key);
    main.appendChild(el('h1', {}, umpire ? 'Umpire: ' : 'Game ',
        el('span', {class: 'mono game-id', text: game})));
    if (!token) {
      const {form, input} = signInForm(
          umpire ? 'Sign in as the umpire' : `Sign in as ${role || 'a player'}`,
          umpire ? 'The umpire credential' : 'Your credential (the umpire gave it to you)',
          async (t) => {
            if (umpire) {
              await Gunbai.api('/v1/games:read', {gameId: game, fromSeq: '999999999999'}, {token: t});
            } else {
              // The list of this clan's actions answers only to this clan's
              // credential (or the umpire's): another clan's is refused.
              await Gunbai.api('/v1/games:legalActions', {gameId: game, clan: role}, {token: t});
            }
            store(key, t);
            replaceChildren(main);
            stop = gamePage(main, game, role);
          });
      main.appendChild(form);
      input.focus();
      let stop = null;
      // Signed in from another tab of this game: this one follows.
      const onStorage = (ev) => {
        if (ev.key !== key || !ev.newValue || stop) return;
        replaceChildren(main);
        stop = gamePage(main, game, role);
      };
      window.addEventListener('storage', onStorage);
      return () => { window.removeEventListener('storage', onStorage); if (stop) stop(); };
    }

    const liveStatus = el('p', {class: 'live-status', 'aria-live': 'polite'});
    const banner = el('p', {class: 'turn-banner', 'aria-live': 'polite'});
    const stateBox = el('section', {class: 'state'});
    const actionBox = el('section', {class: 'actions card'});
    const pendingBox = el('section', {class: 'pending-box', 'aria-live': 'polite'});
    const replyArea = el('div', {class: 'reply-area', 'aria-live': 'polite'});
    const findingsBox = el('section', {class: 'all-findings'});
    const checkpointsBox = el('section', {class: 'checkpoints'});
    const mapBox = el('section', {class: 'live-map-box', hidden: true});
    const eventsBox = el('section', {class: 'events'});
    const signOut = el('button', {type: 'button', class: 'sign-out', text: 'Sign out', on: {click: () => {
      store(key, '');
      location.hash = umpire ? '#/live' : location.hash;
      replaceChildren(main);
      leave();
      stopAll = gamePage(main, game, role);
    }}});
    main.appendChild(el('p', {class: 'who'},
        umpire ? 'Signed in as the umpire. ' : `Playing ${role || '(clan unknown)'}. `,
        signOut, umpire ? ' ' : null,
        umpire ? el('a', {href: '#/live', text: 'All games'}) : null));
    main.appendChild(liveStatus);
    main.appendChild(banner);
    main.appendChild(el('div', {class: 'game-grid'},
        el('div', {class: 'game-main'}, stateBox, pendingBox, actionBox, replyArea, mapBox),
        el('div', {class: 'game-side'}, findingsBox, checkpointsBox, eventsBox)));

    let game_ = null;   // readGame's answer, events kept up to date.
    let names = namesOf({}, {});
    let table = undefined;  // tableOfGame's answer: undefined until asked.
    let map = null;
    let mapSeq = -1;
    let busy = false;
    let refreshTimer = null;
    let retryTimer = null;
    let pending = null;  // The events previewed, not yet sent.
    let pickDestination = null;  // The move row a click on the map fills.

    // main's data-busy: '1' while a refresh or a send is under way or due
    // (the browser test waits for '0' before it presses a button).
    let refreshing = false;
    const markBusy = () => {
      main.dataset.busy = (refreshing || busy || refreshTimer) ? '1' : '0';
    };

    async function refresh() {
      refreshing = true;
      markBusy();
      try {
        await refreshNow();
      } finally {
        refreshing = false;
        markBusy();
      }
    }

    // A refresh that fails (the daemon restarting, the network down) is
    // tried again by itself every few seconds, and at once when the browser
    // says it is back online; the form stays usable.
    async function refreshNow() {
      try {
        if (!game_) {
          game_ = await readGame(game, token);
          names = namesOf(game_.header, game_.orderOfBattle);
        }
        if (table === undefined) table = await tableOfGame(game, token, game_);
        drawMap();
        const state = (await Gunbai.api('/v1/games:state', {gameId: game}, {token})).state || {};
        replaceChildren(stateBox, el('h2', {text: 'State'}), stateLine(state, game_.header),
            unitsTable(state, game_.orderOfBattle));
        replaceChildren(eventsBox, el('h2', {text: `Events (${game_.events.length})`}),
            eventList(game_.events, names));
        await showFindings();
        await showCheckpoints();
        await showActions(state);
        if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      } catch (e) {
        if (!game_) {
          replaceChildren(stateBox, credentialError(e));
          return;
        }
        replaceChildren(banner, el('span', {class: 'error', role: 'alert',
            text: 'gunbaid cannot be reached (' + Gunbai.describeError(e) +
                  '); trying again in 3 seconds. Nothing you have not sent is lost.'}));
        banner.className = 'turn-banner banner-broken';
        if (!retryTimer) retryTimer = setTimeout(() => { retryTimer = null; refresh(); }, 3000);
      }
    }
    const onOnline = () => refresh();
    window.addEventListener('online', onOnline);

    // The map of the table after the latest event (a game on a table). A
    // click on it gives the destination of the move being prepared.
    function drawMap() {
      if (!table) return;
      if (!map) {
        map = Gunbai.mapView({id: 'live-map', pxPerCm: 5,
                              fileName: game.replace(/[^A-Za-z0-9._-]/g, '_')});
        map.img.addEventListener('click', (ev) => {
          if (!pickDestination) return;
          const at = map.pointAt(ev.clientX, ev.clientY);
          if (at) pickDestination(Math.round(at.x * 10), Math.round(at.y * 10));
        });
        replaceChildren(mapBox, el('h2', {text: 'The table'}),
            el('p', {class: 'muted map-hint', text:
                'To move a unit: press its Move, then click where its front centre is to go ' +
                '(or type the coordinates), check the preview, and send.'}), map.node);
        mapBox.hidden = false;
      }
      const events = game_.events.map((s) => s.event || {});
      const last = events.length ? Number(events[events.length - 1].seq || 0) : 0;
      if (last === mapSeq) return;
      mapSeq = last;
      map.draw({header: game_.header, orderOfBattle: game_.orderOfBattle,
                table: table.table, terrain: table.terrain, events}, last);
    }

    // Each ended turn's checkpoint: who cosigned it, who has not; a player
    // who has not gets the button to cosign it here.
    async function showCheckpoints() {
      if (!(await signsCheckpoints())) {
        replaceChildren(checkpointsBox);  // This gunbaid signs none.
        return;
      }
      let list;
      try {
        list = await Gunbai.api('/v1/games:checkpoints', {gameId: game}, {token});
      } catch (e) {
        if (e instanceof Gunbai.ApiError && e.status === 'FAILED_PRECONDITION') {
          replaceChildren(checkpointsBox);  // This gunbaid signs none.
          return;
        }
        throw e;
      }
      const turns = list.turns || [];
      const items = turns.map((t) => {
        const waiting = t.waitingFor || [];
        const mine = !umpire && waiting.includes(role);
        return el('li', {class: t.agreed ? 'cp-agreed' : 'cp-waiting',
                         dataset: {turn: String(t.turn)}},
            `Turn ${t.turn}: ${Number(t.treeSize || 0)} events, `,
            t.agreed ? el('strong', {text: 'agreed'}) :
                `waiting for ${waiting.join(', ')}`,
            (t.cosignedBy || []).length ? ` (cosigned by ${t.cosignedBy.join(', ')})` : '',
            mine ? ' ' : null,
            mine ? el('button', {type: 'button', class: 'cosign', dataset: {turn: String(t.turn)},
                text: `Cosign turn ${t.turn}`, on: {click: async (ev) => {
                  ev.target.disabled = true;
                  busy = true;
                  markBusy();
                  try {
                    await cosignTurn(game, token, role, t.turn);
                  } catch (e) {
                    replaceChildren(replyArea, Gunbai.errorBox(e));
                  } finally {
                    busy = false;
                    markBusy();
                  }
                  refresh();
                }}}) : null);
      });
      replaceChildren(checkpointsBox, el('h2', {text: 'Checkpoints'}),
          el('p', {class: 'muted', text: turns.length === 0 ?
              'None yet: each turn\'s end has one, signed by gunbaid.' :
              umpire ? 'Each turn\'s end, signed by gunbaid. Once every player has cosigned ' +
                       'it, nobody can change that past unseen; a player who does not is named.' :
                       'Each turn\'s end, signed by gunbaid; both players cosign it (your key ' +
                       'stays in this browser), and then nobody can change that past unseen.'}),
          turns.length ? el('ul', {class: 'checkpoint-list'}, items) : null);
    }

    async function showFindings() {
      let findings;
      if (umpire) {
        const report = (await Gunbai.api('/v1/games:audit', {gameId: game}, {token})).report || {};
        findings = report.findings || [];
      } else {
        findings = [].concat(...game_.events.map((e) => e.findings || []));
      }
      replaceChildren(findingsBox, el('h2', {text: `Findings (${findings.length})`}),
          findings.length ? el('ul', {class: 'findings'}, findings.map(findingItem))
                          : el('p', {class: 'muted findings-none', text: 'No findings.'}));
    }

    function scheduleRefresh() {
      if (refreshTimer) clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 150);
      markBusy();
    }

    // The preview of `events` before they are sent: their sentences, Send
    // and Take back. `confirm` words the question for what cannot be taken
    // back once sent (ending an activation, a turn or the game).
    function preview(events, version, confirm) {
      pending = {events, version};
      const send_ = el('button', {type: 'button', class: 'primary confirm-send',
          text: confirm ? confirm.button : 'Send', on: {click: () => {
            const p = pending;
            clearPending();
            if (p) send(p.events, p.version);
          }}});
      const back = el('button', {type: 'button', class: 'take-back', text: 'Take back',
                                 on: {click: () => clearPending()}});
      replaceChildren(pendingBox, el('div', {class: 'card pending' + (confirm ? ' confirming' : '')},
          el('h2', {text: confirm ? confirm.question : 'About to send'}),
          el('ul', {class: 'pending-events'}, events.map((e) =>
              el('li', {class: 'pending-sentence', text: describeEvent(e, names)}))),
          el('p', {}, send_, ' ', back)));
      send_.focus();
    }
    function clearPending() {
      pending = null;
      replaceChildren(pendingBox);
    }

    async function send(events, version) {
      if (busy) return;
      busy = true;
      markBusy();
      for (const b of actionBox.querySelectorAll('button')) b.disabled = true;
      try {
        const reply = await append(game, token, version, events);
        replaceChildren(replyArea, replyBox(reply, names));
      } catch (e) {
        replaceChildren(replyArea, Gunbai.errorBox(e),
            el('p', {class: 'muted', text: 'Nothing was written. The form is ready again: ' +
                     'try once more, or choose another action.'}));
      } finally {
        busy = false;
        for (const b of actionBox.querySelectorAll('button')) b.disabled = false;
        scheduleRefresh();
      }
    }

    // The action form: what the rules allow now, from /v1/games:legalActions.
    async function showActions(state) {
      const version = game_.version;
      const lastSeq = game_.events.length
          ? Number(game_.events[game_.events.length - 1].event.seq || 0) : 0;
      if (umpire) {
        // Whose move it is: each clan's list, asked with the umpire's
        // credential (which may see every clan's).
        const clans = (game_.header.clans || []).map((c) => c.id);
        const lists = await Promise.all(clans.map((c) =>
            Gunbai.api('/v1/games:legalActions', {gameId: game, clan: c}, {token})));
        const mine = lists.length ? lists[0] : {};
        const offers = new Set((mine.actions || []).map((a) => a.kind));
        replaceChildren(banner, ...clans.map((c, i) => el('span', {class: 'banner-clan'},
            el('strong', {text: names.clanName(c)}), ': ',
            whoseWords(lists[i]), i + 1 < clans.length ? ' · ' : '')));
        banner.className = 'turn-banner';
        replaceChildren(actionBox, el('h2', {text: 'Umpire'}),
            umpireActions(state, version, lastSeq, offers));
        return;
      }
      // gunbaid tries every candidate on a copy of the game: the list is the
      // engine's ruling, never worked out here.
      const offered = await Gunbai.api('/v1/games:legalActions', {gameId: game, clan: role},
                                       {token});
      const mine = (offered.actions || []).length > 0;
      replaceChildren(banner, mine
          ? el('strong', {class: 'your-move', text: `Your move, turn ${offered.turn || state.turn || 0}. `})
          : el('strong', {class: 'not-your-move', text: 'Not your move. '}),
          mine ? 'Choose below; each action is previewed before it is sent.'
               : whoseWords(offered));
      banner.className = 'turn-banner ' + (mine ? 'banner-yours' : 'banner-waiting');
      replaceChildren(actionBox, el('h2', {text: 'Your next action'}),
          actionForm(offered));
    }

    // A clan's list in a few words: its move, or what it waits for.
    function whoseWords(list) {
      const n = ((list || {}).actions || []).length;
      if (n) return `its move (${plural(n, 'action', 'actions')} open)`;
      return 'waiting' + ((list || {}).waitingFor ? ': ' + list.waitingFor : '');
    }

    // Dice entry for a game with recorded dice: `count` dice, 1 to 6, in
    // a row of selects; returns {node, values()}.
    function diceEntry(count) {
      const selects = [];
      for (let i = 0; i < count; i++) {
        const s = el('select', {class: 'die-input', 'aria-label': `die ${i + 1}`},
            [1, 2, 3, 4, 5, 6].map((d) => el('option', {value: String(d), text: String(d)})));
        selects.push(s);
      }
      return {node: el('span', {class: 'dice-entry'}, 'dice ', selects),
              values: () => selects.map((s) => Number(s.value))};
    }
    const recorded = () => ((game_ || {}).settings || {}).diceMode === 'DICE_MODE_RECORDED';

    function umpireActions(state, version, lastSeq, offers) {
      const nextTurn = lastSeq ? (state.turn || 0) + 1 : 1;
      const ended = state.gameOver;
      const exportStatus = el('span', {class: 'export-status', 'aria-live': 'polite'});
      const clans = (game_.header.clans || []).map((c) => c.id);
      // A turn's start in a game with recorded dice: each clan's initiative
      // die as rolled at the table, and the clan that won it.
      let initiative = null;
      if (recorded() && offers.has('turn_start')) {
        const dice = diceEntry(clans.length);
        const who = el('select', {class: 'initiative-clan', 'aria-label': 'initiative'},
            clans.map((c) => el('option', {value: c, text: names.clanName(c)})));
        initiative = {node: el('p', {class: 'initiative-entry'}, 'Initiative dice (',
            clans.map((c) => names.clanName(c)).join(', '), '): ', dice.node, ' won by ', who),
                      fill: (body) => {
                        body.initiativeDice = dice.values();
                        body.initiativeClan = who.value;
                      }};
      }
      const startTurn = () => {
        const body = {};
        if (initiative) initiative.fill(body);
        preview([{seq: String(lastSeq + 1), turn: nextTurn, turnStart: body}], version,
                {question: `Start turn ${nextTurn}?`, button: `Start turn ${nextTurn}`});
      };
      const endGame = () => preview([{seq: String(lastSeq + 1), turn: state.turn || 0, gameEnd: {}}],
          version, {question: 'End the game? Nothing can be appended after it.',
                    button: 'End the game'});
      return el('div', {class: 'umpire-actions'},
          ended ? el('p', {text: 'The game has ended.'}) : el('div', {},
              initiative ? initiative.node : null,
              el('p', {},
                  offers.has('turn_start') ? el('button', {type: 'button', class: 'start-turn',
                      text: `Start turn ${nextTurn}`, on: {click: startTurn}}) : null,
                  offers.has('turn_start') ? ' ' : null,
                  lastSeq > 0 && offers.has('game_end') ? el('button', {type: 'button',
                      class: 'end-game', text: 'End the game', on: {click: endGame}}) : null),
              offers.has('turn_start') ? null : el('p', {class: 'muted', text:
                  'A turn is under way: the next starts when every clan has ended its part.'})),
          el('p', {},
              el('button', {type: 'button', class: 'export', text: 'Export (for gunbai verify)',
                            on: {click: async () => {
                              try {
                                const whole = await exportGame(game, token);
                                const text = JSON.stringify(whole, null, 2) + '\n';
                                const link = el('a', {class: 'export-link',
                                    href: URL.createObjectURL(new Blob([text], {type: 'application/json'})),
                                    download: `${game.replace(/[^A-Za-z0-9._-]/g, '_')}.json`,
                                    text: 'Download the export'});
                                replaceChildren(exportStatus, ' ', link,
                                    ` (${(whole.log.events || []).length} events): `,
                                    el('code', {text: 'gunbai verify FILE.json'}),
                                    ', or open it on the Audit page.');
                                link.click();
                              } catch (e) {
                                replaceChildren(exportStatus, Gunbai.errorBox(e));
                              }
                            }}}), exportStatus));
    }

    // The form of a GetLegalActionsResponse: actions grouped by unit, then
    // by kind; each a button that previews its event, a firing with its
    // stands and range chooser, a move on a table with its destination, and
    // in a game with recorded dice, the dice.
    function actionForm(offered) {
      const actions = offered.actions || [];
      pickDestination = null;
      if (!actions.length) {
        return el('p', {class: 'waiting', text: 'Nothing to do now: ' + (offered.waitingFor || 'wait')});
      }
      const version = Number(offered.version || game_.version);
      const groups = new Map();
      for (const a of actions) {
        const unitKey = a.unit || '';
        if (!groups.has(unitKey)) groups.set(unitKey, new Map());
        const kinds = groups.get(unitKey);
        if (!kinds.has(a.kind)) kinds.set(a.kind, []);
        kinds.get(a.kind).push(a);
      }
      const order = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1));
      return el('div', {class: 'action-groups'},
          el('p', {class: 'muted', text: `Turn ${offered.turn || 0}, next seq ${offered.nextSeq || '?'}`}),
          order.map((unitKey) => el('fieldset', {class: 'action-group'},
              el('legend', {text: unitKey ? names.unit(unitKey) : 'The clan'}),
              [...groups.get(unitKey).entries()].map(([kind, list]) => el('div', {class: 'action-kind'},
                  el('h3', {text: KIND_TITLES[kind] || kind}),
                  list.map((a) => actionRow(a, version)))))));
    }

    const KIND_TITLES = {activation: 'Activation', turn_end: 'End of turn', fire: 'Fire',
                         move: 'Move', charge: 'Charge', melee: 'Melee', morale: 'Morale test',
                         result_move: 'Result move', challenge: 'Challenge',
                         leader_loss: 'Leader loss', removal: 'Removal'};

    // Where the dice of a recorded-dice event go.
    function putDice(event, values) {
      const body = event.firing || event.moraleTest || event.resultMove;
      if (body) { body.dice = values; return; }
      if (event.leaderLoss) { event.leaderLoss.die = values[0]; return; }
      if (event.turnStart) { event.turnStart.initiativeDice = values; return; }
      if (event.meleeRound) {
        // Each side rolls for its own stands: the dice split as the stands
        // do (one a side when there is one a side).
        const sides = event.meleeRound.sides || [];
        const stands = sides.map((sd) => Number(sd.standsFighting || 0));
        const total = stands.reduce((x, y) => x + y, 0);
        const first = values.length === sides.length ? 1
            : total ? Math.round(values.length * stands[0] / total) : 0;
        if (sides[0]) sides[0].dice = values.slice(0, first);
        if (sides[1]) sides[1].dice = values.slice(first);
      }
    }

    function actionRow(action, version) {
      const event = JSON.parse(JSON.stringify(action.event || {}));
      const controls = [];
      const fills = [];
      let dice = null;
      const diceBox = el('span', {class: 'dice-box'});
      const perStand = event.firing && Number(event.firing.standsFiring || 0)
          ? Number(action.dice || 0) / Number(event.firing.standsFiring) : 0;
      const setDice = (count) => {
        if (!recorded() || !count) return;
        dice = diceEntry(count);
        replaceChildren(diceBox, dice.node);
      };
      if (event.firing) {
        const max = Number(action.maxStands || event.firing.standsFiring || 1);
        const stands = el('select', {class: 'stands', 'aria-label': 'stands firing'});
        for (let n = max; n >= 1; n--) stands.appendChild(el('option', {value: String(n), text: String(n)}));
        const facts = event.firing.facts || (event.firing.facts = {});
        const bands = (action.ranges && action.ranges.length) ? action.ranges
            : ['RANGE_BAND_EFFECTIVE', 'RANGE_BAND_LONG'];
        const range = el('select', {class: 'range', 'aria-label': 'range band'},
            bands.map((r) => el('option', {value: r, text: RANGE_WORDS[r] || r})));
        range.value = facts.range && bands.includes(facts.range) ? facts.range : bands[0];
        const cover = el('input', {type: 'checkbox', class: 'cover', checked: Boolean(facts.targetInCover)});
        stands.addEventListener('change', () => setDice(Math.round(perStand * Number(stands.value))));
        controls.push(el('label', {}, 'stands ', stands),
                      el('label', {}, range),
                      facts.distanceMm ? el('span', {class: 'muted', text: `measured ${mm(facts.distanceMm)}`})
                                       : el('label', {}, cover, ' target in cover'));
        fills.push(() => {
          event.firing.standsFiring = Number(stands.value);
          facts.range = range.value;
          if (!facts.distanceMm) {
            if (cover.checked) facts.targetInCover = true; else delete facts.targetInCover;
          }
        });
      }
      const moving = event.move || event.charge;
      if (moving && action.needsDestination) {
        // On a table: where the unit's front centre goes, and its facing.
        // A move starts straight ahead by half its reach; a charge where
        // the server worked out its contact (the enemy's side it meets).
        const from = action.from || {};
        const reach = Number(action.reachMm || 0);
        const a = Number(from.facingDeg || 0) * Math.PI / 180;
        const step = reach ? Math.floor(reach / 2) : 50;
        const offered = moving.to || {
          xMm: Math.round(Number(from.xMm || 0) + Math.sin(a) * step),
          yMm: Math.round(Number(from.yMm || 0) + Math.cos(a) * step),
          facingDeg: Number(from.facingDeg || 0)};
        const x = el('input', {type: 'number', class: 'dest-x', step: '10', 'aria-label': 'x in mm',
                               value: String(Number(offered.xMm || 0))});
        const y = el('input', {type: 'number', class: 'dest-y', step: '10', 'aria-label': 'y in mm',
                               value: String(Number(offered.yMm || 0))});
        const facing = el('input', {type: 'number', class: 'dest-facing', step: '15',
                                    'aria-label': 'facing in degrees',
                                    value: String(Number(offered.facingDeg || 0))});
        const short = event.charge
            ? el('input', {type: 'checkbox', class: 'fell-short', checked: Boolean(event.charge.fellShort)})
            : null;
        const pick = el('button', {type: 'button', class: 'pick-on-map', text: 'Pick on the map',
            on: {click: () => {
              pickDestination = (px, py) => { x.value = String(px); y.value = String(py); };
              if (map) map.node.scrollIntoView({block: 'center'});
            }}});
        controls.push(el('span', {class: 'destination'}, 'to x ', x, ' y ', y, ' mm, facing ', facing, '°',
            reach ? el('span', {class: 'muted reach', text: ` (reach ${mm(reach)})`}) : null, ' ', pick,
            short ? el('label', {}, ' ', short, ' falls short') : null));
        pickDestination = pickDestination || ((px, py) => { x.value = String(px); y.value = String(py); });
        fills.push(() => {
          moving.to = {xMm: Number(x.value || 0), yMm: Number(y.value || 0),
                       facingDeg: Number(facing.value || 0)};
          if (short) {
            if (short.checked) event.charge.fellShort = true; else delete event.charge.fellShort;
          }
        });
      } else if (event.move && event.move.distanceMm !== undefined) {
        const distance = el('input', {type: 'number', min: '0', step: '10', class: 'distance',
                                      value: String(event.move.distanceMm), 'aria-label': 'distance in mm'});
        controls.push(el('label', {}, distance, ' mm'));
        fills.push(() => { event.move.distanceMm = Number(distance.value || 0); });
      }
      setDice(Number(action.dice || 0));
      if (dice || recorded()) controls.push(diceBox);
      const ends = action.kind === 'turn_end';
      const button = el('button', {type: 'button', class: 'action ' + 'kind-' + action.kind,
          dataset: {kind: action.kind, unit: action.unit || '', target: action.target || ''},
          text: ends ? 'End activation and turn…' : 'Preview',
          on: {click: () => {
            for (const fill of fills) fill();
            if (dice) putDice(event, dice.values());
            preview([event], version, ends ? {
              question: `End your activation and your part of turn ${event.turn || ''}? ` +
                        'You can act again only in the next turn.',
              button: 'End activation and turn'} : null);
          }}});
      return el('div', {class: 'action-row'},
          el('span', {class: 'action-label', text: action.label}), ' ', controls, ' ', button);
    }

    // The watch: each new event joins the list and the page is refreshed.
    let stopWatch = null;
    function leave() {
      if (stopWatch) stopWatch();
      stopWatch = null;
      if (refreshTimer) clearTimeout(refreshTimer);
      if (retryTimer) clearTimeout(retryTimer);
      window.removeEventListener('online', onOnline);
      window.removeEventListener('storage', onStorage);
    }
    // Signed out in another tab of this game: this one asks again.
    const onStorage = (ev) => {
      if (ev.key !== key || ev.newValue) return;
      replaceChildren(main);
      leave();
      stopAll = gamePage(main, game, role);
    };
    window.addEventListener('storage', onStorage);
    (async () => {
      await refresh();
      if (!game_) return;
      const from = game_.events.length
          ? Number(game_.events[game_.events.length - 1].event.seq || 0) + 1 : 1;
      stopWatch = watch(game, token, from, (storedEvent) => {
        const seq = Number((storedEvent.event && storedEvent.event.seq) || 0);
        const last = game_.events.length
            ? Number(game_.events[game_.events.length - 1].event.seq || 0) : 0;
        if (seq > last) {
          game_.events.push(storedEvent);
          game_.version = game_.events.length;
        }
        scheduleRefresh();
      }, (kind, text) => {
        liveStatus.className = 'live-status live-' + kind;
        liveStatus.textContent = text;
      });
    })();
    let stopAll = null;
    return () => { leave(); if (stopAll) stopAll(); };
  }

  Gunbai.page('live', {
    title: 'Live games',
    mount(main, params) {
      if (!params.length) {
        umpireList(main);
        return null;
      }
      return gamePage(main, params[0], params[1] || '');
    },
  });
})();
