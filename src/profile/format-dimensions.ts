/**
 * The `validate` lines of a scenario's group dimensions: its reasoning efforts, and each mix class with
 * its share, prompt and the request fields it sends (after merging over the scenario's).
 */
import type { ResolvedScenario } from './resolved-profile.js';

const LABEL_WIDTH = 11;
const row = (label: string, value: string): string => `  ${label.padEnd(LABEL_WIDTH)}${value}\n`;

/** `formatPrompt` describes a scenario's prompt (format-plan.ts's); empty when the scenario has neither. */
export function formatDimensions(s: ResolvedScenario, formatPrompt: (scenario: ResolvedScenario) => string): string {
  let out = '';
  if (s.reasoningEfforts?.length)
    out += row('efforts', `${s.reasoningEfforts.join(', ')} (one group each, sending reasoning_effort)`);
  if (s.mix?.length) {
    out += row('mix', 'one schedule per model x tier x effort; each request picks a class by weight:');
    for (const mixClass of s.mix) {
      const share = `${Math.round(mixClass.share * 1000) / 10}%`;
      const prompt = formatPrompt({ ...s, prompt: mixClass.prompt });
      out += row('', `${mixClass.name} ${share}: ${prompt}; request ${JSON.stringify(mixClass.request)}`);
      if (Object.keys(mixClass.requestExtra).length > 0)
        out += row('', `  extra ${JSON.stringify(mixClass.requestExtra)}`);
    }
  }
  return out;
}
