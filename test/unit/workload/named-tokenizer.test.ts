/**
 * Token-exact prompts in a profile's own tokenizer (target.tokenizer, issue 9 item 2): synthetic prompts,
 * the shared prefix and the system prompt are sized and counted in it, dataset prompts are counted with
 * it, and a tokenizer the pieces cannot be made exact in is a profile error at workload creation, never a
 * prompt of the wrong length. Fixtures: a ByteLevel BPE (tiny-bytelevel-bpe.json, made by
 * make-tiny-bytelevel-bpe.mjs: only some common words are one token) and a lowercasing WordLevel.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { resolveGroupModels } from '../../../src/profile/groups.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { tokenVocabulary } from '../../../src/util/token-text.js';
import { countTokens, o200kTokenizer } from '../../../src/util/tokenizer.js';
import type { EncodingTokenizer } from '../../../src/util/tokenizer.js';
import { createWorkload } from '../../../src/workload/create-workload.js';
import { workloadHash, workloadHashWithoutModels } from '../../../src/workload/workload-hash.js';

const TOKENIZERS = resolve(import.meta.dirname, '../../fixtures/tokenizers');
const FIXTURES = resolve(import.meta.dirname, '../../fixtures/profiles');

let bpe: EncodingTokenizer;
let wordLevel: EncodingTokenizer;
beforeAll(async () => {
  bpe = await loadHfTokenizer(resolve(TOKENIZERS, 'tiny-bytelevel-bpe.json'));
  wordLevel = await loadHfTokenizer(resolve(TOKENIZERS, 'tiny-wordlevel.json'));
});

function profileOf(scenarioYaml: string, overrides: string[] = []): ResolvedProfile {
  return resolveGroupModels(
    resolveProfileText(
      `scenarios:\n  - name: s\n    requests: 10\n${scenarioYaml}`,
      resolve(FIXTURES, 'inline.yaml'),
      overrides,
    ),
    'model-x',
  );
}

function workloadOf(profile: ResolvedProfile, tokenizer: EncodingTokenizer, groupIndex = 0) {
  const group = profile.groups[groupIndex]!;
  return createWorkload(profile.scenarios.find((s) => s.name === group.scenario)!, group, tokenizer);
}

const contentOf = (m: ChatMessage): string => (typeof m.content === 'string' ? m.content : '');

function tokensIn(tokenizer: EncodingTokenizer, messages: unknown): number {
  return (messages as ChatMessage[]).reduce((sum, m) => sum + tokenizer.count(contentOf(m)), 0);
}

describe('the piece vocabulary of a named tokenizer', () => {
  it('keeps exactly the candidate pieces that are one of its tokens in context', () => {
    const vocab = tokenVocabulary(bpe);
    // The fixture merges 65 of the 117 candidate words into one " word" token; " mountain" is " mount"+a+i+n.
    expect(vocab.words).toHaveLength(65);
    expect(vocab.words).toContain(' latency');
    expect(vocab.words).not.toContain(' mountain');
    expect(vocab.words).not.toContain(' because');
    expect(vocab.openers).toEqual(expect.arrayContaining(['The', 'Model', 'Data', 'Output', 'Input', 'Each', 'When']));
    expect(vocab.openers).not.toContain('Latency');
    expect(vocab.punctuation).toEqual(['.', ',']);
    for (const piece of [...vocab.words, ...vocab.openers, ...vocab.punctuation])
      expect(bpe.encode(`The${piece}`).length - 1, piece).toBe(1);
    // Built once per tokenizer; the o200k vocabulary is untouched.
    expect(tokenVocabulary(bpe)).toBe(vocab);
    expect(tokenVocabulary(o200kTokenizer())).toBe(tokenVocabulary());
  });

  it('leaves out words a WordLevel vocabulary does not know (no id, no text), keeps lowercased openers', () => {
    const vocab = tokenVocabulary(wordLevel);
    expect(vocab.words).toHaveLength(20);
    expect(vocab.words).not.toContain(' mountain');
    expect(vocab.openers).toContain('Model');
    expect(vocab.punctuation).toEqual(['.', ',']);
  });
});

describe('synthetic prompts in a named tokenizer', () => {
  it('encode to exactly the asked number of its tokens, for many lengths and seeds', () => {
    for (const tokenizer of [bpe, wordLevel]) {
      for (const tokens of [1, 2, 7, 64, 500, 2000]) {
        for (const seed of [1, 2, 42]) {
          const workload = workloadOf(
            profileOf(`    seed: ${seed}\n    prompt: { input_tokens: ${tokens} }\n`),
            tokenizer,
          );
          for (let i = 0; i < 4; i++) {
            const plan = workload.next(i);
            expect(plan.expectedInputTokens).toBe(tokens);
            expect(
              tokensIn(tokenizer, plan.body.messages),
              `${tokenizer.name} ${tokens} seed ${seed} request ${i}`,
            ).toBe(tokens);
          }
        }
      }
    }
  });

  it('are made of its one-token pieces only, where an o200k-sized prompt would be longer in it', () => {
    const profile = profileOf('    prompt: { input_tokens: 500 }\n');
    const text = contentOf((workloadOf(profile, bpe).next(0).body.messages as ChatMessage[])[0]!);
    const vocab = tokenVocabulary(bpe);
    const pieces = new Set([...vocab.words, ...vocab.openers, ...vocab.punctuation]);
    expect(text.split(/(?=[ .,])/).every((piece) => pieces.has(piece))).toBe(true);
    expect(bpe.count(text)).toBe(500);
    // What the same profile sent before target.tokenizer sized prompts: 500 o200k tokens, more of the model's.
    const o200kText = contentOf((workloadOf(profile, o200kTokenizer()).next(0).body.messages as ChatMessage[])[0]!);
    expect(countTokens(o200kText)).toBe(500);
    expect(bpe.count(o200kText)).toBeGreaterThan(550);
  });

  it('stay exact over many windows of a length distribution, with and without a shared prefix', () => {
    for (const tokenizer of [bpe, wordLevel]) {
      for (const prefix of [0, 33]) {
        const workload = workloadOf(
          profileOf(
            `    prompt: { input_tokens: { dist: uniform, min: 1, max: 3000 }, shared_prefix_tokens: ${prefix} }\n`,
          ),
          tokenizer,
        );
        for (let i = 0; i < 120; i++) {
          const plan = workload.next(i);
          expect(tokensIn(tokenizer, plan.body.messages), `${tokenizer.name} prefix ${prefix} request ${i}`).toBe(
            plan.expectedInputTokens,
          );
        }
      }
    }
  });

  it('count the system prompt and the shared prefix in it, and they add up', () => {
    const system = 'You are a helpful assistant. Answer with the data, briefly.';
    const workload = workloadOf(
      profileOf(`    prompt: { input_tokens: 40, shared_prefix_tokens: 300, system: "${system}" }\n`),
      bpe,
    );
    const a = workload.next(0);
    const b = workload.next(1);
    const [sysA, userA] = a.body.messages as ChatMessage[];
    expect(sysA).toEqual({ role: 'system', content: system });
    expect(bpe.count(system)).not.toBe(countTokens(system));
    expect(a.expectedInputTokens).toBe(bpe.count(system) + 300 + 40);
    expect(tokensIn(bpe, a.body.messages)).toBe(a.expectedInputTokens);
    expect(tokensIn(bpe, b.body.messages)).toBe(b.expectedInputTokens);
    // The first 300 tokens are the same text in every request, and exactly 300 of its tokens.
    const userB = (b.body.messages as ChatMessage[])[1]!;
    const shared = commonPrefix(contentOf(userA!), contentOf(userB));
    const prefix = bpe.decode(bpe.encode(contentOf(userA!)).slice(0, 300));
    expect(shared.startsWith(prefix)).toBe(true);
    expect(bpe.count(prefix)).toBe(300);
  });

  it('are deterministic for (seed, group, index), like the default ones', () => {
    const yaml = '    models: [m1, m2]\n    prompt: { input_tokens: { dist: lognormal, mean: 200, stddev: 80 } }\n';
    const forward = [0, 1, 2].map((i) => workloadOf(profileOf(yaml), bpe).next(i));
    const again = workloadOf(profileOf(yaml), bpe);
    expect([2, 1, 0].map((i) => again.next(i)).reverse()).toEqual(forward);
    expect(workloadOf(profileOf(yaml), bpe, 1).next(0).expectedInputTokens).toBe(forward[0]!.expectedInputTokens);
  });
});

describe('dataset prompts in a named tokenizer', () => {
  it('are counted with it, system prompt and shared prefix included', () => {
    const profile = resolveGroupModels(
      resolveProfileText(
        'scenarios:\n  - name: d\n    requests: 5\n    prompt: { dataset: { path: prompts.jsonl, field: text }, system: Be terse., shared_prefix_tokens: 16 }\n',
        resolve(FIXTURES, 'inline.yaml'),
      ),
      'm',
    );
    const named = workloadOf(profile, bpe);
    const o200k = workloadOf(profile, o200kTokenizer());
    let differ = 0;
    for (let i = 0; i < 4; i++) {
      const plan = named.next(i);
      expect(plan.expectedInputTokens).toBe(tokensIn(bpe, plan.body.messages));
      if (plan.expectedInputTokens !== o200k.next(i).expectedInputTokens) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  });
});

describe('a tokenizer the pieces cannot be exact in', () => {
  it('is a profile error when too few words are one token (a character-level tokenizer)', () => {
    const chars = fakeTokenizer('chars', (text) => [...text]);
    expect(() => workloadOf(profileOf('    prompt: { input_tokens: 10 }\n'), chars)).toThrow(
      /target\.tokenizer chars: only 0 of \d+ common English words/,
    );
    // A dataset needs no pieces: it is only counted.
    const dataset = resolveGroupModels(
      resolveProfileText(
        'scenarios:\n  - name: d\n    requests: 1\n    prompt: { dataset: { path: prompts.jsonl, field: text } }\n',
        resolve(FIXTURES, 'inline.yaml'),
      ),
      'm',
    );
    const plan = workloadOf(dataset, chars).next(0);
    expect(plan.expectedInputTokens).toBe(tokensIn(chars, plan.body.messages));
  });

  it('is a profile error, found when the workload is built, when merges cross word boundaries', () => {
    // One token per word, except that a word repeated right after itself merges into the previous token.
    const merging = fakeTokenizer('merging', (text) =>
      text.split(/(?=[ .,])/).filter((piece, i, all) => piece !== '' && (i === 0 || piece !== all[i - 1])),
    );
    expect(() => workloadOf(profileOf('    prompt: { input_tokens: 10 }\n'), merging)).toThrow(
      /target\.tokenizer merging: cannot build token-exact prompts \(16384 one-token pieces encode to \d+ tokens\)/,
    );
  });
});

describe('the workload hash', () => {
  it('includes the tokenizer.json content when target.tokenizer is set, and only then', () => {
    const scenario = 'scenarios:\n  - name: s\n    requests: 1\n    prompt: { input_tokens: 8 }\n';
    const of = (target: string) => resolveProfileText(`${target}${scenario}`, resolve(FIXTURES, 'inline.yaml'));
    const plain = of('');
    const withBpe = of(`target: { tokenizer: ${JSON.stringify(resolve(TOKENIZERS, 'tiny-bytelevel-bpe.json'))} }\n`);
    const withWordLevel = of(`target: { tokenizer: ${JSON.stringify(resolve(TOKENIZERS, 'tiny-wordlevel.json'))} }\n`);
    expect(workloadHash(withBpe)).not.toBe(workloadHash(plain));
    expect(workloadHash(withBpe)).not.toBe(workloadHash(withWordLevel));
    expect(workloadHashWithoutModels(withBpe)).not.toBe(workloadHashWithoutModels(plain));
    // The same file through another path (another checkout) is the same workload.
    const dir = mkdtempSync(join(tmpdir(), 'inferbench-tokenizer-copy-'));
    try {
      const copy = join(dir, 'tokenizer.json');
      copyFileSync(resolve(TOKENIZERS, 'tiny-bytelevel-bpe.json'), copy);
      expect(workloadHash(of(`target: { tokenizer: ${JSON.stringify(copy)} }\n`))).toBe(workloadHash(withBpe));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('building a workload with a named tokenizer', () => {
  it('costs a one-off check at creation and nothing per request (loose bounds; see the report for the figures)', () => {
    const profile = profileOf(
      '    prompt: { input_tokens: { dist: uniform, min: 100, max: 8000 }, shared_prefix_tokens: 200 }\n',
    );
    let start = performance.now();
    const workload = workloadOf(profile, bpe);
    const buildMs = performance.now() - start;
    workload.next(0);
    start = performance.now();
    for (let i = 1; i <= 500; i++) workload.next(i);
    const perRequestMs = (performance.now() - start) / 500;
    // ~0.01 ms per request on an idle machine (a window of the pool); 2 ms only fails if something tokenizes per request.
    expect(perRequestMs).toBeLessThan(2);
    expect(buildMs).toBeLessThan(5_000);
  });
});

describe('the check of a named tokenizer', () => {
  it('encodes its 16,384 checked pieces once per tokenizer, not once per group', () => {
    // bpe behind a wrapper of its own (a fresh tokenizer), recording the longest text each workload counts.
    let longest = 0;
    const recorded: EncodingTokenizer = {
      name: 'recorded',
      count: (text) => {
        longest = Math.max(longest, text.split(/(?=[ .,])/).length);
        return bpe.count(text);
      },
      encode: (text) => bpe.encode(text),
      decode: (ids) => bpe.decode(ids),
    };
    const profile = profileOf('    models: [m1, m2, m3]\n    prompt: { input_tokens: 500 }\n');
    const longestOf = (group: number): number => {
      longest = 0;
      workloadOf(profile, recorded, group);
      return longest;
    };
    expect(longestOf(0)).toBeGreaterThanOrEqual(16_384);
    // The next groups check only their own texts (at most the 500 pieces they ask for, and an opener).
    expect(longestOf(1)).toBeLessThanOrEqual(501);
    expect(longestOf(2)).toBeLessThanOrEqual(501);
    // Prompts are what a tokenizer checked afresh gives.
    expect(workloadOf(profile, recorded, 2).next(3)).toEqual(workloadOf(profile, bpe, 2).next(3));
  });
});

function fakeTokenizer(name: string, split: (text: string) => string[]): EncodingTokenizer {
  const pieces: string[] = [];
  const idOf = (piece: string): number => {
    const at = pieces.indexOf(piece);
    return at >= 0 ? at : pieces.push(piece) - 1;
  };
  return {
    name,
    count: (text) => split(text).length,
    encode: (text) => split(text).map(idOf),
    decode: (ids) => ids.map((id) => pieces[id] ?? '').join(''),
  };
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
