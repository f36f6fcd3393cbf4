// A minimal long-polling Bayeux client for the demo page; the full JavaScript client replaces it.
(function () {
  'use strict';
  var endpoint = new URL('cometd', document.baseURI).toString();
  var clientId = null, nextId = 0, connected = false, room = null, user = null;
  var $ = function (id) { return document.getElementById(id); };

  function status(text) { $('status').textContent = text; }

  function log(text, system) {
    var p = document.createElement('p');
    p.textContent = text; // textContent: markup is shown, never run
    if (system) { p.className = 'system'; }
    $('log').appendChild(p);
    $('log').scrollTop = $('log').scrollHeight;
  }

  function send(messages) {
    messages.forEach(function (m) {
      m.id = String(++nextId);
      if (clientId && m.channel !== '/meta/handshake') { m.clientId = clientId; }
    });
    return fetch(endpoint, {
      method: 'POST', credentials: 'include',
      headers: { 'Content-Type': 'application/json;charset=UTF-8' },
      body: JSON.stringify(messages)
    }).then(function (r) {
      if (!r.ok) { throw new Error('HTTP ' + r.status); }
      return r.json();
    }).then(function (replies) { replies.forEach(receive); return replies; });
  }

  function receive(message) {
    if (message.channel === '/meta/connect' || message.channel === '/meta/handshake') { return; }
    if (message.data === undefined) {
      if (message.successful === false) { log('Error: ' + message.error, true); }
      return;
    }
    if (room && message.channel === '/chat/' + room) {
      log(message.data.user + ': ' + message.data.text);
    } else if (room && message.channel === '/members/' + room) {
      $('members').textContent = message.data.join(', ') || '-';
    }
  }

  function handshake() {
    status('handshaking...');
    return send([{ channel: '/meta/handshake', version: '1.0', supportedConnectionTypes: ['long-polling'] }])
      .then(function (replies) {
        var reply = replies[0];
        if (!reply.successful) { throw new Error(reply.error); }
        clientId = reply.clientId;
        connected = true;
        status('connected (long-polling)');
        connect();
      });
  }

  function connect() {
    if (!connected) { return; }
    send([{ channel: '/meta/connect', connectionType: 'long-polling' }]).then(function (replies) {
      var reply = replies[replies.length - 1];
      if (reply.successful === false && reply.advice && reply.advice.reconnect === 'handshake') {
        connected = false;
        return handshake().then(rejoin);
      }
      var interval = reply.advice && reply.advice.interval || 0;
      setTimeout(connect, interval);
    }).catch(function () {
      status('reconnecting...');
      setTimeout(connect, 2000);
    });
  }

  function rejoin() {
    if (room) { join(room, user); }
  }

  function join(name, who) {
    room = name; user = who;
    return send([
      { channel: '/meta/subscribe', subscription: '/chat/' + room },
      { channel: '/meta/subscribe', subscription: '/members/' + room },
      { channel: '/service/members', data: { room: '/chat/' + room, user: user, action: 'join' } }
    ]).then(function () {
      log('You joined ' + room, true);
      $('text').disabled = $('send').disabled = $('leave').disabled = false;
      $('join').disabled = true;
    });
  }

  $('join').onclick = function () {
    var who = $('user').value.trim(), name = $('room').value.trim() || 'lobby';
    if (!who) { $('user').focus(); return; }
    (clientId ? Promise.resolve() : handshake()).then(function () { return join(name, who); })
      .catch(function (e) { status('failed: ' + e.message); });
  };

  $('leave').onclick = function () {
    var left = room;
    send([
      { channel: '/service/members', data: { room: '/chat/' + left, user: user, action: 'leave' } },
      { channel: '/meta/unsubscribe', subscription: '/chat/' + left },
      { channel: '/meta/unsubscribe', subscription: '/members/' + left }
    ]);
    room = null;
    log('You left ' + left, true);
    $('members').textContent = '-';
    $('text').disabled = $('send').disabled = $('leave').disabled = true;
    $('join').disabled = false;
  };

  function sendText() {
    var text = $('text').value;
    if (!text || !room) { return; }
    send([{ channel: '/chat/' + room, data: { user: user, text: text } }]);
    $('text').value = '';
  }
  $('send').onclick = sendText;
  $('text').onkeydown = function (e) { if (e.key === 'Enter') { sendText(); } };
}());
