/**
 * `inferbench k8s`, in-process through runCli: the printed ConfigMap and Indexed Job validate against the
 * Kubernetes API schemas (kubernetes-models), carry the shard index, the Secret and the profile file, and
 * never the API key; a bad profile or flag exits 2 and prints no manifest. No cluster is needed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCliInProcess } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROFILE = resolve(ROOT, 'profiles/quickstart.yaml');
const MARKER = 'sk-test-MARKER-d41d8cd98f00b204';
const dir = mkdtempSync(join(tmpdir(), 'inferbench-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Container {
  command: string[];
  args: string[];
  env: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }[];
  resources: { requests: Record<string, string> };
}
interface PrintedJob {
  metadata: { name: string };
  spec: {
    completionMode: string;
    completions: number;
    parallelism: number;
    backoffLimit: number;
    template: {
      spec: { restartPolicy: string; containers: Container[]; volumes: Record<string, unknown>[] };
    };
  };
}

/** The documents of the output by kind, each validated against the Kubernetes API schema. */
function manifests(stdout: string): { job: PrintedJob; configMap: { data: Record<string, string> } } {
  const docs = parseAllDocuments(stdout).map((doc) => doc.toJS() as { kind: string });
  expect(docs.map((doc) => doc.kind)).toEqual(['ConfigMap', 'Job']);
  const [configMap, job] = docs as unknown as [Record<string, unknown>, Record<string, unknown>];
  new ConfigMap(configMap).validate();
  new Job(job).validate();
  return { job: job as unknown as PrintedJob, configMap: configMap as unknown as { data: Record<string, string> } };
}

