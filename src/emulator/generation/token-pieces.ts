/**
 * Fast, exact token counting and splitting with the real tokenizer (o200k_base), for the emulator's hot
 * path. tiktoken encodes each pretoken (a match of the encoding's split pattern) on its own, so the tokens
 * of a text are the concatenation of the tokens of its pretokens. We split once with the same pattern and
 * remember each pretoken's result in a bounded map: prompts repeat the same words, so almost every
 * pretoken is a map hit and a 2,000-token prompt counts in a fraction of a millisecond (js-tiktoken's
 * `encode` needs one to two milliseconds for it).
 *
 * Text is treated as ordinary text: "<|endoftext|>" in a user message counts as the pieces it is made of,
 * as a real service counts it, instead of throwing as `encode` does for special tokens.
 */
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { decodeTokens, encodeTokens } from '../../util/tokenizer.js';

/** Pretoken -> its token pieces. Cleared when full: bounded memory whatever the traffic. */
const MAX_CACHED_PRETOKENS = 50_000;
const piecesByPretoken = new Map<string, readonly string[]>();

const splitPattern = new RegExp(o200kBase.pat_str, 'gu');

/**
 * The token pieces of one pretoken: each id decoded on its own. When a multi-byte character spans two
 * tokens, the first gets '' and the one that completes the character carries it, so the pieces always
 * join to the pretoken and there is still exactly one piece per token.
 */
function piecesOfPretoken(pretoken: string): readonly string[] {
  const ids = encodeTokens(pretoken);
  if (ids.length === 1) return [pretoken];
  const pieces = ids.map((id) => decodeTokens([id]));
  if (pieces.join('') === pretoken) return pieces;
  const exact: string[] = [];
  let emitted = 0;
  for (let i = 0; i < ids.length; i++) {
    const prefix = decodeTokens(ids.slice(0, i + 1));
    if (prefix.endsWith('\uFFFD') && i < ids.length - 1) {
      exact.push('');
      continue;
    }
    exact.push(prefix.slice(emitted));
    emitted = prefix.length;
  }
  return exact;
}

/**
 * js-tiktoken's byte-pair merge is quadratic in the pretoken's length (about 100 ms for 1,000 letters),
 * so a pathological pretoken (a run of hundreds of letters or spaces with nothing in between) is not
 * merged: it is cut into 4-character pieces, roughly what BPE gives for such runs. Exactness is lost only
 * there, and one odd request can never stall the server.
 */
const MAX_MERGED_PRETOKEN_LENGTH = 256;
const PATHOLOGICAL_PIECE_LENGTH = 4;
/** Longer pretokens are rare and not worth keeping in memory. */
const MAX_CACHED_PRETOKEN_LENGTH = 64;

function cachedPieces(pretoken: string): readonly string[] {
  if (pretoken.length > MAX_CACHED_PRETOKEN_LENGTH) {
    if (pretoken.length <= MAX_MERGED_PRETOKEN_LENGTH) return piecesOfPretoken(pretoken);
    const pieces: string[] = [];
    for (let at = 0; at < pretoken.length; at += PATHOLOGICAL_PIECE_LENGTH)
      pieces.push(pretoken.slice(at, at + PATHOLOGICAL_PIECE_LENGTH));
    return pieces;
  }
  let pieces = piecesByPretoken.get(pretoken);
  if (pieces === undefined) {
    pieces = piecesOfPretoken(pretoken);
    if (piecesByPretoken.size >= MAX_CACHED_PRETOKENS) piecesByPretoken.clear();
    piecesByPretoken.set(pretoken, pieces);
  }
  return pieces;
}

/**
 * Number of tokens of `text`: the tokenizer's count of it as ordinary text (exact unless it holds a
 * pretoken longer than 256 characters, see above).
 */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  splitPattern.lastIndex = 0;
  for (let match = splitPattern.exec(text); match !== null; match = splitPattern.exec(text)) {
    count += cachedPieces(match[0]).length;
  }
  return count;
}

/** Appends the token pieces of `text` to `out` (one string per token; they join back to `text`). */
export function appendTextPieces(text: string, out: string[]): string[] {
  splitPattern.lastIndex = 0;
  for (let match = splitPattern.exec(text); match !== null; match = splitPattern.exec(text)) {
    for (const piece of cachedPieces(match[0])) out.push(piece);
  }
  return out;
}

/** The token pieces of `text`. */
export function textPieces(text: string): string[] {
  return appendTextPieces(text, []);
}
