/**
 * A strict reader of the Prometheus text exposition format (0.0.4), checking what `promtool check
 * metrics` checks: one HELP and one TYPE per family, TYPE before the family's samples, a family's
 * samples together, valid metric and label names, label values escaped, values that parse.
 * Returns the problems found (empty when the text is valid) and the samples by family.
 */
export function checkPrometheusText(text: string): { problems: string[]; families: Map<string, { type: string; samples: number }> } {
  const problems: string[] = [];
  const families = new Map<string, { type: string; help: boolean; samples: number; closed: boolean }>();
  const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*,?)?\})? (\S+)( -?\d+)?$/;
  let current: string | null = null;
  const familyOf = (sample: string) => {
    if (families.has(sample)) return sample;
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (!sample.endsWith(suffix)) continue;
      const base = sample.slice(0, -suffix.length);
      if (['histogram', 'summary'].includes(families.get(base)?.type ?? '')) return base;
    }
    return sample;
  };
  const enter = (name: string) => {
    if (current && current !== name) families.get(current)!.closed = true;
    current = name;
  };
  text.split('\n').forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (line === '') return;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) problems.push(`${at}: invalid metric name ${name}`);
      const f = families.get(name) ?? { type: 'untyped', help: false, samples: 0, closed: false };
      if (f.closed) problems.push(`${at}: ${kind} for ${name} after its family ended`);
      if (kind === 'HELP') {
        if (f.help) problems.push(`${at}: second HELP line for metric name ${name}`);
        f.help = true;
      } else {
        if (f.type !== 'untyped' || f.samples > 0) problems.push(`${at}: second TYPE line (or TYPE after samples) for metric name ${name}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest ?? '')) problems.push(`${at}: unknown type ${rest}`);
        f.type = rest ?? 'untyped';
      }
      families.set(name, f);
      enter(name);
      return;
    }
    if (line.startsWith('#')) return;
    const m = SAMPLE.exec(line);
    if (!m) {
      problems.push(`${at}: not a sample line: ${line}`);
      return;
    }
    const value = m[3];
    if (!/^(NaN|[+-]Inf|[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)$/.test(value)) problems.push(`${at}: value ${value} does not parse`);
    const family = familyOf(m[1]);
    const f = families.get(family) ?? { type: 'untyped', help: false, samples: 0, closed: false };
    if (f.closed) problems.push(`${at}: sample of ${family} apart from the rest of its family`);
    f.samples++;
    families.set(family, f);
    enter(family);
  });
  return { problems, families: new Map([...families].map(([k, v]) => [k, { type: v.type, samples: v.samples }])) };
}
