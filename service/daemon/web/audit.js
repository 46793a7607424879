// The Audit page (#/audit): an umpire opens or drops a finished game's log
// (text, JSON or binary) and sees gunbai's ruling: the verdict, the
// findings by turn with their arithmetic and rules, what each disputed
// result changed, every event with its outcomes and the state of every
// unit after it, each clan's dice against fair dice, and each unit's
// stands over the game. Nothing is computed here: gunbaid reads the file
// (/v1/logs:parse), audits it (/v1/audit:log), counts its dice
// (/v1/audit:diceStats), replays its states (/v1/logs:states) and, for a
// log with a table, draws the table after the chosen event (/v1/logs:map).
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const SEVERITY = {
    SEVERITY_VIOLATION: {word: 'violation', css: 'sev-violation'},
    SEVERITY_DISPUTE: {word: 'disputed result', css: 'sev-dispute'},
    SEVERITY_WARNING: {word: 'warning', css: 'sev-warning'},
    SEVERITY_UNVERIFIABLE: {word: 'unverifiable', css: 'sev-unverifiable'},
  };
  const FORMAT_WORDS = {text: 'protobuf text format', json: 'JSON',
                        binary: 'binary protobuf'};
  // The colours of the clans in the pictures, in the header's order.
  const CLAN_CLASSES = ['clan-0', 'clan-1', 'clan-2', 'clan-3'];

  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  function num(value) {
    return Number(value || 0);
  }

  // Names for the ids of the log: units and clans by their names.
  function namesOf(log) {
    const units = new Map();
    for (const u of (log.orderOfBattle || {}).units || []) {
      units.set(u.id, u.name || u.id);
    }
    const clans = new Map();
    ((log.header || {}).clans || []).forEach((c, i) => {
      clans.set(c.id, {name: c.name || c.id, index: i});
    });
    return {
      unit: (id) => units.get(id) || id,
      clan: (id) => (clans.get(id) || {name: id}).name,
      clanIndex: (id) => (clans.has(id) ? clans.get(id).index : -1),
    };
  }

  // A trace as a table: each term's value, label and rule.
  function traceTable(trace) {
    if (!trace || trace.length === 0) return null;
    return el('div', {class: 'table-wrap'},
        el('table', {class: 'trace'},
            el('tbody', {}, trace.map((t) => el('tr', {dataset: {origin: t.origin || ''}},
                el('td', {class: 'num',
                          text: t.origin === 'TERM_ORIGIN_DICE' || !t.value ||
                                t.value < 0 ? String(t.value || 0) :
                                `+${t.value}`}),
                el('td', {}, t.label || '', t.origin === 'TERM_ORIGIN_MEASURED'
                    ? el('span', {class: 'origin', text: ' (measured on the table)'}) : null),
                el('td', {}, t.ruleId ? Gunbai.ruleLink(t.ruleId) : ''))))));
  }

  function verdictOf(report) {
    const s = report.summary || {};
    const v = num(s.violations);
    const d = num(s.disputes);
    const w = num(s.warnings);
    const u = num(s.unverifiable);
    if (v + d + w === 0) {
      return el('p', {class: 'verdict verdict-clean', role: 'status'},
          'Clean: no violations, disputed results or warnings',
          u ? ` (${plural(u, 'result', 'results')} could not be checked)` : '',
          '.');
    }
    return el('p', {class: 'verdict verdict-findings', role: 'status'},
        [plural(v, 'violation', 'violations'),
         plural(d, 'disputed result', 'disputed results'),
         plural(w, 'warning', 'warnings'),
         plural(u, 'unverifiable', 'unverifiable')].join(', ') + '.');
  }

  function findingCard(f, names, impact, report) {
    const sev = SEVERITY[f.severity] || {word: f.severity, css: ''};
    return el('li', {class: `finding kind-${sev.css}`, dataset: {seq: f.seq || '0',
                                                             rule: f.ruleId}},
        el('p', {class: 'finding-head'},
            el('span', {class: `sev ${sev.css}`, text: sev.word}), ' · ',
            el('a', {href: '#', class: 'seq-link', dataset: {seq: f.seq || '0'},
                     text: `event ${f.seq || 0}`}), ' · ',
            Gunbai.ruleLink(f.ruleId),
            f.subject ? el('span', {class: 'subject'}, ' · ',
                           names.unit(f.subject)) : null),
        el('p', {class: 'finding-message', text: f.message}),
        f.claimed || f.computed ?
            el('p', {class: 'claim'}, 'The log says ',
                el('strong', {text: f.claimed || '(nothing)'}),
                '; the dice and the rules give ',
                el('strong', {text: f.computed || '(nothing)'}), '.') : null,
        traceTable(f.trace),
        readingsOf(f, report),
        f.remedy ? el('p', {class: 'remedy'},
            el('strong', {text: 'Remedy: '}),
            f.remedy.text + (report.procedure ?
                ` (procedure ${report.procedure.name} ${report.procedure.version}).` :
                '.')) : null,
        impact ? impactOf(impact, names) : null);
  }

  // Whether the finding holds under every reading of the rules the
  // ruleset offers, or rests on the one it chose (gunbai audit --readings).
  function readingsOf(f, report) {
    if (report.allReadingsChecked) {
      const all = num(report.readingCombinations);
      const found = num(f.combinationsFound);
      return el('p', {class: 'readings muted', dataset: {combinations: String(found)},
          text: found === all ?
          `Holds under every reading of the rules (all ${all} combinations of the ruleset's options).` :
          `Found under ${found} of the ${all} combinations of the readings: where ` +
          `${(f.foundUnder || []).join('; or where ')}.`});
    }
    if (!report.readingsChecked) return null;
    const not = f.notUnderReadings || [];
    return el('p', {class: 'readings muted', text: not.length === 0 ?
        'Holds under every reading of the rules.' :
        `Not found under the other reading ${not.join('; ')}: it rests on ` +
        'the reading the ruleset chose.'});
  }

  function impactOf(impact, names) {
    const steps = impact.steps || [];
    const last = impact.finalDifferences || [];
    const winner = impact.winnerAsPlayed !== impact.winnerCorrected ?
        el('p', {class: 'impact-winner'}, 'The winner changes: ',
            names.clan(impact.winnerAsPlayed) || 'none', ' as played, ',
            names.clan(impact.winnerCorrected) || 'none', ' with the rules\' result.') :
        null;
    return el('details', {class: 'impact'},
        el('summary', {text: steps.length || last.length ?
            `What the rules' result would have changed (${plural(steps.length, 'later event', 'later events')})` :
            'What the rules\' result would have changed: nothing later'}),
        winner,
        impact.endedReason ? el('p', {class: 'muted', text: impact.endedReason}) : null,
        last.length ? el('div', {class: 'table-wrap'}, el('table', {},
            el('thead', {}, el('tr', {}, el('th', {text: 'At the end'}),
                el('th', {text: 'As played'}), el('th', {text: 'With the rules\' result'}))),
            el('tbody', {}, last.map((d) => el('tr', {},
                el('td', {text: names.unit(d.subject)}),
                el('td', {text: d.asPlayed}),
                el('td', {text: d.corrected})))))) : null);
  }

  function findingsByTurn(report, names, container) {
    const findings = report.findings || [];
    const impacts = new Map();
    for (const i of report.impacts || []) impacts.set(`${i.seq}|${i.ruleId}`, i);
    container.appendChild(el('h2', {text: 'Findings'}));
    if (findings.length === 0) {
      container.appendChild(el('p', {text: 'None: every action and die is as the rules allow.'}));
      otherReadings(report, names, container);
      return;
    }
    let turn = null;
    let list = null;
    for (const f of findings) {
      const t = num(f.turn);
      if (t !== turn) {
        turn = t;
        container.appendChild(el('h3', {text: t === 0 ? 'Before the first turn' : `Turn ${t}`}));
        list = el('ul', {class: 'findings'});
        container.appendChild(list);
      }
      list.appendChild(findingCard(f, names, impacts.get(`${f.seq}|${f.ruleId}`), report));
    }
    otherReadings(report, names, container);
  }

  // The findings only other readings of the rules give (gunbai audit
  // --all-readings): what would be wrong had the players agreed otherwise.
  function otherReadings(report, names, container) {
    const others = report.otherReadingFindings || [];
    if (!report.allReadingsChecked || others.length === 0) return;
    const list = el('ul', {class: 'findings'});
    for (const f of others) list.appendChild(findingCard(f, names, null, report));
    container.appendChild(el('details', {class: 'other-readings'},
        el('summary', {text: `Under other readings of the rules: ${plural(others.length,
            'more finding', 'more findings')} (the ruleset's own readings give none of them)`}),
        list));
  }

  // What an event is, in a few words.
  function describeEvent(e, names) {
    const body = Object.keys(e).find((k) => !['seq', 'turn', 'clan'].includes(k));
    const b = e[body] || {};
    const who = e.clan ? names.clan(e.clan) + ': ' : '';
    switch (body) {
      case 'turnStart': return `Turn ${e.turn || b.turn || ''} begins`;
      case 'activation': return `${who}activation`;
      case 'move': return `${who}${names.unit(b.unit)} moves`;
      case 'charge': return `${who}${names.unit(b.unit)} charges ${names.unit(b.target)}`;
      case 'firing': return `${who}${names.unit(b.unit)} fires at ${names.unit(b.target)}`;
      case 'meleeRound': return `${who}melee round`;
      case 'challenge': return `${who}${b.challenger || ''} challenges ${b.challenged || ''}`;
      case 'moraleTest': return `${who}${names.unit(b.unit)} tests morale`;
      case 'leaderLoss': return `${who}leader loss roll for ${b.leader || ''}`;
      case 'resultMove': return `${who}${names.unit(b.unit)} result move`;
      case 'removal': return `${who}${names.unit(b.unit)} removed`;
      case 'turnEnd': return 'Turn ends';
      case 'gameEnd': return 'The game ends';
      default: return body || 'event';
    }
  }

  // A unit's condition in words: what is true of it now.
  function conditionOf(u) {
    const words = [];
    if (u.removed) words.push('removed');
    if (u.routing) words.push('routing');
    if (u.disordered) words.push('disordered');
    if (u.frenzied) words.push('frenzied');
    if (u.halted) words.push('halted');
    if (u.inMelee) words.push('in melee');
    if (u.charging) words.push('charging');
    if (u.firedThisTurn) words.push('fired');
    if (u.movedThisTurn) words.push('moved');
    if (u.firstVolleySpent) words.push('first volley spent');
    return words.join(', ');
  }

  function stateTable(state, names) {
    const units = state.units || [];
    return el('div', {class: 'table-wrap'}, el('table', {class: 'state'},
        el('thead', {}, el('tr', {},
            ['Unit', 'Clan', 'Stands', 'Hits', 'Condition'].map((h) => el('th', {text: h})))),
        el('tbody', {}, units.map((u) => el('tr', {
          class: u.removed ? 'removed' : (u.routing ? 'routing' : ''),
          dataset: {unit: u.id}},
            el('td', {text: names.unit(u.id)}),
            el('td', {text: names.clan(u.clan)}),
            el('td', {class: 'num stands', text: String(u.stands || 0)}),
            el('td', {class: 'num', text: String(u.carriedHits || 0)}),
            el('td', {class: 'condition', text: conditionOf(u)}))))));
  }

  // The event list and the stepper: the state after the chosen event,
  // asked of gunbaid as it is chosen.
  function eventStepper(log, report, names, container) {
    const events = log.events || [];
    const outcomes = new Map();
    for (const o of report.outcomes || []) {
      const key = String(o.seq || 0);
      if (!outcomes.has(key)) outcomes.set(key, []);
      outcomes.get(key).push(o);
    }
    const flagged = new Set((report.findings || []).map((f) => String(f.seq || 0)));
    container.appendChild(el('h2', {text: 'Events'}));
    if (events.length === 0) {
      container.appendChild(el('p', {text: 'The log has no events.'}));
      return () => {};
    }
    const prev = el('button', {type: 'button', id: 'step-prev', text: '◀ Previous'});
    const next = el('button', {type: 'button', id: 'step-next', text: 'Next ▶'});
    const where = el('span', {id: 'step-where', 'aria-live': 'polite'});
    const list = el('ol', {class: 'events', id: 'event-list'});
    const detail = el('div', {class: 'step-detail', id: 'step-detail'});
    const shown = events.slice(0, 2000);
    const items = shown.map((e, i) => el('li', {}, el('button', {
      type: 'button', class: flagged.has(String(e.seq || 0)) ? 'event flagged' : 'event',
      dataset: {index: String(i), seq: String(e.seq || 0)},
      text: `${e.seq || 0}. ${describeEvent(e, names)}` +
            (flagged.has(String(e.seq || 0)) ? ' ⚑' : '')})));
    for (const item of items) list.appendChild(item);
    // A log with a table: the map of the table after the chosen event,
    // beside the list, above the state (below the list on a phone).
    const map = log.table ? Gunbai.mapView({id: 'step-map', pxPerCm: 5,
                                            fileName: (log.header || {}).gameId || 'table'}) : null;
    container.appendChild(el('div', {class: 'stepper'}, prev, where, next));
    container.appendChild(el('div', {class: map ? 'events-layout with-map' : 'events-layout'},
        el('div', {class: 'events-wrap'}, list),
        map ? el('div', {class: 'step-right'}, map.node, detail) : detail));
    if (events.length > shown.length) {
      container.appendChild(el('p', {class: 'muted', text:
          `The list shows the first ${shown.length} of ${events.length} events; ` +
          '`gunbai state LOG --at=SEQ` gives the state after any of them.'}));
    }
    let current = -1;
    let asked = 0;
    async function show(index) {
      if (index < 0 || index >= shown.length) return;
      current = index;
      const e = shown[index];
      for (const b of list.querySelectorAll('button.event')) {
        b.setAttribute('aria-current', b.dataset.index === String(index) ? 'true' : 'false');
      }
      items[index].scrollIntoView({block: 'nearest'});
      prev.disabled = index === 0;
      next.disabled = index === shown.length - 1;
      where.textContent = `event ${e.seq || 0} of ${events.length}`;
      const ticket = ++asked;
      if (map) map.draw(log, e.seq || 0);
      replaceChildren(detail, el('p', {class: 'muted', text: 'Replaying…'}));
      try {
        const answer = await Gunbai.api('/v1/logs:states',
            {log, fromSeq: String(e.seq || 0), count: 1});
        if (ticket !== asked) return;  // Another event was chosen meanwhile.
        const state = ((answer.states || [])[0] || {}).state || {};
        const own = outcomes.get(String(e.seq || 0)) || [];
        replaceChildren(detail,
            el('h3', {text: `After event ${e.seq || 0}: ${describeEvent(e, names)}`}),
            el('p', {class: 'muted', text:
                `Turn ${state.turn || 0}` +
                (state.activeClan ? `, ${names.clan(state.activeClan)} active` : '') +
                (state.phase ? `, ${state.phase}` : '')}),
            own.length ? el('ul', {class: 'outcomes'}, own.map((o) => el('li', {},
                el('strong', {text: `${o.kind}: ${o.value}`}),
                o.subject ? ` (${names.unit(o.subject)})` : '',
                traceTable(o.trace)))) : null,
            stateTable(state, names));
      } catch (err) {
        if (ticket === asked) replaceChildren(detail, Gunbai.errorBox(err));
      }
    }
    list.addEventListener('click', (ev) => {
      const b = ev.target.closest('button.event');
      if (b) show(Number(b.dataset.index));
    });
    prev.addEventListener('click', () => show(current - 1));
    next.addEventListener('click', () => show(current + 1));
    show(0);
    // A finding's "event N" link steps there.
    return (seq) => {
      const i = shown.findIndex((e) => String(e.seq || 0) === String(seq));
      if (i >= 0) {
        show(i);
        detail.scrollIntoView({block: 'start'});
      }
    };
  }

  // Each clan's dice against fair dice: for each face, the share rolled
  // (a bar) beside the sixth fair dice give (a line).
  function diceChart(dice, names) {
    const groups = (dice && dice.report && dice.report.clans) || [];
    const box = el('section', {class: 'dice'}, el('h2', {text: 'Dice'}));
    if (groups.length === 0) {
      box.appendChild(el('p', {text: 'The log records no dice.'}));
      return box;
    }
    for (const g of groups) {
      const counts = (g.faceCounts || []).map(Number);
      const total = counts.reduce((a, b) => a + b, 0);
      const W = 300, H = 140, pad = 24, bar = (W - 2 * pad) / 6;
      const most = Math.max(1 / 6, ...counts.map((c) => (total ? c / total : 0)));
      const y = (share) => H - pad - (share / most) * (H - 2 * pad);
      const cls = CLAN_CLASSES[Math.max(0, names.clanIndex(g.clan)) % 4];
      const svg = el('svg', {viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img',
                             'aria-label': `${names.clan(g.clan)}: ${total} dice`},
          counts.map((c, i) => el('rect', {class: `bar ${cls}`, x: pad + i * bar + 4,
              width: bar - 8, y: y(total ? c / total : 0),
              height: H - pad - y(total ? c / total : 0)},
              el('title', {text: `${i + 1}: ${c} of ${total}`}))),
          el('line', {class: 'fair', x1: pad, x2: W - pad, y1: y(1 / 6), y2: y(1 / 6)}),
          counts.map((c, i) => el('text', {class: 'axis', x: pad + i * bar + bar / 2,
              y: H - 6, 'text-anchor': 'middle', text: String(i + 1)})));
      const flagged = g.flagged;
      box.appendChild(el('figure', {class: 'dice-clan', dataset: {clan: g.clan}},
          svg,
          el('figcaption', {},
              el('strong', {text: names.clan(g.clan)}),
              ` · ${total} dice · `,
              flagged ? el('span', {class: 'sev-violation', text: 'unlikely from fair dice'}) :
                  'as fair dice give',
              (g.reasons || []).length ? el('span', {class: 'muted', text: ' (' + g.reasons.join('; ') + ')'}) : null)));
    }
    box.appendChild(el('p', {class: 'muted', text:
        'Bars: each face\'s share of the clan\'s dice; the dashed line: the sixth that fair ' +
        'dice give. gunbai dice LOG gives the tests behind the words.'}));
    return box;
  }

  // Each unit's stands over the game, a step line per unit in its clan's
  // colour.
  function standsChart(states, log, names) {
    const series = (states && states.stands) || [];
    const box = el('section', {class: 'stands'}, el('h2', {text: 'Stands over the game'}));
    if (series.length === 0) return box;
    const events = log.events || [];
    const lastSeq = events.length ? num(events[events.length - 1].seq) : 1;
    const firstSeq = events.length ? num(events[0].seq) : 0;
    const most = Math.max(1, ...series.map((s) => num(s.startingStands)));
    const W = 640, H = 220, left = 28, pad = 12;
    const x = (seq) => left + ((seq - firstSeq) / Math.max(1, lastSeq - firstSeq)) * (W - left - pad);
    const y = (stands) => H - 20 - (stands / most) * (H - 20 - pad);
    const lines = series.map((s) => {
      let stands = num(s.startingStands);
      let points = [[x(firstSeq), y(stands)]];
      for (const c of s.changes || []) {
        points.push([x(num(c.seq)), y(stands)]);
        stands = num(c.stands);
        points.push([x(num(c.seq)), y(stands)]);
      }
      const end = num(s.removedAfterSeq) || lastSeq;
      points.push([x(end), y(stands)]);
      const cls = CLAN_CLASSES[Math.max(0, names.clanIndex(s.clan)) % 4];
      return el('polyline', {class: `line ${cls}`, dataset: {unit: s.unit},
                             points: points.map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' ')},
          el('title', {text: `${names.unit(s.unit)}: ${stands} of ${s.startingStands} stands at the end`}));
    });
    const ticks = [];
    for (let s = 0; s <= most; s += Math.max(1, Math.ceil(most / 4))) {
      ticks.push(el('text', {class: 'axis', x: left - 6, y: y(s) + 4, 'text-anchor': 'end', text: String(s)}));
    }
    box.appendChild(el('svg', {viewBox: `0 0 ${W} ${H}`, class: 'chart wide', role: 'img',
                               'aria-label': 'Each unit\'s stands over the game'},
        el('line', {class: 'axis-line', x1: left, x2: W - pad, y1: y(0), y2: y(0)}),
        ticks, lines,
        el('text', {class: 'axis', x: left, y: H - 4, text: `event ${firstSeq}`}),
        el('text', {class: 'axis', x: W - pad, y: H - 4, 'text-anchor': 'end', text: `event ${lastSeq}`})));
    const legend = el('ul', {class: 'legend'});
    ((log.header || {}).clans || []).forEach((c, i) => legend.appendChild(
        el('li', {}, el('span', {class: `swatch ${CLAN_CLASSES[i % 4]}`}), c.name || c.id)));
    box.appendChild(legend);
    return box;
  }

  async function audit(file, out) {
    replaceChildren(out, el('p', {class: 'muted', role: 'status', text: `Reading ${file.name}…`}));
    try {
      const content = await Gunbai.readFileAsBase64(file);
      const parsed = await Gunbai.api('/v1/logs:parse', {content, fileName: file.name});
      const log = parsed.log || {};
      replaceChildren(out, el('p', {class: 'muted', role: 'status', text:
          `Read ${file.name} as ${FORMAT_WORDS[parsed.format] || parsed.format}; auditing…`}));
      const [audited, dice, states] = await Promise.all([
        Gunbai.api('/v1/audit:log', {log, impact: true, recordOutcomes: true,
                                      allReadings: true, remedies: true}),
        Gunbai.api('/v1/audit:diceStats', {logs: [log]}).catch((e) => ({error: e})),
        Gunbai.api('/v1/logs:states', {log, standsOverGame: true}).catch((e) => ({error: e})),
      ]);
      const report = audited.report || {};
      const names = namesOf(log);
      const header = log.header || {};
      replaceChildren(out);
      out.appendChild(el('section', {class: 'card summary'},
          el('h2', {id: 'audit-title', tabindex: '-1', text: header.gameId || file.name}),
          el('p', {class: 'muted', text:
              `${file.name}, read as ${FORMAT_WORDS[parsed.format] || parsed.format}. ` +
              `${plural(num(report.eventsReplayed), 'event', 'events')} over ` +
              `${plural(num(report.turns), 'turn', 'turns')}, under ` +
              `${(report.ruleset || {}).name || ''} ${(report.ruleset || {}).version || ''}.`}),
          verdictOf(report),
          (report.result || {}).winner ? el('p', {}, 'Winner by the rules: ',
              el('strong', {text: names.clan(report.result.winner)})) : null));
      const findings = el('section', {class: 'findings-section'});
      findingsByTurn(report, names, findings);
      out.appendChild(findings);
      const pictures = el('div', {class: 'pictures'});
      pictures.appendChild(dice.error ?
          el('section', {}, el('h2', {text: 'Dice'}), Gunbai.errorBox(dice.error)) :
          diceChart(dice, names));
      pictures.appendChild(states.error ?
          el('section', {}, el('h2', {text: 'Stands over the game'}), Gunbai.errorBox(states.error)) :
          standsChart(states, log, names));
      out.appendChild(pictures);
      const stepper = el('section', {class: 'stepper-section'});
      out.appendChild(stepper);
      const stepTo = eventStepper(log, report, names, stepper);
      findings.addEventListener('click', (ev) => {
        const a = ev.target.closest('a.seq-link');
        if (!a) return;
        ev.preventDefault();
        stepTo(a.dataset.seq);
      });
      document.getElementById('audit-title').focus({preventScroll: true});
    } catch (e) {
      replaceChildren(out, Gunbai.errorBox(e));
    }
  }

  Gunbai.page('audit', {
    title: 'Audit a log',
    mount(main) {
      main.appendChild(el('h1', {text: 'Audit a log'}));
      const input = el('input', {type: 'file', id: 'audit-file',
                                 accept: '.textproto,.txtpb,.pbtxt,.json,.pb,.binpb,.bin'});
      const zone = el('label', {class: 'drop-zone', for: 'audit-file'},
          el('strong', {text: 'Choose a battle log'}),
          ' or drop it here. Text format (.textproto), JSON (.json) or binary (.pb, .binpb); ' +
          'gunbai replays it through the rules and reports every ruling.',
          input);
      const out = el('div', {id: 'audit-result', 'aria-live': 'polite'});
      main.appendChild(zone);
      main.appendChild(out);
      input.addEventListener('change', () => {
        if (input.files.length) audit(input.files[0], out);
      });
      zone.addEventListener('dragover', (ev) => {
        ev.preventDefault();
        zone.classList.add('dragging');
      });
      zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
      zone.addEventListener('drop', (ev) => {
        ev.preventDefault();
        zone.classList.remove('dragging');
        if (ev.dataTransfer.files.length) audit(ev.dataTransfer.files[0], out);
      });
    },
  });
})();
