// The ruling page: written on its own branch; until then it says so.
'use strict';

Gunbai.page('ruling', {
  title: 'ruling',
  mount(main) {
    main.appendChild(Gunbai.el('p', {class: 'notice', text: 'This page is not written yet.'}));
  },
});
