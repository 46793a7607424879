// The Rules page: every rule gunbai checks (#/rules), or how gunbai reads
// one rule id (#/rules/ID, where every finding's rule id links), from the
// project's rules docs through POST /v1/rules:explain (RulesService,
// `gunbai explain`).
'use strict';

(() => {
  const {el} = Gunbai;

  // The ruleset a rule belongs to, in words.
  function rulesetName(rule) {
    if (rule.ruleset === 'daimyo') return 'Daimyo';
    if (rule.ruleset === 'skf') return 'Samurai Knight Fever';
    return rule.ruleset ? rule.ruleset : 'every ruleset (the scenario rules)';
  }

  function mention(m) {
    return el('li', {},
        el('p', {text: m.text}),
        el('p', {class: 'muted', text: `${m.path}, “${m.section}”`}));
  }

  // One rule as its doc states it, with the doc's other passages about it.
  function ruleCard(rule) {
    const mentions = rule.mentions || [];
    return el('section', {class: 'card rule', id: 'rule-' + rule.id},
        el('h2', {}, el('code', {text: rule.id})),
        el('p', {class: 'muted'},
            rulesetName(rule),
            rule.severity ? ` · ${rule.severity}` : ''),
        el('p', {text: rule.text}),
        el('p', {class: 'muted', text: `${rule.path}, “${rule.section}”`}),
        mentions.length ? el('h3', {text: 'Also said about it'}) : null,
        mentions.length ? el('ul', {}, mentions.map(mention)) : null);
  }

  // The list: one line a rule, grouped by ruleset, with a filter.
  function ruleList(rules, container) {
    const filter = el('input', {type: 'search', id: 'rule-filter',
                                placeholder: 'daimyo.fire'});
    const count = el('p', {class: 'muted', 'aria-live': 'polite'});
    const table = el('tbody');
    const rows = rules.map((rule) => {
      const row = el('tr', {},
          el('td', {}, Gunbai.ruleLink(rule.id)),
          el('td', {text: rule.text}));
      return {rule, row};
    });
    function refresh() {
      const query = filter.value.trim().toLowerCase();
      Gunbai.replaceChildren(table);
      let shown = 0;
      for (const {rule, row} of rows) {
        if (query && !rule.id.toLowerCase().includes(query) &&
            !rule.text.toLowerCase().includes(query)) {
          continue;
        }
        table.appendChild(row);
        shown++;
      }
      count.textContent = `${shown} of ${rows.length} rules`;
    }
    filter.addEventListener('input', refresh);
    refresh();
    container.appendChild(el('p', {},
        el('label', {for: 'rule-filter', text: 'Find a rule by id or words '}),
        filter));
    container.appendChild(count);
    container.appendChild(el('div', {class: 'table-wrap'},
        el('table', {class: 'rule-list'},
            el('thead', {}, el('tr', {},
                el('th', {text: 'Rule'}), el('th', {text: 'What gunbai checks'}))),
            table)));
  }

  Gunbai.page('rules', {
    title: 'Rules',
    mount(main, params) {
      const id = params.join('/');
      const body = el('div', {'aria-busy': 'true'});
      main.appendChild(el('h1', {text: id ? 'How gunbai reads a rule' : 'Rules'}));
      main.appendChild(body);
      const controller = new AbortController();
      Gunbai.api('/v1/rules:explain', id ? {query: id} : {list: true},
                 {signal: controller.signal})
          .then((answer) => {
            body.removeAttribute('aria-busy');
            const explanation = answer.explanation || {};
            const rules = explanation.rules || [];
            const mentions = explanation.mentions || [];
            if (!id) {
              body.appendChild(el('p', {text:
                  'Every rule gunbai checks, with the id its findings name. ' +
                  'Each reading is the project\'s own, decided from the ' +
                  'rules text where it is unclear.'}));
              ruleList(rules, body);
              return;
            }
            if (rules.length === 0 && mentions.length === 0) {
              body.appendChild(el('p', {class: 'notice'},
                  'No rules doc states or mentions ', el('code', {text: id}),
                  '. ', el('a', {href: '#/rules', text: 'See every rule'}), '.'));
              return;
            }
            if (!answer.exact) {
              body.appendChild(el('p', {class: 'muted', text:
                  `${rules.length} rules start with “${id}”.`}));
            }
            for (const rule of rules) body.appendChild(ruleCard(rule));
            if (rules.length === 0) {
              body.appendChild(el('p', {text:
                  'No table states this id; the rules docs mention it here:'}));
              body.appendChild(el('ul', {}, mentions.map(mention)));
            }
            body.appendChild(el('p', {},
                el('a', {href: '#/rules', text: 'Every rule'})));
          })
          .catch((e) => {
            if (e.name === 'AbortError') return;
            body.removeAttribute('aria-busy');
            body.appendChild(Gunbai.errorBox(e));
          });
      return () => controller.abort();
    },
  });
})();
