// The Tournament page (#/tournament): the organizer or a player opens the
// tournament file (proto/gunbai/v1/tournament.proto, as `gunbai tournament`
// reads it) and the games' logs, and sees the standings on verified, ruled
// and bye results only, every game with its status (verified, disputed and
// why, missing, ruled), its rulings and its log's SHA-256, and the next
// round as the Swiss system pairs it. The umpire rules on a game here: the
// ruling is recorded by gunbaid (/v1/tournament:rule), appended to the file
// the page holds, the standings worked out again, and the file offered for
// download. Nothing is decided here: gunbaid audits every game
// (/v1/tournament:standings). A log is matched to the
// name the tournament gives it by its file name (the folders of a path
// like "r1/aki-ben.textproto" are not sent by a browser).
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const STATUS = {
    RESULT_STATUS_VERIFIED: ['verified', ''],
    RESULT_STATUS_DISPUTED: ['disputed: provisional', 'sev-dispute'],
    RESULT_STATUS_MISSING: ['missing', 'sev-violation'],
    RESULT_STATUS_RULED: ['ruled', ''],
    RESULT_STATUS_BYE: ['bye', ''],
  };
  const TIE_BREAKS = {
    TIE_BREAK_OPPONENTS_SCORE: 'Opponents\' score',
    TIE_BREAK_POINTS_DIFFERENCE: 'Points +/-',
    TIE_BREAK_HEAD_TO_HEAD: 'Head to head',
  };

  // The names the tournament gives its logs and ruleset files (log: "...",
  // ruleset: "..."), as written in its text.
  function namedFiles(text) {
    const names = new Set();
    for (const m of text.matchAll(/\b(?:log|ruleset)\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
      names.add(m[1]);
    }
    return [...names];
  }

  function baseName(name) {
    return name.split('/').pop();
  }

  function resultWords(g) {
    const first = g.first || '';
    const second = g.second || '';
    switch (g.result) {
      case 'GAME_RESULT_KIND_FIRST_WINS': return `${first} beat ${second}`;
      case 'GAME_RESULT_KIND_SECOND_WINS': return `${second} beat ${first}`;
      case 'GAME_RESULT_KIND_DRAW': return `${first} drew with ${second}`;
      default: return second ? `${first} v ${second}` : `${first} has the bye`;
    }
  }

  function standingsTable(s) {
    const tieBreaks = s.tieBreaks || [];
    return el('div', {class: 'table-wrap'},
        el('table', {id: 'tournament-standings'},
            el('thead', {}, el('tr', {},
                el('th', {text: 'Rank'}), el('th', {text: 'Player'}),
                el('th', {text: 'Army'}), el('th', {text: 'Score'}),
                el('th', {text: 'W-D-L'}),
                tieBreaks.map((t) => el('th', {text: TIE_BREAKS[t] || t})),
                el('th', {text: 'Not counted'}))),
            el('tbody', {}, (s.standings || []).map((p) => {
              const notCounted = [];
              if (Number(p.provisional || 0) > 0) {
                notCounted.push(`${p.provisional} disputed (score ${Number(p.provisionalScore || 0)} ` +
                                'should they stand)');
              }
              if (Number(p.missing || 0) > 0) notCounted.push(`${p.missing} missing`);
              return el('tr', {dataset: {player: p.player, score: String(Number(p.score || 0))}},
                  el('td', {text: String(p.rank)}),
                  el('td', {text: p.name || p.player}),
                  el('td', {text: p.army || ''}),
                  el('td', {text: String(Number(p.score || 0))}),
                  el('td', {text: `${Number(p.wins || 0)}-${Number(p.draws || 0)}-` +
                                  `${Number(p.losses || 0)}`}),
                  (p.tieBreaks || []).map((v) => el('td', {text: String(v)})),
                  el('td', {text: notCounted.join(', ')}));
            }))));
  }

  // The umpire's ruling on a game, from the page: what the result is, and
  // a note. gunbaid numbers and chains it (/v1/tournament:rule); the page
  // appends it to the file it holds and works the standings out again.
  function rulingForm(g, onRule) {
    const id = `rule-${g.round}-${g.table}`;
    const kind = el('select', {id: `${id}-kind`, 'aria-label': 'The ruling'},
        el('option', {value: 'stands', text: 'The result stands'}),
        el('option', {value: 'first', text: `${g.first} wins`}),
        el('option', {value: 'second', text: `${g.second} wins`}),
        el('option', {value: 'draw', text: 'A draw'}),
        el('option', {value: 'replayed', text: 'The game is played again'}));
    const note = el('input', {type: 'text', id: `${id}-note`, 'aria-label': 'The note',
                              placeholder: 'why (shown beside the result)'});
    const button = el('button', {type: 'button', class: 'rule-go', text: 'Record the ruling'});
    button.addEventListener('click', () => {
      const ruling = {round: g.round, table: g.table, note: note.value};
      if (kind.value === 'stands') {
        ruling.kind = 'RULING_KIND_RESULT_STANDS';
      } else if (kind.value === 'replayed') {
        ruling.kind = 'RULING_KIND_GAME_REPLAYED';
      } else {
        ruling.kind = 'RULING_KIND_RESULT_CHANGED';
        ruling.result = {first: 'GAME_RESULT_KIND_FIRST_WINS',
                         second: 'GAME_RESULT_KIND_SECOND_WINS',
                         draw: 'GAME_RESULT_KIND_DRAW'}[kind.value];
      }
      onRule(ruling);
    });
    return el('details', {class: 'rule-form', dataset: {round: String(g.round),
                                                       table: String(g.table)}},
        el('summary', {text: 'Rule on this game'}), kind, ' ', note, ' ', button);
  }

  function gameItem(g, onRule) {
    const [words, cls] = STATUS[g.status] || [g.status, ''];
    return el('li', {dataset: {round: String(g.round), table: String(g.table),
                               status: g.status || ''}},
        el('strong', {text: `Round ${g.round}, table ${g.table}: `}), resultWords(g), ' ',
        el('span', {class: cls, text: `[${words}]`}),
        g.logSha256 ? el('span', {class: 'muted mono',
            text: ` ${g.log} sha256:${g.logSha256.slice(0, 16)}`}) : null,
        g.reason ? el('p', {class: 'reason', text: g.reason}) : null,
        (g.rulings || []).map((r) => el('p', {class: 'ruling', text: r})),
        g.second ? rulingForm(g, onRule) : null);
  }

  function nextRound(round) {
    if (!round || !(round.games || []).length) return null;
    return el('section', {class: 'card', id: 'tournament-next'},
        el('h2', {text: `Round ${round.number}, as the Swiss system pairs it`}),
        el('ol', {}, round.games.map((g) => el('li', {dataset: {table: String(g.table)}, text:
            g.second ? `Table ${g.table}: ${g.first} (first side) v ${g.second}` :
                `${g.first} has the bye`}))),
        el('p', {class: 'muted', text: 'To play it, `gunbai tournament pair --append FILE` ' +
            'adds it to the file; `gunbai tournament swap` records a swap before the round.'}));
  }

  // What the page holds of a tournament: the file's text (with the rulings
  // recorded here appended) and the files it names, as sent.
  async function load(tournamentFile, logFiles) {
    const text = await tournamentFile.text();
    const byBase = new Map();
    for (const f of logFiles) byBase.set(f.name, f);
    const files = [];
    const unmatched = [];
    // A browser gives a file's name without its folder: two paths of one
    // name could be matched to the wrong game, so the page refuses them.
    const paths = new Map();
    for (const name of namedFiles(text)) {
      const base = baseName(name);
      if (paths.has(base) && paths.get(base) !== name) {
        throw new Error(`The tournament names two files called ${base} ` +
                        `(${paths.get(base)} and ${name}); the page matches files by ` +
                        'name: give them different names, or use gunbai tournament.');
      }
      paths.set(base, name);
    }
    for (const name of namedFiles(text)) {
      const file = byBase.get(baseName(name));
      if (file) {
        files.push({name, content: await Gunbai.readFileAsBase64(file)});
      } else if (/[./]/.test(name)) {
        unmatched.push(name);
      }
    }
    return {text, files, unmatched, fileName: tournamentFile.name, ruled: 0};
  }

  async function rule(held, ruling, out) {
    // One ruling at a time: two sent together would both chain to the same
    // last ruling, and the file would not read.
    if (held.ruling) return;
    held.ruling = true;
    for (const b of out.querySelectorAll('.rule-go')) b.disabled = true;
    try {
      const answer = await Gunbai.api('/v1/tournament:rule',
                                      {tournamentTextproto: held.text, ruling,
                                       files: held.files});
      held.text += answer.appendTextproto;
      held.ruled += 1;
      await standings(held, out);
    } catch (e) {
      out.prepend(Gunbai.errorBox(e));
      for (const b of out.querySelectorAll('.rule-go')) b.disabled = false;
    } finally {
      held.ruling = false;
    }
  }

  async function standings(held, out) {
    replaceChildren(out, el('p', {class: 'muted', role: 'status',
        text: 'Auditing every game…'}));
    try {
      const answer = await Gunbai.api('/v1/tournament:standings',
                                      {tournamentTextproto: held.text, files: held.files});
      const s = answer.standings || {};
      const onRule = (ruling) => rule(held, ruling, out);
      replaceChildren(out,
          el('section', {class: 'card summary'},
              el('h2', {id: 'tournament-title', tabindex: '-1',
                        text: `${s.tournament}, version ${s.version}`}),
              el('p', {class: s.final ? 'verdict verdict-clean' : 'verdict verdict-findings',
                       role: 'status', dataset: {final: String(Boolean(s.final))},
                       text: s.final ?
                           'Final: every result is verified by its game, ruled, or a bye.' :
                           'Provisional: some results are disputed or missing, and are ' +
                           'not counted until the umpire rules or the game comes.'}),
              held.unmatched.length ? el('p', {class: 'notice', text:
                  `Not opened here: ${held.unmatched.join(', ')}.`}) : null,
              held.ruled ? el('p', {class: 'notice'},
                  `${held.ruled} ruling(s) recorded here. `,
                  el('a', {id: 'tournament-download', download: held.fileName,
                           href: 'data:text/plain;charset=utf-8,' + encodeURIComponent(held.text),
                           text: 'Download the tournament file with them'}),
                  ' and keep it: the rulings are chained, and live in the file.') : null,
              el('p', {class: 'muted mono', text: `sha256:${s.digest || ''}`})),
          standingsTable(s),
          el('section', {class: 'card'},
              el('h2', {text: 'Games'}),
              el('ul', {id: 'tournament-games'},
                  (s.games || []).map((g) => gameItem(g, onRule)))),
          nextRound(answer.nextRound));
      document.getElementById('tournament-title').focus({preventScroll: true});
    } catch (e) {
      replaceChildren(out, Gunbai.errorBox(e));
    }
  }

  Gunbai.page('tournament', {
    title: 'Tournament',
    mount(main) {
      main.appendChild(el('h1', {text: 'Tournament standings'}));
      main.appendChild(el('p', {text:
          'Open the tournament file and the games\' logs: gunbai audits every ' +
          'game under its round\'s rules and ranks the players only on the ' +
          'results their games verify, the umpire\'s rulings and byes. A ' +
          'disputed or missing result is shown, with why, and not counted.'}));
      const inputT = el('input', {type: 'file', id: 'tournament-file',
                                  accept: '.textproto,.txtpb,.pbtxt,.txt'});
      const inputL = el('input', {type: 'file', id: 'tournament-logs', multiple: true,
          accept: '.textproto,.txtpb,.pbtxt,.json,.pb,.binpb,.bin'});
      const button = el('button', {type: 'button', id: 'tournament-go', text: 'Standings'});
      main.appendChild(el('div', {class: 'reconcile-inputs'},
          el('label', {class: 'drop-zone', for: 'tournament-file'},
              el('strong', {text: 'The tournament file'}), inputT),
          el('label', {class: 'drop-zone', for: 'tournament-logs'},
              el('strong', {text: 'The games\' logs'}), ' (and any ruleset file)', inputL),
          button));
      const out = el('div', {id: 'tournament-result', 'aria-live': 'polite'});
      main.appendChild(out);
      button.addEventListener('click', () => {
        if (!inputT.files.length) {
          replaceChildren(out, el('p', {class: 'error', role: 'alert',
              text: 'Choose the tournament file first.'}));
          return;
        }
        load(inputT.files[0], [...inputL.files])
            .then((held) => standings(held, out))
            .catch((e) => replaceChildren(out, Gunbai.errorBox(e)));
      });
    },
  });
})();
