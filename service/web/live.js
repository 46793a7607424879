// The Live games pages: #/live, the umpire's (sign in, list and create
// games, hand out the players' credentials), #/live/GAME/umpire (one game
// for the umpire: every event and finding, start a turn, end the game,
// export), and #/live/GAME/CLAN, a player's (the game's state, its events
// with their outcomes, the action form, live updates by /v1/games:watch).
// A game played on a table (its log has a `table`) shows the map of the
// table after the latest event on both, redrawn as events arrive.
//
// Credentials. Each is kept in sessionStorage only (one tab, one
// credential: two players in two browser contexts do not see each other's)
// and sent only in the Authorization header. A player's link carries the
// game id and the clan, never the credential: the umpire gives the
// credential separately (shown with a copy button). A token in the URL,
// even in the fragment, lands in the history, in bookmarks and in a pasted
// link; a credential given apart from the link does not.
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const UMPIRE_KEY = 'gunbai.live.umpire';
  const playerKey = (game) => 'gunbai.live.player.' + game;

  function stored(key) {
    try { return sessionStorage.getItem(key) || ''; } catch (e) { return ''; }
  }
  function store(key, value) {
    try {
      if (value) sessionStorage.setItem(key, value);
      else sessionStorage.removeItem(key);
    } catch (e) { /* private mode: the credential lives for this page only */ }
  }

  // The message for a refused credential: what to do, then gunbaid's words.
  function credentialError(e) {
    if (e instanceof Gunbai.ApiError &&
        (e.status === 'PERMISSION_DENIED' || e.status === 'UNAUTHENTICATED' ||
         e.httpStatus === 401 || e.httpStatus === 403)) {
      return el('p', {class: 'error', role: 'alert'},
          'This credential is not accepted: check that you pasted the whole ' +
          'credential the umpire gave you, for this game. gunbaid says: ' +
          Gunbai.describeError(e));
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
  // (service/game_client.cc): the first page, then each next page's events
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

  // The body's declared facts as "key value" words, without the dice.
  function bodyWords(body) {
    const words = [];
    const walk = (obj) => {
      for (const [k, v] of Object.entries(obj || {})) {
        if (k === 'dice' || k === 'initiativeDice') continue;
        if (v && typeof v === 'object' && !Array.isArray(v)) walk(v);
        else if (Array.isArray(v)) {
          for (const item of v) {
            if (item && typeof item === 'object') walk(item);
            else words.push(`${k} ${item}`);
          }
        } else {
          words.push(`${k} ${v}`);
        }
      }
    };
    walk(body);
    return words.join(', ');
  }

  function findingItem(f) {
    return el('li', {class: 'finding'},
        f.ruleId ? Gunbai.ruleLink(f.ruleId) : null, f.ruleId ? ' ' : null,
        f.seq ? `seq ${f.seq}: ` : null, f.message || f.summary || JSON.stringify(f));
  }

  // One stored event as a list item: seq, turn, clan, kind, what was
  // declared, the dice, the outcomes and findings.
  function eventItem(stored) {
    const e = stored.event || {};
    const kind = bodyKind(e);
    const dice = diceOf(e[kind]);
    const outcomes = stored.outcomes || [];
    const findings = stored.findings || [];
    return el('li', {class: 'live-event', dataset: {seq: String(e.seq || '')}},
        el('div', {class: 'event-head'},
            el('span', {class: 'mono event-seq', text: `#${e.seq || '?'}`}), ' ',
            el('span', {class: 'muted', text: `turn ${e.turn || 0}`}), ' ',
            el('strong', {class: 'event-clan', text: e.clan || 'umpire/gunbaid'}), ' ',
            el('span', {class: 'event-kind', text: KIND_WORDS[kind] || kind})),
        e[kind] && Object.keys(e[kind]).length
            ? el('div', {class: 'event-body', text: bodyWords(e[kind])}) : null,
        dice.length ? el('div', {class: 'event-dice'}, 'dice: ',
            dice.map((d) => el('span', {class: 'die', text: String(d)}))) : null,
        outcomes.length ? el('ul', {class: 'outcomes'}, outcomes.map((o) =>
            el('li', {}, el('strong', {text: o.subject || ''}), ' ',
                o.kind || '', o.value !== undefined ? ': ' : '',
                el('span', {class: 'outcome-value', text: o.value || ''})))) : null,
        findings.length ? el('ul', {class: 'findings'}, findings.map(findingItem)) : null);
  }

  function eventList(events) {
    if (!events.length) return el('p', {class: 'muted', text: 'No events yet.'});
    return el('ol', {class: 'live-events', reversed: true},
        events.slice().reverse().map(eventItem));
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
  function replyBox(reply) {
    return el('div', {class: 'card reply', role: 'status'},
        el('h3', {text: `Sent: the game has ${reply.version} events`}),
        el('ol', {class: 'live-events'}, (reply.events || []).map(eventItem)),
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
    const key = umpire ? UMPIRE_KEY : playerKey(game);
    const token = stored(key);
    main.appendChild(el('h1', {}, umpire ? 'Umpire: ' : 'Game ',
        el('span', {class: 'mono game-id', text: game})));
    if (!token) {
      const {form, input} = signInForm(
          umpire ? 'Sign in as the umpire' : `Sign in as ${role || 'a player'}`,
          umpire ? 'The umpire credential' : 'Your credential (the umpire gave it to you)',
          async (t) => {
            await Gunbai.api('/v1/games:read', {gameId: game, fromSeq: '999999999999'}, {token: t});
            store(key, t);
            replaceChildren(main);
            stop = gamePage(main, game, role);
          });
      main.appendChild(form);
      input.focus();
      let stop = null;
      return () => { if (stop) stop(); };
    }

    const liveStatus = el('p', {class: 'live-status', 'aria-live': 'polite'});
    const stateBox = el('section', {class: 'state'});
    const actionBox = el('section', {class: 'actions card'});
    const replyArea = el('div', {class: 'reply-area', 'aria-live': 'polite'});
    const findingsBox = el('section', {class: 'all-findings'});
    const mapBox = el('section', {class: 'live-map-box', hidden: true});
    const eventsBox = el('section', {class: 'events'});
    const signOut = el('button', {type: 'button', text: 'Sign out', on: {click: () => {
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
    main.appendChild(el('div', {class: 'game-grid'},
        el('div', {class: 'game-main'}, stateBox, actionBox, replyArea, mapBox),
        el('div', {class: 'game-side'}, findingsBox, eventsBox)));

    let game_ = null;   // readGame's answer, events kept up to date.
    let table = undefined;  // tableOfGame's answer: undefined until asked.
    let map = null;
    let mapSeq = -1;
    let busy = false;
    let refreshTimer = null;

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

    async function refreshNow() {
      try {
        if (!game_) game_ = await readGame(game, token);
        if (table === undefined) table = await tableOfGame(game, token, game_);
        drawMap();
        const state = (await Gunbai.api('/v1/games:state', {gameId: game}, {token})).state || {};
        replaceChildren(stateBox, el('h2', {text: 'State'}), stateLine(state, game_.header),
            unitsTable(state, game_.orderOfBattle));
        replaceChildren(eventsBox, el('h2', {text: `Events (${game_.events.length})`}),
            eventList(game_.events));
        await showFindings();
        await showActions(state);
      } catch (e) {
        replaceChildren(stateBox, credentialError(e));
      }
    }

    // The map of the table after the latest event (a game on a table).
    function drawMap() {
      if (!table) return;
      if (!map) {
        map = Gunbai.mapView({id: 'live-map', pxPerCm: 5,
                              fileName: game.replace(/[^A-Za-z0-9._-]/g, '_')});
        replaceChildren(mapBox, el('h2', {text: 'The table'}), map.node);
        mapBox.hidden = false;
      }
      const events = game_.events.map((s) => s.event || {});
      const last = events.length ? Number(events[events.length - 1].seq || 0) : 0;
      if (last === mapSeq) return;
      mapSeq = last;
      map.draw({header: game_.header, orderOfBattle: game_.orderOfBattle,
                table: table.table, terrain: table.terrain, events}, last);
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
                          : el('p', {class: 'muted', text: 'No findings.'}));
    }

    function scheduleRefresh() {
      if (refreshTimer) clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 150);
      markBusy();
    }

    async function send(events, version) {
      if (busy) return;
      busy = true;
      markBusy();
      for (const b of actionBox.querySelectorAll('button')) b.disabled = true;
      try {
        const reply = await append(game, token, version, events);
        replaceChildren(replyArea, replyBox(reply));
      } catch (e) {
        replaceChildren(replyArea, Gunbai.errorBox(e));
      } finally {
        busy = false;
        scheduleRefresh();
      }
    }

    // The action form: what the rules allow now, from /v1/games:legalActions.
    async function showActions(state) {
      const version = game_.version;
      const lastSeq = game_.events.length
          ? Number(game_.events[game_.events.length - 1].event.seq || 0) : 0;
      if (umpire) {
        replaceChildren(actionBox, el('h2', {text: 'Umpire'}), umpireActions(state, version, lastSeq));
        return;
      }
      // gunbaid tries every candidate on a copy of the game: the list is the
      // engine's ruling, never worked out here.
      const offered = await Gunbai.api('/v1/games:legalActions', {gameId: game, clan: role},
                                       {token});
      replaceChildren(actionBox, el('h2', {text: 'Your next action'}),
          actionForm(offered));
    }

    function umpireActions(state, version, lastSeq) {
      const nextTurn = lastSeq ? (state.turn || 0) + 1 : 1;
      const started = lastSeq > 0;
      const ended = state.gameOver;
      const exportStatus = el('span', {class: 'export-status', 'aria-live': 'polite'});
      return el('div', {class: 'umpire-actions'},
          ended ? el('p', {text: 'The game has ended.'}) : el('p', {},
              el('button', {type: 'button', class: 'start-turn', text: `Start turn ${nextTurn}`,
                            on: {click: () => send([{seq: String(lastSeq + 1), turn: nextTurn,
                                                     turnStart: {}}], version)}}), ' ',
              started ? el('button', {type: 'button', class: 'end-game', text: 'End the game',
                                      on: {click: () => send([{seq: String(lastSeq + 1),
                                          turn: state.turn || 0, gameEnd: {}}], version)}}) : null),
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
                                    el('code', {text: 'gunbai verify FILE.json'}));
                                link.click();
                              } catch (e) {
                                replaceChildren(exportStatus, Gunbai.errorBox(e));
                              }
                            }}}), exportStatus));
    }

    // The form of a GetLegalActionsResponse: actions grouped by unit, then
    // by kind; each a button that sends its event, a firing with its stands
    // and range chooser.
    function actionForm(offered) {
      const actions = offered.actions || [];
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
              el('legend', {text: unitKey ? `Unit ${unitKey}` : 'The clan'}),
              [...groups.get(unitKey).entries()].map(([kind, list]) => el('div', {class: 'action-kind'},
                  el('h3', {text: KIND_TITLES[kind] || kind}),
                  list.map((a) => actionRow(a, version)))))));
    }

    const KIND_TITLES = {activation: 'Activation', turn_end: 'End of turn', fire: 'Fire',
                         move: 'Move', charge: 'Charge', melee: 'Melee', morale: 'Morale test',
                         result_move: 'Result move', challenge: 'Challenge'};

    function actionRow(action, version) {
      const event = JSON.parse(JSON.stringify(action.event || {}));
      const controls = [];
      if (event.firing) {
        const max = Number(action.maxStands || event.firing.standsFiring || 1);
        const stands = el('select', {class: 'stands', 'aria-label': 'stands firing'});
        for (let n = max; n >= 1; n--) stands.appendChild(el('option', {value: String(n), text: String(n)}));
        const facts = event.firing.facts || (event.firing.facts = {});
        const range = el('select', {class: 'range', 'aria-label': 'range band'},
            ['RANGE_BAND_EFFECTIVE', 'RANGE_BAND_LONG'].map((r) =>
                el('option', {value: r, text: r.replace('RANGE_BAND_', '').toLowerCase() + ' range'})));
        range.value = facts.range || 'RANGE_BAND_EFFECTIVE';
        const cover = el('input', {type: 'checkbox', class: 'cover', checked: Boolean(facts.targetInCover)});
        controls.push(el('label', {}, 'stands ', stands),
                      el('label', {}, range),
                      el('label', {}, cover, ' target in cover'));
        action._fill = () => {
          event.firing.standsFiring = Number(stands.value);
          facts.range = range.value;
          if (cover.checked) facts.targetInCover = true; else delete facts.targetInCover;
        };
      }
      if (event.move && event.move.distanceMm !== undefined) {
        const distance = el('input', {type: 'number', min: '0', step: '10', class: 'distance',
                                      value: String(event.move.distanceMm), 'aria-label': 'distance in mm'});
        controls.push(el('label', {}, distance, ' mm'));
        action._fill = () => { event.move.distanceMm = Number(distance.value || 0); };
      }
      const button = el('button', {type: 'button', class: 'action ' + 'kind-' + action.kind,
          dataset: {kind: action.kind, unit: action.unit || '', target: action.target || ''},
          text: action.kind === 'turn_end' ? 'End activation and turn' : 'Send',
          on: {click: () => {
            if (action._fill) action._fill();
            send([event], version);
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
    }
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
