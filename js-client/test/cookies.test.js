// The cookie jar used where no browser keeps cookies (Node): RFC 6265 storage and matching.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CookieJar, setCookieHeaders, hasBrowserCookieStore, defaultPath, pathMatch, domainMatch } from '../src/cookies.js';
import { mergeConfig } from '../src/config.js';
import { DEFAULTS } from '../src/defaults.js';

function jarAt(start = Date.UTC(2030, 0, 1)) {
  const clock = { now: start };
  return { jar: new CookieJar({ now: () => clock.now }), clock };
}

describe('cookie jar', () => {
  it('sends a cookie back to the host that set it, on every path under its path', () => {
    const { jar } = jarAt();
    jar.store('http://127.0.0.1:8080/cometd/handshake', 'BAYEUX_BROWSER=abc123; Path=/; HttpOnly; SameSite=Lax');
    assert.equal(jar.header('http://127.0.0.1:8080/cometd/connect'), 'BAYEUX_BROWSER=abc123');
    assert.equal(jar.header('ws://127.0.0.1:8080/cometd'), 'BAYEUX_BROWSER=abc123', 'the WebSocket upgrade too');
    assert.equal(jar.header('http://127.0.0.1:9090/other'), 'BAYEUX_BROWSER=abc123', 'cookies ignore the port (RFC 6265 8.5)');
    assert.equal(jar.header('http://127.0.0.2:8080/cometd'), '', 'not to another host');
    assert.equal(jar.header('http://localhost:8080/cometd'), '', 'not to another name of the host');
  });

  it('a cookie without Domain is host-only; with Domain it reaches the subdomains', () => {
    const { jar } = jarAt();
    jar.store('https://www.example.com/', ['host=1', 'wide=2; Domain=.Example.com']);
    assert.equal(jar.header('https://www.example.com/'), 'host=1; wide=2');
    assert.equal(jar.header('https://api.example.com/'), 'wide=2');
    assert.equal(jar.header('https://example.com/'), 'wide=2');
    assert.equal(jar.header('https://notexample.com/'), '');
  });

  it('ignores a cookie for a domain the server is not in, and a Domain on an IP address that is not its own', () => {
    const { jar } = jarAt();
    jar.store('https://www.example.com/', ['evil=1; Domain=other.com', 'sub=1; Domain=api.www.example.com']);
    jar.store('http://10.0.0.1/', ['ip=1; Domain=0.0.1']);
    assert.deepEqual(jar.cookies(), []);
  });

  it('without Path the path is the directory of the request; a path matches itself and below it', () => {
    const { jar } = jarAt();
    jar.store('http://h/cometd/handshake', 'dir=1');
    jar.store('http://h/cometd/handshake', 'deep=2; Path=/cometd/meta');
    assert.equal(jar.header('http://h/cometd'), 'dir=1');
    assert.equal(jar.header('http://h/cometd/connect'), 'dir=1');
    assert.equal(jar.header('http://h/cometd/meta/x'), 'deep=2; dir=1', 'longer paths first');
    assert.equal(jar.header('http://h/cometdx'), '');
    assert.equal(jar.header('http://h/'), '');
    assert.equal(defaultPath('/'), '/');
    assert.equal(defaultPath('/a'), '/');
    assert.equal(defaultPath('/a/b/c'), '/a/b');
    assert.equal(pathMatch('/a/b', '/a'), true);
    assert.equal(pathMatch('/ab', '/a'), false);
    assert.equal(pathMatch('/a/b', '/a/'), true);
  });

  it('a Secure cookie goes only over https and wss, and only an https server may set one', () => {
    const { jar } = jarAt();
    jar.store('https://h/', 'safe=1; Secure');
    jar.store('http://h/', 'forged=1; Secure');
    assert.equal(jar.header('https://h/'), 'safe=1');
    assert.equal(jar.header('wss://h/'), 'safe=1');
    assert.equal(jar.header('http://h/'), '');
    assert.equal(jar.header('ws://h/'), '');
  });

  it('expires by Expires or Max-Age, Max-Age winning; a past date or Max-Age=0 deletes', () => {
    const { jar, clock } = jarAt(Date.UTC(2030, 0, 1));
    jar.store('http://h/', [
      'a=1; Expires=Wed, 01 Jan 2030 00:01:00 GMT',
      'b=2; Max-Age=120; Expires=Wed, 01 Jan 2030 00:00:01 GMT',
      'c=3',
    ]);
    assert.equal(jar.header('http://h/'), 'a=1; b=2; c=3');
    clock.now += 61_000;
    assert.equal(jar.header('http://h/'), 'b=2; c=3', 'a expired by Expires');
    clock.now += 60_000;
    assert.equal(jar.header('http://h/'), 'c=3', 'b expired by Max-Age, despite its earlier Expires');
    jar.store('http://h/', 'c=3; Max-Age=0');
    assert.equal(jar.header('http://h/'), '');
    jar.store('http://h/', ['d=4', 'd=; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    assert.equal(jar.header('http://h/'), '');
  });

  it('a new value replaces the cookie of the same name, domain and path', () => {
    const { jar } = jarAt();
    jar.store('http://h/', 'id=old');
    jar.store('http://h/', 'id=new');
    jar.store('http://h/x/', 'id=other; Path=/x');
    assert.equal(jar.header('http://h/'), 'id=new');
    assert.equal(jar.header('http://h/x/y'), 'id=other; id=new');
    assert.equal(jar.cookies().length, 2);
  });

  it('HttpOnly is kept but does not stop sending: this is the HTTP client', () => {
    const { jar } = jarAt();
    jar.store('http://h/', 'BAYEUX_BROWSER=x; HttpOnly');
    assert.equal(jar.cookies()[0].httpOnly, true);
    assert.equal(jar.header('http://h/'), 'BAYEUX_BROWSER=x');
  });

  it('ignores malformed cookies and keeps at most maxCookies', () => {
    const jar = new CookieJar({ maxCookies: 2 });
    jar.store('http://h/', ['novalue', '=x', 'bad name=1', 'ok=1']);
    assert.equal(jar.header('http://h/'), 'ok=1');
    jar.store('http://h/', ['two=2', 'three=3']);
    assert.equal(jar.header('http://h/'), 'two=2; three=3', 'the oldest went');
    jar.store('http://h/', undefined);
    jar.clear();
    assert.equal(jar.header('http://h/'), '');
  });

  it('reads Set-Cookie from fetch headers, with or without getSetCookie', () => {
    const headers = new Headers();
    headers.append('Set-Cookie', 'a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/');
    headers.append('Set-Cookie', 'b=2');
    assert.deepEqual(setCookieHeaders(headers), ['a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/', 'b=2']);
    const joined = { get: () => 'a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/, b=2' };
    assert.deepEqual(setCookieHeaders(joined), ['a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/', 'b=2']);
    assert.deepEqual(setCookieHeaders(null), []);
  });

  it('domain matching never treats an IP address as a domain', () => {
    assert.equal(domainMatch('a.b.com', 'b.com'), true);
    assert.equal(domainMatch('1.2.3.4', '2.3.4'), false);
    assert.equal(domainMatch('1.2.3.4', '1.2.3.4'), true);
  });

  it('Node has no browser cookie store; the cookieJar option takes a jar or null', () => {
    assert.equal(hasBrowserCookieStore(), false);
    const jar = new CookieJar();
    assert.equal(mergeConfig(DEFAULTS, { cookieJar: jar }).cookieJar, jar);
    assert.equal(mergeConfig(DEFAULTS, { cookieJar: null }).cookieJar, null);
    assert.throws(() => mergeConfig(DEFAULTS, { cookieJar: 'yes' }), /Invalid cookieJar: yes/);
  });
});
