// The Ruling page (#/ruling): an umpire at the table sets up one disputed
// situation (a volley, a melee round or a morale test), the units in it
// with their state now and the facts the players declare, enters or rolls
// the dice, and gets gunbai's ruling with its whole arithmetic. The page
// writes the situation as a battle log that starts from a mid-game
// position (a starting_position, rules/SCENARIO.md) and has one event, and
// asks gunbaid to audit it (/v1/audit:log with every outcome recorded): no
// rule is computed here. The choices come from /v1/rulesets:describe.
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const KINDS = {
    volley: {label: 'A volley', units: ['Firing unit', 'Target']},
    melee: {label: 'A melee round', units: ['Active side', 'Other side']},
    morale: {label: 'A morale test', units: ['Testing unit']},
  };
  const MORALE_REASONS = [
    [1, '1: a stand lost'], [2, '2: Ashigaru or Peasants charged'],
    [3, '3: foot charged by cavalry'], [4, '4: Ashigaru missile troops or Peasants charging'],
    [5, '5: its General or Daimyo killed near'], [6, '6: a friendly unit routing near'],
    [7, '7: routers passed through it'], [8, '8: a routing unit tests to rally'],
  ];
  // The declared facts, each a checkbox: [field, words, measured]. With
  // the units placed on a table gunbai measures those marked `true`
  // (rules/daimyo/RULES.md, "The table"): they are then not declared.
  const FIRING_FACTS = [
    ['targetInCover', 'target behind cover', true],
    ['targetInBuilding', 'target in a building', true],
    ['targetInColumnOrFlanked', 'target in column or fired at in the flank', true],
    ['firingFromBuilding', 'firing from a building', true],
    ['woodsLimit', 'firer or target in woods', true],
    ['firerInCover', 'firer behind cover', true],
    ['chargersBeganBeyondEffective', 'chargers began beyond effective range', false],
  ];
  const MELEE_FACTS = [
    ['enemyFightingToFlankOrRear', 'the enemy fights its flank or rear', true],
    ['enemyUphillOrBehindObstacle', 'the enemy is uphill or behind an obstacle', true],
    ['enemyInBuilding', 'the enemy is in a building', true],
  ];
  const MORALE_FACTS = [
    ['uphillOrInCover', 'uphill of all enemy near, or in cover', true],
    ['generalNear', 'a general near', true],
    ['outOfCommand', 'out of command', false],
    ['enemyFacingFlankOrRearNear', 'an enemy faces its flank or rear near', true],
    ['leaderKilledNear', 'a leader killed near this turn', false],
    ['chargedFrontally', 'being charged frontally', true],
  ];
  // The table the units are placed on, by default: small, the two units
  // facing each other 10 cm apart (in contact for a melee), front centres
  // in cm and facings in degrees (0 up the table, 180 down it).
  const TABLE_DEFAULT = {width: 60, depth: 40};
  const PLACES_DEFAULT = {
    volley: [{x: 30, y: 15, facing: 0}, {x: 30, y: 25, facing: 180}],
    melee: [{x: 30, y: 15, facing: 0}, {x: 30, y: 15, facing: 180}],
    morale: [{x: 30, y: 15, facing: 0}, {x: 30, y: 25, facing: 180}],
  };
  // Pixels a centimetre of the Ruling page's map.
  const MAP_PX_PER_CM = 10;
  // Good defaults: a unit an umpire meets often.
  const DEFAULT_UNITS = [
    {name: 'Teppo ashigaru', troopType: 'TROOP_TYPE_ASHIGARU', mobility: 'MOBILITY_FOOT',
     quality: 'QUALITY_SEASONED', armour: 'ARMOUR_LIGHT', meleeWeapon: 'MELEE_WEAPON_IMPROVISED',
     missileWeapon: 'MISSILE_WEAPON_ARQUEBUS', stands: 6, standsPerRank: 3},
    {name: 'Mounted samurai', troopType: 'TROOP_TYPE_SAMURAI', mobility: 'MOBILITY_MOUNTED',
     quality: 'QUALITY_VETERAN', armour: 'ARMOUR_LIGHT', meleeWeapon: 'MELEE_WEAPON_LANCE',
     missileWeapon: 'MISSILE_WEAPON_NONE', stands: 4, standsPerRank: 2},
  ];
  const PROFILE_ENUMS = [
    ['troopType', 'Troop type', 'gunbai.v1.TroopType'],
    ['mobility', 'Foot or mounted', 'gunbai.v1.Mobility'],
    ['quality', 'Quality', 'gunbai.v1.Quality'],
    ['armour', 'Armour', 'gunbai.v1.Armour'],
    ['meleeWeapon', 'Melee weapon', 'gunbai.v1.MeleeWeapon'],
    ['missileWeapon', 'Missile weapon', 'gunbai.v1.MissileWeapon'],
  ];

  let idCounter = 0;
  function fieldId(name) {
    idCounter++;
    return `ruling-${name}-${idCounter}`;
  }

  // An enum value in words: TROOP_TYPE_WARRIOR_MONK -> "warrior monk".
  function words(value, prefix) {
    return value.slice(prefix.length).toLowerCase().replace(/_/g, ' ');
  }

  function labelled(text, control) {
    return el('label', {class: 'field', for: control.id}, el('span', {text}), control);
  }

  function numberInput(name, value, min, max) {
    return el('input', {type: 'number', id: fieldId(name), name, value: String(value),
                        min: String(min), max: String(max), inputmode: 'numeric'});
  }

  function checkbox(name, text, checked) {
    const box = el('input', {type: 'checkbox', id: fieldId(name), name, checked});
    return el('label', {class: 'check', for: box.id}, box, ' ', text);
  }

  function select(name, options, value) {
    return el('select', {id: fieldId(name), name},
        options.map(([v, text]) => el('option', {value: String(v), text,
                                                  selected: String(v) === String(value)})));
  }

  // One unit's card: what it is (its order-of-battle line) and its state.
  function unitCard(title, defaults, enums) {
    const controls = {};
    const profile = PROFILE_ENUMS.map(([field, text, type]) => {
      const values = enums.get(type) || [];
      const prefix = type.replace('gunbai.v1.', '').replace(/([a-z])([A-Z])/g, '$1_$2')
          .toUpperCase() + '_';
      controls[field] = select(field, values.map((v) => [v, words(v, prefix)]), defaults[field]);
      return labelled(text, controls[field]);
    });
    controls.name = el('input', {type: 'text', id: fieldId('name'), name: 'name', value: defaults.name,
                                 maxlength: '80'});
    controls.stands = numberInput('stands', defaults.stands, 1, 64);
    controls.standsPerRank = numberInput('standsPerRank', defaults.standsPerRank, 1, 64);
    controls.standsNow = numberInput('standsNow', defaults.stands, 1, 64);
    controls.carriedHits = numberInput('carriedHits', 0, 0, 2);
    const flags = {};
    for (const [field, text] of [['disordered', 'disordered'], ['movedThisTurn', 'moved this turn'],
                                 ['firstVolleySpent', 'first volley already fired'],
                                 ['routing', 'routing'], ['charging', 'charging']]) {
      flags[field] = checkbox(field, text, field === 'firstVolleySpent');
    }
    controls.leader = select('leader', [['', 'none'], ['LEADER_KIND_GENERAL', 'a General'],
                                        ['LEADER_KIND_DAIMYO', 'the Daimyo']], '');
    controls.rating = numberInput('rating', 2, 1, 4);
    const card = el('fieldset', {class: 'card unit-card'},
        el('legend', {text: title}),
        labelled('Name', controls.name),
        el('div', {class: 'grid'}, profile),
        el('div', {class: 'grid'},
            labelled('Stands at the start', controls.stands),
            labelled('Stands a rank', controls.standsPerRank),
            labelled('Stands now', controls.standsNow),
            labelled('Hits carried (0-2)', controls.carriedHits)),
        el('div', {class: 'checks'}, Object.values(flags)),
        el('div', {class: 'grid'},
            labelled('Leader attached', controls.leader),
            labelled('Command rating', controls.rating)));
    const read = () => {
      const value = (c) => c.value;
      const flag = (f) => flags[f].querySelector('input').checked;
      const out = {};
      for (const [field] of PROFILE_ENUMS) out[field] = value(controls[field]);
      out.name = controls.name.value || title;
      out.stands = Number(controls.stands.value);
      out.standsPerRank = Number(controls.standsPerRank.value);
      out.standsNow = Number(controls.standsNow.value);
      out.carriedHits = Number(controls.carriedHits.value);
      for (const f of Object.keys(flags)) out[f] = flag(f);
      out.leader = controls.leader.value;
      out.rating = Number(controls.rating.value);
      return out;
    };
    return {card, read, controls, flags};
  }

  // Dice inputs: `count` number boxes 1-6 in pairs, with a Roll button.
  function diceBox(title, count, name) {
    const inputs = [];
    const box = el('fieldset', {class: 'dice-box', dataset: {dice: name}}, el('legend', {text: title}));
    const row = el('div', {class: 'dice-row'});
    for (let i = 0; i < count; i++) {
      const input = el('input', {type: 'number', min: '1', max: '6', class: 'die',
                                 id: fieldId(`${name}-die${i + 1}`), inputmode: 'numeric',
                                 'aria-label': `${title}: die ${i + 1} (pair ${Math.floor(i / 2) + 1})`});
      inputs.push(input);
      row.appendChild(input);
    }
    const roll = el('button', {type: 'button', class: 'roll', text: 'Roll'});
    roll.addEventListener('click', () => {
      const bytes = new Uint8Array(inputs.length * 4);
      crypto.getRandomValues(bytes);
      inputs.forEach((input, i) => {
        // Rejection sampling: bytes of 252 and over would bias the faces.
        let b = bytes[i];
        while (b >= 252) b = crypto.getRandomValues(new Uint8Array(1))[0];
        input.value = String(1 + (b % 6));
      });
    });
    box.appendChild(row);
    box.appendChild(roll);
    return {box, read: () => inputs.map((i) => Number(i.value)).filter((v) => v > 0)};
  }

  function unitJson(u, id, clan) {
    return {id, clan, name: u.name, troopType: u.troopType, mobility: u.mobility,
            quality: u.quality, armour: u.armour, meleeWeapon: u.meleeWeapon,
            missileWeapon: u.missileWeapon, stands: u.stands, standsPerRank: u.standsPerRank,
            formation: 'FORMATION_LINE', startingOrder: 'ORDER_GOOD'};
  }

  function unitStateJson(u, id, kind, extra) {
    return Object.assign({
      id, stands: u.standsNow, carriedHits: u.carriedHits || undefined,
      disordered: u.disordered || undefined, movedThisTurn: u.movedThisTurn || undefined,
      firstVolleySpent: u.firstVolleySpent || undefined, routing: u.routing || undefined,
      charging: u.charging || undefined, inMelee: kind === 'melee' || undefined,
    }, extra || {});
  }

  // The situation as a battle log: the order of battle, a starting
  // position in turn 3 (the first side active; for a morale test at the
  // end of the turn, both sides activated), and the one event, seq 41.
  // `table` ({width, depth, places: [{x, y, facing}]}, cm), when given:
  // the log's table and each unit's position, in millimetres.
  function buildLog(kind, units, facts, dice, version, table) {
    const ids = ['unit-a', 'unit-b'];
    const clans = ['side-a', 'side-b'];
    const log = {
      header: {gameId: 'ruling', ruleset: {name: 'daimyo', version},
               clans: [{id: 'side-a', name: 'First side'}, {id: 'side-b', name: 'Second side'}],
               event: 'A ruling at the table (gunbai web app)'},
      orderOfBattle: {units: units.map((u, i) => unitJson(u, ids[i], clans[i])), leaders: []},
      startingPosition: {afterSeq: '40', turn: 3, initiativeClan: 'side-a',
                         activeClan: kind === 'morale' ? 'side-b' : 'side-a',
                         phase: kind === 'volley' ? 'firing' : 'melee', units: []},
      events: [],
    };
    if (table) {
      log.table = {widthMm: Math.round(table.width * 10), depthMm: Math.round(table.depth * 10)};
      log.orderOfBattle.units.forEach((u, i) => {
        const p = table.places[i];
        u.position = {xMm: Math.round(p.x * 10), yMm: Math.round(p.y * 10),
                      facingDeg: Math.round(p.facing)};
      });
    }
    units.forEach((u, i) => {
      if (u.leader) {
        log.orderOfBattle.leaders.push({id: `leader-${i + 1}`, clan: clans[i],
            name: `${u.leader === 'LEADER_KIND_DAIMYO' ? 'Daimyo' : 'General'} of ${u.name}`,
            kind: u.leader, commandRating: u.rating, attachedUnit: ids[i]});
      }
      log.startingPosition.units.push(unitStateJson(u, ids[i], kind,
          kind === 'morale' ? {owedMoraleReasons: [facts.reason]} : {}));
    });
    const event = {seq: '41', turn: 3, clan: 'side-a'};
    if (kind === 'volley') {
      event.firing = {unit: ids[0], target: ids[1], standsFiring: facts.standsFiring,
                      dice: dice[0], facts: Object.assign({range: facts.range || undefined},
                                                          facts.flags)};
    } else if (kind === 'melee') {
      log.startingPosition.melees = [{unitA: ids[0], unitB: ids[1],
          rounds: facts.round - 1, lastTurnFought: facts.round > 1 ? 2 : 0}];
      event.meleeRound = {round: facts.round, sides: facts.sides.map((s, i) => Object.assign({
        unit: ids[i], standsFighting: s.standsFighting, dice: dice[i],
        frontStandsInContact: s.front, overlapStands: s.overlaps || undefined}, s.flags))};
    } else {
      log.startingPosition.activatedClans = clans;
      event.moraleTest = {unit: ids[0], reason: facts.reason, dice: dice[0],
                          facts: facts.flags};
    }
    log.events.push(event);
    return log;
  }

  // A term's origin in words, when it is a fact gunbai measured on the
  // table (on a log with positions) rather than one the players declared.
  const ORIGIN_WORDS = {TERM_ORIGIN_MEASURED: 'measured on the table'};

  // `named` puts the units' names for their ids in the labels.
  function traceTable(trace, named = (text) => text) {
    if (!trace || !trace.length) return null;
    return el('div', {class: 'table-wrap'}, el('table', {class: 'trace'}, el('tbody', {},
        trace.map((t) => el('tr', {dataset: {origin: t.origin || ''}},
            el('td', {class: 'num', text: String(t.value || 0)}),
            el('td', {}, named(t.label || ''), ORIGIN_WORDS[t.origin]
                ? el('span', {class: 'origin', text: ` (${ORIGIN_WORDS[t.origin]})`}) : null),
            el('td', {}, t.ruleId ? Gunbai.ruleLink(t.ruleId) : ''))))));
  }

  // The ruling in words, then each outcome with its arithmetic.
  function showRuling(report, units, out) {
    const name = (id) => (id === 'unit-a' ? units[0].name : id === 'unit-b' ? units[1].name : id);
    // An outcome's value may name a unit ("unit-a wins"): by its name.
    const named = (text) => String(text || '').replace(/\bunit-[ab]\b/g, name);
    const outcomes = report.outcomes || [];
    const findings = (report.findings || []).filter((f) => f.ruleId !== 'log.turn_unfinished');
    const owed = (report.findings || []).filter((f) => f.ruleId === 'log.turn_unfinished');
    const headline = outcomes.map((o) => `${name(o.subject)}: ${o.kind.replace(/_/g, ' ')} ${named(o.value)}`);
    replaceChildren(out,
        el('h2', {id: 'ruling-title', tabindex: '-1', text: 'The ruling'}),
        el('ul', {class: 'ruling-headline'}, headline.map((h) => el('li', {text: h}))),
        outcomes.map((o) => el('section', {class: 'card outcome', dataset: {kind: o.kind,
                                                                          subject: o.subject || ''}},
            el('h3', {}, `${name(o.subject)}: `, el('span', {class: 'outcome-kind', text: o.kind.replace(/_/g, ' ')}),
               ' ', el('strong', {class: 'outcome-value', text: named(o.value)})),
            traceTable(o.trace, named))),
        findings.length ? el('h3', {text: 'What the rules say against the situation'}) : null,
        findings.length ? el('ul', {class: 'findings'}, findings.map((f) => el('li', {class: 'finding', dataset: {rule: f.ruleId}},
            Gunbai.ruleLink(f.ruleId), ': ', f.message))) : null,
        owed.length ? el('p', {class: 'muted', text: 'Still owed by the end of the turn: ' +
            owed.map((f) => f.message.replace(/^.*not checked: /, '')
                .replace(/unit-a/g, units[0].name).replace(/unit-b/g, (units[1] || {}).name || 'unit-b'))
                .join('; ')}) : null);
    document.getElementById('ruling-title').focus({preventScroll: false});
  }

  Gunbai.page('ruling', {
    title: 'A ruling',
    mount(main) {
      main.appendChild(el('h1', {text: 'A ruling'}));
      main.appendChild(el('p', {text:
          'Set up the disputed moment: the units, their state now, what the players ' +
          'declare, and the dice. gunbai gives the ruling with its arithmetic and the ' +
          'rules it rests on (Daimyo).'}));
      const body = el('div', {'aria-busy': 'true'}, el('p', {class: 'muted', text: 'Loading the rules…'}));
      main.appendChild(body);
      const controller = new AbortController();
      Gunbai.api('/v1/rulesets:describe', {}, {signal: controller.signal}).then((described) => {
        body.removeAttribute('aria-busy');
        const enums = new Map((described.enums || []).map((e) => [e.name, e.values || []]));
        const daimyo = (described.rulesets || []).find((r) => r.name === 'daimyo') || {};
        const version = ((daimyo.data || {}).version) || '1.0';
        mountForm(body, enums, version);
      }).catch((e) => {
        if (e.name === 'AbortError') return;
        replaceChildren(body, Gunbai.errorBox(e));
      });
      return () => controller.abort();
    },
  });

  // The optional "Place the units on a table" section: the table's size,
  // each unit's front centre (cm) and facing (degrees), which unit a click
  // on the map places, and the map (common.js mapView). onToggle() when it
  // is switched on or off; onPlace(fn): fn() after a click moved a unit.
  function tableSection(cards, kindNow, onToggle) {
    const toggle = el('input', {type: 'checkbox', id: 'ruling-table-on', name: 'tableOn'});
    const width = numberInput('tableWidth', TABLE_DEFAULT.width, 10, 500);
    const depth = numberInput('tableDepth', TABLE_DEFAULT.depth, 10, 500);
    const map = Gunbai.mapView({id: 'ruling-map', pxPerCm: MAP_PX_PER_CM, fileName: 'ruling-table'});
    const rows = [0, 1].map((i) => {
      const x = numberInput(`pos${i}-x`, 0, 0, 500);
      const y = numberInput(`pos${i}-y`, 0, 0, 500);
      const facing = numberInput(`pos${i}-facing`, 0, 0, 359);
      for (const input of [x, y]) {
        input.step = '0.1';
        input.inputMode = 'decimal';
      }
      facing.step = '15';
      const legend = el('legend');
      const radio = el('input', {type: 'radio', name: 'placeUnit', id: fieldId(`place${i}`),
                                 value: String(i), checked: i === 0});
      const chooser = el('label', {class: 'check place-choice', for: radio.id}, radio, ' ',
                         el('span'));
      const box = el('fieldset', {class: 'place', dataset: {unit: String(i)}}, legend,
          el('div', {class: 'grid'}, labelled('x (cm)', x), labelled('y (cm)', y),
             labelled('Facing (°)', facing)));
      return {x, y, facing, legend, radio, chooser, box};
    });
    let placedByHand = false;
    const set = (places) => rows.forEach((r, i) => {
      r.x.value = String(places[i].x);
      r.y.value = String(places[i].y);
      r.facing.value = String(places[i].facing);
    });
    set(PLACES_DEFAULT.volley);
    for (const r of rows) {
      for (const input of [r.x, r.y, r.facing]) {
        input.addEventListener('input', () => { placedByHand = true; });
      }
    }
    const body = el('div', {class: 'table-body', hidden: true}, el('div', {class: 'table-inputs'},
        el('p', {class: 'muted', text:
            'Where the centre of each unit\'s front edge stands: x across the table from the ' +
            'left corner of the first side\'s edge (the bottom of the map), y up the table ' +
            'away from that edge. Facing in degrees: 0 faces up the table, 90 right, ' +
            '180 down, 270 left.'}),
        el('div', {class: 'grid'}, labelled('Table width (cm)', width),
           labelled('Table depth (cm)', depth)),
        el('div', {class: 'places'}, rows.map((r) => r.box))),
        el('div', {class: 'table-map'},
            el('fieldset', {class: 'place-chooser'},
                el('legend', {text: 'Clicking the map places'}),
                rows.map((r) => r.chooser)),
            el('p', {class: 'muted map-hint', text:
                'Click the map to put the chosen unit\'s front centre there.'}),
            map.node));
    const box = el('fieldset', {class: 'card table-section'},
        el('legend', {}, el('label', {class: 'check', for: toggle.id}, toggle, ' ',
                            'Place the units on a table')),
        el('p', {class: 'muted table-off-hint', text:
            'Optional: give each unit its place on a table, and gunbai measures the range, ' +
            'cover and flanks instead of taking them as declared.'}),
        body);
    const placeHandlers = [];
    const names = () => {
      const k = kindNow();
      rows.forEach((r, i) => {
        const title = KINDS[k].units[i] || '';
        const name = cards[i].read().name;
        r.legend.textContent = `${title}: ${name}`;
        r.chooser.querySelector('span').textContent = `${title} (${name})`;
        r.box.hidden = !KINDS[k].units[i];
        r.chooser.hidden = !KINDS[k].units[i];
      });
    };
    toggle.addEventListener('change', () => {
      body.hidden = !toggle.checked;
      box.querySelector('.table-off-hint').hidden = toggle.checked;
      box.classList.toggle('on', toggle.checked);
      names();
      onToggle();
    });
    for (const c of cards) c.controls.name.addEventListener('input', names);
    map.img.addEventListener('click', (ev) => {
      const p = map.pointAt(ev.clientX, ev.clientY);
      if (!p) return;
      const row = rows.find((r) => r.radio.checked && !r.box.hidden) || rows[0];
      const clamp = (v, hi) => Math.min(Math.max(v, 0), hi);
      row.x.value = String(Math.round(clamp(p.x, Number(width.value) || TABLE_DEFAULT.width) * 10) / 10);
      row.y.value = String(Math.round(clamp(p.y, Number(depth.value) || TABLE_DEFAULT.depth) * 10) / 10);
      placedByHand = true;
      for (const fn of placeHandlers) fn();
    });
    return {
      box, map,
      on: () => toggle.checked,
      onPlace: (fn) => placeHandlers.push(fn),
      // A new kind of situation: names, and (unless placed by hand) the
      // default places for it.
      kindChanged(k) {
        if (!placedByHand) set(PLACES_DEFAULT[k]);
        names();
      },
      read(count) {
        return {width: Number(width.value) || TABLE_DEFAULT.width,
                depth: Number(depth.value) || TABLE_DEFAULT.depth,
                places: rows.slice(0, count).map((r) => ({x: Number(r.x.value) || 0,
                    y: Number(r.y.value) || 0, facing: Number(r.facing.value) || 0}))};
      },
    };
  }

  function mountForm(body, enums, version) {
    replaceChildren(body);
    const kind = select('kind', Object.entries(KINDS).map(([k, v]) => [k, v.label]), 'volley');
    const form = el('form', {class: 'ruling-form', novalidate: true});
    const cards = [unitCard('Firing unit', DEFAULT_UNITS[0], enums),
                   unitCard('Target', DEFAULT_UNITS[1], enums)];
    const factsBox = el('fieldset', {class: 'card facts'}, el('legend', {text: 'What the players declare'}));
    const diceArea = el('div', {class: 'card dice-area'});
    const out = el('div', {id: 'ruling-result', 'aria-live': 'polite'});
    let factReaders = null;
    let diceReaders = [];

    function rebuildDice() {
      const k = kind.value;
      replaceChildren(diceArea, el('h2', {text: 'The dice'}));
      if (k === 'volley') {
        diceReaders = [diceBox('Firing dice, 2 a stand', 2 * factReaders.standsFiring(), 'fire')];
      } else if (k === 'melee') {
        diceReaders = [0, 1].map((i) => diceBox(`${cards[i].read().name}: 2 a stand fighting`,
                                                 2 * factReaders.sides[i](), `melee${i + 1}`));
      } else {
        diceReaders = [diceBox('Morale dice (2d6)', 2, 'morale')];
      }
      for (const d of diceReaders) diceArea.appendChild(d.box);
    }

    function rebuildFacts() {
      const k = kind.value;
      cards[0].card.querySelector('legend').textContent = KINDS[k].units[0];
      cards[1].card.querySelector('legend').textContent = KINDS[k].units[1] || '';
      cards[1].card.hidden = k === 'morale';
      replaceChildren(factsBox, el('legend', {text: 'What the players declare'}));
      const checks = (list) => list.map(([f, t, measured]) => {
        const box = checkbox(f, t, false);
        if (measured) box.dataset.measured = 'true';
        return {field: f, box};
      });
      const flagsOf = (list) => () => Object.fromEntries(list.filter((c) => c.box.querySelector('input').checked)
          .map((c) => [c.field, true]));
      if (k === 'volley') {
        const range = select('range', (enums.get('gunbai.v1.RangeBand') || []).map((v) => [v, words(v, 'RANGE_BAND_')]),
                             'RANGE_BAND_EFFECTIVE');
        const stands = numberInput('standsFiring', 4, 1, 64);
        const list = checks(FIRING_FACTS);
        factsBox.appendChild(el('div', {class: 'grid'}, labelled('Range', range),
                                labelled('Stands firing', stands)));
        factsBox.appendChild(el('div', {class: 'checks'}, list.map((c) => c.box)));
        stands.addEventListener('change', rebuildDice);
        range.dataset.measured = 'true';
        factReaders = {range: () => (range.disabled ? '' : range.value),
                       standsFiring: () => Number(stands.value) || 1, flags: flagsOf(list)};
      } else if (k === 'melee') {
        const round = numberInput('round', 1, 1, 99);
        factsBox.appendChild(labelled('Round of this melee', round));
        const sides = [0, 1].map((i) => {
          const standsFighting = numberInput(`side${i}-fighting`, 2, 1, 64);
          const front = numberInput(`side${i}-front`, 2, 0, 64);
          const overlaps = numberInput(`side${i}-overlaps`, 0, 0, 2);
          const list = checks(MELEE_FACTS);
          factsBox.appendChild(el('fieldset', {class: 'side'},
              el('legend', {text: i === 0 ? 'Active side' : 'Other side'}),
              el('div', {class: 'grid'},
                  labelled('Stands fighting', standsFighting),
                  labelled('Stands in front contact', front),
                  labelled('Overlapping stands', overlaps)),
              el('div', {class: 'checks'}, list.map((c) => c.box))));
          standsFighting.addEventListener('change', rebuildDice);
          return {standsFighting, front, overlaps, flags: flagsOf(list)};
        });
        factReaders = {
          round: () => Number(round.value) || 1,
          sides: sides.map((s) => () => Number(s.standsFighting.value) || 1),
          read: () => sides.map((s) => ({standsFighting: Number(s.standsFighting.value) || 1,
                                         front: Number(s.front.value) || 0,
                                         overlaps: Number(s.overlaps.value) || 0,
                                         flags: s.flags()})),
        };
      } else {
        const reason = select('reason', MORALE_REASONS, 1);
        const list = checks(MORALE_FACTS);
        factsBox.appendChild(labelled('Why it tests', reason));
        factsBox.appendChild(el('div', {class: 'checks'}, list.map((c) => c.box)));
        factReaders = {reason: () => Number(reason.value), flags: flagsOf(list)};
      }
      factsBox.insertBefore(measuredNote, factsBox.children[1] || null);
      rebuildDice();
      table.kindChanged(k);
      showMeasured();
    }

    // With the units on a table, the facts it settles are greyed out and
    // not declared: gunbai measures them. Off, they are as they were.
    const measuredNote = el('p', {class: 'notice measured-note', text:
        'The units are placed on a table (above): gunbai measures the range, cover, ' +
        'buildings, woods, flanks and what is near itself. Those facts are greyed out here.'});
    function showMeasured() {
      const on = table.on();
      measuredNote.hidden = !on;
      factsBox.querySelector('legend').textContent =
          on ? 'What the players declare (the rest is measured on the table)' : 'What the players declare';
      for (const label of factsBox.querySelectorAll('label.check[data-measured]')) {
        const box = label.querySelector('input');
        if (on && !box.disabled) {
          label.dataset.wasChecked = box.checked ? '1' : '';
          box.checked = false;
        } else if (!on && box.disabled) {
          box.checked = label.dataset.wasChecked === '1';
        }
        box.disabled = on;
        label.classList.toggle('measured', on);
      }
      const range = factsBox.querySelector('select[name="range"]');
      if (range) {
        let measured = range.querySelector('option[value=""]');
        if (on && !measured) {
          range.dataset.was = range.value;
          measured = el('option', {value: '', text: 'measured'});
          range.insertBefore(measured, range.firstChild);
          range.value = '';
        } else if (!on && measured) {
          measured.remove();
          range.value = range.dataset.was || 'RANGE_BAND_EFFECTIVE';
        }
        range.disabled = on;
      }
    }

    const table = tableSection(cards, () => kind.value, () => {
      showMeasured();
      redrawMap();
    });
    // The map as the umpire edits: the situation's log before its event.
    let mapTimer = null;
    function redrawMap() {
      if (!table.on()) return;
      if (mapTimer) clearTimeout(mapTimer);
      mapTimer = setTimeout(() => {
        mapTimer = null;
        table.map.draw(situation().log, 0);
      }, 150);
    }
    table.onPlace(redrawMap);

    const submit = el('button', {type: 'submit', class: 'primary', id: 'ruling-submit', text: 'Give the ruling'});
    const download = el('button', {type: 'button', id: 'ruling-download', text: 'Save as a log file'});
    form.appendChild(el('div', {class: 'card'}, labelled('The situation', kind)));
    form.appendChild(el('div', {class: 'units'}, cards.map((c) => c.card)));
    form.appendChild(table.box);
    form.appendChild(factsBox);
    form.appendChild(diceArea);
    form.appendChild(el('p', {class: 'actions'}, submit, ' ', download));
    body.appendChild(form);
    body.appendChild(out);
    kind.addEventListener('change', rebuildFacts);
    rebuildFacts();

    function situation() {
      const k = kind.value;
      const units = (k === 'morale' ? [cards[0]] : cards).map((c) => c.read());
      let facts;
      if (k === 'volley') {
        facts = {range: factReaders.range(), standsFiring: factReaders.standsFiring(),
                 flags: factReaders.flags()};
      } else if (k === 'melee') {
        facts = {round: factReaders.round(), sides: factReaders.read()};
      } else {
        facts = {reason: factReaders.reason(), flags: factReaders.flags()};
      }
      return {units, log: buildLog(k, units, facts, diceReaders.map((d) => d.read()), version,
                                   table.on() ? table.read(units.length) : null)};
    }
    form.addEventListener('change', redrawMap);
    form.addEventListener('input', (ev) => {
      if (ev.target.closest('.table-section')) redrawMap();
    });

    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const {units, log} = situation();
      submit.disabled = true;
      replaceChildren(out, el('p', {class: 'muted', role: 'status', text: 'Asking gunbaid…'}));
      try {
        const answer = await Gunbai.api('/v1/audit:log', {log, recordOutcomes: true});
        showRuling(answer.report || {}, units, out);
        if (log.table) {
          // The table at the event: the line of fire with its measured
          // distance, the charge, the contact.
          const after = Gunbai.mapView({id: 'ruling-result-map', pxPerCm: MAP_PX_PER_CM,
                                        fileName: 'ruling'});
          out.appendChild(el('section', {class: 'card result-map'},
              el('h3', {text: 'The table at the ruling'}),
              el('p', {class: 'muted', text:
                  'gunbai measured what the table settles. A measured fact that changes the dice ' +
                  'is marked "measured on the table" above; one that adds nothing (long range, ' +
                  'no cover) shows only here: the line of fire with its length and range band.'}),
              after.node));
          after.draw(log, 41);
        }
      } catch (e) {
        replaceChildren(out, Gunbai.errorBox(e));
      } finally {
        submit.disabled = false;
      }
    });
    download.addEventListener('click', () => {
      const {log} = situation();
      const blob = new Blob([JSON.stringify(log, null, 2) + '\n'], {type: 'application/json'});
      const link = el('a', {href: URL.createObjectURL(blob), download: 'ruling.json'});
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    });
  }
})();
