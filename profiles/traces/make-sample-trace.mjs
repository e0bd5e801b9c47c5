// Writes sample-trace.jsonl: a synthetic, seeded trace (not taken from a real one) of about 300 requests
// over about 15 s: Poisson background arrivals at 12/s with three bursts of 40 requests within 0.6 s,
// lognormal prompt lengths (median 400 tokens, 16..3000) and answer lengths (median 60, 4..240).
// Run: node profiles/traces/make-sample-trace.mjs > profiles/traces/sample-trace.jsonl
let state = 20260501;
const random = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return (state + 0.5) / 2 ** 32;
};
const normal = () => Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random());
const lognormal = (median, sigma, min, max) =>
  Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * normal()))));

const times = [];
for (let t = 0; t < 15_000; t += -Math.log(random()) * (1000 / 12)) times.push(t);
for (const burstMs of [3_000, 7_500, 12_000])
  for (let i = 0; i < 40; i++) times.push(burstMs + random() * 600);
times.sort((a, b) => a - b);
for (const t of times) {
  const record = { timestamp: Math.round(t), input_tokens: lognormal(400, 0.9, 16, 3000), output_tokens: lognormal(60, 0.7, 4, 240) };
  process.stdout.write(`${JSON.stringify(record)}\n`);
}
