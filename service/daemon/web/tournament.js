// The Tournament page (#/tournament): the organizer or a player opens the
// tournament file (proto/gunbai/v1/tournament.proto, as `gunbai tournament`
// reads it) and the games' logs, and sees the standings on verified, ruled
// and bye results only, every game with its status (verified, disputed and
// why, missing, ruled), its rulings and its log's SHA-256, and the next
// round as the Swiss system pairs it. Nothing is decided here: gunbaid
// audits every game (/v1/tournament:standings). A log is matched to the
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

  function gameItem(g) {
    const [words, cls] = STATUS[g.status] || [g.status, ''];
    return el('li', {dataset: {round: String(g.round), table: String(g.table),
                               status: g.status || ''}},
        el('strong', {text: `Round ${g.round}, table ${g.table}: `}), resultWords(g), ' ',
        el('span', {class: cls, text: `[${words}]`}),
        g.logSha256 ? el('span', {class: 'muted mono',
            text: ` ${g.log} sha256:${g.logSha256.slice(0, 16)}`}) : null,
        g.reason ? el('p', {class: 'reason', text: g.reason}) : null,
        (g.rulings || []).map((r) => el('p', {class: 'ruling', text: r})));
  }

  function nextRound(round) {
    if (!round || !(round.games || []).length) return null;
    return el('section', {class: 'card', id: 'tournament-next'},
        el('h2', {text: `Round ${round.number}, as the Swiss system pairs it`}),
        el('ol', {}, round.games.map((g) => el('li', {dataset: {table: String(g.table)}, text:
            g.second ? `Table ${g.table}: ${g.first} (first side) v ${g.second}` :
                `${g.first} has the bye`}))),
        el('p', {class: 'muted', text: 'To play it, `gunbai tournament pair --append FILE` ' +
            'adds it to the file; swaps made before the round go in its swaps.'}));
  }

  async function standings(tournamentFile, logFiles, out) {
    replaceChildren(out, el('p', {class: 'muted', role: 'status',
        text: 'Auditing every game…'}));
    try {
      const text = await tournamentFile.text();
      const byBase = new Map();
      for (const f of logFiles) byBase.set(f.name, f);
      const files = [];
      const unmatched = [];
      for (const name of namedFiles(text)) {
        const file = byBase.get(baseName(name));
        if (file) {
          files.push({name, content: await Gunbai.readFileAsBase64(file)});
        } else if (/[./]/.test(name)) {
          unmatched.push(name);
        }
      }
      const answer = await Gunbai.api('/v1/tournament:standings',
                                      {tournamentTextproto: text, files});
      const s = answer.standings || {};
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
              unmatched.length ? el('p', {class: 'notice', text:
                  `Not opened here: ${unmatched.join(', ')}.`}) : null,
              el('p', {class: 'muted mono', text: `sha256:${s.digest || ''}`})),
          standingsTable(s),
          el('section', {class: 'card'},
              el('h2', {text: 'Games'}),
              el('ul', {id: 'tournament-games'}, (s.games || []).map(gameItem))),
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
        standings(inputT.files[0], [...inputL.files], out);
      });
    },
  });
})();
