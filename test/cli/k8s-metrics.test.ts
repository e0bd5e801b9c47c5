/**
 * `inferbench k8s` of a profile with `live.metrics_port`: each shard's pod serves /metrics on every address
 * (`--metrics-host 0.0.0.0`), declares the port and carries the prometheus.io annotations; the manifests
 * still validate against the Kubernetes API schemas. Without the key nothing of it appears; port 0 warns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCliInProcess } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-k8s-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROFILE = `name: scraped
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: rate, rate: 10 }
    duration: 30s
`;

interface PodTemplate {
  metadata: { annotations?: Record<string, string> };
  spec: { containers: { args: string[]; ports?: { name: string; containerPort: number }[] }[] };
}

async function printedPod(live: string) {
  const path = join(dir, `p${live.length}.yaml`);
  writeFileSync(path, `${PROFILE}${live}`);
  const result = await runCliInProcess(
    ['k8s', path, '--shards', '3', '--image', 'img:1', '--base-url', 'https://api.example.com'],
    { cwd: dir, env: { PATH: process.env.PATH } },
  );
  expect(result.code).toBe(0);
  const job = parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as { kind: string })
    .find((doc) => doc.kind === 'Job') as Record<string, unknown>;
  new Job(job).validate();
  const template = (job as unknown as { spec: { template: PodTemplate } }).spec.template;
  return { template, stderr: result.stderr };
}

describe('inferbench k8s with live.metrics_port', () => {
  it('exposes each shard pod on the port with the prometheus.io annotations, listening on every address', async () => {
    const { template } = await printedPod('live: { metrics_port: 9464 }\n');
    expect(template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9464',
      'prometheus.io/path': '/metrics',
    });
    const container = template.spec.containers[0];
    expect(container?.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect(container?.args.slice(-2)).toEqual(['--metrics-host', '0.0.0.0']);
  });

  it('adds nothing without it, and warns that port 0 cannot be scraped in a pod', async () => {
    const plain = await printedPod('');
    expect(plain.template.metadata.annotations).toBeUndefined();
    expect(plain.template.spec.containers[0]?.ports).toBeUndefined();
    expect(plain.template.spec.containers[0]?.args).not.toContain('--metrics-host');
    const any = await printedPod('live: { metrics_port: 0 }\n');
    expect(any.template.metadata.annotations).toBeUndefined();
    expect(any.stderr).toMatch(/live\.metrics_port is 0 .*set a fixed port/);
  });
});
