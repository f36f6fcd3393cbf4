// The chat page: the JavaScript client (served by the demo under /js/) in a few dozen lines.
// Rooms are /chat/<room>; members join and leave through /service/members, which broadcasts
// each room's member list on /members/<room>. Everything shown goes in through textContent,
// so markup in a name or a message is displayed, never run. The server escapes markup in chat
// messages too (<, > and & arrive as &lt;, &gt; and &amp;; quotes arrive as typed): the page
// turns those three entities back into the characters that were typed, then shows them as text.
//
// ?transport=long-polling (or websocket) forces a transport. A reload keeps the session: the
// reload extension resumes the clientId, and the name and room kept in sessionStorage let the
// page join again without asking. A page cut off for long (its session forgotten by the server)
// gets back the messages it missed from the room's history (the recovery extension), or says
// plainly that some are missing.
//
// With token authentication on (the demo's --token-secret), a handshake without a token is refused
// with 403:token_missing:handshake_denied: the page then gets a token from the demo's
// GET /token?user=NAME, handshakes again with it, and fetches a new one whenever the server asks
// for a refresh (TokenExtension). An application's page would get it from its own login instead.
// With --token-jwks the demo mints none: open the page as /#token=<a JWT> to bring one.
import { BayeuxClient, ReloadExtension, RecoveryExtension, TokenExtension } from '/js/index.js';

const STORED = 'bayeux-demo.chat';
const TRANSPORTS = ['websocket', 'long-polling', 'callback-polling'];
const $ = (id) => document.getElementById(id);

const forced = new URLSearchParams(location.search).get('transport');
const client = new BayeuxClient({
  url: new URL('/cometd', location.href).href,
  ...(TRANSPORTS.includes(forced) ? { transports: [forced] } : {}),
});
client.registerExtension('reload', new ReloadExtension());
const gaps = [];      // [channel, reason] of each room that could not be recovered
const recovered = []; // [channel, replayed] of each room that was
client.registerExtension('recovery', new RecoveryExtension({
  onRecovered: (channel, replayed) => recovered.push([channel, replayed]),
  onGap: (channel, reason) => {
    gaps.push([channel, reason]);
    // The member list is sent again when the page joins again; only a room's messages can go missing.
    if (me && channel === `/chat/${me.room}`) {
      line('system gap', `Some messages in ${me.room} could not be recovered (${reason}): what was said meanwhile may be missing.`);
    }
  },
}));

let me = null;     // { user, room } while in a room
let handles = null; // the room's two subscriptions

// --- connection state, shown and exposed for tests (window.chat, data-* attributes on <body>)

client.addStatusListener((status, transport) => {
  $('status').textContent = status;
  $('transport').textContent = transport || 'no transport';
  document.body.dataset.status = status;
  document.body.dataset.transport = transport || '';
  document.body.dataset.clientId = client.getClientId() || '';
});

window.chat = {
  client,
  clientId: () => client.getClientId(),
  transport: () => client.getTransport(),
  status: () => client.getStatus(),
  gaps: () => gaps.map((g) => [...g]),
  recovered: () => recovered.map((r) => [...r]),
};

// Every successful handshake: the first one enters the room; after a re-handshake (the server
// forgot the session) the client has subscribed again by itself, so only the join is repeated.
client.addListener('/meta/handshake', (reply) => {
  document.body.dataset.clientId = client.getClientId() || '';
  if (reply.successful && me) {
    if (handles) {
      join(me.room);
    } else {
      enter(me.room);
    }
  } else if (!reply.successful && me && reply.error === '403:token_missing:handshake_denied' && !client.getExtension('token')) {
    authenticateThenHandshake();
  } else if (!reply.successful && String(reply.error).startsWith('403:')) {
    note(`The server refused this page: ${reply.error}`); // e.g. 403:token_expired:handshake_denied
  }
});

// --- rooms

