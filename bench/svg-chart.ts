// bench/results/latest.svg, written by hand (no dependency): one horizontal bar per gateway
// throughput row, its CPU per request relative to the minimal proxy's, with the target lines.
import { cpuVsProxy } from './baselines.ts';
import { LIMITS } from './targets.ts';
import type { ThroughputRow } from './throughput.ts';

const LABEL_WIDTH = 330;
const PLOT_WIDTH = 520;
const BAR_HEIGHT = 16;
const BAR_GAP = 6;
const TOP = 88;
const COLOURS = { pass: '#3a7d44', fail: '#c0392b', untargeted: '#9aa5b1', proxy: '#777', same: '#1f5fa8', cross: '#d4760a', text: '#222', grid: '#ddd' };

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function cpuChartSvg(rows: readonly ThroughputRow[], subtitle: string): string {
  // The CPU-vs-proxy targets are for the default gateway's rows (stream and not); the others are shown for reference.
  const bars = rows
    .filter((r) => r.scenario.kind !== 'baseline')
    .map((r) => ({
      row: r,
      value: cpuVsProxy(rows, r),
      limit:
        r.scenario.target !== 'gateway' || r.scenario.comparison
          ? undefined
          : r.scenario.kind === 'same'
            ? LIMITS.sameProtocolCpuVsProxy
            : LIMITS.crossProtocolCpuVsProxy,
    }));
  const max = Math.max(2.5, ...bars.map((b) => (b.value ?? 0) * 1.1));
  const x = (v: number) => LABEL_WIDTH + (v / max) * PLOT_WIDTH;
  const height = TOP + bars.length * (BAR_HEIGHT + BAR_GAP) + 40;
  const width = LABEL_WIDTH + PLOT_WIDTH + 70;
  const plotBottom = TOP + bars.length * (BAR_HEIGHT + BAR_GAP);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold" fill="${COLOURS.text}">Gateway CPU per request relative to the minimal Node proxy (lower is better)</text>`,
    `<text x="10" y="38" fill="#555">${escapeXml(subtitle)}</text>`,
  ];
  const legend: [string, string, boolean][] = [
    [COLOURS.proxy, 'minimal proxy 1x', true],
    [COLOURS.same, `same-protocol target ${LIMITS.sameProtocolCpuVsProxy}x`, true],
    [COLOURS.cross, `cross-protocol target ${LIMITS.crossProtocolCpuVsProxy}x`, true],
    [COLOURS.pass, 'within target', false],
    [COLOURS.fail, 'over target', false],
    [COLOURS.untargeted, 'no target: for reference', false],
  ];
  let legendX = 10;
  for (const [colour, text, dashed] of legend) {
    out.push(
      dashed
        ? `<line x1="${legendX}" y1="58" x2="${legendX + 18}" y2="58" stroke="${colour}" stroke-width="2" stroke-dasharray="6 3"/>`
        : `<rect x="${legendX + 4}" y="52" width="12" height="12" fill="${colour}"/>`,
      `<text x="${legendX + 22}" y="62" fill="${COLOURS.text}">${escapeXml(text)}</text>`,
    );
    legendX += 34 + text.length * 6;
  }
  const step = max <= 4 ? 0.5 : 1;
  for (let tick = 0; tick <= max; tick += step) {
    out.push(
      `<line x1="${x(tick)}" y1="${TOP - 8}" x2="${x(tick)}" y2="${plotBottom}" stroke="${COLOURS.grid}"/>`,
      `<text x="${x(tick)}" y="${plotBottom + 14}" text-anchor="middle" fill="#555">${tick.toFixed(1)}x</text>`,
    );
  }
  for (const [i, b] of bars.entries()) {
    const y = TOP + i * (BAR_HEIGHT + BAR_GAP);
    const label = `${b.row.scenario.name} @${b.row.connections}`;
    out.push(`<text x="${LABEL_WIDTH - 8}" y="${y + BAR_HEIGHT - 4}" text-anchor="end" fill="${COLOURS.text}">${escapeXml(label)}</text>`);
    if (b.value === null) {
      out.push(`<text x="${LABEL_WIDTH + 4}" y="${y + BAR_HEIGHT - 4}" fill="#999">no proxy baseline</text>`);
      continue;
    }
    const colour = b.limit === undefined ? COLOURS.untargeted : b.value <= b.limit ? COLOURS.pass : COLOURS.fail;
    const tip = `${label}: ${b.value.toFixed(2)}x${b.limit === undefined ? '' : ` (target ${b.limit}x)`}`;
    out.push(
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${Math.max(1, x(b.value) - LABEL_WIDTH)}" height="${BAR_HEIGHT}" fill="${colour}"><title>${escapeXml(tip)}</title></rect>`,
      `<text x="${x(b.value) + 4}" y="${y + BAR_HEIGHT - 4}" fill="${COLOURS.text}">${b.value.toFixed(2)}x</text>`,
    );
  }
  const line = (v: number, colour: string) =>
    out.push(`<line x1="${x(v)}" y1="${TOP - 8}" x2="${x(v)}" y2="${plotBottom}" stroke="${colour}" stroke-width="2" stroke-dasharray="6 3"/>`);
  line(1, COLOURS.proxy);
  line(LIMITS.sameProtocolCpuVsProxy, COLOURS.same);
  line(LIMITS.crossProtocolCpuVsProxy, COLOURS.cross);
  out.push(
    `<text x="10" y="${height - 10}" fill="#555">Targets apply to the default gateway's OpenAI/Anthropic rows, non-stream and stream: same protocol ${LIMITS.sameProtocolCpuVsProxy}x, translated ${LIMITS.crossProtocolCpuVsProxy}x the minimal proxy's CPU per request.</text>`,
    '</svg>',
  );
  return out.join('\n') + '\n';
}
