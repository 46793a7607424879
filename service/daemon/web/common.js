// What every page of gunbai's web app shares: building elements (text is
// always set as text, never parsed as markup), calling the JSON API (the
// gRPC API in proto3 JSON, POST, the credential in the Authorization
// header), reading its server-sent event streams, the page router (one
// page per `#/name` of the address) and the links of rule ids.
//
// A page registers itself with Gunbai.page(name, {title, mount}); mount
// (container, params) fills `container` and may return a function that
// the router calls when the page is left (to close a stream).
'use strict';

const Gunbai = (() => {
  // The element `tag` with `attrs` and `children`. attrs: class, text (its
  // text), on: {event: handler}, dataset: {...}, and any other attribute
  // by name (set with setAttribute; `true` sets an empty attribute, false
  // or null leaves it out). Children: nodes, or strings and numbers (made
  // text nodes), arrays of them, null and false skipped.
  function el(tag, attrs, ...children) {
    const isSvg = SVG_TAGS.has(tag);
    const node = isSvg
        ? document.createElementNS('http://www.w3.org/2000/svg', tag)
        : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'on') {
        for (const [event, handler] of Object.entries(value)) {
          node.addEventListener(event, handler);
        }
      } else if (key === 'dataset') {
        Object.assign(node.dataset, value);
      } else if (key === 'text') {
        node.textContent = String(value);
      } else if (key === 'class' && !isSvg) {
        node.className = value;
      } else if (key === 'value' && 'value' in node && !isSvg) {
        node.value = value;
      } else if (key === 'checked' && !isSvg) {
        node.checked = Boolean(value);
      } else {
        node.setAttribute(key, value === true ? '' : String(value));
      }
    }
    append(node, children);
    return node;
  }

  const SVG_TAGS = new Set(['svg', 'g', 'path', 'rect', 'circle', 'line',
                            'polyline', 'polygon', 'text', 'title', 'tspan']);

  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) {
        append(node, child);
      } else if (child instanceof Node) {
        node.appendChild(child);
      } else {
        node.appendChild(document.createTextNode(String(child)));
      }
    }
  }

  // Removes every child of `node`, then appends `children`.
  function replaceChildren(node, ...children) {
    while (node.firstChild) node.removeChild(node.firstChild);
    append(node, children);
    return node;
  }

  // An error of the API: the HTTP status and the JSON error body's gRPC
  // code name (`status`), message and details.
  class ApiError extends Error {
    constructor(httpStatus, body) {
      super((body && body.message) || `HTTP ${httpStatus}`);
      this.httpStatus = httpStatus;
      this.code = body ? body.code : undefined;
      this.status = body ? body.status : undefined;
      this.details = body ? body.details : undefined;
    }
  }

  function headers(token) {
    const h = {'Content-Type': 'application/json'};
    if (token) h.Authorization = 'Bearer ' + token;
    return h;
  }

  async function errorOf(response) {
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = {message: `HTTP ${response.status} ${response.statusText}`};
    }
    return new ApiError(response.status, body);
  }

  // Calls the unary RPC at `path` (e.g. '/v1/audit:log') with `body` (an
  // object, sent as JSON); resolves to the answer's JSON, rejects with an
  // ApiError (or a TypeError when gunbaid cannot be reached).
  async function api(path, body, options = {}) {
    const response = await fetch(path, {
      method: 'POST', headers: headers(options.token),
      body: JSON.stringify(body || {}), signal: options.signal,
      credentials: 'omit', cache: 'no-store',
    });
    if (!response.ok) throw await errorOf(response);
    return response.json();
  }

  // Calls the streaming RPC at `path` and reads its server-sent events:
  // onMessage(json) for each message; resolves with the final status
  // ({code: 0} at `event: end`), rejects with an ApiError for an error
  // status (before the stream or as its `event: error`). `options.signal`
  // (an AbortSignal) stops it: it then resolves with {aborted: true}.
  async function stream(path, body, onMessage, options = {}) {
    let response;
    try {
      response = await fetch(path, {
        method: 'POST', headers: headers(options.token),
        body: JSON.stringify(body || {}), signal: options.signal,
        credentials: 'omit', cache: 'no-store',
      });
    } catch (e) {
      if (e.name === 'AbortError') return {aborted: true};
      throw e;
    }
    if (!response.ok) throw await errorOf(response);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, {stream: true});
        let end;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          let kind = '';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) kind = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;  // A heartbeat comment.
          const json = JSON.parse(data);
          if (kind === 'end') return json;
          if (kind === 'error') throw new ApiError(200, json);
          onMessage(json);
        }
      }
    } catch (e) {
      if (e.name === 'AbortError') return {aborted: true};
      throw e;
    }
    throw new ApiError(0, {status: 'UNAVAILABLE',
      message: 'the stream ended without its last event: gunbaid stopped ' +
               'or the connection broke; reload to reconnect'});
  }

  // A message for the person at the page: the API's message, or what to do
  // when gunbaid could not be reached.
  function describeError(e) {
    if (e instanceof ApiError) {
      return e.status ? `${e.message} (${e.status})` : e.message;
    }
    return 'gunbaid could not be reached (' + String(e.message || e) +
           '): is it still running?';
  }

  function errorBox(e) {
    return el('p', {class: 'error', role: 'alert', text: describeError(e)});
  }

  // The link of a rule id to its explanation on the Rules page.
  function ruleLink(id) {
    return el('a', {href: '#/rules/' + encodeURIComponent(id),
                    class: 'rule-id mono', text: id});
  }

  // Reads a File as text (for text and JSON logs) or as base64 (binary).
  function readFileAsText(file) {
    return file.text();
  }
  async function readFileAsBase64(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  }

  // The map of a log's table, as gunbaid draws it (/v1/logs:map, the
  // picture `gunbai map` writes), in an <img> from a data: URL (an SVG in
  // an img runs no script; the page's CSP allows data: images only). One
  // request at a time: draw() while one is under way waits for it, and only
  // the newest asked for is drawn (an answer overtaken by a newer step is
  // dropped). The figure's data-state says 'drawing', 'shown' or 'error',
  // and data-seq the event drawn.
  //
  //   const map = Gunbai.mapView({id: 'step-map', pxPerCm: 5});
  //   container.appendChild(map.node);
  //   map.draw(log, 5);
  const MAP_PREFIX = 'data:image/svg+xml;charset=utf-8,';
  // The picture's layout (service/render/map_svg.h): the table is drawn 5 cm from
  // the left and 8 cm from the top, the first clan's edge at the bottom.
  const MAP_SIDE_CM = 5;
  const MAP_TITLE_CM = 8;

  // The title of an SVG document (its root's <title>), or ''.
  function svgTitle(svg) {
    try {
      const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
      for (const child of doc.documentElement.children) {
        if (child.localName === 'title') return child.textContent.trim();
      }
    } catch (e) { /* no title then */ }
    return '';
  }

  function mapView(options = {}) {
    const pxPerCm = options.pxPerCm || 5;
    const img = el('img', {class: 'map-img', alt: '', hidden: true});
    const status = el('p', {class: 'map-status muted', role: 'status'});
    const save = el('a', {class: 'map-save', hidden: true, text: 'Save picture (SVG)'});
    // Enlarge: the picture at its own size in a box that scrolls (on a
    // phone the whole table is small), and back.
    const zoom = el('button', {type: 'button', class: 'map-zoom', hidden: true,
                               'aria-pressed': 'false', text: 'Enlarge'});
    const frame = el('div', {class: 'map-frame'}, img);
    const node = el('figure', {class: 'map', id: options.id || null, dataset: {state: 'empty'}},
        frame, el('figcaption', {}, status, zoom, save));
    zoom.addEventListener('click', () => {
      const on = node.classList.toggle('zoomed');
      zoom.setAttribute('aria-pressed', on ? 'true' : 'false');
      zoom.textContent = on ? 'Fit to the width' : 'Enlarge';
    });
    let busy = false;
    let pending = null;
    let drawn = null;  // {svg, atSeq, table} of the picture shown.

    function shown(svg, ask) {
      const title = svgTitle(svg) || `The table after event ${ask.atSeq}`;
      img.src = MAP_PREFIX + encodeURIComponent(svg);
      img.alt = title;
      img.hidden = false;
      img.classList.remove('stale');
      save.href = img.src;
      save.download = (options.fileName || 'table') + `-after-${ask.atSeq}.svg`;
      save.hidden = false;
      zoom.hidden = false;
      status.textContent = '';
      status.className = 'map-status muted';
      drawn = {svg, atSeq: ask.atSeq, table: ask.log.table || {}};
      node.dataset.seq = String(ask.atSeq);
      node.dataset.state = 'shown';
    }

    function failed(e, ask) {
      img.hidden = true;
      save.hidden = true;
      zoom.hidden = true;
      drawn = null;
      status.className = 'map-status error';
      status.textContent = 'The map could not be drawn: ' +
          (e instanceof ApiError ? e.message : describeError(e));
      node.dataset.seq = String(ask.atSeq);
      node.dataset.state = 'error';
    }

    async function pump() {
      if (busy) return;
      busy = true;
      try {
        while (pending) {
          const ask = pending;
          pending = null;
          try {
            const answer = await api('/v1/logs:map',
                {log: ask.log, atSeq: String(ask.atSeq), pxPerCm});
            if (!pending) shown(answer.svg || '', ask);
          } catch (e) {
            if (!pending) failed(e, ask);
          }
        }
      } finally {
        busy = false;
      }
    }

    // Draws the table of `log` after event `atSeq` (0: before the first).
    function draw(log, atSeq) {
      pending = {log, atSeq: Number(atSeq) || 0};
      node.dataset.state = 'drawing';
      status.className = 'map-status muted';
      status.textContent = 'drawing…';
      img.classList.add('stale');
      pump();
    }

    // The table point (cm) under a click on the picture, or null: the
    // click's place in the image as displayed, scaled to the picture's own
    // pixels, then the layout above undone.
    function pointAt(clientX, clientY) {
      if (!drawn || !img.naturalWidth) return null;
      const box = img.getBoundingClientRect();
      const px = (clientX - box.left) * img.naturalWidth / box.width;
      const py = (clientY - box.top) * img.naturalHeight / box.height;
      const depth = Number(drawn.table.depthMm || 0) / 10;
      return {x: px / pxPerCm - MAP_SIDE_CM, y: MAP_TITLE_CM + depth - py / pxPerCm};
    }

    return {node, img, draw, pointAt, svg: () => (drawn ? drawn.svg : '')};
  }

  // Pages by name, and the router.
  const pages = new Map();
  let leave = null;

  function page(name, spec) {
    pages.set(name, spec);
  }

  // '#/live/game-1/x' -> {name: 'live', params: ['game-1', 'x']}.
  function route() {
    const parts = location.hash.replace(/^#\/?/, '').split('/')
        .filter((p) => p !== '').map(decodeURIComponent);
    return {name: parts[0] || 'home', params: parts.slice(1)};
  }

  function show() {
    if (leave) {
      try { leave(); } catch (e) { /* the old page is gone anyway */ }
      leave = null;
    }
    const {name, params} = route();
    const main = document.getElementById('main');
    const spec = pages.get(name) || pages.get('home');
    replaceChildren(main);
    document.title = spec.title ? `${spec.title} · gunbai` : 'gunbai';
    for (const link of document.querySelectorAll('header.site nav a')) {
      if (link.dataset.page === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    const left = spec.mount(main, params);
    if (typeof left === 'function') leave = left;
  }

  function start() {
    window.addEventListener('hashchange', () => {
      show();
      document.getElementById('main').focus();
    });
    show();
  }

  return {el, replaceChildren, api, stream, ApiError, describeError, errorBox,
          ruleLink, readFileAsText, readFileAsBase64, mapView, page, route, start};
})();
