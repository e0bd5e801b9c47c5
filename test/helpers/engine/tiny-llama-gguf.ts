/**
 * A seeded tiny llama-architecture model as a GGUF file, generated rather than downloaded: random weights
 * (seeded with util/rng.ts, so the same options give the same bytes), the real byte-level BPE vocabulary of
 * test/fixtures/tokenizers/tiny-bytelevel-bpe.json plus the ChatML specials, and a ChatML chat template.
 * Its size is a parameter: a test takes the ~200k-parameter default, a benchmark a larger one.
 *
 * Layout (GGUF v3): @huggingface/gguf's serializeGgufMetadata writes the magic, version, counts and the
 * key/values (alignment 1: unpadded); the tensor infos follow, written here (name as u64 length + bytes,
 * n_dims u32, dims u64 innermost first, type u32 (0 = F32), offset u64 from the data start), then zero
 * padding to 32 bytes and the little-endian F32 data, each tensor starting on a 32-byte boundary.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type GGUFTypedMetadata, GGUFValueType as T, serializeGgufMetadata } from '@huggingface/gguf';
import { createRng } from '../../../src/util/rng.js';

/** The tokenizer fixture the model's vocabulary is taken from (the client's `target.tokenizer` in tests). */
export const TINY_BPE_TOKENIZER = resolve(
  import.meta.dirname,
  '..',
  '..',
  'fixtures',
  'tokenizers',
  'tiny-bytelevel-bpe.json',
);

/** The ChatML specials added after the fixture's vocabulary (control tokens, like its <|endoftext|>). */
export const CHATML_SPECIALS = ['<|im_start|>', '<|im_end|>'] as const;

/** The chat template stored in the file (ChatML, as Qwen and many others ship it). */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface TinyLlamaOptions {
  /** Embedding width (a multiple of `heads`); default 64. */
  readonly embedding?: number;
  /** Transformer blocks; default 2. */
  readonly layers?: number;
  /** Attention heads (key/value heads too); default 4. */
  readonly heads?: number;
  /** Feed-forward width; default 4 x embedding. */
  readonly feedForward?: number;
  /** The context length the model declares (llama.context_length); default 4096. */
  readonly contextLength?: number;
  /** Seed of the weights; default 1. */
  readonly seed?: number;
  /**
   * The byte-level BPE tokenizer.json the vocabulary is taken from; default TINY_BPE_TOKENIZER (the path is
   * given by `npm run bench`, whose build of this file lies in dist-bench/, away from the fixture).
   */
  readonly tokenizer?: string;
}

export interface TinyLlamaModel {
  readonly path: string;
  readonly bytes: number;
  readonly parameters: number;
  /** Vocabulary size: the fixture's tokens, then the ChatML specials. */
  readonly vocabulary: number;
}

interface TensorSpec {
  readonly name: string;
  /** Innermost dimension first, as GGUF stores it. */
  readonly shape: readonly number[];
}

const ALIGNMENT = 32;
const align = (n: number): number => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

interface FixtureTokenizer {
  readonly added_tokens: readonly { readonly id: number; readonly content: string; readonly special: boolean }[];
  readonly model: { readonly vocab: Readonly<Record<string, number>>; readonly merges: readonly string[] };
}

function vocabulary(path: string): { tokens: string[]; types: number[]; merges: readonly string[]; endOfText: number } {
  const fixture = JSON.parse(readFileSync(path, 'utf8')) as FixtureTokenizer;
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(fixture.model.vocab)) tokens[id] = token;
  const specialIds = new Set(fixture.added_tokens.filter((t) => t.special).map((t) => t.id));
  for (const special of CHATML_SPECIALS) {
    specialIds.add(tokens.length);
    tokens.push(special);
  }
  // llama.cpp token types: 1 normal, 3 control (never produced by tokenising ordinary text).
  const types = tokens.map((_, id) => (specialIds.has(id) ? 3 : 1));
  const endOfText = fixture.added_tokens.find((t) => t.content === '<|endoftext|>')?.id ?? 0;
  return { tokens, types, merges: fixture.model.merges, endOfText };
}

function tensorSpecs(embedding: number, layers: number, feedForward: number, vocab: number): TensorSpec[] {
  const specs: TensorSpec[] = [
    { name: 'token_embd.weight', shape: [embedding, vocab] },
    { name: 'output_norm.weight', shape: [embedding] },
    { name: 'output.weight', shape: [embedding, vocab] },
  ];
  for (let i = 0; i < layers; i++) {
    specs.push(
      { name: `blk.${i}.attn_norm.weight`, shape: [embedding] },
      { name: `blk.${i}.attn_q.weight`, shape: [embedding, embedding] },
      { name: `blk.${i}.attn_k.weight`, shape: [embedding, embedding] },
      { name: `blk.${i}.attn_v.weight`, shape: [embedding, embedding] },
      { name: `blk.${i}.attn_output.weight`, shape: [embedding, embedding] },
      { name: `blk.${i}.ffn_norm.weight`, shape: [embedding] },
      { name: `blk.${i}.ffn_gate.weight`, shape: [embedding, feedForward] },
      { name: `blk.${i}.ffn_up.weight`, shape: [embedding, feedForward] },
      { name: `blk.${i}.ffn_down.weight`, shape: [feedForward, embedding] },
    );
  }
  return specs;
}

