/**
 * `inferbench run --dashboard [PORT]`: a live page of the run on http://127.0.0.1:PORT/. Composes the
 * feed (report/live/live-feed.ts: the collector's counts and windows, the ticks' history, messages), the page
 * (report/live/live-page.ts) and the local server (emulator/http/live-page-server.ts): GET / is the page,
 * /events streams a `state` event (the run so far) then a `tick` a second and an `end` with the final
 * summary, /state is the state as JSON. Loopback only: the page shows a run's target and numbers.
 */
import { InferbenchError } from '../errors.js';
import {
  type EventSink,
  type LivePageServer,
  type LiveRoute,
  startLivePageServer,
} from '../emulator/http/live-page-server.js';
import { withoutCredentials } from '../report/compare/target-label.js';
import { LiveFeed } from '../report/live/live-feed.js';
import { LIVE_PAGE_CSP, renderLivePage } from '../report/live/live-page.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import type { RunSummary } from '../metrics/run-summary.js';
import type { RunEvents } from '../runner/run-events.js';
import { nowUs } from '../util/clock.js';
import type { CliContext } from './context.js';
import type { LiveView } from './live-view.js';
import { RecentText } from './recent-text.js';

export interface LiveDashboardOptions {
  /** 0: any free port. */
  readonly port: number;
  readonly profile: ResolvedProfile;
  /** The target (`--base-url` or the profile's); null: the embedded emulator. */
  readonly baseUrl: string | null;
  readonly ctx: CliContext;
}

/** The dashboard listens here only: reach it from elsewhere through an SSH tunnel, never an open port. */
const DASHBOARD_HOST = '127.0.0.1';

/** Starts the page's server; a port that cannot be had is a usage error (exit 2) before anything is sent. */
export async function startLiveDashboard(options: LiveDashboardOptions): Promise<LiveView> {
  const { profile } = options;
  const feed = new LiveFeed({
    profile: profile.name,
    // Shown on a page: never a user:password or a key in the URL's query.
    target: options.baseUrl === null ? 'the embedded emulator' : withoutCredentials(options.baseUrl),
    groups: profile.groups,
    nowUs,
    serverMetrics: (profile.target.serverMetrics ?? []).length > 0,
  });
  const sinks = new Set<EventSink>();
  /** `last`: the end, written also to a page too far behind for ticks (its final summary is the point). */
  const broadcast = (event: string, data: unknown, last = false): void => {
    if (sinks.size === 0) return;
    const text = JSON.stringify(data);
    for (const sink of sinks) sink.send(event, text, last);
  };
  // The state changes with each tick and at the end (forgotten then); between them it is made once.
  const state = new RecentText(() => JSON.stringify(feed.state()), REUSE_STATE_MS);
  const page = renderLivePage();
  const server = await listen(options.port, [
    ['/', { kind: 'text', contentType: 'text/html; charset=utf-8', body: () => page, headers: PAGE_HEADERS }],
    ['/state', { kind: 'text', contentType: 'application/json', body: () => state.get() }],
    [
      '/events',
      {
        kind: 'events',
        subscribe: (sink) => {
          sink.send('state', state.get());
          sinks.add(sink);
          return () => sinks.delete(sink);
        },
      },
    ],
  ]);
  const events: RunEvents = {
    onScenarioStart: (_scenario, groups) => feed.scenarioStarted(groups),
    onTick: (tick) => {
      if (feed.ended) return;
      const message = feed.tick(tick);
      state.forget();
      broadcast('tick', message);
    },
  };
  const end = (summary: RunSummary | null): void => {
    const message = feed.end(summary);
    state.forget();
    broadcast('end', message, true);
  };
  let closed: Promise<void> | null = null;
  return {
    description: `dashboard: ${server.url}/`,
    events,
    attach: (numbers) => feed.attach(numbers),
    finish: async (summary) => {
      if (!feed.ended) end(summary);
    },
    close: () => {
      closed ??= (async () => {
        // A run that ended without finish() (it threw) still tells its pages that it is over.
        if (!feed.ended) end(null);
        await server.close();
      })();
      return closed;
    },
  };
}

/** A state this recent is served again to a page that opens or a client of /state. */
const REUSE_STATE_MS = 250;

const PAGE_HEADERS = { 'content-security-policy': LIVE_PAGE_CSP, 'referrer-policy': 'no-referrer' };

async function listen(port: number, routes: [string, LiveRoute][]): Promise<LivePageServer> {
  try {
    return await startLivePageServer({ host: DASHBOARD_HOST, port, routes: new Map(routes) });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'EADDRINUSE' ? 'is already in use' : code === 'EACCES' ? 'is not allowed' : 'cannot be opened';
    throw new InferbenchError(
      'BAD_USAGE',
      `--dashboard: port ${port} on ${DASHBOARD_HOST} ${why} (${String(code ?? error)})`,
      {
        cause: error,
        hint: 'give another port (e.g. --dashboard 5666), or --dashboard 0 for any free one; is another run with --dashboard still going?',
      },
    );
  }
}
