/**
 * The manifests of `inferbench k8s`, as pure functions: a ConfigMap holding the profile file and an
 * Indexed Job whose pod i runs `inferbench run --shard i+1/N` of it, all shards waiting for one
 * `--start-at` time, each writing its run folder to /results/shard-<i>; then the YAML text with the
 * commands that apply the Job, wait for the shards, copy their results out and merge them.
 * Nothing here reads the environment or the clock: the command (cli/commands/k8s.ts) hands in every value.
 * The API key never appears: the pods read it from a Secret.
 */
import { Document } from 'yaml';

/** Where the image keeps the built CLI (the Dockerfile's WORKDIR). */
export const IMAGE_CLI = 'node --max-semi-space-size=4 /app/dist/cli/main.js';
/** The key of the Secret that holds the API key. */
export const SECRET_KEY = 'api-key';

export interface K8sJobOptions {
  /** Job name (a DNS label); the ConfigMap is `<name>-profile`. */
  readonly name: string;
  /** The profile file's name in the ConfigMap and under /profile/. */
  readonly profileFile: string;
  /** The profile file's text, as it is on disk. */
  readonly profileText: string;
  readonly shards: number;
  readonly image: string;
  /** ISO 8601 time at which every shard sends its first request. */
  readonly startAt: string;
  /** `--base-url` to pass on to every shard, or null (the profile's own target). */
  readonly baseUrl: string | null;
  /** false: the shards run the embedded emulator, which needs no key (no Secret is referenced). */
  readonly needsApiKey: boolean;
  /** Environment variable the shards read the key from (the profile's target.api_key_env or --api-key-env). */
  readonly apiKeyEnv: string;
  /** `--api-key-env` to pass on to every shard, or null (the profile's own). */
  readonly apiKeyEnvFlag: string | null;
  readonly secretName: string;
  /** `--set` overrides, passed on to every shard so that they run the profile that was validated. */
  readonly overrides: readonly string[];
  /** PersistentVolumeClaim for /results, or null for an emptyDir per pod. */
  readonly resultsPvc: string | null;
  /** Resource requests of each pod, in Kubernetes quantities ("1", "500m", "1Gi"). */
  readonly cpu: string;
  readonly memory: string;
  /** Seconds a pod stays up (Ready) after its shard ended, so that `kubectl cp` can copy its results. */
  readonly lingerSeconds: number;
  /**
   * The profile's `live.metrics_port` (a fixed port): each pod serves /metrics on it on every address, with
   * the prometheus.io annotations that scrape configs discover pods by. Absent or null: no /metrics.
   */
  readonly metricsPort?: number | null;
}

type Manifest = Record<string, unknown>;

/** The ConfigMap `<name>-profile`: the profile file under its own name, nothing else. */
export function buildProfileConfigMap(options: K8sJobOptions): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: configMapName(options.name), labels: labels(options.name) },
    data: { [options.profileFile]: options.profileText },
  };
}

/**
 * The shell script of every pod. `$((JOB_COMPLETION_INDEX + 1))` turns Kubernetes' 0-based completion
 * index into run's 1-based shard; the user-given values (profile path, flags, overrides) arrive as "$@",
 * never spliced into the script, so no quoting can break it. Exit 99 (a threshold failed on this shard)
 * counts as success: thresholds are judged on the merged result, and with backoffLimit 0 a failed pod
 * would end the other shards mid-run.
 */
export function shardScript(shards: number, lingerSeconds: number): string {
  return [
    'out="/results/shard-$JOB_COMPLETION_INDEX"',
    'trap \'kill -TERM "$child" 2>/dev/null\' TERM INT',
    `${IMAGE_CLI} run "$@" --shard "$((JOB_COMPLETION_INDEX + 1))/${shards}" --out "$out" &`,
    'child=$!',
    'wait "$child"; code=$?',
    'while kill -0 "$child" 2>/dev/null; do wait "$child"; code=$?; done',
    'echo "$code" > "$out.exit-code"',
    lingerSeconds > 0
      ? `echo "inferbench: shard done (exit $code); copy $out out within ${lingerSeconds} s"; sleep ${lingerSeconds}`
      : 'echo "inferbench: shard done (exit $code)"',
    'case "$code" in 0|99) exit 0 ;; *) exit "$code" ;; esac',
  ].join('\n');
}

/** The arguments after the script: "$0" names it in messages, then what `run` gets before --shard. */
export function shardArgs(options: K8sJobOptions): string[] {
  return [
    'inferbench-shard',
    `/profile/${options.profileFile}`,
    '--start-at',
    options.startAt,
    ...(options.baseUrl === null ? [] : ['--base-url', options.baseUrl]),
    ...(options.apiKeyEnvFlag === null ? [] : ['--api-key-env', options.apiKeyEnvFlag]),
    ...options.overrides.flatMap((override) => ['--set', override]),
    // The profile's host (127.0.0.1 by default) is out of Prometheus' reach in a pod.
    ...(options.metricsPort ? ['--metrics-host', '0.0.0.0'] : []),
  ];
}