function enter(room) {
  me.room = room;
  sessionStorage.setItem(STORED, JSON.stringify(me));
  $('room-name').textContent = room;
  $('members').replaceChildren();
  client.batch(() => {
    handles = {
      chat: client.subscribe(`/chat/${room}`, (m) => show(m.data)),
      members: client.subscribe(`/members/${room}`, (m) => showMembers(m.data)),
    };
    join(room);
  });
  note(`You joined ${room} as ${me.user}.`);
}

function join(room) {
  client.publish('/service/members', { room: `/chat/${room}`, user: me.user, action: 'join' });
}

function exit() {
  const room = me.room;
  client.batch(() => {
    client.publish('/service/members', { room: `/chat/${room}`, user: me.user, action: 'leave' });
    client.unsubscribe(handles.chat);
    client.unsubscribe(handles.members);
  });
  handles = null;
  note(`You left ${room}.`);
}

/** A token for `user` from the demo's token page. */
async function fetchToken(user) {
  const reply = await fetch(`/token?user=${encodeURIComponent(user)}`, { cache: 'no-store' });
  if (!reply.ok) {
    throw new Error(`GET /token: ${reply.status} ${await reply.text()}`);
  }
  return (await reply.json()).token;
}

/** Sends `token` in every handshake from now on, and refreshes it from the token page when the server asks. */
function useToken(token) {
  client.registerExtension('token', new TokenExtension({
    token,
    refresh: () => fetchToken(me.user),
    onError: (reason) => note(`Token refresh failed (${reason}): the session ends when the token expires.`),
  }));
}

/** The server wants a token and the page has none: gets one from the token page, then handshakes again. */
async function authenticateThenHandshake() {
  try {
    useToken(await fetchToken(me.user));
    client.handshake();
  } catch (x) {
    note(`No token: ${x.message}`);
  }
}

function start(user, room) {
  me = { user, room };
  $('join').hidden = true;
  $('chat').hidden = false;
  const given = new URLSearchParams(location.hash.slice(1)).get('token');
  if (given && !client.getExtension('token')) {
    useToken(given);
  }
  client.handshake(); // the /meta/handshake listener enters the room
  $('message').focus();
}

function stop() {
  exit();
  client.disconnect();
  sessionStorage.removeItem(STORED);
  me = null;
  $('chat').hidden = true;
  $('join').hidden = false;
  $('log').replaceChildren();
}

// --- rendering: textContent only

function line(className, ...parts) {
  const li = document.createElement('li');
  li.className = className;
  li.append(...parts);
  $('log').append(li);
  li.scrollIntoView({ block: 'end' });
}

function note(text) {
  line('system', text);
}

const ENTITIES = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** What was typed, from the server's escaped text (shown with textContent, it stays text). */
function unescapeMarkup(text) {
  return String(text).replace(/&(lt|gt|amp);/g, (entity) => ENTITIES[entity]);
}

function show(data) {
  const name = unescapeMarkup(data && data.user);
  const user = document.createElement('span');
  user.className = 'user';
  user.textContent = name;
  line(me && name === me.user ? 'message mine' : 'message', user, unescapeMarkup(data && data.text));
}

function showMembers(names) {
  $('members').replaceChildren(...[].concat(names).map((name) => {
    const li = document.createElement('li');
    li.textContent = name;
    li.classList.toggle('me', !!me && name === me.user);
    return li;
  }));
}

// --- forms

$('join').addEventListener('submit', (event) => {
  event.preventDefault();
  start($('user').value.trim(), $('room').value.trim());
});

$('send').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('message').value;
  if (text.trim()) {
    client.publish(`/chat/${me.room}`, { user: me.user, text });
    $('message').value = '';
  }
});

$('switch').addEventListener('submit', (event) => {
  event.preventDefault();
  const room = $('new-room').value.trim();
  if (room !== me.room) {
    exit();
    enter(room);
  }
  $('new-room').value = '';
});

$('leave').addEventListener('click', stop);

// After a reload: the same name, the same room, the same session.
const stored = JSON.parse(sessionStorage.getItem(STORED) || 'null');
if (stored && stored.user && stored.room) {
  start(stored.user, stored.room);
}