function tensorInfo(spec: TensorSpec, offset: number): Buffer {
  const name = Buffer.from(spec.name, 'utf8');
  const info = Buffer.alloc(8 + name.length + 4 + 8 * spec.shape.length + 4 + 8);
  let at = info.writeBigUInt64LE(BigInt(name.length), 0);
  at += name.copy(info, at);
  at = info.writeUInt32LE(spec.shape.length, at);
  for (const dim of spec.shape) at = info.writeBigUInt64LE(BigInt(dim), at);
  at = info.writeUInt32LE(0, at); // F32
  info.writeBigUInt64LE(BigInt(offset), at);
  return info;
}

/** Writes the model to `<dir>/tiny-llama-<size>-<seed>.gguf` (synchronously: tens of milliseconds). */
export function writeTinyLlama(dir: string, options: TinyLlamaOptions = {}): TinyLlamaModel {
  const embedding = options.embedding ?? 64;
  const layers = options.layers ?? 2;
  const heads = options.heads ?? 4;
  const feedForward = options.feedForward ?? 4 * embedding;
  const contextLength = options.contextLength ?? 4096;
  const seed = options.seed ?? 1;
  if (embedding % heads !== 0) throw new Error(`embedding ${embedding} is not a multiple of heads ${heads}`);
  const vocab = vocabulary(options.tokenizer ?? TINY_BPE_TOKENIZER);
  const specs = tensorSpecs(embedding, layers, feedForward, vocab.tokens.length);
  const u32 = (value: number) => ({ value, type: T.UINT32 });
  const str = (value: string) => ({ value, type: T.STRING });
  const metadata: GGUFTypedMetadata = {
    version: { value: 3, type: T.UINT32 },
    tensor_count: { value: BigInt(specs.length), type: T.UINT64 },
    kv_count: { value: 0n, type: T.UINT64 },
    'general.architecture': { value: 'llama', type: T.STRING },
    'general.name': str(`inferbench-tiny-llama-${embedding}x${layers}`),
    'general.alignment': u32(ALIGNMENT),
    'llama.context_length': u32(contextLength),
    'llama.embedding_length': u32(embedding),
    'llama.block_count': u32(layers),
    'llama.feed_forward_length': u32(feedForward),
    'llama.attention.head_count': u32(heads),
    'llama.attention.head_count_kv': u32(heads),
    'llama.rope.dimension_count': u32(embedding / heads),
    'llama.attention.layer_norm_rms_epsilon': { value: 1e-5, type: T.FLOAT32 },
    'llama.vocab_size': u32(vocab.tokens.length),
    'tokenizer.ggml.model': { value: 'gpt2', type: T.STRING },
    'tokenizer.ggml.pre': str('gpt-2'),
    'tokenizer.ggml.tokens': { value: vocab.tokens, type: T.ARRAY, subType: T.STRING },
    'tokenizer.ggml.token_type': { value: vocab.types, type: T.ARRAY, subType: T.INT32 },
    'tokenizer.ggml.merges': { value: [...vocab.merges], type: T.ARRAY, subType: T.STRING },
    'tokenizer.ggml.bos_token_id': u32(vocab.endOfText),
    // <|im_end|> ends an assistant turn.
    'tokenizer.ggml.eos_token_id': u32(vocab.tokens.length - 1),
    'tokenizer.ggml.add_bos_token': { value: false, type: T.BOOL },
    'tokenizer.chat_template': str(CHATML_TEMPLATE),
  };
  const head = serializeGgufMetadata(metadata, { alignment: 1 });
  const infos: Buffer[] = [];
  const offsets: number[] = [];
  let dataBytes = 0;
  for (const spec of specs) {
    offsets.push(dataBytes);
    infos.push(tensorInfo(spec, dataBytes));
    dataBytes += align(4 * spec.shape.reduce((a, b) => a * b, 1));
  }
  const dataStart = align(head.length + infos.reduce((sum, info) => sum + info.length, 0));
  const file = Buffer.alloc(dataStart + dataBytes);
  file.set(head, 0);
  let at = head.length;
  for (const info of infos) at += info.copy(file, at);
  const data = new Float32Array(file.buffer, file.byteOffset + dataStart, dataBytes / 4);
  const rng = createRng(seed);
  let parameters = 0;
  specs.forEach((spec, i) => {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const base = (offsets[i] as number) / 4;
    parameters += count;
    // Norm weights 1; matrices uniform in +-0.1 (random text, but finite activations at any depth).
    if (spec.shape.length === 1) data.fill(1, base, base + count);
    else for (let j = 0; j < count; j++) data[base + j] = (rng.next() - 0.5) * 0.2;
  });
  const path = join(dir, `tiny-llama-${embedding}x${layers}x${feedForward}-${seed}.gguf`);
  writeFileSync(path, file);
  return { path, bytes: file.length, parameters, vocabulary: vocab.tokens.length };
}

/**
 * The ids of the fixture's whole-word tokens (" the", " model", ...) that `encode` gives back as themselves
 * alone and, being whole words behind a space, in any sequence: a logit bias of +100 on them makes the
 * engine answer only with them, so the answer retokenises into exactly the tokens generated and runs to
 * its token limit. `tokenizer`: the fixture's path (given by `npm run bench`, as to writeTinyLlama).
 */
export function wholeWordTokens(
  encode: (text: string) => readonly number[],
  tokenizer: string = TINY_BPE_TOKENIZER,
): number[] {
  const vocab = (JSON.parse(readFileSync(tokenizer, 'utf8')) as { model: { vocab: Record<string, number> } }).model
    .vocab;
  return Object.entries(vocab)
    .filter(([token, id]) => /^Ġ[a-z]{2,}$/.test(token) && encode(` ${token.slice(1)}`).join() === String(id))
    .map(([, id]) => id);
}