/** The pod's metrics port and the annotations Prometheus' usual pod discovery reads, when it has one. */
function metricsExposure(port: number | null | undefined) {
  if (!port) return { ports: {}, annotations: {} };
  return {
    ports: { ports: [{ name: 'metrics', containerPort: port, protocol: 'TCP' }] },
    annotations: {
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      },
    },
  };
}

/** The Indexed Job: one pod per shard, all started together, none retried. */
export function buildShardJob(options: K8sJobOptions): Manifest {
  const env = options.needsApiKey
    ? [
        {
          name: options.apiKeyEnv,
          valueFrom: { secretKeyRef: { name: options.secretName, key: SECRET_KEY } },
        },
      ]
    : [];
  const metrics = metricsExposure(options.metricsPort);
  const container = {
    name: 'inferbench',
    image: options.image,
    command: ['sh', '-c', shardScript(options.shards, options.lingerSeconds)],
    args: shardArgs(options),
    env,
    ...metrics.ports,
    resources: { requests: { cpu: options.cpu, memory: options.memory } },
    volumeMounts: [
      { name: 'profile', mountPath: '/profile', readOnly: true },
      { name: 'results', mountPath: '/results' },
    ],
    // Ready once the shard's results are written: `kubectl wait --for=condition=Ready` waits for that.
    readinessProbe: {
      exec: { command: ['sh', '-c', 'test -f "/results/shard-$JOB_COMPLETION_INDEX.exit-code"'] },
      periodSeconds: 5,
    },
  };
  const results =
    options.resultsPvc === null
      ? { name: 'results', emptyDir: {} }
      : { name: 'results', persistentVolumeClaim: { claimName: options.resultsPvc } };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: options.name, labels: labels(options.name) },
    spec: {
      completionMode: 'Indexed',
      completions: options.shards,
      parallelism: options.shards,
      backoffLimit: 0,
      template: {
        metadata: { labels: labels(options.name), ...metrics.annotations },
        spec: {
          restartPolicy: 'Never',
          // The image runs as the user `node` (uid and gid 1000): a claim's files must be writable by it.
          securityContext: { fsGroup: 1000 },
          containers: [container],
          volumes: [{ name: 'profile', configMap: { name: configMapName(options.name) } }, results],
        },
      },
    },
  };
}

/** The shell commands that run the Job and merge its shards, one a line. */
export function k8sCommands(options: K8sJobOptions, file: string): string[] {
  const last = options.shards - 1;
  const selector = `job-name=${options.name},batch.kubernetes.io/job-completion-index=$i`;
  return [
    `kubectl apply -f ${file}`,
    `for i in $(seq 0 ${last}); do`,
    `  until pod=$(kubectl get pod -l ${selector} -o name) && [ -n "$pod" ]; do sleep 2; done`,
    '  kubectl wait --for=condition=Ready "$pod" --timeout=24h',
    `  kubectl cp "\${pod#pod/}:/results/shard-$i" "shards/shard-$i"`,
    'done',
    `inferbench merge shards/shard-* --out reports/${options.name}`,
    `kubectl delete -f ${file}`,
  ];
}

/**
 * The printed manifests: a comment block (what this is, the commands), the ConfigMap, then the Job
 * (with a comment on an emptyDir results volume).
 */
export function formatK8sManifests(options: K8sJobOptions, file = 'inferbench-job.yaml'): string {
  const header = [
    ` inferbench k8s: ${options.shards} shards of ${options.profileFile} in the Indexed Job ${options.name}`,
    ` (image ${options.image}); every shard sends its first request at ${options.startAt}.`,
    ` Save this output as ${file}, then run (inferbench merge needs inferbench here too):`,
    ...k8sCommands(options, file).map((line) => `   ${line}`),
    ...(options.needsApiKey
      ? [
          ' The API key comes from the Secret below; create it once with',
          `   kubectl create secret generic ${options.secretName} --from-literal=${SECRET_KEY}="$${options.apiKeyEnv}"`,
        ]
      : []),
  ].join('\n');
  const configMap = new Document(buildProfileConfigMap(options));
  configMap.commentBefore = header;
  const job = new Document(buildShardJob(options));
  const volume = job.getIn(['spec', 'template', 'spec', 'volumes', 1], true) as { commentBefore?: string } | undefined;
  if (volume !== undefined)
    volume.commentBefore =
      options.resultsPvc === null
        ? ` emptyDir: the results live only as long as the pod; copy them out (kubectl cp) within ${options.lingerSeconds} s of the shard's end`
        : ` every shard writes /results/shard-<index> on the claim ${options.resultsPvc}`;
  return `${configMap.toString({ lineWidth: 0 })}---\n${job.toString({ lineWidth: 0 })}`;
}

function configMapName(name: string): string {
  return `${name}-profile`;
}

function labels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': 'inferbench', 'app.kubernetes.io/instance': name };
}
