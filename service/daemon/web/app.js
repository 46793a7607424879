// The home page, and the router started once every page's script has
// registered its page (this script is the last the page loads).
'use strict';

Gunbai.page('home', {
  title: '',
  mount(main) {
    const {el} = Gunbai;
    main.appendChild(el('h1', {text: 'gunbai'}));
    main.appendChild(el('p', {text:
        'gunbai replays a battle log of a samurai wargame through the rules ' +
        'and gives its ruling on every action and die: what the rules ' +
        'forbid, and every result the dice do not give.'}));
    main.appendChild(el('div', {class: 'home-links'},
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/audit', text: 'Audit a log'})),
            el('p', {text: 'Open a finished game\'s log: its verdict, every ' +
                           'finding with its arithmetic, the state of every ' +
                           'unit at each event.'})),
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/ruling', text: 'A ruling'})),
            el('p', {text: 'Set up one disputed situation at the table, ' +
                           'enter the dice, and get the ruling.'})),
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/live', text: 'Live games'})),
            el('p', {text: 'Play by email or across the internet: the ' +
                           'umpire creates the game, each player signs in ' +
                           'and declares actions; gunbaid rolls the dice.'})),
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/reconcile', text: 'Two copies'})),
            el('p', {text: 'The players\' copies of a game disagree: where ' +
                           'they part, and which the rules support.'})),
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/tournament', text: 'Tournament'})),
            el('p', {text: 'Standings that rest only on results the games ' +
                           'themselves verify, and the next round paired.'})),
        el('div', {class: 'card'},
            el('h2', {}, el('a', {href: '#/rules', text: 'Rules'})),
            el('p', {text: 'Every rule gunbai checks, with its id and how ' +
                           'gunbai reads it.'}))));
    main.appendChild(el('p', {class: 'muted', text:
        'Programs use the same API as gRPC, in JSON: POST ' + location.origin +
        '/v1/audit:log and the other paths proto/README.md lists.'}));
  },
});

document.addEventListener('DOMContentLoaded', () => Gunbai.start());
