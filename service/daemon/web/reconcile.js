// The Two copies page (#/reconcile): an arbiter whose players' copies of a
// game disagree opens both (battle logs in any format, or exports of a
// live game as JSON) and sees where they part, how, the events of each
// side by side from there, what the rules say of each copy from there on,
// whether each export's chain holds, and the verdict. Nothing is decided
// here: gunbaid reads each log (/v1/logs:parse) and reconciles the two
// (/v1/audit:reconcile).
'use strict';

(() => {
  const {el, replaceChildren} = Gunbai;

  const SHAPES = {
    RECONCILE_SHAPE_SAME: 'the same',
    RECONCILE_SHAPE_PREFIX: 'one copy cut short',
    RECONCILE_SHAPE_OTHER_DICE: 'the same event with other dice',
    RECONCILE_SHAPE_INSERTED: 'an event one copy lacks',
    RECONCILE_SHAPE_REORDERED: 'two events swapped',
    RECONCILE_SHAPE_CHANGED: 'an event changed',
    RECONCILE_SHAPE_TERMS: 'other armies or table',
  };

  // Returns the copy a file holds, as ReconcileCopyInput: an exported game
  // (JSON with chain hashes) as it is, anything else read by gunbaid.
  async function copyOf(file) {
    if (/\.json$/i.test(file.name)) {
      try {
        const json = JSON.parse(await file.text());
        if (json && json.log && (json.chainHashes || json.chain_hashes)) {
          return {name: file.name, exported: json};
        }
      } catch (e) {
        // Not JSON gunbai can take as an export: gunbaid reads it below.
      }
    }
    const content = await Gunbai.readFileAsBase64(file);
    const parsed = await Gunbai.api('/v1/logs:parse', {content, fileName: file.name});
    return {name: file.name, log: parsed.log || {}};
  }

  function copyColumn(label, copy) {
    const first = copy.firstFinding || {};
    const findings = Number(copy.findingsFromDivergence || 0);
    return el('div', {class: 'card reconcile-copy', dataset: {copy: label}},
        el('h3', {text: `${label}: ${copy.name || ''}`}),
        el('p', {class: 'muted', text: `${Number(copy.events || 0)} events`}),
        el('ol', {class: 'reconcile-events'},
            (copy.eventsAtDivergence || []).map((e) => el('li', {}, el('code', {text: e})))),
        el('p', {class: findings ? 'sev-dispute' : '', dataset: {findings: String(findings)}},
            findings === 0 ? 'No violation or disputed result from there on.' :
            `${findings} violation(s) or disputed result(s) from there on; the first at seq ` +
            `${first.seq || 0}: `, findings ? Gunbai.ruleLink(first.ruleId || '') : null),
        copy.hasChain ? el('p', {class: copy.chainHolds ? '' : 'sev-violation', text:
            copy.chainHolds ? 'Its chain holds.' : `Its chain is broken ${copy.chainBreak}.`}) :
            null,
        diceLine(copy));
  }

  // What the server's dice say of a copy; nothing for dice the players rolled.
  function diceLine(copy) {
    const where = Number(copy.diceBreakSeq || 0) > 0 ?
        `at seq ${copy.diceBreakSeq}: ${copy.diceBreak}` : (copy.diceBreak || '');
    const words = {
      RECONCILE_DICE_NOT_REVEALED:
          'Server dice: the secret is revealed when the game ends; they cannot be checked yet.',
      RECONCILE_DICE_SERVERS: 'Every die is the one the server rolled.',
      RECONCILE_DICE_NOT_SERVERS: `Its dice are not the server's (${where}).`,
    }[copy.dice];
    if (!words) return null;
    return el('p', {class: copy.dice === 'RECONCILE_DICE_NOT_SERVERS' ? 'sev-violation' : '',
                    dataset: {dice: copy.dice}, text: words});
  }

  async function reconcile(files, out) {
    replaceChildren(out, el('p', {class: 'muted', role: 'status', text: 'Reading both copies…'}));
    try {
      const [a, b] = await Promise.all(files.map(copyOf));
      const answer = await Gunbai.api('/v1/audit:reconcile', {a, b});
      const r = answer.reconciliation || {};
      replaceChildren(out,
          el('section', {class: 'card summary'},
              el('h2', {id: 'reconcile-title', tabindex: '-1',
                        text: `The copies: ${SHAPES[r.shape] || r.shape}`}),
              el('p', {class: 'verdict', role: 'status', dataset: {shape: r.shape || '',
                  support: r.rulesSupport || '',
                  diceSupport: r.diceSupport || ''}, text: r.verdict || ''}),
              el('p', {class: 'muted', text: Number(r.sharedEvents || 0) > 0 ?
                  `Shared: the first ${r.sharedEvents} events, the last at seq ` +
                  `${r.lastSharedSeq} (chain hash ${r.lastSharedChainHash}).` :
                  'Shared: no event.'})),
          r.shape === 'RECONCILE_SHAPE_SAME' ? null :
              el('div', {class: 'reconcile-side-by-side'},
                  copyColumn('A', r.a || {}), copyColumn('B', r.b || {})));
      document.getElementById('reconcile-title').focus({preventScroll: true});
    } catch (e) {
      replaceChildren(out, Gunbai.errorBox(e));
    }
  }

  Gunbai.page('reconcile', {
    title: 'Two copies',
    mount(main) {
      main.appendChild(el('h1', {text: 'Two copies of one game'}));
      main.appendChild(el('p', {text:
          'When the players\' copies of a game disagree, open both: gunbai ' +
          'finds where they part, shows the events of each from there, and ' +
          'says which copy the rules support. Battle logs in any format, or ' +
          'a live game\'s export as JSON (gunbai game export --format=json).'}));
      const accept = '.textproto,.txtpb,.pbtxt,.json,.pb,.binpb,.bin';
      const inputA = el('input', {type: 'file', id: 'reconcile-a', accept});
      const inputB = el('input', {type: 'file', id: 'reconcile-b', accept});
      const button = el('button', {type: 'button', id: 'reconcile-go', text: 'Compare'});
      main.appendChild(el('div', {class: 'reconcile-inputs'},
          el('label', {class: 'drop-zone', for: 'reconcile-a'},
              el('strong', {text: 'Copy A'}), ' (one player\'s)', inputA),
          el('label', {class: 'drop-zone', for: 'reconcile-b'},
              el('strong', {text: 'Copy B'}), ' (the other\'s)', inputB),
          button));
      const out = el('div', {id: 'reconcile-result', 'aria-live': 'polite'});
      main.appendChild(out);
      button.addEventListener('click', () => {
        if (!inputA.files.length || !inputB.files.length) {
          replaceChildren(out, el('p', {class: 'error', role: 'alert',
              text: 'Choose both copies first.'}));
          return;
        }
        reconcile([inputA.files[0], inputB.files[0]], out);
      });
    },
  });
})();
