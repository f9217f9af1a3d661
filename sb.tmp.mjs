import { pino } from 'pino';
import { openSync } from 'node:fs';
const fd = openSync('/dev/null', 'w');
const sb = pino.destination({ dest: fd, sync: false, maxLength: 16 * 1024 * 1024 });
const perTurn = Number(process.argv[2] ?? 32), turns = 10000;
const lines = []; for (let i = 0; i < 1024; i++) lines.push(JSON.stringify({ a: 'x'.repeat(600), i: Math.random() }) + '\n');
async function run(write) {
  const c0 = process.cpuUsage();
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < perTurn; i++) write(`${lines[(t * perTurn + i) & 1023]}`);
    await new Promise((r) => setImmediate(r));
  }
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) / (turns * perTurn)).toFixed(3);
}
let pending = '', scheduled = false;
const batched = (l) => { pending += l; if (!scheduled) { scheduled = true; setImmediate(() => { scheduled = false; const s = pending; pending = ''; sb.write(s); }); } };
for (let r = 0; r < 4; r++) console.log('perTurn', perTurn, 'direct', await run((l) => sb.write(l)), 'µs/line; batched', await run(batched), 'µs/line');