describe('inferbench k8s', () => {
  it('prints a valid ConfigMap and Indexed Job of N shards, with the key from a Secret and never its value', async () => {
    const env = { PATH: process.env.PATH, INFERENCE_API_KEY: MARKER, MY_KEY: MARKER };
    const args = ['k8s', PROFILE, '--shards', '4', '--image', 'registry.example.com/inferbench:1'];
    const result = await runCliInProcess(
      [...args, '--base-url', 'https://api.example.com', '--start-at', '2030-01-02T03:04:05Z'],
      { cwd: ROOT, env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(MARKER);
    const { job, configMap } = manifests(result.stdout);

    expect(configMap.data).toEqual({ 'quickstart.yaml': readFileSync(PROFILE, 'utf8') });
    expect(job.metadata.name).toBe('inferbench-quickstart');
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimit: 0 });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const [container] = pod.containers;
    expect(container!.command.slice(0, 2)).toEqual(['sh', '-c']);
    const script = container!.command[2]!;
    expect(script).toContain('run "$@" --shard "$((JOB_COMPLETION_INDEX + 1))/4" --out "$out"');
    expect(script).toContain('out="/results/shard-$JOB_COMPLETION_INDEX"');
    expect(container!.args).toEqual([
      'inferbench-shard',
      '/profile/quickstart.yaml',
      '--start-at',
      '2030-01-02T03:04:05Z',
      '--base-url',
      'https://api.example.com',
    ]);
    expect(container!.env).toEqual([
      { name: 'INFERENCE_API_KEY', valueFrom: { secretKeyRef: { name: 'inferbench-api-key', key: 'api-key' } } },
    ]);
    expect(container!.resources.requests.cpu).toBe('1');
    expect(pod.volumes).toContainEqual({ name: 'results', emptyDir: {} });
    expect(pod.volumes).toContainEqual({ name: 'profile', configMap: { name: 'inferbench-quickstart-profile' } });
    expect(result.stdout).toMatch(/# emptyDir: the results live only as long as the pod/);
    for (const command of ['kubectl apply -f', 'kubectl wait', 'kubectl cp', 'inferbench merge shards/shard-*'])
      expect(result.stdout).toContain(command);

    // The env name follows --api-key-env (passed on to the shards), the Secret --secret, results --results-pvc.
    const named = await runCliInProcess(
      [
        ...args,
        '--api-key-env',
        'MY_KEY',
        '--secret',
        'prod-key',
        '--results-pvc',
        'bench-results',
        '--set',
        'name=X_y.z',
        '--set',
        'target.base_url=https://api.example.com',
      ],
      { cwd: ROOT, env },
    );
    expect(named.code).toBe(0);
    expect(named.stdout).not.toContain(MARKER);
    const second = manifests(named.stdout).job;
    const c2 = second.spec.template.spec.containers[0]!;
    expect(c2.env).toEqual([{ name: 'MY_KEY', valueFrom: { secretKeyRef: { name: 'prod-key', key: 'api-key' } } }]);
    expect(c2.args).toEqual(expect.arrayContaining(['--api-key-env', 'MY_KEY', '--set', 'name=X_y.z']));
    expect(second.spec.template.spec.volumes).toContainEqual({
      name: 'results',
      persistentVolumeClaim: { claimName: 'bench-results' },
    });
    expect(second.metadata.name).toBe('inferbench-x-y-z');
  });

  it('starts the shards about 2 minutes after printing by default', async () => {
    const before = Date.now();
    const result = await runCliInProcess(['k8s', 'profiles/quickstart.yaml', '--shards', '2', '--image', 'ib:1'], {
      cwd: ROOT,
    });
    expect(result.code).toBe(0);
    // The profile has no target: the pods run their own emulator, said on stderr, and no Secret is needed.
    expect(result.stderr).toContain('every pod runs its own embedded emulator');
    const container = manifests(result.stdout).job.spec.template.spec.containers[0]!;
    expect(container.env).toEqual([]);
    const startAt = Date.parse(container.args[container.args.indexOf('--start-at') + 1]!);
    expect(startAt - before).toBeGreaterThanOrEqual(119_000);
    expect(startAt - before).toBeLessThanOrEqual(125_000);
  });

  it('builds a script that gives pod i the shard i+1 of N and keeps user values out of the script', async () => {
    const result = await runCliInProcess(
      [
        'k8s',
        PROFILE,
        '--shards',
        '3',
        '--image',
        'ib:1',
        '--linger',
        '0',
        '--set',
        "scenarios[0].prompt.system=it's $(reboot) `id`",
      ],
      { cwd: ROOT },
    );
    expect(result.code).toBe(0);
    const container = manifests(result.stdout).job.spec.template.spec.containers[0]!;
    // Run the pod's script with a stand-in for node that prints its arguments.
    const script = container.command[2]!.replace(/^node .*main\.js/m, 'printf "%s\\n"');
    const results = mkdtempSync(join(dir, 'results-'));
    const printed = execFileSync('sh', ['-c', script.replaceAll('/results/', `${results}/`), ...container.args], {
      env: { PATH: process.env.PATH, JOB_COMPLETION_INDEX: '2' },
      encoding: 'utf8',
    });
    expect(printed.split('\n').slice(0, -2)).toEqual([
      'run',
      '/profile/quickstart.yaml',
      '--start-at',
      container.args[3],
      '--set',
      "scenarios[0].prompt.system=it's $(reboot) `id`",
      '--shard',
      '3/3',
      '--out',
      `${results}/shard-2`,
    ]);
    expect(readFileSync(join(results, 'shard-2.exit-code'), 'utf8')).toBe('0\n');
  });

  it('exits 2 on a bad profile or flag and prints no manifest', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'scenarios:\n  - name: s\n    duraton: 5s\n');
    const result = await runCliInProcess(['k8s', bad, '--shards', '2', '--image', 'ib:1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('duraton: unknown key');

    for (const flags of [
      ['--shards', '0'],
      ['--shards', '2', '--start-at', 'tomorrow'],
      ['--shards', '2', '--cpu', 'lots'],
    ]) {
      const flagged = await runCliInProcess(['k8s', PROFILE, '--image', 'ib:1', ...flags]);
      expect(flagged.code, flags.join(' ')).toBe(2);
      expect(flagged.stdout).toBe('');
    }
  });
});
