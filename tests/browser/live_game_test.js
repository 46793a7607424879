// The Live games pages against a real gunbaid (ctest label `browser`): the
// umpire (one browser context) signs in, creates a server-dice game from
// samples/pbem/armies.textproto through the page; two players (two more
// contexts, so two browsers' storage) sign in with the credentials the page
// showed (another clan's is refused; a second tab of the same game needs no
// sign-in, and signing out in one tab signs out the other) and play six
// whole turns through their action forms: activate, fire or move, the tests
// and moves their units owe, end activation and turn. Every action is
// previewed as a sentence and sent only on "Send" (one is taken back and
// never sent); ending an activation, a turn or the game asks first. A send
// while the network is down fails with its message and the form recovers
// by itself when it is back. Each page says whose move it is; the event
// log reads as sentences with unit names; findings are coloured by
// severity. The umpire ends the game and exports it through the page: the
// real `gunbai verify` says ok, and the Audit page opens that export and
// finds it clean. A second game on a table (a generated deployment) is
// played the same way for six turns, moves given their destinations on the
// table, and its audit is clean too. A wrong credential is refused with its
// message; an order of battle with tests/browser/hostile-names.textproto's
// names is shown as text. Every state is screenshotted at 1280 and 360
// pixels.
//
// Usage: node live_game_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {launchBrowser, WIDTHS} = require('./browser.js');
const {startGunbaid} = require('./gunbaid.js');

