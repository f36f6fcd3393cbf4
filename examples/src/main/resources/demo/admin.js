// The demo's admin page: reads the server's own /metrics (Prometheus text format) every second
// (?interval=MS to change it) and shows its figures, with the messages in and out per second on
// a small chart of the last minute. Nothing comes from elsewhere: the figures are the meters of
// docs/metrics.md, the chart is drawn on a canvas.
const INTERVAL = Number(new URLSearchParams(location.search).get('interval')) || 1000;
const POINTS = 60;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape: [{name, labels, value}]. */
export function parse(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    const match = line.startsWith('#') ? null : SAMPLE.exec(line);
    if (match) {
      const labels = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
        labels[key] = value;
      }
      samples.push({ name: match[1], labels, value: Number(match[3]) });
    }
  }
  return samples;
}

function sum(samples, name, where = () => true) {
  return samples.filter((s) => s.name === name && where(s.labels)).reduce((total, s) => total + s.value, 0);
}

function has(samples, name) {
  return samples.some((s) => s.name === name);
}

/** The 0.99 quantile of what a histogram counted between two scrapes, or null when it counted nothing. */
function p99(before, now, name) {
  const buckets = now.filter((s) => s.name === `${name}_bucket`).map((s) => ({
    le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le),
    count: s.value - sum(before, `${name}_bucket`, (l) => l.le === s.labels.le),
  })).sort((a, b) => a.le - b.le);
  const total = buckets.length ? buckets[buckets.length - 1].count : 0;
  if (total <= 0) {
    return null;
  }
  return buckets.find((b) => b.count >= 0.99 * total).le;
}

function show(id, text) {
  document.getElementById(id).textContent = text;
}

const history = [];

function draw() {
  const canvas = document.getElementById('chart');
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  const max = Math.max(1, ...history.flatMap((p) => [p.in, p.out]));
  for (const [key, color] of [['in', '#2563eb'], ['out', '#16a34a']]) {
    g.strokeStyle = color;
    g.lineWidth = 2;
    g.beginPath();
    history.forEach((point, i) => {
      const x = (i / (POINTS - 1)) * canvas.width;
      const y = canvas.height - 4 - (point[key] / max) * (canvas.height - 8);
      if (i === 0) {
        g.moveTo(x, y);
      } else {
        g.lineTo(x, y);
      }
    });
    g.stroke();
  }
  canvas.dataset.points = String(history.length);
}

let previous = null;

async function refresh() {
  try {
    const response = await fetch('/metrics', { cache: 'no-store' });
    if (!response.ok) {
      throw new Error(`/metrics answered ${response.status}`);
    }
    const now = { at: performance.now(), samples: parse(await response.text()) };
    const s = now.samples;
    const received = sum(s, 'bayeux_messages_received_total');
    const delivered = sum(s, 'bayeux_messages_delivered_total');
    // The clients' sessions: the server's own services have local ones.
    show('sessions', String(sum(s, 'bayeux_sessions', (l) => l.transport !== 'local')));
    show('channels', String(sum(s, 'bayeux_channels')));
    show('subscriptions', String(sum(s, 'bayeux_subscriptions')));
    show('nodes', String(has(s, 'bayeux_oort_links_up') ? 1 + sum(s, 'bayeux_oort_links_up')
      : has(s, 'bayeux_presence_nodes') ? Math.max(1, sum(s, 'bayeux_presence_nodes')) : 1));
    show('in-total', String(received));
    show('out-total', String(delivered));
    show('heap', `${(sum(s, 'jvm_memory_used_bytes', (l) => l.area === 'heap') / 1048576).toFixed(1)} MiB`);
    if (previous) {
      const seconds = (now.at - previous.at) / 1000;
      const rate = { in: (received - sum(previous.samples, 'bayeux_messages_received_total')) / seconds,
        out: (delivered - sum(previous.samples, 'bayeux_messages_delivered_total')) / seconds };
      show('in', rate.in.toFixed(1));
      show('out', rate.out.toFixed(1));
      const latency = p99(previous.samples, s, 'bayeux_delivery_latency_seconds');
      show('latency', latency === null ? '–' : latency === Infinity ? '> 10 s' : `≤ ${latency * 1000} ms`);
      history.push(rate);
      if (history.length > POINTS) {
        history.shift();
      }
      draw();
    }
    previous = now;
    show('status', `Updated ${new Date().toLocaleTimeString()}`);
  } catch (x) {
    show('status', `Cannot read /metrics: ${x.message}`);
  } finally {
    setTimeout(refresh, INTERVAL);
  }
}

refresh();
