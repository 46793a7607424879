// The Rules page: every rule gunbai checks, or one rule's reading
// (#/rules/ID), from the rules docs through /v1/rules:explain.
'use strict';

Gunbai.page('rules', {
  title: 'Rules',
  mount(main) {
    main.appendChild(Gunbai.el('p', {class: 'notice', text: 'Loading the rules…'}));
  },
});