const [gunbai, gunbaid, dataDir, outDir] = process.argv.slice(2);
if (!gunbai || !gunbaid || !dataDir || !outDir) {
  console.error('usage: node live_game_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const repo = path.resolve(__dirname, '..', '..');
const shotsDir = path.join(outDir, 'browser-screenshots');
fs.mkdirSync(shotsDir, {recursive: true});
const UMPIRE = 'umpire-credential-' + 'u'.repeat(40);

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAILED ${name}: ${e.stack || e}`);
  }
}

// A page in `context` (its own sessionStorage) with the problems
// browser.js's openPage records.
async function openIn(context, url, origin) {
  const page = await context.newPage();
  const problems = {consoleErrors: [], pageErrors: [], dialogs: [], requests: []};
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => problems.pageErrors.push(String(err)));
  page.on('dialog', async (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(origin + '/') && !u.startsWith('blob:' + origin + '/') &&
        !u.startsWith('data:')) {
      problems.requests.push(u);
    }
  });
  await page.setViewport({width: WIDTHS.desktop, height: 900});
  await page.goto(url, {waitUntil: 'load', timeout: 15000});
  return {page, problems};
}

// Screenshots of the page as it is at both widths; at 360 it must not
// scroll sideways. Ends at desktop width.
async function shots(page, name) {
  for (const [widthName, width] of Object.entries(WIDTHS)) {
    // Width only: changing isMobile would reload the page (and its state).
    await page.setViewport({width, height: 900});
    await new Promise((r) => setTimeout(r, 150));
    if (width === WIDTHS.phone) {
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(w <= 360, `${name}: the page is ${w}px wide at 360`);
    }
    await page.screenshot({path: path.join(shotsDir, `live-${name}-${widthName}.png`), fullPage: true});
  }
  await page.setViewport({width: WIDTHS.desktop, height: 900});
}

// The deliberately wrong credentials' refusals (403), the refused hostile
// game id (400) and, on a gunbaid without /v1/games:legalActions, its 404
// (asked once a page) are the only failed loads the browser may log.
function noProblems(problems) {
  assert.deepEqual(problems.consoleErrors.filter((m) =>
      !/^Failed to load resource: the server responded with a status of 40[034]/.test(m)), []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.dialogs, []);
  assert.deepEqual(problems.requests, []);
}

const textOf = (page, sel) => page.$eval(sel, (n) => n.textContent);
const seqsShown = (page) => page.$$eval('.events .live-event',
    (items) => items.map((i) => Number(i.dataset.seq)).sort((a, b) => a - b));

async function waitForSeq(page, seq, timeout = 10000) {
  await page.waitForFunction((s) => [...document.querySelectorAll('.events .live-event')]
      .some((i) => Number(i.dataset.seq) === s), {timeout}, seq);
}

// Signs in through the form with the keyboard: the field has the focus
// when the page opens; Enter submits.
async function signIn(page, token) {
  await page.waitForSelector('#live-credential');
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
  assert.equal(focused, 'live-credential', 'the credential field has the focus');
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
}

// Waits until the page has no refresh or send under way or due.
async function settled(page) {
  await page.waitForFunction(() => document.getElementById('main').dataset.busy === '0',
                             {timeout: 10000});
}

// Presses the button `sel` with the keyboard (focus, Enter) once the page
// has settled.
async function press(page, sel) {
  await page.waitForSelector(sel, {timeout: 10000});
  await settled(page);
  await page.focus(sel);
  await page.keyboard.press('Enter');
}

// Waits until the action form is drawn for the current version, then
// returns the offered actions as {kind, unit, target}.
async function offered(page) {
  await page.waitForSelector('.actions .action-groups, .actions .waiting', {timeout: 10000});
  await settled(page);
  return page.$$eval('.actions button.action', (bs) => bs.map((b) => ({
    kind: b.dataset.kind, unit: b.dataset.unit, target: b.dataset.target})));
}

// Presses the offered action of `kind` (and `unit`): its preview appears
// (a sentence per event); `Send` sends it. Waits for the reply; returns the
// reply box's text, or null when `mayFail` and gunbaid refused it (the
// refusal is then cleared).
async function act(page, kind, unit, mayFail = false) {
  const sel = `.actions button.action[data-kind="${kind}"]` + (unit ? `[data-unit="${unit}"]` : '');
  await page.$eval('.reply-area', (n) => { n.textContent = ''; });
  await press(page, sel);
  await page.waitForSelector('.pending-box .pending .confirm-send', {timeout: 10000});
  const sentence = await textOf(page, '.pending-box .pending-sentence');
  assert.ok(sentence.length > 5 && !/RANGE_BAND|standsFiring|MORALE_RESULT/.test(sentence),
            `the preview reads as a sentence: ${sentence}`);
  if (kind === 'turn_end') {
    assert.match(await textOf(page, '.pending-box .pending h2'), /End your activation/);
  }
  await press(page, '.pending-box .confirm-send');
  await page.waitForSelector('.reply-area .reply, .reply-area .error', {timeout: 10000});
  const error = await page.$('.reply-area .error');
  if (error) {
    const text = await textOf(page, '.reply-area .error');
    if (!mayFail) throw new Error('the append was refused: ' + text);
    await settled(page);
    return null;
  }
  // The form is drawn again after the refresh.
  await settled(page);
  return textOf(page, '.reply-area .reply');
}

// What both players' units owe now (tests, result moves, removals, leader
// rolls), taken on each player's page until nothing is owed. Each page
// must first show the last event appended (it arrives by the watch).
const OWED = ['morale', 'result_move', 'removal', 'leader_loss', 'melee'];
let players = {};
let clansInPlay = [];
async function settleOwed() {
  for (let round = 0; round < 20; round++) {
    let took = false;
    const last = Math.max(0, ...(await Promise.all(clansInPlay.map((c) => seqsShown(players[c].page)))).flat());
    for (const clan of clansInPlay) {
      const p = players[clan].page;
      await waitForSeq(p, last);
      await settled(p);
      const actions = await offered(p);
      const owed = actions.find((a) => OWED.includes(a.kind));
      if (!owed) continue;
      const reply = await act(p, owed.kind, owed.unit);
      assert.ok(reply.length > 0);
      took = true;
    }
    if (!took) return;
  }
  throw new Error('the owed tests and moves did not end');
}

// One clan's part of a turn through its page: activate, fire (odd turns,
// when a volley is offered) or move, what is owed, end activation and turn.
// On a table a move goes to the destination the form proposes (straight
// ahead by half its reach); one gunbaid refuses is skipped. With `charge`,
// a charge the form offers with its contact pose is made instead (the
// first gunbaid takes); its tests, melee round and result moves are then
// owed. Returns whether a charge was made.
async function playTurn(page, clan, turn, charge = false) {
  let actions = await offered(page);
  assert.ok(actions.some((a) => a.kind === 'activation'),
      `${clan} turn ${turn}: activation offered (${JSON.stringify(actions)})`);
  assert.match(await textOf(page, '.turn-banner'), /Your move/);
  await act(page, 'activation');
  await settleOwed();
  actions = await offered(page);
  const fire = actions.find((a) => a.kind === 'fire');
  const move = actions.find((a) => a.kind === 'move');
  let reply = null;
  let charged = false;
  if (fire && turn % 2 === 1) {
    // One stand fires (the chooser offers 1 to the unit's stands).
    const sel = `.actions button.action[data-kind="fire"][data-unit="${fire.unit}"]`;
    await page.$eval(sel, (b) => {
      const s = b.parentElement.querySelector('select.stands');
      s.value = '1';
    });
    reply = await act(page, 'fire', fire.unit);
    assert.match(reply, /dice: \d/, `${clan}'s firing shows the server's dice`);
  } else if (charge) {
    // The charges whose form carries a destination (x, y, facing), each
    // tried until one is taken.
    const charges = await page.$$eval('.actions button.action[data-kind="charge"]', (bs) =>
        bs.filter((b) => b.parentElement.querySelector('.dest-x'))
          .map((b) => ({unit: b.dataset.unit, target: b.dataset.target,
                        x: b.parentElement.querySelector('.dest-x').value,
                        y: b.parentElement.querySelector('.dest-y').value})));
    assert.ok(charges.length > 0, `${clan} turn ${turn}: charges are offered with a destination`);
    for (const c of charges) {
      const sel = `.actions button.action[data-kind="charge"][data-unit="${c.unit}"][data-target="${c.target}"]`;
      if (!await page.$(sel)) continue;
      await page.$eval('.reply-area', (n) => { n.textContent = ''; });
      await press(page, sel);
      await page.waitForSelector('.pending-box .pending .confirm-send', {timeout: 10000});
      const sentence = await textOf(page, '.pending-box .pending-sentence');
      assert.match(sentence, /charges/, sentence);
      await press(page, '.pending-box .confirm-send');
      await page.waitForSelector('.reply-area .reply, .reply-area .error', {timeout: 10000});
      await settled(page);
      if (!await page.$('.reply-area .error')) {
        charged = true;
        break;
      }
    }
  } else if (move) {
    reply = await act(page, 'move', move.unit, /*mayFail=*/true);
  }
  if (turn === 1 || turn === 4) await shots(page, `${clan}-turn${turn}-acted`);
  await settleOwed();
  reply = await act(page, 'turn_end');
  await settleOwed();
  return charged;
}

function runGunbai(args, env) {
  try {
    return {stdout: execFileSync(gunbai, args, {encoding: 'utf8', env: {...process.env, ...env}}), code: 0};
  } catch (e) {
    return {stdout: String(e.stdout || '') + String(e.stderr || ''), code: e.status};
  }
}

(async () => {
  // gunbaid signs each turn's checkpoint with a key `gunbai key` made; the
  // players cosign in their pages (WebCrypto), and gunbai checks them.
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-key-'));
  const daemonKeyFile = path.join(keyDir, 'daemon.key');
  const made = runGunbai(['key', '--new=gunbaid.browser', '-o', daemonKeyFile]);
  assert.equal(made.code, 0, made.stdout);
  const daemonKey = made.stdout.trim();
  const daemon = await startGunbaid(gunbaid, {umpireToken: UMPIRE,
                                              args: ['--signing-key-file', daemonKeyFile]});
  const origin = daemon.httpUrl;
  const browser = await launchBrowser();
  try {
    const umpireContext = await browser.createBrowserContext();
    const {page: ump, problems: umpProblems} = await openIn(umpireContext, origin + '/#/live', origin);

    await check('umpire: a wrong credential is refused with its message', async () => {
      await shots(ump, 'umpire-sign-in');
      await signIn(ump, 'not-the-umpire-credential-at-all');
      await ump.waitForSelector('.sign-in .error', {timeout: 10000});
      const text = await textOf(ump, '.sign-in .error');
      assert.match(text, /not accepted/);
      assert.match(text, /PERMISSION_DENIED|UNAUTHENTICATED/);
      await shots(ump, 'umpire-wrong-credential');
      // The browser logs the refused request (403) as a console error: that
      // one is expected here.
      umpProblems.consoleErrors = umpProblems.consoleErrors.filter((m) => !/status of 40[13]/.test(m));
      await ump.$eval('#live-credential', (n) => { n.value = ''; n.focus(); });
    });

    // Creates a server-dice game from `file` through the umpire's page;
    // returns {gameId, creds: {clan: {clan, token, link}}}.
    async function createGame(file, label) {
      await ump.goto(`${origin}/#/live`, {waitUntil: 'load'});
      await ump.waitForSelector('#live-oob', {timeout: 10000});
      assert.equal(await ump.$eval('#live-dice', (s) => s.value), 'DICE_MODE_SERVER');
      await ump.$eval('.created', (n) => { n.textContent = ''; }).catch(() => {});
      const input = await ump.$('#live-oob');
      await input.uploadFile(file);
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created-game', {timeout: 10000});
      const gameId = await textOf(ump, '.created-id');
      // gunbaid names a game whose file has no game id; else the file's.
      assert.match(gameId, /^(game-|generated-)/);
      const items = await ump.$$eval('.credential-item', (li) => li.map((i) => ({
        clan: i.dataset.clan, token: i.querySelector('input.credential').value,
        link: i.querySelector('a.player-link').href})));
      const creds = {};
      for (const i of items) {
        creds[i.clan] = i;
        assert.ok(i.token.length >= 16);
        assert.ok(!i.link.includes(i.token), 'the link does not carry the credential');
        assert.equal(i.link, `${origin}/#/live/${gameId}/${i.clan}`);
      }
      await ump.waitForFunction((g) => [...document.querySelectorAll('.game-link')]
          .some((a) => a.textContent === g), {timeout: 10000}, gameId);
      await shots(ump, `umpire-created-${label}`);
      return {gameId, creds};
    }

    // The umpire starts turn 1 (confirming it) on the game's page.
    async function startFirstTurn(gameId) {
      await ump.goto(`${origin}/#/live/${gameId}/umpire`, {waitUntil: 'load'});
      await ump.waitForSelector('.actions .start-turn', {timeout: 10000});
      await press(ump, '.actions .start-turn');
      await ump.waitForSelector('.pending-box .confirm-send', {timeout: 10000});
      assert.match(await textOf(ump, '.pending-box h2'), /Start turn 1\?/);
      await press(ump, '.pending-box .confirm-send');
      await waitForSeq(ump, 1);
    }

    // Six turns: in each, the clan with the initiative plays its part, then
    // the other (gunbaid rolls the next turn's start when the last ends).
    const chargedBy = new Set();
    async function playSixTurns(label) {
      for (let turn = 1; turn <= 6; turn++) {
        const first = await textOf(players[clansInPlay[0]].page, '.state-line dd:nth-of-type(3)');
        const order = clansInPlay.slice().sort((a, b) =>
            (first.includes(`(${b})`) ? 1 : 0) - (first.includes(`(${a})`) ? 1 : 0));
        for (const clan of order) {
          const p = players[clan].page;
          const other = players[order.find((c) => c !== clan)].page;
          await settled(p);
          if (clan === order[1]) {
            // The first clan's turn_end reached this page live.
            const last = Math.max(...await seqsShown(other));
            await waitForSeq(p, last);
          }
          // On the table, from turn 2, a clan that has not charged yet
          // charges: the charge goes to the contact the form offers.
          const charge = label === 'table' && turn >= 2 && !chargedBy.has(clan);
          if (await playTurn(p, clan, turn, charge)) chargedBy.add(clan);
        }
        await players[order[0]].page.waitForFunction((t) => document.querySelector('.state-turn') &&
            document.querySelector('.state-turn').textContent === String(t), {timeout: 10000}, turn + 1);
        if (turn === 1) await shots(players[order[0]].page, `${label}-turn2-started`);
      }
    }

    // The umpire ends the game (confirming it) and exports it through the
    // page; `gunbai verify` says ok, and the Audit page opens the export and
    // finds the game clean. Returns the export's path.
    async function endExportAudit(gameId, label) {
      await ump.goto(`${origin}/#/live/${gameId}/umpire`, {waitUntil: 'load'});
      await ump.waitForSelector('.actions .end-game', {timeout: 10000});
      await shots(ump, `umpire-${label}-before-end`);
      assert.equal(await ump.$('.all-findings .findings-none') !== null, true,
                   'the umpire sees no findings');
      await press(ump, '.actions .end-game');
      await ump.waitForSelector('.pending-box .confirm-send', {timeout: 10000});
      assert.match(await textOf(ump, '.pending-box h2'), /End the game\?/);
      await press(ump, '.pending-box .confirm-send');
      await ump.waitForFunction(() => document.querySelector('.state-over') &&
          document.querySelector('.state-over').textContent === 'yes', {timeout: 10000});
      const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-live-'));
      const cdp = await ump.createCDPSession();
      await cdp.send('Page.setDownloadBehavior', {behavior: 'allow', downloadPath: downloads});
      await press(ump, '.actions .export');
      await ump.waitForSelector('.export-link', {timeout: 10000});
      const want = await ump.$eval('.export-link', (a) => a.getAttribute('download'));
      const exportFile = path.join(downloads, want);
      for (let i = 0; i < 100 && !fs.existsSync(exportFile); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(fs.existsSync(exportFile), `the page's download ${want} arrived`);
      const text = fs.readFileSync(exportFile, 'utf8');
      await shots(ump, `umpire-${label}-ended-exported`);
      const verified = runGunbai(['verify', exportFile]);
      assert.equal(verified.code, 0, `gunbai verify: ${verified.stdout}`);
      assert.match(verified.stdout, /^ok/m);
      const shown = (await seqsShown(ump)).length;
      const cli = runGunbai(['game', 'export', `--server=${daemon.grpcAddr}`, `--game=${gameId}`],
                            {GUNBAI_TOKEN: UMPIRE});
      assert.equal(cli.code, 0, cli.stdout);
      const events = JSON.parse(text).log.events.length;
      assert.equal(shown, events);
      assert.equal((cli.stdout.match(/^\s*events \{/gm) || []).length, events,
                   'the CLI export has the same events');
      // Six turns: at least an activation and a turn_end a clan a turn.
      assert.ok(events >= 6 * 4, `${events} events in six turns`);
      // The Audit page opens the export the live page wrote.
      await ump.goto(`${origin}/#/audit`, {waitUntil: 'load'});
      await ump.waitForSelector('#audit-file', {timeout: 10000});
      await (await ump.$('#audit-file')).uploadFile(exportFile);
      await ump.waitForSelector('#audit-result .verdict, #audit-result .error', {timeout: 20000});
      const error = await ump.$('#audit-result .error');
      assert.equal(error, null, error ? await textOf(ump, '#audit-result .error') : '');
      assert.match(await textOf(ump, '#audit-result .verdict'), /^Clean/);
      await shots(ump, `audit-of-${label}-export`);
      noProblems(umpProblems);
      return exportFile;
    }

    let game1 = null;
    await check('umpire: signs in, creates a server-dice game from armies.textproto', async () => {
      await signIn(ump, UMPIRE);
      await ump.waitForSelector('#live-oob', {timeout: 10000});
      await shots(ump, 'umpire-signed-in');
      game1 = await createGame(path.join(repo, 'samples', 'pbem', 'armies.textproto'), 'pbem');
      assert.deepEqual(Object.keys(game1.creds), ['oda', 'asai']);
      noProblems(umpProblems);
    });
    const creds = game1.creds;
    const gameId = game1.gameId;
    clansInPlay = ['oda', 'asai'];

    // Each player's page, in its own context.
    for (const clan of clansInPlay) {
      const context = await browser.createBrowserContext();
      players[clan] = await openIn(context, creds[clan].link, origin);
      players[clan].context = context;
    }

    await check('a player: a wrong credential, and another clan\'s, are refused with their message', async () => {
      const p = players.asai.page;
      await signIn(p, creds.oda.token.slice(0, -4) + 'beef');
      await p.waitForSelector('.sign-in .error', {timeout: 10000});
      assert.match(await textOf(p, '.sign-in .error'), /not accepted/);
      await shots(p, 'player-wrong-credential');
      await p.$eval('#live-credential', (n) => { n.value = ''; n.focus(); });
      await p.$eval('.sign-in-status', (n) => { n.textContent = ''; });
      // Oda's real credential on Asai's page.
      await signIn(p, creds.oda.token);
      await p.waitForSelector('.sign-in .error', {timeout: 10000});
      assert.match(await textOf(p, '.sign-in .error'), /this clan/);
      assert.match(await textOf(p, '.sign-in .error'), /PERMISSION_DENIED/);
      await shots(p, 'player-other-clans-credential');
      players.asai.problems.consoleErrors = players.asai.problems.consoleErrors
          .filter((m) => !/status of 40[13]/.test(m));
      await p.$eval('#live-credential', (n) => { n.value = ''; n.focus(); });
    });

    await check('umpire starts turn 1 (asked first); players sign in and see it', async () => {
      await startFirstTurn(gameId);
      await shots(ump, 'umpire-turn1-started');
      for (const clan of clansInPlay) {
        const p = players[clan].page;
        await signIn(p, creds[clan].token);
        await waitForSeq(p, 1);
        assert.equal(await textOf(p, '.state-turn'), '1');
        // The banner is written when the legal-action list comes, after
        // the events (slow under ASan): wait for it.
        await p.waitForFunction(() => /Your move|Not your move/.test(
            (document.querySelector('.turn-banner') || {}).textContent || ''), {timeout: 20000});
        assert.match(await textOf(p, '.turn-banner'), /Your move|Not your move/);
      }
      await shots(players.oda.page, 'player-turn1-start');
    });

    await check('one sign-in holds for a second tab of the game; signing out there signs out both', async () => {
      const second = await players.oda.context.newPage();
      await second.setViewport({width: WIDTHS.desktop, height: 900});
      await second.goto(creds.oda.link, {waitUntil: 'load'});
      await second.waitForSelector('.turn-banner', {timeout: 10000});
      assert.equal(await second.$('#live-credential'), null, 'no sign-in form in the second tab');
      await shots(second, 'player-second-tab');
      await second.click('.sign-out');
      await players.oda.page.waitForSelector('#live-credential', {timeout: 10000});
      await second.close();
      await signIn(players.oda.page, creds.oda.token);
      await waitForSeq(players.oda.page, 1);
    });

    await check('an action is previewed and can be taken back; nothing is sent', async () => {
      const p = players.oda.page;
      await settled(p);
      const before = (await seqsShown(p)).length;
      await press(p, '.actions button.action[data-kind="activation"]');
      await p.waitForSelector('.pending-box .take-back', {timeout: 10000});
      assert.match(await textOf(p, '.pending-box .pending-sentence'), /Oda is activated\./);
      await shots(p, 'player-preview');
      await press(p, '.pending-box .take-back');
      await p.waitForFunction(() => !document.querySelector('.pending-box .pending'), {timeout: 5000});
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await seqsShown(p)).length, before, 'nothing was appended');
    });

    await check('a send while the network is down fails with its message; the form recovers', async () => {
      const p = players.oda.page;
      await settled(p);
      await press(p, '.actions button.action[data-kind="activation"]');
      await p.waitForSelector('.pending-box .confirm-send', {timeout: 10000});
      await p.setOfflineMode(true);
      await p.$eval('.reply-area', (n) => { n.textContent = ''; });
      await p.focus('.pending-box .confirm-send');
      await p.keyboard.press('Enter');
      await p.waitForSelector('.reply-area .error', {timeout: 10000});
      await shots(p, 'player-offline-send');
      await p.setOfflineMode(false);
      // The page tries again by itself: the form comes back, still offering
      // the activation (nothing was written).
      await p.waitForSelector('.actions button.action[data-kind="activation"]:not([disabled])',
                              {timeout: 15000});
      await settled(p);
      players.oda.problems.consoleErrors = players.oda.problems.consoleErrors
          .filter((m) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|net::/.test(m));
    });

    await check('six turns: each clan activates, acts, pays what it owes and ends its part; the other sees it live', async () => {
      await playSixTurns('pbem');
      const sentences = await players.asai.page.$$eval('.events .event-sentence', (n) => n.map((x) => x.textContent));
      assert.ok(sentences.some((t) => /Oda is activated\./.test(t)), sentences.join('\n'));
      assert.ok(sentences.some((t) => /fires 1 stand at .*\(asai-|fires 1 stand at .*\(oda-/.test(t)),
                sentences.join('\n'));
      assert.ok(!sentences.some((t) => /RANGE_BAND|standsFiring|MORALE_RESULT/.test(t)));
      const findingClasses = await players.asai.page.$$eval('.events .finding',
          (n) => n.map((x) => x.className));
      for (const c of findingClasses) assert.match(c, /sev-/);
      await shots(players.asai.page, 'player-after-six-turns');
    });

    await check('each player cosigns turn 1 in the page (WebCrypto); the umpire sees it agreed; gunbai opens the note with the three keys', async () => {
      // Asai first: the umpire's page then shows turn 1 waiting for oda.
      for (const clan of ['asai', 'oda']) {
        const p = players[clan].page;
        await p.waitForSelector('.checkpoints .cosign[data-turn="1"]', {timeout: 15000});
        await press(p, '.checkpoints .cosign[data-turn="1"]');
        await p.waitForFunction(() => {
          const li = document.querySelector('.checkpoints li[data-turn="1"]');
          return li && !li.querySelector('.cosign') && /cosigned by/.test(li.textContent);
        }, {timeout: 15000});
        if (clan === 'asai') {
          await ump.reload({waitUntil: 'load'});
          await ump.waitForSelector('.checkpoints li[data-turn="1"]', {timeout: 15000});
          assert.match(await textOf(ump, '.checkpoints li[data-turn="1"]'),
                       /waiting for oda \(cosigned by asai\)/);
          await shots(ump, 'umpire-turn1-waiting-for-oda');
        }
      }
      await players.oda.page.waitForSelector('.checkpoints li[data-turn="1"].cp-agreed', {timeout: 15000});
      await shots(players.oda.page, 'player-turn1-agreed');
      const list = runGunbai(['game', 'checkpoints', `--server=${daemon.grpcAddr}`, `--game=${gameId}`],
                             {GUNBAI_TOKEN: UMPIRE});
      assert.equal(list.code, 0, list.stdout);
      assert.match(list.stdout, /^turn 1: \d+ events, root [0-9a-f]{64}; agreed \(cosigned by oda, asai\)$/m);
      // The browser's signatures, checked by gunbai (OpenSSL), not by the page.
      const got = runGunbai(['game', 'checkpoint', `--server=${daemon.grpcAddr}`, `--game=${gameId}`,
                             '--turn=1', '--format=json', `--daemon-key=${daemonKey}`],
                            {GUNBAI_TOKEN: UMPIRE});
      assert.equal(got.code, 0, got.stdout);
      const answer = JSON.parse(got.stdout.slice(0, got.stdout.lastIndexOf('}') + 1));
      const keys = answer.player_keys.map((k) => k.verifier_key);
      assert.deepEqual(answer.player_keys.map((k) => k.clan).sort(), ['asai', 'oda']);
      assert.ok(keys.every((k) => /^(oda|asai)\.browser\+[0-9a-f]{8}\+/.test(k)), keys.join());
      const noteFile = path.join(keyDir, 'turn1.note');
      fs.writeFileSync(noteFile, answer.cosigned_checkpoint);
      const opened = runGunbai(['key', `--open=${noteFile}`, `--verifier=${daemonKey}`,
                                ...keys.map((k) => `--verifier=${k}`)]);
      assert.equal(opened.code, 0, opened.stdout);
      assert.match(opened.stdout, new RegExp(`^gunbaid\\.browser/${gameId}\n`));
      noProblems(umpProblems);
    });

    await check('umpire ends the game (asked first), exports it; gunbai verify says ok; the Audit page finds it clean', async () => {
      await endExportAudit(gameId, 'pbem');
    });

    await check('players see the end of the game; no problems on their pages', async () => {
      for (const clan of clansInPlay) {
        const p = players[clan].page;
        await p.waitForFunction(() => document.querySelector('.state-over') &&
            document.querySelector('.state-over').textContent === 'yes', {timeout: 10000});
        await p.waitForSelector('.actions .waiting', {timeout: 10000});
        noProblems(players[clan].problems);
      }
      await shots(players.asai.page, 'player-game-ended');
    });

    await check('a game on a table: six turns with moves given their destinations and charges into contact; the audit is clean', async () => {
      // The generator's deployment on a 180 x 120 cm table (its events are
      // not read: the page takes the header, armies, table and terrain).
      const deployment = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-live-')),
                                   'table.textproto');
      const made = runGunbai(['generate', '--seed=5', '--turns=1', '--units=3', '--positions',
                              '-o', deployment]);
      assert.equal(made.code, 0, made.stdout);
      const game2 = await createGame(deployment, 'table');
      clansInPlay = Object.keys(game2.creds);
      for (const clan of clansInPlay) {
        const context = await browser.createBrowserContext();
        players[clan] = await openIn(context, game2.creds[clan].link, origin);
        players[clan].context = context;
      }
      await startFirstTurn(game2.gameId);
      for (const clan of clansInPlay) {
        await signIn(players[clan].page, game2.creds[clan].token);
        await waitForSeq(players[clan].page, 1);
        await players[clan].page.waitForSelector('#live-map[data-state="shown"]', {timeout: 15000});
      }
      const p = players[clansInPlay[0]].page;
      await playSixTurns('table');
      const moved = await p.$$eval('.events .event-sentence', (n) =>
          n.map((x) => x.textContent).filter((t) => / moves (\d+ mm )?to -?\d+, -?\d+ cm/.test(t)));
      assert.ok(moved.length > 0, 'some move went to a destination on the table');
      assert.ok(chargedBy.size > 0, 'a charge was made to the contact the form offered');
      const charges = await p.$$eval('.events .event-sentence', (n) =>
          n.map((x) => x.textContent).filter((t) => / charges /.test(t)));
      assert.ok(charges.length > 0, 'the charge is in the game\'s events');
      await shots(p, 'table-after-six-turns');
      await endExportAudit(game2.gameId, 'table');
      for (const clan of clansInPlay) noProblems(players[clan].problems);
    });

    await check('hostile names are shown as text', async () => {
      await ump.goto(`${origin}/#/live`, {waitUntil: 'load'});
      await ump.waitForSelector('#live-oob', {timeout: 10000});
      // The file as it is: gunbaid refuses its game id (the game gets an id
      // from gunbaid), and the page shows the refusal, the id as text.
      const hostile = path.join(repo, 'tests', 'browser', 'hostile-names.textproto');
      await (await ump.$('#live-oob')).uploadFile(hostile);
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created .error', {timeout: 10000});
      assert.match(await textOf(ump, '.created .error'), /game id/);
      await shots(ump, 'umpire-hostile-refused');
      // Without the game id line: created, every other name kept.
      const noId = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-live-')), 'hostile.textproto');
      fs.writeFileSync(noId, fs.readFileSync(hostile, 'utf8').replace(/^\s*game_id:.*$/m, ''));
      await (await ump.$('#live-oob')).uploadFile(noId);
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created-game', {timeout: 10000});
      const names = await ump.$$eval('.created .clan-name, .created .player-name, .created .error',
                                     (n) => n.map((x) => x.textContent).join('\n'));
      const scripts = await ump.evaluate(() => document.querySelectorAll('main script, main img, main b').length);
      assert.equal(scripts, 0, 'no markup from the names');
      await shots(ump, 'umpire-hostile-created');
      if (await ump.$('.created-game')) {
        assert.ok(names.includes('<script>alert(1)</script>'), names);
        assert.ok(names.includes('Western & <b>Army</b>'), names);
        assert.ok(names.includes('Aiko "the \'Quoter\'" & co'), names);
        await ump.click('.umpire-game-link');
        await ump.waitForSelector('.live-units', {timeout: 10000});
        const table = await textOf(ump, '.live-units');
        assert.ok(table.includes('tok-<script>alert(3)</script>'), table);
        assert.ok(table.includes('<img src=x onerror=alert(2)> "Yumi" & \'Co\''), table);
        assert.equal(await ump.evaluate(() => document.querySelectorAll('main script, main img').length), 0);
        await shots(ump, 'umpire-hostile-game');
      } else {
        // gunbaid refused the header's game id: its message names it, as text.
        assert.ok(names.includes('<script>'), names);
      }
      noProblems(umpProblems);
    });
  } finally {
    await browser.close();
    await daemon.stop();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
